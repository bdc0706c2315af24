"""Modules played together: the weapons module and the NPC tactic on a zone map (G-ZONE-2,
G-ZONE-3, G-ZONE-5 with M-WEAPONS-2, M-WEAPONS-4, M-WEAPONS-5 and M-NPC-2)."""

from __future__ import annotations

from typing import Any

from app.rules import commands as c
from app.rules.core.report import build_report
from app.rules.core.state import distance

from .builders import (
    NOW,
    close,
    game,
    give,
    npc,
    of_type,
    one,
    order,
    place,
    refused,
    run,
    run_events,
    said,
    set_rolls,
    shields,
    started,
)
from .test_zones import ring_game


def torpedo_at(shooter: str, target: str, strikes: int) -> dict[str, Any]:
    """A torpedo in flight, as the weapons module keeps one, for tests that set the state."""
    return {
        "id": "t-test",
        "ship": shooter,
        "weapon": "tube",
        "name": "Test tube",
        "target": target,
        "guidance": 5,
        "damage": 2,
        "band": "medium",
        "launched": strikes - 1,
        "strikes": strikes,
        "breakdown": {"value": [["cards", 5]], "attack": []},
    }


def test_m_weapons_2_on_a_zone_map_a_grapple_holds_the_ship_in_the_holders_zone() -> None:
    state = ring_game(kestrel="a", rustjaw="a")
    state["modules"] = sorted({*state["modules"], "weapons"})
    state["grapples"] = [{"id": "g-test", "holder": "kestrel", "target": "rustjaw", "score": 20}]
    state = run(state, npc("rustjaw", "pilot", "manoeuvre", 3, zone="b"))
    state, events = close(state)
    assert state["ships"]["rustjaw"]["zone"] == "a"
    pulled = one(events, "GrapplePulled")
    assert (pulled["from"], pulled["to"]) == ("b", "a")
    assert "Zone A" in said(pulled)


def test_g_zone_5_a_torpedo_from_another_zone_meets_the_targets_cover() -> None:
    for shooter_zone, covered in (("b", True), ("a", False)):
        state = ring_game(terrain={"a": {"cover": True}}, kestrel=shooter_zone, rustjaw="a")
        state["modules"] = sorted({*state["modules"], "weapons"})
        state["torpedoes"] = [torpedo_at("kestrel", "rustjaw", state["turn"])]
        state, events = close(set_rolls(state, 3))
        strikes = of_type(events, "TorpedoStruck") + of_type(events, "TorpedoMissed")
        assert len(strikes) == 1
        assert (["cover", 2] in strikes[0]["breakdown"]["defending"]) is covered


def test_m_npc_2_on_a_zone_map_an_npc_pilot_out_of_reach_moves_a_zone_nearer() -> None:
    state = started(game("nebula-ambush", modules=("npc",)))
    players = [s for s in state["ships"].values() if s["side"] == "players"]
    moves = 0
    for ship in state["ships"].values():
        pilot = state["orders"].get(f"{ship['id']}/pilot")
        if ship["crew"] != "npc" or pilot is None or pilot["action"] != "manoeuvre":
            continue
        moves += 1
        assert pilot["zone"] is not None, pilot  # a zone, not a square
        steps = state["map"]["steps"][pilot["zone"]]
        nearest = min(distance(ship, p) for p in players)
        assert min(steps[p["zone"]] for p in players) < nearest
    assert moves, "no NPC pilot closed in"
    state, _ = close(state)
    assert state["phase"] in ("turn_end", "allocation")


def test_m_npc_2_an_exceptional_crew_with_a_pdc_shoots_at_a_torpedo_due_this_turn() -> None:
    state = game("torpedo-run", modules=("npc",))
    state = run(state, c.SetNpc(ship="viper", quality="exceptional"))
    state["torpedoes"] = [torpedo_at("harrier", "viper", state["turn"] + 1)]
    state = started(state)
    assert state["orders"]["viper/weapons"]["action"] == "point_defence"
    # One still a turn out is left for next turn: the crew attacks or passes instead.
    state = game("torpedo-run", modules=("npc",))
    state = run(state, c.SetNpc(ship="viper", quality="exceptional"))
    state["torpedoes"] = [torpedo_at("harrier", "viper", state["turn"] + 2)]
    state = started(state)
    assert state["orders"]["viper/weapons"]["action"] != "point_defence"


def test_g_ship_1_on_a_zone_map_an_added_ship_arrives_in_a_zone() -> None:
    state = game("nebula-ambush")
    refused(
        state,
        c.AddShip(ship_class="raider", name="Late", side="raiders", x=0, y=0),
        "ZONE_MAP",
    )
    refused(
        state,
        c.AddShip(ship_class="raider", name="Late", side="raiders", x=0, y=0, zone="nowhere"),
        "NO_SUCH_ZONE",
    )
    state = run(
        state,
        c.AddShip(ship_class="raider", name="Late", side="raiders", x=0, y=0, zone="jump-point"),
    )
    late = state["ships"]["late"]
    kestrel = next(
        s for s in state["ships"].values() if s["zone"] == "jump-point" and s is not late
    )
    assert late["zone"] == "jump-point" and distance(late, kestrel) == 0
    refused(
        game("skirmish"),
        c.AddShip(ship_class="raider", name="Late", side="raiders", x=1, y=1, zone="a"),
        "NOT_A_ZONE_MAP",
    )


def test_g_end_2_the_report_counts_torpedoes_launched_shot_down_and_striking() -> None:
    """The same salvo as M-WEAPONS-4's test: two torpedoes from Close, one shot down by the
    Harrier's point defence, the other strikes for 3."""
    state = shields(game("torpedo-run"), "harrier", False)
    state = place(place(state, "adder", 15, 0), "viper", 6, 5)
    state, events = run_events(state, c.StartTurn(now=NOW))
    state = run(
        state,
        npc("viper", "weapons", "attack", 4, target="harrier", weapons=("tube-a", "tube-b")),
    )
    state = run(
        state, order("harrier", "weapons", "point_defence", give(state, "harrier", "weapons", 2))
    )
    state, resolved = close(set_rolls(state, 2, 1, 2))
    assert of_type(resolved, "TorpedoIntercepted") and of_type(resolved, "TorpedoStruck")
    ships = {s["id"]: s for s in build_report(state, events + resolved)["combats"][0]["ships"]}
    assert ships["viper"]["torpedoes_launched"] == 2
    assert ships["harrier"]["torpedoes_shot_down"] == 1
    assert (ships["viper"]["attacks"], ships["viper"]["hits"]) == (1, 1)
    assert ships["viper"]["damage_dealt"] == 3  # the launcher's damage
