"""Hitting (section 4, G-HIT-*) and the battle map (G-MAP-1): scores, range bands, one roll per
attack, automatic misses and the GM's bonuses, each checked with dice the test chose."""

from __future__ import annotations

import pytest

from app.rules import commands as c
from app.rules.content import RANGE_BANDS, range_band_for
from app.rules.core.rng import Dice
from app.rules.core.state import distance

from .builders import (
    GM,
    NOW,
    State,
    close,
    game,
    give,
    npc,
    one,
    order,
    place,
    refused,
    run,
    said,
    set_rolls,
    started,
)


def skirmish_at(squares: int) -> State:
    """Kestrel at (3, 5), Rustjaw `squares` to the east on the same row; orders open."""
    state = started(game())
    return place(state, "rustjaw", 3 + squares, 5)


# rule: G-HIT-1
@pytest.mark.parametrize("roll, hit", [(4, True), (3, False)])
def test_g_hit_1_score_is_value_plus_bonus_plus_d6_minus_defence_and_defending_bonus(
    roll: int, hit: bool
) -> None:
    state = skirmish_at(5)  # Medium: needs 3
    attack_cards = give(state, "kestrel", "weapons", 3, 1)
    lock_cards = give(state, "kestrel", "comms", 3)  # lock 3 -> +2 (3 / 2 rounded up)
    state = run(
        state,
        order(
            "kestrel", "weapons", "attack", attack_cards, target="rustjaw", weapons=("pulse-laser",)
        ),
        order("kestrel", "comms", "lock", lock_cards),
        npc("rustjaw", "pilot", "evasive", 2),
    )
    state, events = close(set_rolls(state, roll))
    attack = one(events, "AttackResolved")
    # 4 (cards) + 2 (lock) + d6 - (5 Defence + 2 evasive)
    assert attack["roll"] == roll
    assert attack["score"] == 4 + 2 + roll - (5 + 2)
    assert attack["breakdown"]["value"] == [["cards", 4]]
    assert attack["breakdown"]["attack"] == [["lock", 2]]
    assert attack["breakdown"]["defence"] == 5
    assert attack["breakdown"]["defending"] == [["evasive", 2]]
    assert attack["hit"] is hit
    assert state["ships"]["rustjaw"]["hull"]["damage"] == (2 if hit else 0)


# rule: G-HIT-2
@pytest.mark.parametrize(
    "squares, band, needed",
    [
        (0, "point_blank", 1),
        (2, "point_blank", 1),
        (3, "close", 2),
        (4, "close", 2),
        (5, "medium", 3),
        (6, "long", 5),
        (8, "long", 5),
        (9, "very_long", 7),
    ],
)
def test_g_hit_2_range_value_by_distance(squares: int, band: str, needed: int) -> None:
    found = range_band_for(squares)
    assert found is not None and (found.id, found.to_hit) == (band, needed)


# rule: G-HIT-2
def test_g_hit_2_beyond_nine_squares_is_out_of_range() -> None:
    assert range_band_for(10) is None
    assert [b.to_hit for b in RANGE_BANDS] == [1, 2, 3, 5, 7]


# rule: G-HIT-2
@pytest.mark.parametrize("squares, needed", [(2, 1), (4, 2), (5, 3), (7, 5), (9, 7)])
@pytest.mark.parametrize("margin", [0, -1])
def test_g_hit_2_score_must_meet_range_value(squares: int, needed: int, margin: int) -> None:
    state = skirmish_at(squares)
    state["ships"]["kestrel"]["weapons"][2]["max_range"] = "very_long"  # the torpedo reaches 9
    # value + d6 3 - Defence 5 = needed + margin
    value = needed + margin + 5 - 3
    state = run(
        state,
        c.SubmitOrder(
            ship="kestrel",
            station="weapons",
            action="attack",
            value=value,
            target="rustjaw",
            weapons=("torpedo",),
            actor=GM,
            now=NOW,
        ),
    )
    state, events = close(set_rolls(state, 3))
    attack = one(events, "AttackResolved")
    assert (attack["score"], attack["needed"]) == (needed + margin, needed)
    assert attack["hit"] is (margin == 0)
    assert state["ships"]["rustjaw"]["hull"]["damage"] == (3 if margin == 0 else 0)


