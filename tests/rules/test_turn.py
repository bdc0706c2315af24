"""A turn (section 2, G-TURN-*): the order of resolution, repairs before attacks, recorded dice and
determinism; plus the phase table and the refusals an order can meet."""

from __future__ import annotations

import json

import pytest

from app.rules import RulesError, apply
from app.rules import commands as c

from .builders import (
    NOW,
    Events,
    State,
    close,
    damage,
    dump,
    game,
    give,
    next_rolls,
    npc,
    one,
    order,
    place,
    refused,
    run,
    run_events,
    said,
    seat,
    set_rolls,
    started,
    stations,
)


# rule: G-TURN-1
def test_g_turn_1_orders_resolve_command_manoeuvre_ewar_repairs_attacks_damage() -> None:
    state = started(game("convoy"))
    state = damage(place(state, "jackal-1", 10, 6), "resolute", "weapons", 1)  # 8 squares: Long
    captain = give(state, "resolute", "captain", 3)
    pilot = give(state, "resolute", "pilot", 3)
    comms = give(state, "resolute", "comms", 4)
    engineering = give(state, "resolute", "engineering", 5)
    weapons = give(state, "resolute", "weapons", 3)
    state = run(
        state,
        order(
            "resolute",
            "weapons",
            "attack",
            weapons,
            target="jackal-1",
            weapons=("twin-laser", "torpedo-bay"),
        ),
        order("resolute", "engineering", "repair", engineering, target_station="weapons"),
        order("resolute", "comms", "lock", comms),
        order("resolute", "pilot", "manoeuvre", pilot, x=5, y=6),
        order("resolute", "captain", "command", captain, target_station="weapons"),
    )
    state, events = close(set_rolls(state, 1))
    kinds = [e["type"] for e in events]
    steps = [
        "CommandGiven",
        "ShipMoved",
        "TargetLocked",
        "RepairResolved",
        "AttackResolved",
        "HullHit",
        "TurnResolved",
    ]
    assert [kinds.index(k) for k in steps] == sorted(kinds.index(k) for k in steps)
    attack = one(events, "AttackResolved")
    # Earlier steps feed later ones: the move brought Jackal-1 to Medium (5 squares, needs 3),
    # the Command (+2) raised the gunner's value and the lock (+2) the ship's attack.
    assert (attack["distance"], attack["needed"]) == (5, 3)
    assert attack["breakdown"]["value"] == [["cards", 3], ["command", 2]]
    assert attack["breakdown"]["attack"] == [["lock", 2]]
    assert attack["score"] == 3 + 2 + 2 + 1 - 5 and attack["hit"]
    assert attack["damage"] == 2 + 4  # both weapons reach Medium
    assert state["modifiers"] == []  # this turn's bonuses lapse at the end of it


# rule: G-TURN-1
def test_g_turn_1_jam_penalises_the_enemy_attack_in_the_same_turn() -> None:
    state = place(started(game()), "rustjaw", 8, 5)
    jam = give(state, "kestrel", "comms", 3)
    state = run(
        state,
        order("kestrel", "comms", "jam", jam, target="rustjaw"),
        npc("rustjaw", "weapons", "attack", 4, target="kestrel"),
    )
    _, events = close(set_rolls(state, 4))
    attack = one(events, "AttackResolved")
    assert attack["breakdown"]["attack"] == [["jammed", -2]]
    assert attack["score"] == 4 - 2 + 4 - 4


# rule: G-TURN-1
def test_g_turn_1_evasive_lasts_until_the_next_turns_manoeuvre() -> None:
    state = started(game())
    cards = give(state, "kestrel", "pilot", 4)
    state = run(state, order("kestrel", "pilot", "evasive", cards))
    state, _ = close(state)
    assert [(m["ship"], m["applies"], m["value"]) for m in state["modifiers"]] == [
        ("kestrel", "defence", 4)
    ]
    state = place(started(state), "rustjaw", 8, 5)
    state = run(state, npc("rustjaw", "weapons", "attack", 4, target="kestrel"))
    _, events = close(set_rolls(state, 6))
    assert one(events, "AttackResolved")["breakdown"]["defending"] == []  # gone at the Manoeuvre


# rule: G-TURN-2
def test_g_turn_2_repair_resolves_before_an_attack_on_the_same_station() -> None:
    state = damage(place(started(game()), "rustjaw", 5, 5), "rustjaw", "weapons", 2)
    cards = give(state, "kestrel", "weapons", 5)
    state = run(
        state,
        npc("rustjaw", "engineering", "repair", 7, target_station="weapons"),
        order(
            "kestrel",
            "weapons",
            "attack",
            cards,
            target="rustjaw",
            weapons=("torpedo",),
            target_station="weapons",
        ),
    )
    state, events = close(set_rolls(state, 6))
    repair = one(events, "RepairResolved")
    assert (repair["difficulty"], repair["restored"]) == (3 + 2, 2)  # the new damage not counted
    hit = one(events, "StationDamaged")
    assert events.index(repair) < events.index(hit)
    weapons = stations(state, "rustjaw")["weapons"]
    assert weapons["damage"] == 2 and weapons["suffered"] == 4  # the new damage not repaired


