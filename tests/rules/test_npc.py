"""M-NPC-1..3: NPC ships act by Crew Quality, choose their orders by a written tactic when
Orders open, let the GM change any order before the reveal, and keep their orders secret."""

from __future__ import annotations

import pytest

from app.rules import commands as c
from app.rules import display_view, event_view, gm_view, station_view
from app.rules.content import QUALITIES

from .builders import (
    GM,
    NOW,
    close,
    damage,
    game,
    npc,
    of_type,
    one,
    place,
    refused,
    run,
    run_events,
    said,
    seat_of,
    set_rolls,
    shields,
    started,
)


def skirmish(quality: str = "proficient", *, auto: bool = True) -> dict:  # type: ignore[type-arg]
    """Kestrel (players) at (3, 5); Rustjaw (NPC raider) wherever a test places it."""
    state = game("skirmish", modules=("npc",))
    return run(state, c.SetNpc(ship="rustjaw", quality=quality, auto=auto))


def npc_orders(state: dict, ship: str) -> dict:  # type: ignore[type-arg]
    return {k: o for k, o in state["orders"].items() if k.startswith(f"{ship}/")}


@pytest.mark.parametrize("quality", QUALITIES)
def test_m_npc_1_action_value_is_rating_plus_d6_rolled_at_the_reveal(quality: str) -> None:
    rating = QUALITIES.index(quality) + 1
    state = place(skirmish(quality), "rustjaw", 7, 5)  # 4 squares: Close, in reach
    state = started(state)
    order = state["orders"]["rustjaw/weapons"]
    assert order["action"] == "attack" and order["value"] == 0  # nothing rolled before the reveal
    state = set_rolls(state, 4, 1)  # the crew's d6, then the to-hit d6
    state, events = close(state)
    rolled = one(events, "NpcActionRolled")
    assert (rolled["rating"], rolled["roll"], rolled["value"]) == (rating, 4, rating + 4)
    assert f"{rating} + d6 4 = {rating + 4}" in said(rolled)
    attack = one(events, "AttackResolved")
    assert attack["breakdown"]["value"] == [[f"crew:{quality}", rating], ["d6", 4]]
    assert f"{quality.capitalize()} crew {rating} + d6 4" in said(attack)
    assert state["revealed"]["orders"]["rustjaw/weapons"]["value"] == rating + 4


def test_m_npc_1_quality_comes_from_the_sheet_and_the_gm_can_change_it() -> None:
    state = game("skirmish", modules=("npc",))
    assert state["ships"]["rustjaw"]["npc"] == {"quality": "proficient", "auto": True}
    refused(state, c.SetNpc(ship="rustjaw", quality="legendary"), "UNKNOWN_QUALITY")
    refused(state, c.SetNpc(ship="kestrel", quality="basic"), "NOT_AN_NPC_SHIP")
    refused(
        state, c.SetNpc(ship="rustjaw", quality="basic", actor=c.Actor.for_seat("x")), "GM_ONLY"
    )


def test_m_npc_2_every_npc_station_gets_exactly_one_order_when_orders_open() -> None:
    state = game("convoy", modules=("npc",))
    state = started(state)
    raiders = [s for s in state["ships"].values() if s["crew"] == "npc"]
    for ship in raiders:
        given = npc_orders(state, ship["id"])
        assert sorted(given) == sorted(f"{ship['id']}/{st}" for st in ship["stations"])
        assert all(o["by"] == "npc" for o in given.values())
    assert not any(k.startswith(("kestrel/", "resolute/")) for k in state["orders"])


def test_m_npc_2_without_the_module_or_with_automation_off_nobody_orders_for_npcs() -> None:
    assert started(game("convoy"))["orders"] == {}
    state = started(skirmish(auto=False))
    assert npc_orders(state, "rustjaw") == {}
    state = run(state, c.SetNpc(ship="rustjaw", auto=True, now=NOW))  # switched on mid-Orders
    assert len(npc_orders(state, "rustjaw")) == 3


def test_m_npc_2_basic_out_of_reach_closes_in_to_its_longest_reach_and_holds_fire() -> None:
    state = started(skirmish("basic"))  # Rustjaw at (10, 4), 7 squares off; rockets reach 5
    orders = npc_orders(state, "rustjaw")
    assert orders["rustjaw/pilot"]["action"] == "manoeuvre"
    assert (orders["rustjaw/pilot"]["x"], orders["rustjaw/pilot"]["y"]) == (8, 5)
    assert orders["rustjaw/weapons"]["action"] == "pass"


def test_m_npc_2_in_reach_attacks_the_nearest_with_every_weapon_that_reaches() -> None:
    state = started(place(skirmish("basic"), "rustjaw", 7, 5))
    attack = state["orders"]["rustjaw/weapons"]
    assert (attack["action"], attack["target"]) == ("attack", "kestrel")
    assert attack["weapons"] == ["autocannon", "rockets"]  # the grapnel reaches only Point Blank
    assert attack["target_station"] is None  # Basic never aims
    assert state["orders"]["rustjaw/pilot"]["action"] == "pass"  # holds the position


def test_m_npc_2_talented_aims_at_the_most_hurt_station_once_shields_are_down() -> None:
    state = place(skirmish("talented"), "rustjaw", 7, 5)
    state = damage(state, "kestrel", "pilot", 2)
    assert started(state)["orders"]["rustjaw/weapons"]["target_station"] is None  # shields up
    state = shields(state, "kestrel", False)
    assert started(state)["orders"]["rustjaw/weapons"]["target_station"] == "pilot"
    state = run(state, c.SetNpc(ship="rustjaw", quality="proficient"))
    assert started(state)["orders"]["rustjaw/weapons"]["target_station"] is None