# rule: G-HIT-3, G-TURN-4
def test_g_hit_3_order_beyond_every_weapons_range_is_accepted_with_a_warning() -> None:
    state = skirmish_at(6)  # Long: only the torpedo reaches
    cards = give(state, "kestrel", "weapons", 2)
    state = run(
        state,
        order(
            "kestrel", "weapons", "attack", cards, target="rustjaw", weapons=("pdc", "pulse-laser")
        ),
    )  # range is judged when the attack resolves (G-TURN-4)
    assert state["orders"]["kestrel/weapons"]["out_of_reach_now"] is True


# rule: G-HIT-3
def test_g_hit_3_target_that_moved_out_of_range_is_missed_without_a_roll() -> None:
    state = skirmish_at(5)  # Medium, in the pulse laser's reach when ordered
    cards = give(state, "kestrel", "weapons", 5)
    state = run(
        state,
        order("kestrel", "weapons", "attack", cards, target="rustjaw", weapons=("pulse-laser",)),
        npc("rustjaw", "pilot", "manoeuvre", 2, x=10, y=5),
    )  # Manoeuvre comes first
    rng_before = dict(state["rng"])
    state, events = close(state)
    attack = one(events, "AttackResolved")
    assert attack["out_of_range"] is True and attack["hit"] is False
    assert attack["roll"] is None and attack["distance"] == 7
    assert state["rng"] == rng_before  # no die was rolled at all
    assert state["ships"]["rustjaw"]["hull"]["damage"] == 0


# rule: G-HIT-4
def test_g_hit_4_one_roll_and_every_weapon_in_range_deals_its_damage() -> None:
    state = skirmish_at(2)  # Point Blank: all three weapons reach
    cards = give(state, "kestrel", "weapons", 4)
    state = run(state, order("kestrel", "weapons", "attack", cards, target="rustjaw"))
    state = set_rolls(state, 4)
    after_one_roll = dict(state["rng"])
    Dice(after_one_roll).roll(6)
    state, events = close(state)
    attack = one(events, "AttackResolved")
    assert [e["roll"] for e in events if "roll" in e] == [4]
    assert state["rng"] == after_one_roll  # one die for the attack, none for anything else
    assert attack["score"] == 4 + 4 - 5
    assert attack["hit"] and attack["damage"] == 1 + 2 + 3
    assert state["ships"]["rustjaw"]["hull"]["damage"] == 6


# rule: G-HIT-4
def test_g_hit_4_weapons_out_of_range_add_nothing_to_a_hit() -> None:
    state = skirmish_at(6)  # Long: only the torpedo reaches
    cards = give(state, "kestrel", "weapons", 5, 4)
    state = run(
        state,
        order("kestrel", "weapons", "attack", cards, target="rustjaw", weapons=("pdc", "torpedo")),
    )
    state, events = close(set_rolls(state, 6))  # 9 + 6 - 5 = 10 >= 5
    attack = one(events, "AttackResolved")
    assert attack["hit"] and attack["damage"] == 3
    assert "Out of range: Point-Defence Cannons" in said(attack)
    assert state["ships"]["rustjaw"]["hull"]["damage"] == 3


# rule: G-HIT-5
def test_g_hit_5_gm_bonus_and_penalty_show_in_the_roll_breakdown() -> None:
    state = skirmish_at(5)
    state = run(
        state,
        c.ImposeModifier(ship="kestrel", applies="attack", value=-2, reason="engine failure"),
        c.ImposeModifier(
            ship="rustjaw", applies="defence", value=-4, reason="temporarily defenceless"
        ),
    )
    cards = give(state, "kestrel", "weapons", 2)
    state = run(
        state,
        order("kestrel", "weapons", "attack", cards, target="rustjaw", weapons=("pulse-laser",)),
    )
    state, events = close(set_rolls(state, 2))
    attack = one(events, "AttackResolved")
    assert attack["breakdown"]["attack"] == [["engine failure", -2]]
    assert attack["breakdown"]["defending"] == [["temporarily defenceless", -4]]
    assert attack["score"] == 2 - 2 + 2 - (5 - 4)  # = 1 < 3
    assert not attack["hit"]
    assert "engine failure" in said(attack) and "temporarily defenceless" in said(attack)


