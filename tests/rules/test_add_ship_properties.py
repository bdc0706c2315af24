"""G-SHIP-1: every command, aimed at ships the GM added mid-game, either applies or is
refused with a RulesError (a code and a sentence), never another exception; the state given to
`apply` is left as it was, and every view still renders."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules import (
    COMMANDS,
    RulesError,
    apply,
    display_view,
    gm_view,
    parse_command,
    station_view,
)
from app.rules import commands as c
from app.rules.bot import propose
from app.rules.content import MODULES, QUALITIES
from app.rules.core.phases import ACTIONS, actions_for

from .builders import CAT, GM, NOW, dump, game, run, started

State = dict[str, Any]
Draw = Callable[[st.SearchStrategy[Any]], Any]


def with_added_ships(
    modules: tuple[str, ...], ship_class: str, phase_started: bool, seed: int
) -> State:
    """Skirmish with a players' ship and an NPC ship added by the GM, the players' one seated
    and, once Orders are open, each of its stations with an order the bot proposes."""
    state = game("skirmish", modules=modules)
    state = started(state) if phase_started else state
    state = run(
        state,
        c.AddShip(
            ship_class=ship_class, name="Second Wave", side="players", x=2, y=2, crew="players"
        ),
        c.AddShip(ship_class=ship_class, name="Late Raider", side="raiders", x=9, y=9, now=NOW),
    )
    wave = state["ships"]["second-wave"]
    for station in wave["stations"]:
        seating = c.SeatCrew(ship=wave["id"], station=station, seat=f"w-{station}", name="W")
        state = run(state, seating)
    if phase_started:
        rng = random.Random(seed)
        for station in sorted(wave["stations"]):
            actor = c.Actor.for_seat(f"w-{station}")
            state = run(state, propose(state, wave["id"], station, rng, actor, now=NOW))
    return state


# The commands a seat gives come up more often: they are where a player's own data is read.
STATION_COMMANDS = (c.SubmitOrder, c.PassOrder, c.WithdrawOrder, c.DiscardCards, c.ChangePosition)


def pools(state: State, ship_id: str, station_id: str) -> dict[str, st.SearchStrategy[Any]]:
    """Values for command fields by name, drawn from what the added ships hold (mostly from one
    station's own hand and actions) so that most commands reach far into their handlers."""
    ship = state["ships"][ship_id]
    stations = sorted(ship["stations"])
    station = ship["stations"][station_id]
    hand = list(station["hand"]) or ["none"]
    ships = ["second-wave", "late-raider"]
    characters = sorted(state["characters"])
    weapons = [w["id"] for w in ship["weapons"]] or ["none"]
    small = st.integers(-1, 6)
    return {
        "ship": st.just(ship_id),
        "station": st.just(station_id) | st.sampled_from(stations),
        "override": st.none() | st.sampled_from(stations),
        "target_station": st.none() | st.sampled_from([*stations, "shields"]),
        "target": st.none() | st.sampled_from(ships),
        "action": st.sampled_from(actions_for(station["role"]) or ["pass"])
        | st.sampled_from(sorted(ACTIONS)),
        "cards": st.lists(st.sampled_from(hand), min_size=1, max_size=3, unique=True)
        | st.lists(st.sampled_from(hand), max_size=3),
        "weapons": st.lists(st.sampled_from(weapons), max_size=2),
        "weapon": st.sampled_from(weapons),
        "x": st.integers(-1, 16),
        "y": st.integers(-1, 16),
        "value": st.none() | small,
        "zone": st.none(),
        "allocations": st.dictionaries(st.sampled_from(stations), small, max_size=2),
        "seconds": st.none() | st.integers(0, 90),
        "kind": st.sampled_from(["orders", "allocation"]),
        "at": st.floats(0, 2 * NOW, allow_nan=False),
        "out": st.sampled_from(["", "fled", "surrendered"]),
        "applies": st.sampled_from(["attack", "defence", "repair", "station"]),
        "reason": st.sampled_from(["luck", " "]),
        "lasting": st.sampled_from(["turn", "combat"]),
        "modifier": st.integers(0, 40),
        "track": st.sampled_from(["hull", "shields", *stations]),
        "damage": small,
        "points": small,
        "count": small,
        "active": st.booleans(),
        "language": st.sampled_from(["en", "de", "xx", ""]),
        "on": st.booleans(),
        "auto": st.none() | st.booleans(),
        "field": st.sampled_from(["strength", "dexterity", "endurance", "armour"]),
        "character": st.sampled_from(characters),
        "medic": st.none() | st.sampled_from(characters),
        "effect": st.none() | small,
        "ship_class": st.sampled_from(sorted(CAT.ships)),
        "name": st.sampled_from(["Third Wave", "Second Wave", ""]),
        "side": st.sampled_from(["players", "raiders"]),
        "crew": st.sampled_from(["npc", "players"]),
        "seat": st.sampled_from(["w-pilot", "newcomer"]),
        "text": st.just("Hold on."),
        "to": st.sampled_from(["all", ship_id, f"{ship_id}/{stations[0]}"]),
        "module": st.sampled_from(MODULES),
        "quality": st.none() | st.sampled_from(QUALITIES),
        "pass_all": st.booleans(),
        "seed": st.integers(0, 1_000_000),
        "cue": st.sampled_from([cue["id"] for cue in state.get("cues", [])] + ["no-such-cue"]),
        "sound": st.sampled_from(["alarm", "chime", "kazoo"]),
        # NextBattle needs the service (a scenario); the engine alone refuses it with a code.
        "scenario": st.sampled_from(["torpedo-run", "no-such-scenario"]),
        # Fields whose values depend on the command.
        "SetSetting.name": st.sampled_from(["orders_seconds", "close_when_all_ready", "sound"]),
        "SetSetting.value": st.booleans() | st.integers(0, 120),
        "SetShipValue.field": st.sampled_from(["defence", "name"]),
        "SetShipValue.value": st.sampled_from(["Renamed", 3, -1]),
        "SetCharacteristic.value": small,
        # TakeRoster (G-CAMP-1): a campaign's roster, aboard the added ships.
        "ships": st.dictionaries(
            st.sampled_from([*ships, "no-such-ship"]),
            st.dictionaries(
                st.sampled_from(
                    [
                        "hull",
                        "shields",
                        f"station.{stations[0]}",
                        f"weapon.{weapons[0]}.loaded",
                        "part.starmada.thrust",
                        "station.none",
                        "bogus",
                    ]
                ),
                small,
                max_size=3,
            ),
            max_size=2,
        ),
        "names": st.dictionaries(st.sampled_from(ships), st.sampled_from(["Zuversicht", ""])),
        "classes": st.dictionaries(
            st.sampled_from(ships), st.sampled_from([*sorted(CAT.ships), "no-such-class"])
        ),
        "characters": st.dictionaries(
            st.sampled_from([*characters, "nobody"]),
            st.dictionaries(
                st.sampled_from(["strength", "strength_max", "endurance", "armour", "bogus"]), small
            ),
            max_size=2,
        ),
        "absent": st.lists(st.sampled_from([*characters, "nobody"]), max_size=2),
    }


def command_for(draw: Draw, state: State) -> tuple[dict[str, Any], c.Actor]:
    """A command of any type and who gives it, as the API would take it."""
    every = sorted(COMMANDS.values(), key=lambda k: k.__name__)
    cls = draw(st.sampled_from(STATION_COMMANDS) | st.sampled_from(every))
    stations = sorted(state["ships"]["second-wave"]["stations"])
    actor = draw(st.sampled_from([GM, *(c.Actor.for_seat(f"w-{s}") for s in stations)]))
    if actor.seat is not None:  # a seat gives its own station's commands
        ship_id, station_id = "second-wave", actor.seat.removeprefix("w-")
    else:
        ship_id = draw(st.sampled_from(["second-wave", "late-raider"]))
        station_id = draw(st.sampled_from(sorted(state["ships"][ship_id]["stations"])))
    found = pools(state, ship_id, station_id)
    data: dict[str, Any] = {"type": cls.__name__}
    for f in dataclasses.fields(cls):
        if f.name in ("actor", "now"):
            continue
        optional = f.default is not dataclasses.MISSING
        optional = optional or f.default_factory is not dataclasses.MISSING
        if optional and draw(st.booleans()):
            continue
        data[f.name] = draw(found.get(f"{cls.__name__}.{f.name}", found[f.name]))
    return data, actor


@pytest.mark.slow
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(
    modules=st.sets(st.sampled_from(MODULES)).map(lambda m: tuple(sorted(m))),
    ship_class=st.sampled_from(sorted(CAT.ships)),
    phase_started=st.booleans(),
    seed=st.integers(0, 2**16),
    data=st.data(),
)
def test_g_ship_1_every_command_on_added_ships_applies_or_is_refused_with_a_code(
    modules: tuple[str, ...],
    ship_class: str,
    phase_started: bool,
    seed: int,
    data: st.DataObject,
) -> None:
    state = with_added_ships(modules, ship_class, phase_started, seed)
    for _ in range(12):
        command, actor = command_for(data.draw, state)
        before = dump(state)
        try:
            state, _ = apply(state, parse_command(command, actor, NOW))
        except RulesError as error:
            assert error.code and error.words
            assert dump(state) == before, command
        for view in (display_view(state), gm_view(state), station_view(state, "w-pilot")):
            assert view["ships"]
