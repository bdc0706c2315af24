"""Zone maps (G-MAP-2, G-ZONE-1..5): the scenario data and its errors, distance in zone steps
on a map with a loop, hitting at each band, moving one or two zones, terrain costs, hazards and
cover, each played through `apply` on a small ring of zones the test lays out."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from app.rules import apply, new_game
from app.rules import commands as c
from app.rules.content import Catalogue, ContentError, Weapon, parse_scenario
from app.rules.core.state import distance, range_band
from app.web.words import sentence

from .builders import (
    CAT,
    State,
    close,
    give,
    npc,
    of_type,
    one,
    order,
    refused,
    run,
    said,
    seat_of,
    set_rolls,
    started,
)

SOURCE = "scenarios/ring.toml"
RING = ("a", "b", "c", "d", "e", "f")  # a loop: a-b-c-d-e-f-a


def ring_data(
    terrain: dict[str, dict[str, Any]] | None = None,
    kestrel: str = "a",
    rustjaw: str = "a",
    settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Six zones in a loop, each touching the one before and after; `terrain` overrides zones'
    fields (e.g. {"b": {"terrain": "difficult", "cost": 2}})."""
    zones = []
    for i, zone in enumerate(RING):
        entry: dict[str, Any] = {
            "id": zone,
            "name": f"Zone {zone.upper()}",
            "terrain": "open",
            "x": 10 + 16 * i,
            "y": 40,
            "touches": [RING[i - 1], RING[(i + 1) % len(RING)]],
        }
        entry.update((terrain or {}).get(zone, {}))
        zones.append(entry)
    return {
        "id": "ring",
        "name": "Ring",
        "description": "Six zones in a loop.",
        "settings": settings or {},
        "map": {"kind": "zones", "zones": zones},
        "ships": [
            {
                "id": "kestrel",
                "name": "Kestrel",
                "ship_class": "frigate",
                "crew": "players",
                "side": "players",
                "zone": kestrel,
                "shields_active": False,
            },
            {
                "id": "rustjaw",
                "name": "Rustjaw",
                "ship_class": "raider",
                "crew": "npc",
                "side": "raiders",
                "zone": rustjaw,
                "shields_active": False,
            },
        ],
    }


# The frigate with a Very Long gun too, so every band, Extreme included, can be fired at.
LANCE = Weapon("lance", "Spinal Lance", 2, "very_long", None)
FRIGATE = dataclasses.replace(CAT.ships["frigate"], weapons=(*CAT.ships["frigate"].weapons, LANCE))
SHIPS = {**CAT.ships, "frigate": FRIGATE}


def ring_game(**changes: Any) -> State:
    """The ring in Orders of turn 1, Kestrel's stations seated, Rustjaw an NPC."""
    scenario = parse_scenario(ring_data(**changes), SOURCE)
    catalogue = Catalogue(SHIPS, CAT.decks, CAT.characters, {scenario.id: scenario})
    state = new_game(scenario, catalogue, seed=1)
    state = run(state, c.SetSetting(name="close_when_all_ready", value=False))
    for station in state["ships"]["kestrel"]["stations"]:
        seat = seat_of("kestrel", station)
        state = run(
            state, c.SeatCrew(ship="kestrel", station=station, seat=seat, name=f"P {station}")
        )
    return started(state)


def content_error(data: dict[str, Any]) -> ContentError:
    with pytest.raises(ContentError) as caught:
        parse_scenario(data, SOURCE)
    assert caught.value.file == SOURCE
    return caught.value


# --- G-ZONE-1: the map is scenario data, checked when it loads ------------------------------------


