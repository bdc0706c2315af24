"""Shields (section 6, G-SHD-*) and the shield generator as an unmanned station (G-SHIP-2)."""

from __future__ import annotations

from app.rules import commands as c

from .builders import (
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
    set_rolls,
    shields,
    started,
)


def raider_targets_pilot(state: State) -> State:
    state = place(state, "rustjaw", 5, 5)
    return run(
        state,
        npc(
            "rustjaw",
            "weapons",
            "attack",
            6,
            target="kestrel",
            weapons=("autocannon", "rockets"),
            target_station="pilot",
        ),
    )


# rule: G-SHD-1
def test_g_shd_1_no_station_can_be_targeted_while_shields_are_active() -> None:
    state = place(started(game()), "rustjaw", 8, 4)
    refused(
        state,
        npc("rustjaw", "weapons", "attack", 4, target="kestrel", target_station="engineering"),
        "SHIELDS_BLOCK_TARGETING",
    )
    state = shields(state, "kestrel", False)
    state = run(
        state,
        npc("rustjaw", "weapons", "attack", 4, target="kestrel", target_station="engineering"),
    )
    assert state["orders"]["rustjaw/weapons"]["target_station"] == "engineering"


# rule: G-SHD-1
def test_g_shd_1_shields_raised_this_turn_protect_the_nominated_station() -> None:
    state = raider_targets_pilot(shields(started(game()), "kestrel", False))
    state = run(state, order("kestrel", "engineering", "shields_up"))
    state, events = close(set_rolls(state, 3))
    attack = one(events, "AttackResolved")
    assert attack["hit"] and attack["target_station"] is None
    kestrel = state["ships"]["kestrel"]
    assert kestrel["stations"]["pilot"]["damage"] == 0
    assert kestrel["shields"]["damage"] == 4 and kestrel["hull"]["damage"] == 0


# rule: G-SHD-2
def test_g_shd_2_empty_shields_cannot_be_raised() -> None:
    state = damage(started(game()), "kestrel", "shields", 4)
    assert state["ships"]["kestrel"]["shields"]["active"] is False  # they fail when emptied
    refused(state, order("kestrel", "engineering", "shields_up"), "SHIELDS_EMPTY")
    refused(state, c.SetShields(ship="kestrel", active=True), "SHIELDS_EMPTY")


# rule: G-SHD-2
def test_g_shd_2_shields_emptied_before_the_repairs_step_fail_to_rise() -> None:
    state = shields(started(game()), "kestrel", False)
    state = run(state, order("kestrel", "engineering", "shields_up"))
    state = damage(state, "kestrel", "shields", 4)  # the GM's ruling, after the order was given
    state, events = close(state)
    assert one(events, "ShieldsFailedToRise")["ship"] == "kestrel"
    assert state["ships"]["kestrel"]["shields"]["active"] is False


# rule: G-SHD-2
def test_g_shd_2_shields_shot_to_zero_stay_down_next_turn() -> None:
    state = place(started(game()), "rustjaw", 5, 5)
    state = run(state, npc("rustjaw", "weapons", "attack", 6, target="kestrel"))
    state, _ = close(set_rolls(state, 3))  # 5 damage: 4 on the shields, 1 on the Hull
    state = started(state)
    assert state["ships"]["kestrel"]["shields"]["active"] is False
    refused(state, order("kestrel", "engineering", "shields_up"), "SHIELDS_EMPTY")


# rule: G-SHD-3
def test_g_shd_3_engineering_lowers_and_raises_shields_as_an_action() -> None:
    state = started(game())
    refused(state, order("kestrel", "engineering", "shields_up"), "SHIELDS_ALREADY_UP")
    state = run(state, order("kestrel", "engineering", "shields_down"))
    state, events = close(state)
    assert one(events, "ShieldsLowered")["ship"] == "kestrel"
    assert state["ships"]["kestrel"]["shields"]["active"] is False
    state = started(state)
    refused(state, order("kestrel", "engineering", "shields_down"), "SHIELDS_ALREADY_DOWN")
    state = run(state, order("kestrel", "engineering", "shields_up"))
    state, events = close(state)
    assert one(events, "ShieldsRaised")["ship"] == "kestrel"
    assert state["ships"]["kestrel"]["shields"]["active"] is True