def test_m_npc_2_proficient_evades_under_half_hull_and_repairs_its_worst_station() -> None:
    state = place(skirmish("proficient"), "rustjaw", 7, 5)
    state = damage(state, "rustjaw", "hull", 5)  # 3 of 8 left
    state = damage(state, "rustjaw", "weapons", 1)
    state = damage(state, "rustjaw", "pilot", 3)
    orders = started(state)["orders"]
    assert orders["rustjaw/pilot"]["action"] == "evasive"
    assert orders["rustjaw/engineering"]["target_station"] == "pilot"
    basic = started(run(state, c.SetNpc(ship="rustjaw", quality="basic")))["orders"]
    assert basic["rustjaw/pilot"]["action"] == "pass"
    assert basic["rustjaw/engineering"]["action"] == "pass"


def test_m_npc_2_a_down_station_passes_and_a_down_engineering_repairs_itself() -> None:
    state = place(skirmish("basic"), "rustjaw", 7, 5)
    state = damage(state, "rustjaw", "weapons", 4)
    state = damage(state, "rustjaw", "engineering", 4)
    orders = started(state)["orders"]
    assert "rustjaw/weapons" not in orders  # not operational: no order is waited for
    assert orders["rustjaw/engineering"]["target_station"] == "engineering"


def test_m_npc_2_exceptional_focuses_the_weakest_enemy_in_reach() -> None:
    state = game("convoy", modules=("npc",))
    for raider in ("jackal-2", "jackal-3"):
        state = run(state, c.SetNpc(ship=raider, auto=False))
    state = place(place(place(state, "kestrel", 5, 4), "resolute", 5, 7), "jackal-1", 8, 4)
    boxes = state["ships"]["resolute"]["hull"]["boxes"]
    state = damage(state, "resolute", "hull", boxes - 2)  # 2 left: less than Kestrel's
    assert started(state)["orders"]["jackal-1/weapons"]["target"] == "kestrel"  # the nearest
    state = run(state, c.SetNpc(ship="jackal-1", quality="exceptional"))
    assert started(state)["orders"]["jackal-1/weapons"]["target"] == "resolute"  # the weakest


def test_m_npc_2_the_gm_sees_and_replaces_an_npc_order_before_the_reveal() -> None:
    state = started(place(skirmish(), "rustjaw", 7, 5))
    assert gm_view(state)["orders"]["rustjaw"]["weapons"]["action"] == "attack"
    state = run(state, npc("rustjaw", "pilot", "evasive", value=5))  # a number of the GM's
    state = run(  # a changed order the crew still rolls for
        state,
        c.SubmitOrder(
            ship="rustjaw",
            station="weapons",
            action="attack",
            target="kestrel",
            weapons=("rockets",),
            actor=GM,
            now=NOW,
        ),
    )
    assert state["orders"]["rustjaw/weapons"]["weapons"] == ["rockets"]
    state = set_rolls(state, 3, 6)
    state, events = close(state)
    assert [e["station"] for e in of_type(events, "NpcActionRolled")] == ["weapons"]
    assert one(events, "EvasiveManoeuvre")["value"] == 5


def test_m_npc_3_player_views_and_the_display_do_not_depend_on_npc_orders() -> None:
    state = started(place(skirmish(), "rustjaw", 7, 5))
    other = run(state, npc("rustjaw", "weapons", "attack", value=7, target="kestrel"))
    other = run(other, npc("rustjaw", "pilot", "manoeuvre", value=5, x=9, y=9))
    assert state["orders"] != other["orders"]
    assert display_view(state) == display_view(other)
    for station in state["ships"]["kestrel"]["stations"]:
        seat = seat_of("kestrel", station)
        assert station_view(state, seat) == station_view(other, seat)


# rule: M-NPC-3 (before the reveal the room hears only that a station is ready)
def test_m_npc_3_public_events_say_only_ready_whatever_the_station_chose() -> None:
    state = started(skirmish(auto=False))
    heard = []
    for command in (
        c.PassOrder(ship="rustjaw", station="pilot", now=NOW),
        npc("rustjaw", "pilot", "evasive", 3),
        npc("rustjaw", "pilot", "evasive", 5),  # the GM replaces the order
    ):
        state, events = run_events(state, command)
        given = one(events, "OrderGiven")
        for viewer in ("display", ("seat", seat_of("kestrel", "pilot"))):
            heard.append(event_view(given, viewer))
    assert all(public == heard[0] for public in heard), heard
    assert heard[0] is not None and said(heard[0]) == "Pilot of Rustjaw is ready."


# rule: M-NPC-1 (Crew Quality and automation are the GM's)
def test_m_npc_1_setting_a_crew_tells_only_the_gm() -> None:
    _, events = run_events(
        game("skirmish", modules=("npc",)), c.SetNpc(ship="rustjaw", quality="exceptional")
    )
    crew_set = one(events, "NpcCrewSet")
    for viewer in ("display", ("seat", seat_of("kestrel", "weapons"))):
        assert event_view(crew_set, viewer) is None
    told = event_view(crew_set, "gm")
    assert told is not None and told["secret"] == {"quality": "exceptional", "auto": True}
