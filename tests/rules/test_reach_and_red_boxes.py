"""Range judged at resolution and Command bonuses to the move (G-TURN-4); red station boxes hurt
1d6 less armour, and only a character still at the station (G-DMG-9)."""

from __future__ import annotations

from app.rules import commands as c

from .builders import (
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
    said,
    set_rolls,
    shields,
    started,
)


# rule: G-TURN-4
def test_g_turn_4_an_attack_out_of_reach_now_hits_after_our_pilot_closes_in() -> None:
    state = place(started(game()), "rustjaw", 10, 5)  # 7 squares: beyond the pulse laser
    gun = give(state, "kestrel", "weapons", 5)
    helm = give(state, "kestrel", "pilot", 3)
    state = run(
        state,
        order("kestrel", "weapons", "attack", gun, target="rustjaw", weapons=("pulse-laser",)),
        order("kestrel", "pilot", "manoeuvre", helm, x=5, y=5),  # closes to 5: Medium
    )
    assert state["orders"]["kestrel/weapons"]["out_of_reach_now"] is True  # the phone warns
    state, events = close(set_rolls(state, 6))
    attack = one(events, "AttackResolved")
    assert attack["distance"] == 5 and attack["out_of_range"] is False
    assert attack["hit"] is True


# rule: G-TURN-4
def test_g_turn_4_an_attack_in_reach_carries_no_warning() -> None:
    state = place(started(game()), "rustjaw", 6, 5)
    gun = give(state, "kestrel", "weapons", 5)
    state = run(state, order("kestrel", "weapons", "attack", gun, target="rustjaw"))
    assert state["orders"]["kestrel/weapons"]["out_of_reach_now"] is False


# rule: G-TURN-4
def test_g_turn_4_a_captains_command_adds_to_the_squares_moved() -> None:
    state = started(game("convoy"))  # Resolute at (2, 6) has a Captain
    helm = give(state, "resolute", "pilot", 2)
    command = give(state, "resolute", "captain", 4)  # +2 by default (4 ÷ 2)
    state = run(
        state,
        order("resolute", "pilot", "manoeuvre", helm, x=6, y=6),  # 4 squares on 2 cards
        order("resolute", "captain", "command", command, target_station="pilot"),
    )
    state, events = close(state)
    assert one(events, "ShipMoved")["to"] == [6, 6]
    assert (state["ships"]["resolute"]["x"], state["ships"]["resolute"]["y"]) == (6, 6)


# rule: G-TURN-4
def test_g_turn_4_without_a_captain_a_move_beyond_the_cards_is_too_far() -> None:
    state = started(game())  # Kestrel has no Captain
    helm = give(state, "kestrel", "pilot", 2)
    refused(state, order("kestrel", "pilot", "manoeuvre", helm, x=7, y=5), "TOO_FAR")


# rule: G-TURN-4
def test_g_turn_4_without_the_command_the_ship_goes_as_far_as_its_cards() -> None:
    state = started(game("convoy"))
    helm = give(state, "resolute", "pilot", 2)
    state = run(state, order("resolute", "pilot", "manoeuvre", helm, x=6, y=6))
    state, events = close(state)
    assert one(events, "ShipMoved")["to"] == [4, 6]


def _red_box_hit(state: State, injury: int) -> tuple[State, Events]:
    """Rustjaw hits Kestrel's Weapons, aimed, filling its red box 3; `injury` is the d6 after the
    roll to hit."""
    state = damage(shields(started(state), "kestrel", False), "kestrel", "weapons", 2)
    state = place(state, "rustjaw", 5, 5)
    state = run(
        state,
        npc(
            "rustjaw",
            "weapons",
            "attack",
            6,
            target="kestrel",
            weapons=("autocannon",),
            target_station="weapons",
        ),
    )
    return close(set_rolls(state, 3, injury))


# rule: G-DMG-9
def test_g_dmg_9_a_red_box_does_1d6_less_armour() -> None:
    tomas = game(characters={"kestrel/weapons": "tomas-reyes"})  # armour 2
    _, events = _red_box_hit(tomas, 5)
    injury = one(events, "CrewInjured")
    assert (injury["damage"], injury["blocked"]) == (5, 2)
    assert sum(injury["lost"].values()) == 3
    assert "d6 5" in said(injury)


# rule: G-DMG-9
def test_g_dmg_9_an_unconscious_character_takes_no_more_injuries() -> None:
    state = game(characters={"kestrel/weapons": "amara-lind"})
    for field in ("endurance", "strength"):
        state = run(state, c.SetCharacteristic(character="amara-lind", field=field, value=0))
    assert state["characters"]["amara-lind"]["status"] == "unconscious"
    state, events = _red_box_hit(state, 6)
    assert not of_type(events, "CrewInjured") and not of_type(events, "CrewInjuryBlocked")
    assert one(events, "RedBoxFilled")["station"] == "weapons"
    amara = state["characters"]["amara-lind"]
    assert amara["status"] == "unconscious" and amara["dexterity"]["value"] == 11
