"""Repairs (section 7, G-REP-*): the difficulty grows with damage suffered this combat, a repair
refills the hand at once, and the Hull waits for Downtime."""

from __future__ import annotations

import pytest

from app.rules import commands as c
from app.rules.core.state import hand_limit

from .builders import (
    Events,
    State,
    close,
    damage,
    game,
    give,
    of_type,
    one,
    order,
    refused,
    run,
    said,
    seat,
    skill_cards,
    started,
    stations,
)


def repair(state: State, target: str, *values: int) -> tuple[State, Events]:
    cards = give(state, "kestrel", "engineering", *values)
    state = run(state, order("kestrel", "engineering", "repair", cards, target_station=target))
    return close(state)


# rule: G-REP-1
@pytest.mark.parametrize(
    "damage_now, values, restored",
    [
        (3, (5, 3), 2),  # 8 - (3 + 3) = 2
        (3, (4,), 0),  # 4 - 6 < 0: never below 0
        (3, (5, 4), 3),  # 9 - 6 = 3: all of it
        (1, (5, 4), 1),  # 9 - 4 = 5, but only 1 is damaged: never above the damage
    ],
)
def test_g_rep_1_points_restored_are_value_minus_three_plus_damage_suffered(
    damage_now: int, values: tuple[int, ...], restored: int
) -> None:
    state = damage(started(game()), "kestrel", "weapons", damage_now)
    state, events = repair(state, "weapons", *values)
    event = one(events, "RepairResolved")
    assert (event["value"], event["difficulty"]) == (sum(values), 3 + damage_now)
    assert event["restored"] == restored
    assert stations(state, "kestrel")["weapons"]["damage"] == damage_now - restored


# rule: G-REP-1
def test_g_rep_1_damage_already_repaired_still_counts_this_combat() -> None:
    state = damage(started(game()), "kestrel", "weapons", 2)
    state, _ = repair(state, "weapons", 5, 2)  # 7 - 5 = 2: fully repaired
    weapons = stations(state, "kestrel")["weapons"]
    assert (weapons["damage"], weapons["suffered"]) == (0, 2)
    state = damage(started(state), "kestrel", "weapons", 1)  # suffered now 3
    state, events = repair(state, "weapons", 5, 1)  # 6 - (3 + 3) = 0
    assert one(events, "RepairResolved")["restored"] == 0


# rule: G-REP-1
def test_g_rep_1_this_combat_means_the_count_restarts_with_the_next_combat() -> None:
    state = damage(started(game()), "kestrel", "weapons", 4)
    state = run(state, c.EndCombat())
    state = started(state)
    weapons = stations(state, "kestrel")["weapons"]
    assert (weapons["damage"], weapons["suffered"]) == (4, 0)
    state, events = repair(state, "weapons", 5)  # 5 - 3 = 2
    assert one(events, "RepairResolved")["restored"] == 2


# rule: G-REP-1
def test_g_rep_1_repair_bonus_and_penalty_count() -> None:
    state = damage(started(game()), "kestrel", "pilot", 2)
    state = run(
        state, c.ImposeModifier(ship="kestrel", applies="repair", value=2, reason="spare parts")
    )
    state, events = repair(state, "pilot", 4)  # 4 + 2 - (3 + 2) = 1
    event = one(events, "RepairResolved")
    assert event["value"] == 6 and event["restored"] == 1
    assert "spare parts" in said(event)


# rule: G-REP-1
def test_g_rep_1_an_undamaged_system_cannot_be_nominated() -> None:
    state = started(game())
    cards = give(state, "kestrel", "engineering", 3)
    refused(
        state,
        order("kestrel", "engineering", "repair", cards, target_station="pilot"),
        "NOTHING_TO_REPAIR",
    )
    refused(state, order("kestrel", "engineering", "repair", cards), "NO_TARGET")


# rule: G-REP-2
def test_g_rep_2_raised_limit_is_filled_at_once() -> None:
    state = damage(started(game()), "kestrel", "weapons", 3)
    assert hand_limit(stations(state, "kestrel")["weapons"]) == 2
    state, events = repair(state, "weapons", 5, 3)  # 8 - 6 = 2 -> limit 4
    weapons = stations(state, "kestrel")["weapons"]
    assert hand_limit(weapons) == 4 and len(weapons["hand"]) == 4
    drawn = [e for e in of_type(events, "CardsDrawn") if e["station"] == "weapons"]
    assert len(drawn) == 1 and drawn[0]["count"] == 2


# rule: G-REP-2
def test_g_rep_2_the_player_draws_the_skill_cards_the_hand_is_short_of() -> None:
    state = game(characters={"kestrel/weapons": "vesna-kaur"})
    state = damage(started(state), "kestrel", "weapons", 3)  # limit 2
    held = give(state, "kestrel", "weapons", 1, 2)  # two Station cards, no Skill card
    state, _ = repair(state, "weapons", 5, 3)  # limit 4: two more cards, both Skill cards
    hand = stations(state, "kestrel")["weapons"]["hand"]
    vesna = set(skill_cards(state, "vesna-kaur"))
    assert hand[:2] == held and len(hand) == 4
    assert all(card in vesna for card in hand[2:])


# rule: G-REP-2
def test_g_rep_2_unmanned_station_draws_nothing() -> None:
    state = run(game(), c.UnseatCrew(ship="kestrel", station="pilot"))
    state = damage(started(state), "kestrel", "pilot", 3)
    state, events = repair(state, "pilot", 5, 3)
    assert stations(state, "kestrel")["pilot"]["damage"] == 1
    assert stations(state, "kestrel")["pilot"]["hand"] == []
    assert not [e for e in of_type(events, "CardsDrawn") if e["station"] == "pilot"]


# rule: G-REP-3
def test_g_rep_3_hull_cannot_be_repaired_in_combat() -> None:
    state = damage(started(game()), "kestrel", "hull", 3)
    cards = give(state, "kestrel", "engineering", 5)
    refused(
        state,
        order("kestrel", "engineering", "repair", cards, target_station="hull"),
        "NO_SUCH_STATION",
    )
    refused(state, c.DowntimeRepair(ship="kestrel", track="hull", points=2), "WRONG_PHASE")


# rule: G-REP-3
def test_g_rep_3_gm_repairs_the_hull_in_downtime() -> None:
    state = damage(started(game()), "kestrel", "hull", 3)
    state = run(state, c.EndCombat())
    refused(
        state,
        c.DowntimeRepair(
            ship="kestrel", track="hull", points=2, actor=seat("kestrel", "engineering")
        ),
        "GM_ONLY",
    )
    state = run(state, c.DowntimeRepair(ship="kestrel", track="hull", points=2))
    assert state["ships"]["kestrel"]["hull"]["damage"] == 1
    state = run(state, c.DowntimeRepair(ship="kestrel", track="hull", points=5))
    assert state["ships"]["kestrel"]["hull"]["damage"] == 0
    refused(state, c.DowntimeRepair(ship="kestrel", track="hull", points=1), "NOTHING_TO_REPAIR")