def test_g_zone_1_a_scenario_chooses_a_zone_map_with_terrain_cover_and_drawing() -> None:
    scenario = parse_scenario(
        ring_data(terrain={"c": {"terrain": "hazardous", "cost": 2, "cover": True}}), SOURCE
    )
    assert scenario.zone_map is not None
    zone_c = scenario.zone_map.by_id()["c"]
    assert (zone_c.terrain, zone_c.cost, zone_c.cover, zone_c.x, zone_c.touches) == (
        "hazardous",
        2,
        True,
        42,
        ("b", "d"),
    )
    assert [s.zone for s in scenario.ships] == ["a", "a"]
    grid = dict(ring_data(), map={"kind": "grid"})
    grid["ships"] = [{**s, "x": 1, "y": 1} for s in grid["ships"]]
    for ship in grid["ships"]:
        del ship["zone"]
    assert parse_scenario(grid, SOURCE).zone_map is None  # rule: G-MAP-2


def test_g_zone_1_a_zone_touching_an_unknown_zone_names_the_field() -> None:
    data = ring_data(terrain={"b": {"touches": ["a", "c", "nowhere"]}})
    error = content_error(data)
    assert error.field == "map.zones[1].touches[2]"
    assert "no zone 'nowhere'" in sentence(error.message)


def test_g_zone_1_touching_goes_both_ways() -> None:
    error = content_error(ring_data(terrain={"b": {"touches": ["a", "c", "e"]}}))
    assert error.field == "map.zones[1].touches[2]"
    assert "touching goes both ways" in sentence(error.message)


def test_g_zone_1_a_ship_placed_outside_every_zone_names_the_ship() -> None:
    error = content_error(ring_data(rustjaw="beyond"))
    assert error.field == "ships[1].zone"
    assert "no zone 'beyond'" in sentence(error.message)


def test_g_zone_1_a_map_that_is_not_connected_is_refused() -> None:
    # Cut the loop twice (between b-c and e-f): {c, d, e} cannot be reached from a.
    data = ring_data(
        terrain={
            "b": {"touches": ["a"]},
            "c": {"touches": ["d"]},
            "e": {"touches": ["d"]},
            "f": {"touches": ["a"]},
        }
    )
    error = content_error(data)
    assert error.field == "map.zones"
    said = sentence(error.message)
    assert "not connected" in said and "Zone C, Zone D, Zone E" in said


@pytest.mark.parametrize(
    "zone, field, words",
    [
        ({"terrain": "difficult"}, "map.zones[1].cost", "Fill this in"),
        ({"terrain": "difficult", "cost": 4}, "map.zones[1].cost", "from 1 to 3"),
        ({"terrain": "open", "cost": 1}, "map.zones[1].cost", "costs nothing"),
        ({"terrain": "swamp"}, "map.zones[1].terrain", "not one of"),
        ({"x": 999}, "map.zones[1].x", "from 0 to"),
    ],
)
def test_g_zone_1_terrain_and_drawing_are_checked(
    zone: dict[str, Any], field: str, words: str
) -> None:
    error = content_error(ring_data(terrain={"b": zone}))
    assert error.field == field
    assert words in sentence(error.message)


def test_g_zone_1_ships_on_a_zone_map_stand_in_zones_not_squares() -> None:
    data = ring_data()
    data["ships"][0]["x"] = 3
    error = content_error(data)
    assert error.field == "ships[0].x"


def test_g_zone_1_the_gm_places_a_ship_in_any_zone_and_squares_are_refused() -> None:
    state = ring_game()
    state, events = apply(state, c.PlaceInZone(ship="rustjaw", zone="d"))
    assert state["ships"]["rustjaw"]["zone"] == "d"
    assert one(events, "ShipPlaced")["zone"] == "d"
    assert distance(state["ships"]["kestrel"], state["ships"]["rustjaw"]) == 3
    refused(state, c.PlaceInZone(ship="rustjaw", zone="nowhere"), "NO_SUCH_ZONE")
    refused(state, c.SetPosition(ship="rustjaw", x=1, y=1), "ZONE_MAP")


# --- G-ZONE-2: range in zone steps, and its bands -------------------------------------------------


