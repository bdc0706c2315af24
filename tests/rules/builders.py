"""Builders for rules tests: games from the shipped scenarios with known seats, hands and dice.

Tests set the parts of the state they care about directly (it is plain data), then drive the
engine only through `apply`, so every check runs the real code path.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import pytest

from app.content import load_catalogue
from app.rules import Actor, RulesError, apply, new_game, rng
from app.rules import commands as c
from app.rules.core.rng import Dice

CAT = load_catalogue()
GM = Actor.gm()
SYSTEM = Actor.system()
NOW = 1000.0
State = dict[str, Any]
Events = list[dict[str, Any]]

# Characters with no armour, so every injury lands (G-DMG-9).
UNARMOURED = ("amara-lind", "ilse-marrow", "kofi-adeyemi")


def seat_of(ship: str, station: str) -> str:
    return f"{ship}-{station}"


def seat(ship: str, station: str) -> Actor:
    return Actor.for_seat(seat_of(ship, station))


def game(
    scenario: str = "skirmish",
    *,
    seed: int | rng.Seed = 1,
    modules: tuple[str, ...] = (),
    crew: bool = True,
    characters: dict[str, str] | None = None,
    auto_close: bool = False,
) -> State:
    """A game in Downtime with every player station seated (seat id "ship-station"), the
    `modules` on (npc only when named) besides the scenario's others.

    `characters` maps "ship/station" to a character id; other seats have none. Orders close
    only when a test says so, unless `auto_close`.
    """
    state = new_game(CAT.scenarios[scenario], CAT, seed=seed)
    # The shipped scenarios have their NPC crews choose for themselves (module npc); a rules test
    # gives every order it means to see, so it asks for the module when it wants the tactic.
    if "npc" not in modules:
        state = run(state, c.SetModule(module="npc", on=False))
    for module in modules:
        state = run(state, c.SetModule(module=module, on=True))
    state = run(state, c.SetSetting(name="close_when_all_ready", value=auto_close))
    if crew:
        for ship in state["ships"].values():
            if ship["crew"] != "players":
                continue
            for station in ship["stations"]:
                character = (characters or {}).get(f"{ship['id']}/{station}")
                state = run(
                    state,
                    c.SeatCrew(
                        ship=ship["id"],
                        station=station,
                        seat=seat_of(ship["id"], station),
                        name=f"P {station}",
                        character=character,
                    ),
                )
    return state


def run(state: State, *commands: c.Command) -> State:
    return run_events(state, *commands)[0]


def run_events(state: State, *commands: c.Command) -> tuple[State, Events]:
    events: Events = []
    for command in commands:
        state, new = apply(state, command)
        events += new
    return state, events


def started(state: State, seconds: int = 0) -> State:
    return run(state, c.StartTurn(seconds=seconds, now=NOW))


def dump(state: State) -> str:
    return json.dumps(state, sort_keys=True)


def refused(state: State, command: c.Command, code: str) -> RulesError:
    """The command is refused with `code`, and the state given to `apply` is left as it was."""
    before = dump(state)
    with pytest.raises(RulesError) as caught:
        apply(state, command)
    assert caught.value.code == code, caught.value
    assert dump(state) == before
    return caught.value


def of_type(events: Events, kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def one(events: Events, kind: str) -> dict[str, Any]:
    found = of_type(events, kind)
    assert len(found) == 1, [e["type"] for e in events]
    return found[0]


# --- Cards ---------------------------------------------------------------------------------------


def station_card(
    state: State, ship: str, station: str, value: int, *, skip: tuple[str, ...] = ()
) -> str:
    """A card of this station's own deck and kind (not a wild card) worth `value`."""
    st = state["ships"][ship]["stations"][station]
    for card_id in sorted(st["draw"] + st["discard"] + st["hand"]):
        card = state["cards"][card_id]
        if card["value"] == value and card["kind"] != "any" and card_id not in skip:
            return str(card_id)
    raise AssertionError(f"no {value} card for {ship}/{station}")


def cards_worth(state: State, ship: str, station: str, *values: int) -> list[str]:
    chosen: list[str] = []
    for value in values:
        chosen.append(station_card(state, ship, station, value, skip=tuple(chosen)))
    return chosen


def set_hand(state: State, ship: str, station: str, cards: list[str]) -> State:
    """Put exactly these cards in the station's hand, taking them from their piles, and put the
    cards it held back on their draw piles (so no card exists twice)."""
    st = state["ships"][ship]["stations"][station]
    for card_id in list(st["hand"]):
        st["hand"].remove(card_id)
        _pile_of(state, st, card_id)["draw"].append(card_id)
    for card_id in cards:
        pile = _pile_of(state, st, card_id)
        for part in ("draw", "discard"):
            if card_id in pile[part]:
                pile[part].remove(card_id)
        st["hand"].append(card_id)
    return state


def _pile_of(state: State, station: dict[str, Any], card_id: str) -> dict[str, Any]:
    owner = state["cards"][card_id]["owner"]
    pile: dict[str, Any] = state["characters"][owner] if owner else station
    return pile