# rule: G-TURN-3
def test_g_turn_3_every_roll_is_recorded_with_its_purpose_from_the_seeded_generator() -> None:
    state = place(started(game()), "rustjaw", 8, 5)
    state = run(state, npc("rustjaw", "weapons", "attack", 2, target="kestrel"))
    expected = next_rolls(state, 6)[0]
    _, events = close(state)
    attack = one(events, "AttackResolved")
    assert (attack["roll"], attack["purpose"]) == (expected, "to hit")
    assert f"d6 {expected}" in said(attack)


def _scripted_game(seed: int) -> tuple[list[str], list[Events]]:
    state = place(game(seed=seed, characters={"kestrel/weapons": "vesna-kaur"}), "rustjaw", 8, 5)
    states, events = [dump(state)], []
    for turn in range(3):
        state, ev = run_events(state, c.StartTurn(seconds=0, now=NOW))
        hand = stations(state, "kestrel")["weapons"]["hand"]
        state, more = run_events(
            state,
            order("kestrel", "weapons", "attack", hand[:2], target="rustjaw", weapons=("torpedo",)),
            npc(
                "rustjaw",
                "weapons",
                "attack",
                3 + turn,
                target="kestrel",
                weapons=("rockets", "autocannon"),
            ),
            npc("rustjaw", "pilot", "manoeuvre", 1, x=8, y=5 - turn % 2),
        )
        state, last = close(state)
        while state["phase"] == "allocation":
            state, tail = run_events(state, c.ForceAllocation())
            last += tail
        states.append(dump(state))
        events.append(ev + more + last)
    return states, events


# rule: G-TURN-3
def test_g_turn_3_same_seed_and_orders_give_the_same_game() -> None:
    assert _scripted_game(11) == _scripted_game(11)
    assert _scripted_game(11)[0][-1] != _scripted_game(12)[0][-1]


# rule: G-TURN-3
def test_g_turn_3_the_generator_lives_in_the_state_and_survives_json() -> None:
    state = place(started(game()), "rustjaw", 8, 5)
    state = run(state, npc("rustjaw", "weapons", "attack", 2, target="kestrel"))
    copy = json.loads(json.dumps(state))
    assert copy == state
    assert close(copy)[1] == close(state)[1]


# --- The phase table and the refusals ------------------------------------------------------------


@pytest.mark.parametrize(
    "when, command",
    [
        ("downtime", order("kestrel", "weapons", "attack")),
        ("downtime", c.CloseOrders()),
        ("orders", c.StartTurn()),
        ("orders", c.AllocateDamage(ship="kestrel", allocations={})),
        ("orders", c.UndoResolution()),
        ("orders", c.DowntimeRepair(ship="kestrel", track="hull", points=1)),
        ("turn_end", c.SubmitOrder(ship="rustjaw", station="pilot", action="evasive", value=1)),
        ("turn_end", c.ForceAllocation()),
    ],
)
def test_commands_outside_their_phase_are_refused(when: str, command: c.Command) -> None:
    state = game()
    if when != "downtime":
        state = started(state)
    if when == "turn_end":
        state, _ = close(state)
    assert state["phase"] == when
    refused(state, command, "WRONG_PHASE")


def test_end_combat_in_downtime_is_refused() -> None:
    refused(game(), c.EndCombat(), "WRONG_PHASE")


def test_a_card_not_in_hand_cannot_be_played() -> None:
    state = started(game())
    not_held = stations(state, "kestrel")["weapons"]["draw"][0]
    refused(
        state,
        order("kestrel", "weapons", "attack", [not_held], target="rustjaw"),
        "CARD_NOT_IN_HAND",
    )
    other = stations(state, "kestrel")["pilot"]["hand"][0]  # another station's hand
    refused(
        state, order("kestrel", "weapons", "attack", [other], target="rustjaw"), "CARD_NOT_IN_HAND"
    )


def test_a_seat_orders_only_for_its_own_station() -> None:
    state = started(game())
    cards = stations(state, "kestrel")["pilot"]["hand"][:1]
    command = c.SubmitOrder(
        ship="kestrel",
        station="pilot",
        action="evasive",
        cards=tuple(cards),
        actor=seat("kestrel", "weapons"),
    )
    refused(state, command, "NOT_YOUR_STATION")
    refused(
        state,
        c.PassOrder(ship="rustjaw", station="pilot", actor=seat("kestrel", "pilot")),
        "NOT_YOUR_STATION",
    )


@pytest.mark.parametrize(
    "command",
    [
        c.StartTurn(actor=seat("kestrel", "weapons")),
        c.SetTrack(ship="rustjaw", track="hull", damage=8, actor=seat("kestrel", "weapons")),
        c.DestroyShip(ship="rustjaw", actor=seat("kestrel", "weapons")),
        c.SetModule(module="starmada", on=True, actor=seat("kestrel", "pilot")),
    ],
)
def test_gm_commands_are_refused_to_seats(command: c.Command) -> None:
    refused(game(), command, "GM_ONLY")