@pytest.mark.parametrize(
    "zone, steps, band",
    [("a", 0, "Close"), ("b", 1, "Medium"), ("c", 2, "Long"), ("d", 3, "Extreme")],
)
def test_g_zone_2_distance_is_the_fewest_steps_round_the_loop(
    zone: str, steps: int, band: str
) -> None:
    state = ring_game(rustjaw=zone)
    kestrel, rustjaw = state["ships"]["kestrel"], state["ships"]["rustjaw"]
    assert distance(kestrel, rustjaw) == distance(rustjaw, kestrel) == steps
    found = range_band(kestrel, rustjaw)
    assert found is not None and found.label == band.lower()


def test_g_zone_2_the_short_way_round_the_loop_counts() -> None:
    # e is four steps from a one way round (a-b-c-d-e) and two the other (a-f-e).
    state = ring_game(rustjaw="e")
    assert distance(state["ships"]["kestrel"], state["ships"]["rustjaw"]) == 2
    state = run(state, c.PlaceInZone(ship="kestrel", zone="c"))
    assert distance(state["ships"]["kestrel"], state["ships"]["rustjaw"]) == 2  # c-d-e


@pytest.mark.parametrize(
    "zone, needed, band",
    [
        ("a", 2, "Close"),
        ("b", 3, "Medium"),
        ("c", 5, "Long"),
        ("e", 5, "Long"),
        ("d", 7, "Extreme"),
    ],
)
@pytest.mark.parametrize("margin", [0, -1])
def test_g_zone_2_hitting_needs_the_range_value_of_the_zone_band(
    zone: str, needed: int, band: str, margin: int
) -> None:
    state = ring_game(rustjaw=zone)
    defence = state["ships"]["rustjaw"]["defence"]
    roll = 3
    value = needed + margin + defence - roll  # score = value + d6 - Defence
    cards = give(state, "kestrel", "weapons", *_split(value))
    state = run(
        state, order("kestrel", "weapons", "attack", cards, target="rustjaw", weapons=("lance",))
    )
    state, events = close(set_rolls(state, roll))
    attack = one(events, "AttackResolved")
    assert attack["needed"] == needed
    assert attack["score"] == needed + margin
    assert attack["hit"] is (margin == 0)
    assert f"({band}, " in said(attack)


@pytest.mark.parametrize("weapon, reaches", [("pdc", "a"), ("pulse-laser", "b"), ("lance", "d")])
def test_g_zone_2_weapon_reach_uses_the_band_names(weapon: str, reaches: str) -> None:
    """A Close weapon reaches its own zone, Medium the next, Very Long reaches Extreme; one band
    further is out of reach."""
    farthest = RING.index(reaches)
    for zone in RING[: farthest + 1]:
        state = ring_game(rustjaw=zone)
        cards = give(state, "kestrel", "weapons", 2)
        attack = order("kestrel", "weapons", "attack", cards, target="rustjaw", weapons=(weapon,))
        assert run(state, attack)["orders"]["kestrel/weapons"]["out_of_reach_now"] is False
    if farthest + 1 <= 3:  # G-TURN-4: accepted, marked out of reach now
        state = ring_game(rustjaw=RING[farthest + 1])
        cards = give(state, "kestrel", "weapons", 2)
        attack = order("kestrel", "weapons", "attack", cards, target="rustjaw", weapons=(weapon,))
        assert run(state, attack)["orders"]["kestrel/weapons"]["out_of_reach_now"] is True


def _split(value: int) -> list[int]:
    """Card values (1-5, as the shipped decks have them) adding up to `value`."""
    assert value > 0
    parts = []
    while value > 0:
        part = min(value, 5)
        parts.append(part)
        value -= part
    return parts


# --- G-ZONE-3: one zone for 3, two for 6 ----------------------------------------------------------


