"""Damage (section 5, G-DMG-*): shields before Hull, destruction, targeted attacks, Engineering's
allocation, red boxes, hand limits, stations that are down, and injuries to the crew."""

from __future__ import annotations

from app.rules import commands as c
from app.rules.core.state import hand_limit

from .builders import (
    GM,
    NOW,
    Events,
    State,
    close,
    damage,
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
    seat,
    set_rolls,
    shields,
    started,
    stations,
)


def raider_fires(
    state: State,
    *weapons: str,
    value: int = 6,
    target_station: str | None = None,
    roll: int = 3,
    then: tuple[int, ...] = (),
) -> tuple[State, Events]:
    """Rustjaw, two squares from Kestrel, fires at it; orders close and the attack hits. `then`:
    the rolls after the one to hit (injuries, G-DMG-9)."""
    state = place(state, "rustjaw", 5, 5)
    state = run(
        state,
        npc(
            "rustjaw",
            "weapons",
            "attack",
            value,
            target="kestrel",
            weapons=tuple(weapons),
            target_station=target_station,
        ),
    )
    return close(set_rolls(state, roll, *then))


def kestrel_fires(
    state: State, *weapons: str, target_station: str | None = None, roll: int = 6
) -> tuple[State, Events]:
    """Kestrel's gunner fires at Rustjaw (wherever it stands) with a 5 card and a chosen d6."""
    cards = give(state, "kestrel", "weapons", 5)
    state = run(
        state,
        order(
            "kestrel",
            "weapons",
            "attack",
            cards,
            target="rustjaw",
            weapons=tuple(weapons),
            target_station=target_station,
        ),
    )
    return close(set_rolls(state, roll))


# rule: G-DMG-1
def test_g_dmg_1_active_shields_take_damage_first_and_the_rest_goes_to_the_hull() -> None:
    state, events = raider_fires(started(game()), "grapnel", "autocannon", "rockets")  # 1+2+2
    kestrel = state["ships"]["kestrel"]
    assert one(events, "AttackResolved")["damage"] == 5
    assert one(events, "ShieldsHit")["points"] == 4
    assert kestrel["shields"]["damage"] == 4 and kestrel["shields"]["active"] is False
    assert kestrel["hull"]["damage"] == 1  # one box per point
    assert of_type(events, "ShieldsFailed")


# rule: G-DMG-1
def test_g_dmg_1_shields_that_hold_keep_the_hull_clean() -> None:
    state, _ = raider_fires(started(game()), "autocannon", "grapnel")  # 3 damage, 4 shield boxes
    kestrel = state["ships"]["kestrel"]
    assert (kestrel["shields"]["damage"], kestrel["shields"]["active"]) == (3, True)
    assert kestrel["hull"]["damage"] == 0


# rule: G-DMG-1
def test_g_dmg_1_inactive_shields_take_nothing() -> None:
    state = shields(started(game()), "kestrel", False)
    state, _ = raider_fires(state, "grapnel")
    assert state["ships"]["kestrel"]["shields"]["damage"] == 0
    assert state["ships"]["kestrel"]["hull"]["damage"] == 1


# rule: G-DMG-2
def test_g_dmg_2_hull_at_zero_destroys_the_ship() -> None:
    state = damage(started(game()), "rustjaw", "hull", 5)
    state = place(state, "rustjaw", 5, 5)
    state, events = kestrel_fires(state, "torpedo")  # 3 more: boxes 6, 7, 8 of 8
    rustjaw = state["ships"]["rustjaw"]
    assert rustjaw["hull"]["damage"] == 8 and rustjaw["destroyed"] is True
    assert one(events, "ShipDestroyed")["ship"] == "rustjaw"
    assert any(s["destroyed"] for s in state["ships"].values())
    state = started(state)
    cards = give(state, "kestrel", "weapons", 1)
    refused(
        state, order("kestrel", "weapons", "attack", cards, target="rustjaw"), "TARGET_DESTROYED"
    )


# rule: G-DMG-2
def test_g_dmg_2_damage_beyond_the_last_box_is_not_counted() -> None:
    state = damage(started(game()), "rustjaw", "hull", 7)
    state = place(state, "rustjaw", 5, 5)
    state, _ = kestrel_fires(state, "torpedo")
    assert state["ships"]["rustjaw"]["hull"]["damage"] == 8


# rule: G-DMG-3
def test_g_dmg_3_targeted_attack_puts_half_rounded_up_on_the_station() -> None:
    state = place(started(game()), "rustjaw", 8, 5)  # Medium: laser 2 + torpedo 3 = 5
    state, events = kestrel_fires(state, "pulse-laser", "torpedo", target_station="pilot")
    rustjaw = state["ships"]["rustjaw"]
    assert one(events, "AttackResolved")["target_station"] == "pilot"
    assert rustjaw["stations"]["pilot"]["damage"] == 3
    assert rustjaw["hull"]["damage"] == 2
    assert rustjaw["stations"]["weapons"]["damage"] == 0


