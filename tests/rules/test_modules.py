"""Modules a GM can switch on: M-STARMADA (random damage allocation by damage factor, with the
source's worked example) and M-SYSHIT (a d20 system hit table)."""

from __future__ import annotations

import pytest

from app.rules import commands as c
from app.rules.core.context import Context
from app.rules.core.damage import damage_hull
from app.rules.core.messages import message
from app.rules.core.rng import Dice
from app.rules.modules.starmada.starmada import damage_factor, starmada_check

from .builders import (
    NOW,
    Events,
    State,
    close,
    damage,
    game,
    npc,
    of_type,
    one,
    place,
    refused,
    run,
    seat,
    set_rolls,
    shields,
    started,
    stations,
)


class LoadedDice(Dice):
    """A stand-in for the game's dice that rolls what the test says, in order."""

    def __init__(self, *rolls: int) -> None:  # no generator state behind it
        self.rolls = list(rolls)
        self.sides: list[int] = []

    def roll(self, sides: int) -> int:
        self.sides.append(sides)
        return self.rolls.pop(0)


def systems(state: State, ship: str = "kestrel") -> dict[str, int | None]:
    st = stations(state, ship)
    return {
        "pilot": st["pilot"]["damage"],
        "weapons": st["weapons"]["damage"],
        "comms": st.get("comms", {"damage": None})["damage"],
        "shields": state["ships"][ship]["shields"]["damage"],
    }


def raider_hits_kestrel(
    state: State, *weapons: str, rolls: tuple[int | tuple[int, int], ...]
) -> tuple[State, Events]:
    """Rustjaw two squares from Kestrel, whose shields are down, hits it (first roll: to hit)."""
    state = place(shields(state, "kestrel", False), "rustjaw", 5, 5)
    state = run(
        state, npc("rustjaw", "weapons", "attack", 6, target="kestrel", weapons=tuple(weapons))
    )
    return close(set_rolls(state, *rolls))


# rule: M-STARMADA
@pytest.mark.parametrize(
    "hull_size, systems_, factor",
    [
        (12, "normal", 3),  # the source's example: 12 x 0.29 = 3.48
        (8, "fragile", 1),  # 1.36
        (12, "fragile", 2),  # 2.04
        (20, "reinforced", 13),  # 13.4
        (12, "reinforced", 8),  # 8.04
        (19, "normal", 6),  # 5.51
        (50, "normal", 15),  # 14.5: half rounds up
        (5, "normal", 1),  # 1.45
        (1, "fragile", 1),  # 0.17 would be 0; never below 1
    ],
)
def test_m_starmada_damage_factor_is_hull_size_times_29_17_or_67_percent(
    hull_size: int, systems_: str, factor: int
) -> None:
    assert damage_factor(hull_size, systems_) == factor


# rule: M-STARMADA
def test_m_starmada_worked_example_with_loaded_dice() -> None:
    state = game(modules=("starmada",))
    ctx = Context(state, NOW)
    ctx.dice = dice = LoadedDice(2, 3, 5)
    kestrel = state["ships"]["kestrel"]
    assert (kestrel["hull_size"], damage_factor(12, kestrel["systems"])) == (12, 3)
    assert damage_hull(ctx, kestrel, 3, message("cause_enemy_fire")) == 3
    assert dice.sides == [6, 6, 6]
    assert kestrel["starmada"] == {"thrust": 5, "weapons": 2, "ecm": 2, "shields": 3}
    assert systems(state) == {"pilot": 1, "weapons": 0, "comms": 0, "shields": 1}
    rolled = [e for e in ctx.events if e["type"] == "SystemDamageRolled"]
    assert [e["roll"] for e in rolled] == [2, 3, 5]
    assert [e["systems_hit"] for e in rolled] == [[], ["thrust"], ["shields"]]
    assert all(e["purpose"] == "starmada" and e["factor"] == 3 for e in rolled)


# rule: M-STARMADA
def test_m_starmada_worked_example_through_a_whole_turn() -> None:
    state = started(game(modules=("starmada",)))
    # d6 3 to hit (6 + 3 - 4 = 5 >= 1), then one d6 per Hull box: 2, 3, 5
    state, events = raider_hits_kestrel(state, "grapnel", "autocannon", rolls=(3, 2, 3, 5))
    assert one(events, "AttackResolved")["damage"] == 3
    assert [e["roll"] for e in of_type(events, "SystemDamageRolled")] == [2, 3, 5]
    kestrel = state["ships"]["kestrel"]
    assert kestrel["hull"]["damage"] == 3
    assert kestrel["starmada"] == {"thrust": 5, "weapons": 2, "ecm": 2, "shields": 3}
    assert systems(state) == {"pilot": 1, "weapons": 0, "comms": 0, "shields": 1}
    assert not of_type(events, "AllocationRequested")  # the dice allocate, not Engineering
    assert state["phase"] == "turn_end"


# rule: M-STARMADA
def test_m_starmada_each_multiple_of_the_factor_costs_a_box() -> None:
    state = game(modules=("starmada",))
    rustjaw = state["ships"]["rustjaw"]  # hull size 8, fragile: factor 1
    ctx = Context(state, NOW)
    ctx.dice = LoadedDice(3)  # thrust +3, shields +1 (Rustjaw has no generator)
    starmada_check(ctx, rustjaw)
    assert rustjaw["starmada"] == {"thrust": 3, "weapons": 0, "ecm": 0, "shields": 1}
    assert stations(state, "rustjaw")["pilot"]["damage"] == 3
    assert rustjaw["shields"]["damage"] == 0