def give(state: State, ship: str, station: str, *values: int) -> list[str]:
    """Replace the hand with Station cards of these values; return their ids."""
    cards = cards_worth(state, ship, station, *values)
    set_hand(state, ship, station, cards)
    return cards


def skill_cards(state: State, character: str) -> list[str]:
    return sorted(c for c, card in state["cards"].items() if card["owner"] == character)


# --- Dice ----------------------------------------------------------------------------------------


@functools.cache
def key_for(*rolls: int | tuple[int, int]) -> bytes:
    """A generator key whose first rolls are these (ints are d6; (sides, value) for others),
    found by trying keys in turn: a keyed generator cannot be aimed any other way (G-TURN-3)."""
    wanted = [(6, r) if isinstance(r, int) else r for r in rolls]
    for n in range(1_000_000):
        key = n.to_bytes(rng.KEY_BYTES, "big")
        dice = Dice(rng.keyed(key))
        if all(dice.roll(sides) == value for sides, value in wanted):
            return key
    raise AssertionError(f"no generator key gives {rolls}")


def set_rolls(state: State, *rolls: int | tuple[int, int]) -> State:
    state["rng"] = rng.keyed(key_for(*rolls))
    return state


def next_rolls(state: State, *sides: int) -> list[int]:
    """What the game's generator will roll next, without touching the state."""
    dice = Dice(dict(state["rng"]))
    return [dice.roll(s) for s in sides]


# --- Orders --------------------------------------------------------------------------------------


def order(
    ship: str, station: str, action: str, cards: list[str] | tuple[str, ...] = (), **fields: Any
) -> c.SubmitOrder:
    """A player's order from the seat that mans the station."""
    return c.SubmitOrder(
        ship=ship,
        station=station,
        action=action,
        cards=tuple(cards),
        actor=seat(ship, station),
        now=NOW,
        **fields,
    )


def npc(ship: str, station: str, action: str, value: int = 0, **fields: Any) -> c.SubmitOrder:
    """The GM's order for a station of an NPC ship: a bare action value, no cards."""
    kinds_free = action in ("shields_up", "shields_down")
    return c.SubmitOrder(
        ship=ship,
        station=station,
        action=action,
        value=None if kinds_free else value,
        actor=GM,
        now=NOW,
        **fields,
    )


def close(state: State) -> tuple[State, Events]:
    return run_events(state, c.CloseOrders(now=NOW))


def place(state: State, ship: str, x: int, y: int) -> State:
    return run(state, c.SetPosition(ship=ship, x=x, y=y))


def damage(state: State, ship: str, track: str, points: int) -> State:
    """Set a track's damage without cascades (the GM's correction)."""
    return run(state, c.SetTrack(ship=ship, track=track, damage=points))


def shields(state: State, ship: str, active: bool) -> State:
    return run(state, c.SetShields(ship=ship, active=active))


def stations(state: State, ship: str) -> dict[str, Any]:
    return state["ships"][ship]["stations"]  # type: ignore[no-any-return]


# --- Secrets -------------------------------------------------------------------------------------


_JSON_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def strings_in(value: Any) -> set[str]:
    """Every string (keys and values) anywhere in a JSON-like value (as JSON text, escaped)."""
    return set(_JSON_STRING.findall(json.dumps(value)))


def dicts_in(value: Any) -> list[dict[str, Any]]:
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


def hands(state: State) -> dict[str, list[str]]:
    return {
        f"{ship['id']}/{st['id']}": list(st["hand"])
        for ship in state["ships"].values()
        for st in ship["stations"].values()
    }


def leaks(state: State, view: dict[str, Any], viewer: str | None) -> list[str]:
    """What a view shows that its viewer ("ship/station", or None for the display) must not see:
    another station's hand, or an order not yet revealed."""
    # Two ships of one class share card ids, so the viewer's own cards are never counted.
    own = set(hands(state).get(viewer, [])) if viewer else set()
    own |= set(state["orders"].get(viewer, {}).get("cards", [])) if viewer else set()
    hidden = {card for key, held in hands(state).items() if key != viewer for card in held} - own
    found = []
    outside = {k: v for k, v in view.items() if k != "revealed"}
    found += [f"hand card {card}" for card in sorted(hidden & strings_in(outside))]
    revealed = view.get("revealed")
    if revealed is not None:
        played = {card for o in revealed["orders"] for card in o["cards"]}
        found += [
            f"hand card {card} in the reveal"
            for card in sorted((hidden & strings_in(revealed)) - played)
        ]
        if state["phase"] == "orders" and revealed["turn"] == state["turn"]:
            found.append("this turn's orders shown before the reveal")
    for d in dicts_in(outside):
        if "action" in d and "station" in d and f"{d.get('ship')}/{d['station']}" != viewer:
            found.append(f"order of {d.get('ship')}/{d['station']}")
    if viewer is None and "hand" in strings_in(outside):
        found.append("a hand")
    return found


def said(item: dict[str, Any] | RulesError) -> str:
    """An event's, a log entry's or a refusal's words in English, as a screen shows them (a
    message that does not fit its sentence fails the test)."""
    from app.web.words import sentence

    return sentence(item.words if isinstance(item, RulesError) else item["words"])