# rule: G-DMG-3
def test_g_dmg_3_no_station_can_be_nominated_through_active_shields() -> None:
    state = place(started(game()), "rustjaw", 5, 5)
    refused(
        state,
        npc("rustjaw", "weapons", "attack", 5, target="kestrel", target_station="pilot"),
        "SHIELDS_BLOCK_TARGETING",
    )


# rule: G-DMG-4
def test_g_dmg_4_engineering_diverts_hull_damage_keeping_one_on_the_hull() -> None:
    state = shields(started(game()), "kestrel", False)
    state, events = raider_fires(state, "grapnel", "autocannon", "rockets")  # 5 to the Hull
    assert state["phase"] == "allocation"
    assert state["deadline"] == {"kind": "allocation", "at": NOW + 20}  # scenario default
    assert one(events, "AllocationRequested")["hull_damage"] == 5
    assert state["ships"]["kestrel"]["hull"]["damage"] == 0  # nothing lands before the answer
    state = run(
        state,
        c.AllocateDamage(
            ship="kestrel",
            allocations={"weapons": 2, "pilot": 2},
            actor=seat("kestrel", "engineering"),
            now=NOW,
        ),
    )
    kestrel = state["ships"]["kestrel"]
    assert kestrel["hull"]["damage"] == 1
    assert (kestrel["stations"]["weapons"]["damage"], kestrel["stations"]["pilot"]["damage"]) == (
        2,
        2,
    )
    assert state["phase"] == "turn_end" and state["deadline"] is None


# rule: G-DMG-4
def test_g_dmg_4_allocation_leaving_less_than_one_on_the_hull_is_refused() -> None:
    state = shields(started(game()), "kestrel", False)
    state, _ = raider_fires(state, "grapnel", "autocannon", "rockets")
    refused(
        state,
        c.AllocateDamage(
            ship="kestrel",
            allocations={"weapons": 3, "pilot": 2},
            actor=seat("kestrel", "engineering"),
        ),
        "HULL_MUST_TAKE_ONE",
    )
    refused(
        state,
        c.AllocateDamage(
            ship="kestrel", allocations={"weapons": 2, "pilot": 2}, actor=seat("kestrel", "weapons")
        ),
        "NOT_YOUR_STATION",
    )
    state = damage(state, "kestrel", "comms", 3)  # 1 health left
    refused(
        state,
        c.AllocateDamage(
            ship="kestrel",
            allocations={"comms": 2, "pilot": 1},
            actor=seat("kestrel", "engineering"),
        ),
        "BAD_ALLOCATION",
    )


# rule: G-DMG-4
def test_g_dmg_4_unanswered_prompt_sends_everything_to_the_hull() -> None:
    state = shields(started(game()), "kestrel", False)
    state, _ = raider_fires(state, "autocannon", "rockets")  # 4
    state, events = run_events(state, c.ForceAllocation())
    assert one(events, "AllocationExpired")["ship"] == "kestrel"
    assert state["ships"]["kestrel"]["hull"]["damage"] == 4


# rule: G-DMG-4
def test_g_dmg_4_unmanned_engineering_gets_no_prompt() -> None:
    state = shields(started(game()), "kestrel", False)
    state = run(state, c.UnseatCrew(ship="kestrel", station="engineering"))
    state, events = raider_fires(state, "autocannon", "rockets")
    assert not of_type(events, "AllocationRequested")
    assert state["phase"] == "turn_end"
    assert state["ships"]["kestrel"]["hull"]["damage"] == 4


# rule: G-DMG-4
def test_g_dmg_4_a_single_point_has_nothing_to_divert() -> None:
    state = shields(started(game()), "kestrel", False)
    state, events = raider_fires(state, "grapnel")
    assert not of_type(events, "AllocationRequested")
    assert state["ships"]["kestrel"]["hull"]["damage"] == 1


# rule: G-DMG-5
def test_g_dmg_5_red_hull_box_damages_every_station() -> None:
    state = damage(shields(started(game()), "kestrel", False), "kestrel", "hull", 3)
    state, events = raider_fires(state, "grapnel")  # fills box 4, which is red
    assert one(events, "RedHullBoxFilled")["box"] == 4
    assert {k: s["damage"] for k, s in stations(state, "kestrel").items()} == {
        "weapons": 1,
        "engineering": 1,
        "pilot": 1,
        "comms": 1,
    }
    assert state["ships"]["kestrel"]["shields"]["damage"] == 0


# rule: G-DMG-5
def test_g_dmg_5_plain_hull_box_leaves_stations_alone() -> None:
    state = damage(shields(started(game()), "kestrel", False), "kestrel", "hull", 4)
    state, events = raider_fires(state, "grapnel")  # box 5 is not red
    assert not of_type(events, "RedHullBoxFilled")
    assert all(s["damage"] == 0 for s in stations(state, "kestrel").values())