@pytest.mark.parametrize("dest, value", [("b", 3), ("f", 3), ("c", 6), ("e", 6)])
def test_g_zone_3_a_manoeuvre_moves_one_zone_for_3_and_two_for_6(dest: str, value: int) -> None:
    state = ring_game()
    too_little = give(state, "kestrel", "pilot", *_split(value - 1))
    refused(state, order("kestrel", "pilot", "manoeuvre", too_little, zone=dest), "TOO_FAR")
    cards = give(state, "kestrel", "pilot", *_split(value))
    state = run(state, order("kestrel", "pilot", "manoeuvre", cards, zone=dest))
    state, events = close(state)
    moved = one(events, "ShipMoved")
    assert (moved["from"], moved["to"]) == ("a", dest)
    assert state["ships"]["kestrel"]["zone"] == dest
    steps = RING.index(dest) if RING.index(dest) <= 3 else len(RING) - RING.index(dest)
    assert distance(state["ships"]["kestrel"], state["ships"]["rustjaw"]) == steps


def test_g_zone_3_three_zones_is_too_far_and_the_own_zone_is_no_move() -> None:
    state = ring_game()
    cards = give(state, "kestrel", "pilot", 5, 4)
    refused(state, order("kestrel", "pilot", "manoeuvre", cards, zone="d"), "TOO_FAR")
    refused(state, order("kestrel", "pilot", "manoeuvre", cards, zone="a"), "SAME_ZONE")
    refused(state, order("kestrel", "pilot", "manoeuvre", cards), "NO_DESTINATION")


def test_g_zone_3_the_values_are_scenario_settings() -> None:
    state = ring_game(settings={"zone_move_one": 2, "zone_move_two": 4})
    cards = give(state, "kestrel", "pilot", 4)
    state = run(state, order("kestrel", "pilot", "manoeuvre", cards, zone="c"))
    state, _ = close(state)
    assert state["ships"]["kestrel"]["zone"] == "c"


def test_g_zone_3_a_penalty_at_resolution_cuts_a_two_zone_move_to_one() -> None:
    state = ring_game()
    cards = give(state, "kestrel", "pilot", 5, 1)
    state = run(
        state,
        order("kestrel", "pilot", "manoeuvre", cards, zone="c"),
        c.ImposeModifier(
            ship="kestrel", applies="station", station="pilot", value=-2, reason="engine fire"
        ),
    )
    state, events = close(state)
    assert one(events, "ShipMoved")["to"] == "b"


# --- G-ZONE-4: difficult and hazardous terrain ----------------------------------------------------

NEBULA = {"a": {"terrain": "difficult", "cost": 2, "name": "Dense Nebula", "cover": True}}


def test_g_zone_4_leaving_a_dense_nebula_costs_its_2_on_top_of_the_move() -> None:
    state = ring_game(terrain=NEBULA)
    short = give(state, "kestrel", "pilot", 4)
    error = refused(state, order("kestrel", "pilot", "manoeuvre", short, zone="b"), "TOO_FAR")
    assert "needs a value of 5" in said(error)
    cards = give(state, "kestrel", "pilot", 5)
    state = run(state, order("kestrel", "pilot", "manoeuvre", cards, zone="b"))
    state, events = close(state)
    assert state["ships"]["kestrel"]["zone"] == "b"
    assert not of_type(events, "HazardDamage")


def test_g_zone_4_only_zones_left_cost_entering_a_nebula_is_free() -> None:
    state = ring_game(terrain={"b": {"terrain": "difficult", "cost": 3}})
    cards = give(state, "kestrel", "pilot", 3)
    state = run(state, order("kestrel", "pilot", "manoeuvre", cards, zone="b"))
    state, _ = close(state)
    assert state["ships"]["kestrel"]["zone"] == "b"


def test_g_zone_4_a_two_zone_move_takes_the_cheaper_way_round() -> None:
    # a to c runs through b only; a to e through f only: a costly f makes e dearer than c.
    state = ring_game(terrain={"f": {"terrain": "difficult", "cost": 3}})
    moves = {z: m for z, m in _view_moves(state).items()}
    assert moves["c"]["need"] == 6 and moves["e"]["need"] == 9