def test_cards_must_suit_the_action_and_count_once() -> None:
    state = started(game(characters={"kestrel/weapons": "amara-lind"}))
    hand = stations(state, "kestrel")["weapons"]["hand"]
    medicine = next(c_ for c_ in hand if state["cards"][c_]["kind"] == "medicine")
    refused(
        state,
        order("kestrel", "weapons", "attack", [medicine], target="rustjaw"),
        "CARD_WRONG_KIND",
    )
    station_card = hand[-1]
    refused(
        state,
        order("kestrel", "weapons", "attack", [station_card, station_card], target="rustjaw"),
        "DUPLICATE_CARD",
    )
    refused(state, order("kestrel", "weapons", "attack", [], target="rustjaw"), "NO_CARDS")
    refused(
        state,
        order("kestrel", "weapons", "attack", [station_card], target="rustjaw", value=9),
        "CARDS_REQUIRED",
    )


def test_a_station_that_gave_no_order_passes_when_orders_close() -> None:
    state = started(game())
    state, events = close(state)
    revealed = state["revealed"]["orders"]
    assert revealed["kestrel/weapons"]["action"] == "pass"
    assert revealed["kestrel/weapons"]["by"] == "timeout"
    assert state["phase"] == "turn_end"
    assert one(events, "TurnResolved")


def test_orders_close_by_themselves_when_every_station_is_ready() -> None:
    state = started(game(auto_close=True))
    for ship, station in (
        ("kestrel", "weapons"),
        ("kestrel", "engineering"),
        ("kestrel", "pilot"),
        ("kestrel", "comms"),
    ):
        state = run(state, c.PassOrder(ship=ship, station=station, actor=seat(ship, station)))
    assert state["phase"] == "orders"  # the NPC's stations still wait for the GM
    for station in ("weapons", "engineering"):
        state = run(state, c.PassOrder(ship="rustjaw", station=station))
    state, events = run_events(state, c.PassOrder(ship="rustjaw", station="pilot"))
    assert one(events, "AllOrdersIn") and state["phase"] == "turn_end"


def test_an_order_can_be_changed_or_withdrawn_until_reveal() -> None:
    state = started(game())
    first, second = stations(state, "kestrel")["pilot"]["hand"][:2]
    state = run(
        state,
        order("kestrel", "pilot", "evasive", [first]),
        order("kestrel", "pilot", "evasive", [second]),
    )
    assert state["orders"]["kestrel/pilot"]["cards"] == [second]
    state = run(
        state, c.WithdrawOrder(ship="kestrel", station="pilot", actor=seat("kestrel", "pilot"))
    )
    assert "kestrel/pilot" not in state["orders"]
    refused(
        state,
        c.WithdrawOrder(ship="kestrel", station="pilot", actor=seat("kestrel", "pilot")),
        "NO_ORDER",
    )


def test_every_refusal_leaves_the_state_unchanged() -> None:
    state = started(game())
    before = dump(state)
    for command in (
        c.StartTurn(),
        order("kestrel", "weapons", "attack", ["nope"]),
        c.SetTrack(ship="kestrel", track="hull", damage=99),
        c.SubmitOrder(
            ship="kestrel",
            station="weapons",
            action="attack",
            value=5,
            target="rustjaw",
            weapons=("nope",),
        ),
    ):
        with pytest.raises(RulesError):
            apply(state, command)
        assert dump(state) == before


# --- Comms and Captain bonuses (section 3) -------------------------------------------------------


def _lock(state: State, card_value: int, station_penalty: int = 0) -> int:
    if station_penalty:
        state = run(
            state,
            c.ImposeModifier(
                ship="kestrel",
                applies="station",
                station="comms",
                value=station_penalty,
                reason="static",
            ),
        )
    cards = give(state, "kestrel", "comms", card_value)
    state = run(state, order("kestrel", "comms", "lock", cards))
    bonus: int = one(close(state)[1], "TargetLocked")["bonus"]
    return bonus


def test_lock_bonus_is_half_the_value_rounded_up_by_default() -> None:
    assert [_lock(started(game()), v) for v in (1, 2, 3, 4, 5)] == [1, 1, 2, 2, 3]


def test_lock_bonus_follows_the_scenarios_table() -> None:
    state = started(game())
    state["settings"]["bonus_table"] = [0, 0, 1, 3, 4, 6]
    assert [_lock(state, v) for v in (1, 3, 5)] == [0, 3, 6]


def test_a_penalised_action_value_below_zero_gives_no_bonus() -> None:
    state = started(game())
    assert _lock(state, 1, station_penalty=-4) == 0  # value -3: not the table's last entry
    state["settings"]["bonus_table"] = [0, 0, 1, 3, 4, 6]
    assert _lock(state, 1, station_penalty=-3) == 0