# rule: M-STARMADA
def test_m_starmada_never_takes_the_last_box_of_a_group() -> None:
    state = damage(
        damage(game(modules=("starmada",)), "kestrel", "pilot", 4), "kestrel", "shields", 2
    )
    kestrel = state["ships"]["kestrel"]
    ctx = Context(state, NOW)
    ctx.dice = LoadedDice(3, 6, 6)  # thrust 3 (crossing), then shields 4 and 7 (crossings)
    for _ in range(3):
        starmada_check(ctx, kestrel)
    assert kestrel["starmada"] == {"thrust": 3, "weapons": 0, "ecm": 2, "shields": 7}
    assert stations(state, "kestrel")["pilot"]["damage"] == 4  # its last box stays
    assert kestrel["shields"]["damage"] == 3  # one more, then the last box stays


# rule: M-STARMADA
def test_m_starmada_off_means_no_system_rolls() -> None:
    state = started(game())
    state, events = raider_hits_kestrel(state, "grapnel", rolls=(3,))
    assert not of_type(events, "SystemDamageRolled")
    assert state["ships"]["kestrel"]["starmada"] == {
        "thrust": 0,
        "weapons": 0,
        "ecm": 0,
        "shields": 0,
    }


# rule: M-STARMADA
def test_m_starmada_is_switched_by_the_gm_in_downtime_only() -> None:
    state = game()
    refused(
        state, c.SetModule(module="starmada", on=True, actor=seat("kestrel", "comms")), "GM_ONLY"
    )
    refused(started(state), c.SetModule(module="starmada", on=True), "WRONG_PHASE")
    refused(state, c.SetModule(module="warp", on=True), "UNKNOWN_MODULE")
    assert run(state, c.SetModule(module="starmada", on=True))["modules"] == ["starmada"]


# rule: M-SYSHIT
@pytest.mark.parametrize(
    "d20, hull, hit",
    [
        (4, 2, {"pilot": 2}),  # 3-6 engines -> Pilot: half the Hull damage, rounded down
        (1, 2, {"comms": 2}),  # 1 communications
        (19, 2, {"weapons": 2}),  # 18-20 weapons
        (2, 2, {"engineering": 2}),  # 2 computers -> Engineering
        (12, 4, {}),  # 10-17 structure: all on the Hull (box 4 is red: 1 each)
    ],
)
def test_m_syshit_d20_picks_the_system_that_takes_half(
    d20: int, hull: int, hit: dict[str, int]
) -> None:
    state = started(game(modules=("syshit",)))
    state, events = raider_hits_kestrel(state, "autocannon", "rockets", rolls=(3, (20, d20)))
    rolled = one(events, "SystemHitRolled")
    assert (rolled["roll"], rolled["purpose"], rolled["points"]) == (
        d20,
        "system hit",
        sum(hit.values()),
    )
    kestrel = state["ships"]["kestrel"]
    assert kestrel["hull"]["damage"] == hull
    red_box = 1 if hull >= 4 else 0
    assert {k: s["damage"] for k, s in kestrel["stations"].items()} == {
        k: hit.get(k, 0) + red_box for k in kestrel["stations"]
    }
    assert not of_type(events, "AllocationRequested")


# rule: M-SYSHIT
def test_m_syshit_at_least_one_point_stays_on_the_hull() -> None:
    state = started(game(modules=("syshit",)))
    state, events = raider_hits_kestrel(state, "grapnel", rolls=(3, (20, 4)))
    assert one(events, "SystemHitRolled")["points"] == 0
    assert state["ships"]["kestrel"]["hull"]["damage"] == 1
    assert stations(state, "kestrel")["pilot"]["damage"] == 0


# rule: M-SYSHIT
def test_m_syshit_a_system_the_ship_lacks_leaves_the_damage_on_the_hull() -> None:
    state = place(started(game(modules=("syshit",))), "rustjaw", 5, 5)
    cards = [c_ for c_ in stations(state, "kestrel")["weapons"]["hand"]]
    state = run(
        state,
        c.SubmitOrder(
            ship="kestrel",
            station="weapons",
            action="attack",
            cards=tuple(cards),
            target="rustjaw",
            weapons=("pulse-laser",),
            actor=seat("kestrel", "weapons"),
        ),
    )
    state, events = close(set_rolls(state, 6, (20, 8)))  # 7-9 sensors -> Comms: Rustjaw has none
    assert one(events, "SystemHitRolled")["system"] == "comms"
    assert state["ships"]["rustjaw"]["hull"]["damage"] == 2


# rule: M-SYSHIT
def test_m_syshit_shields_still_soak_first() -> None:
    state = place(started(game(modules=("syshit",))), "rustjaw", 5, 5)
    state = run(state, npc("rustjaw", "weapons", "attack", 6, target="kestrel"))  # 5 damage
    state, events = close(set_rolls(state, 3, (20, 4)))
    assert one(events, "ShieldsHit")["points"] == 4
    assert one(events, "SystemHitRolled")["points"] == 0  # 1 left: it stays on the Hull
    assert state["ships"]["kestrel"]["hull"]["damage"] == 1


# rule: M-SYSHIT
def test_m_syshit_a_shields_result_hits_the_shield_generator() -> None:
    state = started(game(modules=("syshit",)))
    state["settings"]["hit_table"] = [[1, 20, "shields"]]  # a table the content check accepts
    state, events = raider_hits_kestrel(state, "autocannon", "rockets", rolls=(3, (20, 9)))
    assert one(events, "SystemHitRolled")["points"] == 2
    kestrel = state["ships"]["kestrel"]
    assert (kestrel["shields"]["damage"], kestrel["hull"]["damage"]) == (2, 2)