def _view_moves(state: State) -> dict[str, Any]:
    from app.rules import display_view

    ship = next(s for s in display_view(state)["ships"] if s["id"] == "kestrel")
    return ship["moves"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("value, damage", [(3, 2), (4, 1), (5, 0)])
def test_g_zone_4_leaving_a_hazard_unpaid_costs_a_hull_point_per_point(
    value: int, damage: int
) -> None:
    state = ring_game(terrain={"a": {"terrain": "hazardous", "cost": 2, "name": "Ion Storm"}})
    hull_before = state["ships"]["kestrel"]["hull"]["damage"]
    cards = give(state, "kestrel", "pilot", value)
    state = run(state, order("kestrel", "pilot", "manoeuvre", cards, zone="b"))
    state, events = close(state)
    assert state["ships"]["kestrel"]["zone"] == "b"
    assert state["ships"]["kestrel"]["hull"]["damage"] == hull_before + damage
    hazards = of_type(events, "HazardDamage")
    assert [h["damage"] for h in hazards] == ([damage] if damage else [])


# --- G-ZONE-5: cover ------------------------------------------------------------------------------


@pytest.mark.parametrize("attacker_zone, covered", [("b", True), ("a", False)])
def test_g_zone_5_cover_defends_against_other_zones_only(attacker_zone: str, covered: bool) -> None:
    state = ring_game(terrain=NEBULA, kestrel=attacker_zone, rustjaw="a")
    cards = give(state, "kestrel", "weapons", 5)
    state = run(
        state,
        order("kestrel", "weapons", "attack", cards, target="rustjaw", weapons=("pulse-laser",)),
    )
    state, events = close(set_rolls(state, 4))
    attack = one(events, "AttackResolved")
    defence = state["ships"]["rustjaw"]["defence"]
    assert attack["breakdown"]["defending"] == ([["cover", 2]] if covered else [])
    assert attack["score"] == 5 + 4 - defence - (2 if covered else 0)


def test_g_zone_5_the_cover_bonus_is_a_scenario_setting() -> None:
    state = ring_game(terrain=NEBULA, kestrel="b", settings={"cover_bonus": 3})
    cards = give(state, "kestrel", "weapons", 5)
    state = run(
        state,
        order("kestrel", "weapons", "attack", cards, target="rustjaw", weapons=("pulse-laser",)),
        npc("rustjaw", "pilot", "evasive", 1),
    )
    state, events = close(set_rolls(state, 4))
    assert one(events, "AttackResolved")["breakdown"]["defending"] == [
        ["evasive", 1],
        ["cover", 3],
    ]


# --- The shipped scenario -------------------------------------------------------------------------


def test_g_zone_1_nebula_ambush_has_seven_zones_every_terrain_and_cover() -> None:
    scenario = CAT.scenarios["nebula-ambush"]
    assert scenario.zone_map is not None
    zones = scenario.zone_map.zones
    assert len(zones) >= 7
    assert {z.terrain for z in zones} == {"open", "difficult", "hazardous"}
    assert {z.cost for z in zones if z.terrain == "difficult"} == {1, 2, 3}
    assert any(z.cover for z in zones) and not all(z.cover for z in zones)
    players = [s for s in scenario.ships if s.side == "players"]
    assert len(players) == 2 and all(s.crew == "players" for s in players)
    assert {s.side for s in scenario.ships} == {"players", "raiders"}


def test_g_zone_3_the_gm_gives_an_npc_ship_a_zone_move() -> None:
    state = ring_game(rustjaw="d")
    state = run(state, npc("rustjaw", "pilot", "manoeuvre", 6, zone="b"))
    state, _ = close(state)
    assert state["ships"]["rustjaw"]["zone"] == "b"
    assert state["ships"]["rustjaw"]["x"] == 0  # squares mean nothing on a zone map


def test_g_zone_5_the_gm_can_take_cover_away_mid_game() -> None:
    state = ring_game(terrain=NEBULA, kestrel="b")
    state = run(state, c.SetSetting(name="cover_bonus", value=0))
    cards = give(state, "kestrel", "weapons", 5)
    state = run(
        state,
        order("kestrel", "weapons", "attack", cards, target="rustjaw", weapons=("pulse-laser",)),
    )
    state, events = close(set_rolls(state, 4))
    assert one(events, "AttackResolved")["breakdown"]["defending"] == []
