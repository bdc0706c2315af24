"""G-TURN-3: the game's generator. A new game's is keyed, so seen draws do not tell the next;
the same seed and the same commands give the same game; games made before keep splitmix64."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from app.rules import commands as c
from app.rules import new_game, rng
from app.rules.core.rng import Dice

from .builders import CAT, NOW, close, game, npc, order, place, run, started

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
WHOLE = 2**64  # a draw of a whole 64-bit word: what an attacker of splitmix64 wants to see


# --- The attack that broke the old generator ------------------------------------------------------


def _mix(z: int) -> int:
    """splitmix64's output function, as published."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _unshift(z: int, shift: int) -> int:
    """x from z = x ^ (x >> shift)."""
    x = z
    for _ in range(64 // shift):
        x = z ^ (x >> shift)
    return x


def _unmix(z: int) -> int:
    """The state behind one splitmix64 output: every step of the output function undoes."""
    z = _unshift(z, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & _MASK
    z = _unshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & _MASK
    return _unshift(z, 30)


def _predicts_the_next_draw(rng_state: dict[str, Any]) -> bool:
    """Sees one whole draw, recovers the generator state from it, and guesses the next."""
    dice = Dice(rng_state)
    seen = dice.below(WHOLE)
    guess = _mix((_unmix(seen) + _GAMMA) & _MASK)
    return dice.below(WHOLE) == guess


def test_g_turn_3_the_attack_works_on_splitmix64() -> None:
    """The check below can fail: on the old generator one draw gives away every later one."""
    assert _unmix(_mix(0x0123456789ABCDEF)) == 0x0123456789ABCDEF
    for seed in (1, 7, 12345):
        assert _predicts_the_next_draw(rng.legacy(seed))


def test_g_turn_3_a_seen_draw_does_not_predict_the_next_in_a_new_game() -> None:
    for seed in (1, 7, 12345):
        state = new_game(CAT.scenarios["skirmish"], CAT, seed=seed)
        generator = dict(state["rng"])
        assert not any(_predicts_the_next_draw(generator) for _ in range(50))


# --- Keyed generator ------------------------------------------------------------------------------


def test_g_turn_3_a_new_game_generator_is_keyed_with_at_least_128_bits() -> None:
    state = new_game(CAT.scenarios["skirmish"], CAT, seed=7)
    generator = state["rng"]
    assert generator["kind"] == rng.KEYED
    assert len(bytes.fromhex(generator["key"])) * 8 >= 128
    assert json.loads(json.dumps(generator)) == generator  # its whole state is plain JSON
    with pytest.raises(ValueError):
        rng.keyed(bytes(15))  # 120 bits: too few


def test_g_turn_3_the_generator_goes_on_from_its_stored_state_alone() -> None:
    generator = rng.keyed(b"k" * 32)
    dice = Dice(generator)
    draws = [dice.roll(6) for _ in range(20)]
    assert generator["counter"] == 20  # the counter is the whole of what changes
    again = Dice(rng.keyed(b"k" * 32))
    assert [again.roll(6) for _ in range(20)] == draws
    halfway = rng.keyed(b"k" * 32)
    dice = Dice(halfway)
    for _ in range(10):
        dice.roll(6)
    stored = json.loads(json.dumps(halfway))  # as the database gives it back
    picked_up = Dice(stored)
    assert [picked_up.roll(6) for _ in range(10)] == draws[10:]
    other = Dice(rng.keyed(b"j" * 32))
    assert [other.roll(6) for _ in range(20)] != draws


def test_g_turn_3_keyed_rolls_favour_no_face() -> None:
    dice = Dice(rng.keyed(b"faces" * 8))
    for sides in (6, 20):
        counts = Counter(dice.roll(sides) for _ in range(600 * sides))
        assert set(counts) == set(range(1, sides + 1))
        assert all(480 <= n <= 720 for n in counts.values()), counts  # 600 each expected


def test_g_turn_3_a_chosen_number_gives_the_same_game_and_another_a_different_one() -> None:
    scenario = CAT.scenarios["convoy"]
    one, again, other = (new_game(scenario, CAT, seed=s) for s in (7, 7, 8))
    assert one == again
    assert one["rng"]["key"] != other["rng"]["key"]
    decks = [
        [st["draw"] for ship in g["ships"].values() for st in ship["stations"].values()]
        for g in (one, other)
    ]
    assert decks[0] != decks[1]


def test_an_unknown_generator_is_refused_before_a_game_is_built() -> None:
    scenario = CAT.scenarios["skirmish"]
    with pytest.raises(ValueError):
        new_game(scenario, CAT, seed={"kind": "mersenne", "state": "00"})
    with pytest.raises(ValueError):
        new_game(scenario, CAT, seed={"kind": rng.KEYED, "key": "00" * 8, "counter": 0})


# --- Same seed, same commands, same game ---------------------------------------------------------


def _play(seed: int | rng.Seed) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Two turns from a given start: shuffled decks, attacks both ways (dice), fresh draws."""
    state = started(place(game(seed=seed), "rustjaw", 5, 5))
    events: list[dict[str, Any]] = []
    for _ in range(2):
        hand = state["ships"]["kestrel"]["stations"]["weapons"]["hand"]
        state = run(
            state,
            order("kestrel", "weapons", "attack", hand[:1], target="rustjaw"),
            npc("rustjaw", "weapons", "attack", 3, target="kestrel"),
        )
        state, new = close(state)
        events += new
        if state["phase"] == "allocation":
            state = run(state, c.ForceAllocation(now=NOW))
        state = started(state)
    return state, events


@pytest.mark.parametrize(
    "seed", [7, rng.keyed(bytes(range(32))), rng.legacy(12345)], ids=["chosen", "keyed", "legacy"]
)
def test_g_turn_3_the_same_start_and_commands_give_the_same_game(seed: int | rng.Seed) -> None:
    state, events = _play(seed)
    assert sum(e["type"] == "AttackResolved" for e in events) >= 2
    assert _play(seed) == (state, events)
    assert _play(json.loads(json.dumps(seed))) == (state, events)  # a start read back from storage


def test_g_turn_3_a_game_from_before_keeps_splitmix64_and_its_exact_draws() -> None:
    """splitmix64's published outputs for seed 1234567; then a game from before plays on with
    its generator stored as it always was."""
    dice = Dice(rng.legacy(1234567))
    assert [dice.below(WHOLE) for _ in range(5)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]
    state, _ = _play(rng.legacy(12345))
    assert set(state["rng"]) == {"state"}
    assert _predicts_the_next_draw(dict(state["rng"]))  # the old weakness stays with old games