# rule: G-HIT-5
def test_g_hit_5_only_the_gm_imposes_bonuses() -> None:
    state = skirmish_at(5)
    refused(
        state,
        c.ImposeModifier(
            ship="rustjaw",
            applies="defence",
            value=-4,
            reason="x",
            actor=order("kestrel", "weapons", "attack").actor,
        ),
        "GM_ONLY",
    )


# rule: G-HIT-5
def test_g_hit_5_turn_bonus_lapses_at_the_end_of_the_turn() -> None:
    state = skirmish_at(5)
    state = run(state, c.ImposeModifier(ship="kestrel", applies="attack", value=3, reason="luck"))
    assert len(state["modifiers"]) == 1
    state, _ = close(state)
    assert state["modifiers"] == []


# rule: G-MAP-1
@pytest.mark.parametrize(
    "a, b, squares",
    [
        ((3, 5), (10, 4), 7),
        ((0, 0), (3, 3), 3),
        ((5, 5), (5, 5), 0),
        ((2, 9), (4, 0), 9),
    ],
)
def test_g_map_1_distance_is_the_larger_axis_difference(
    a: tuple[int, int], b: tuple[int, int], squares: int
) -> None:
    assert distance({"x": a[0], "y": a[1]}, {"x": b[0], "y": b[1]}) == squares


# rule: G-MAP-1
def test_g_map_1_diagonal_moves_cost_one_square_each() -> None:
    state = started(game())
    cards = give(state, "kestrel", "pilot", 3)
    refused(state, order("kestrel", "pilot", "manoeuvre", cards, x=7, y=5), "TOO_FAR")
    state = run(state, order("kestrel", "pilot", "manoeuvre", cards, x=6, y=8))  # 3 diagonal
    state, events = close(state)
    assert one(events, "ShipMoved")["to"] == [6, 8]
    assert (state["ships"]["kestrel"]["x"], state["ships"]["kestrel"]["y"]) == (6, 8)


# rule: G-MAP-1
def test_g_map_1_views_show_the_distance_and_band() -> None:
    from app.rules import display_view

    view = display_view(started(game()))
    assert view["distances"] == [
        {"a": "kestrel", "b": "rustjaw", "squares": 7, "band": {"msg": "band.long"}}
    ]


# rule: G-HIT-1
@pytest.mark.parametrize("roll", [1, 2, 3, 4, 5, 6])
def test_g_hit_1_every_face_of_the_die_counts_once(roll: int) -> None:
    state = skirmish_at(3)  # Close: needs 2
    state = run(
        state,
        c.SubmitOrder(
            ship="kestrel",
            station="weapons",
            action="attack",
            value=3,
            target="rustjaw",
            weapons=("pdc",),
            actor=GM,
            now=NOW,
        ),
    )
    state, events = close(set_rolls(state, roll))
    attack = one(events, "AttackResolved")
    assert (attack["roll"], attack["score"]) == (roll, 3 + roll - 5)
    assert attack["hit"] is (3 + roll - 5 >= 2)


# rule: G-HIT-2
def test_g_hit_2_nothing_reaches_beyond_nine_squares() -> None:
    state = skirmish_at(10)
    for weapon in state["ships"]["kestrel"]["weapons"]:
        weapon["max_range"] = "very_long"
    state = run(
        state,
        c.SubmitOrder(
            ship="kestrel",
            station="weapons",
            action="attack",
            value=9,
            target="rustjaw",
            actor=GM,
            now=NOW,
        ),
    )
    state, events = close(state)
    attack = one(events, "AttackResolved")
    assert attack["out_of_range"] is True and attack["roll"] is None