# rule: G-SHD-3
def test_g_shd_3_switching_shields_costs_no_cards_and_only_engineering_may() -> None:
    state = started(game())
    hand = list(state["ships"]["kestrel"]["stations"]["engineering"]["hand"])
    refused(state, order("kestrel", "engineering", "shields_down", hand[:1]), "NO_CARDS_NEEDED")
    refused(state, order("kestrel", "weapons", "shields_down"), "ACTION_NOT_FOR_STATION")
    state = run(state, order("kestrel", "engineering", "shields_down"))
    state, _ = close(state)
    assert state["ships"]["kestrel"]["stations"]["engineering"]["hand"] == hand


# rule: G-SHD-3
def test_g_shd_3_shields_switch_in_the_repairs_step_before_attacks() -> None:
    state = raider_targets_pilot(shields(started(game()), "kestrel", False))
    state = run(state, order("kestrel", "engineering", "shields_up"))
    _, events = close(set_rolls(state, 3))
    kinds = [e["type"] for e in events]
    assert kinds.index("ShieldsRaised") < kinds.index("AttackResolved") < kinds.index("ShieldsHit")


# rule: G-SHD-4
def test_g_shd_4_repairing_the_generator_lowers_the_shields_first() -> None:
    state = damage(started(game()), "kestrel", "shields", 2)
    assert state["ships"]["kestrel"]["shields"]["active"] is True
    cards = give(state, "kestrel", "engineering", 5, 2)
    state = run(state, order("kestrel", "engineering", "repair", cards, target_station="shields"))
    state, events = close(state)
    kinds = [e["type"] for e in events]
    assert kinds.index("ShieldsLowered") < kinds.index("RepairResolved")
    shields_track = state["ships"]["kestrel"]["shields"]
    assert shields_track["active"] is False
    assert one(events, "RepairResolved")["restored"] == 2  # 7 - (3 + 2)
    assert shields_track["damage"] == 0


# rule: G-SHIP-2
def test_g_ship_2_shield_generator_is_repaired_like_a_station_by_its_track() -> None:
    state = damage(started(game()), "kestrel", "shields", 3)  # 3 suffered this combat
    cards = give(state, "kestrel", "engineering", 5, 3)
    state = run(state, order("kestrel", "engineering", "repair", cards, target_station="shields"))
    state, events = close(state)
    repair = one(events, "RepairResolved")
    assert (repair["station"], repair["value"], repair["difficulty"]) == ("shields", 8, 6)
    assert repair["restored"] == 2
    assert state["ships"]["kestrel"]["shields"]["damage"] == 1
    assert state["ships"]["kestrel"]["shields"]["suffered"] == 3


# rule: G-SHIP-2
def test_g_ship_2_a_ship_without_a_generator_has_nothing_to_repair_or_raise() -> None:
    state = started(game())
    refused(
        state, npc("rustjaw", "engineering", "repair", 5, target_station="shields"), "NO_SHIELDS"
    )
    refused(state, npc("rustjaw", "engineering", "shields_up"), "NO_SHIELDS")


# rule: G-SHD-4
def test_g_shd_4_generator_repaired_while_off_stays_off_with_nothing_to_lower() -> None:
    state = damage(shields(started(game()), "kestrel", False), "kestrel", "shields", 1)
    cards = give(state, "kestrel", "engineering", 5)
    state = run(state, order("kestrel", "engineering", "repair", cards, target_station="shields"))
    state, events = close(state)
    assert not of_type(events, "ShieldsLowered")
    assert one(events, "RepairResolved")["restored"] == 1  # 5 - (3 + 1)
    assert state["ships"]["kestrel"]["shields"]["damage"] == 0
    assert state["ships"]["kestrel"]["shields"]["active"] is False