# rule: G-DMG-6
def test_g_dmg_6_each_point_of_station_damage_lowers_the_hand_limit() -> None:
    state = shields(started(game()), "kestrel", False)
    weapons = stations(state, "kestrel")["weapons"]
    assert hand_limit(weapons) == 5 and len(weapons["hand"]) == 5
    state, events = raider_fires(state, "autocannon", target_station="weapons")  # 1 to weapons
    weapons = stations(state, "kestrel")["weapons"]
    assert weapons["damage"] == 1 and hand_limit(weapons) == 4
    assert len(weapons["hand"]) == 4
    assert one(events, "HandReduced")["limit"] == 4


# rule: G-DMG-7
def test_g_dmg_7_station_at_zero_can_play_no_cards() -> None:
    state = started(game())
    held = give(state, "kestrel", "weapons", 3)
    state = damage(state, "kestrel", "weapons", 5)
    assert stations(state, "kestrel")["weapons"]["hand"] == []  # limit 0: every card goes
    stations(state, "kestrel")["weapons"]["hand"] = held  # even holding a card, it cannot play
    refused(state, order("kestrel", "weapons", "attack", held, target="rustjaw"), "STATION_DOWN")


# rule: G-DMG-7
def test_g_dmg_7_station_at_zero_draws_nothing_until_repaired() -> None:
    state = damage(game(), "kestrel", "pilot", 5)
    state = started(state)
    assert stations(state, "kestrel")["pilot"]["hand"] == []
    assert len(stations(state, "kestrel")["comms"]["hand"]) == 4


# rule: G-DMG-8
def test_g_dmg_8_engineering_at_zero_keeps_a_hand_of_one_and_still_draws() -> None:
    state = damage(game(), "kestrel", "engineering", 6)
    assert hand_limit(stations(state, "kestrel")["engineering"]) == 1
    state = started(state)
    assert len(stations(state, "kestrel")["engineering"]["hand"]) == 1


# rule: G-DMG-8
def test_g_dmg_8_engineering_driven_to_zero_keeps_one_card() -> None:
    state = started(game())
    give(state, "kestrel", "engineering", 1, 2, 3, 4, 5)
    state = damage(state, "kestrel", "engineering", 6)
    hand = stations(state, "kestrel")["engineering"]["hand"]
    assert [state["cards"][card]["value"] for card in hand] == [5]


# rule: G-DMG-8
def test_g_dmg_8_engineering_at_zero_may_only_repair_engineering() -> None:
    state = damage(started(game()), "kestrel", "weapons", 1)
    state = damage(state, "kestrel", "engineering", 6)
    cards = give(state, "kestrel", "engineering", 5)
    refused(
        state,
        order("kestrel", "engineering", "repair", cards, target_station="weapons"),
        "ENGINEERING_REPAIR_ONLY",
    )
    refused(state, order("kestrel", "engineering", "shields_down"), "ENGINEERING_REPAIR_ONLY")
    state = run(
        state, order("kestrel", "engineering", "repair", cards, target_station="engineering")
    )
    assert state["orders"]["kestrel/engineering"]["target_station"] == "engineering"


# rule: G-DMG-9
def test_g_dmg_9_filling_a_red_station_box_injures_the_character_manning_it() -> None:
    state = game(characters={"kestrel/weapons": "amara-lind"})  # armour 0
    state = damage(shields(started(state), "kestrel", False), "kestrel", "weapons", 2)
    state, events = raider_fires(state, "autocannon", target_station="weapons", then=(4,))
    amara = state["characters"]["amara-lind"]  # box 3 filled: 1d6 (4) injures her
    assert one(events, "CrewInjured")["lost"] == {"endurance": 4}
    assert amara["endurance"]["value"] == 6 and amara["status"] == "wounded"


# rule: G-DMG-9
def test_g_dmg_9_armour_blocks_the_injury() -> None:
    state = game(characters={"kestrel/weapons": "vesna-kaur"})  # armour 1
    state = damage(shields(started(state), "kestrel", False), "kestrel", "weapons", 2)
    state, events = raider_fires(state, "autocannon", target_station="weapons", then=(1,))
    assert one(events, "CrewInjuryBlocked")["armour"] == 1
    assert state["characters"]["vesna-kaur"]["status"] == "healthy"


# rule: G-DMG-9
def test_g_dmg_9_plain_station_box_injures_nobody() -> None:
    state = game(characters={"kestrel/weapons": "amara-lind"})
    state = shields(started(state), "kestrel", False)
    state, events = raider_fires(state, "autocannon", target_station="weapons")  # box 1
    assert not of_type(events, "CrewInjured")
    assert state["characters"]["amara-lind"]["status"] == "healthy"


def test_gm_alone_may_force_the_allocation() -> None:
    state = shields(started(game()), "kestrel", False)
    state, _ = raider_fires(state, "autocannon", "rockets")
    refused(state, c.ForceAllocation(actor=seat("kestrel", "engineering")), "GM_ONLY")
    assert run(state, c.ForceAllocation(actor=GM))["phase"] == "turn_end"


# rule: G-DMG-6
def test_g_dmg_6_a_damaged_station_draws_only_to_its_lowered_limit() -> None:
    state = damage(game(), "kestrel", "comms", 3)
    state = started(state)
    comms = stations(state, "kestrel")["comms"]
    assert hand_limit(comms) == 1 and len(comms["hand"]) == 1
