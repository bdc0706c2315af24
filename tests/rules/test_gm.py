"""The GM's tools: undoing a resolution, corrections that set values without cascades, bonuses
with an expiry, seats and messages."""

from __future__ import annotations

from app.rules import commands as c
from app.rules.core.names import CREW_NAME_LENGTH, name_problem

from .builders import (
    State,
    close,
    damage,
    game,
    give,
    npc,
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


def _without(state: State, *keys: str) -> State:
    return {k: v for k, v in state.items() if k not in keys}


def _turn_with_a_hit() -> State:
    """Kestrel fires at Rustjaw and Rustjaw at Kestrel (shields down): orders given, not closed."""
    state = place(shields(started(game()), "kestrel", False), "rustjaw", 5, 5)
    cards = give(state, "kestrel", "weapons", 3, 2)
    state = run(
        state,
        order("kestrel", "weapons", "attack", cards, target="rustjaw", weapons=("torpedo",)),
        npc("rustjaw", "weapons", "attack", 5, target="kestrel"),
    )
    return set_rolls(state, 5, 4)


def test_undo_restores_the_state_before_resolution() -> None:
    before = _turn_with_a_hit()
    resolved, _ = close(before)
    resolved = run(resolved, c.ForceAllocation())
    assert resolved["phase"] == "turn_end"
    assert resolved["ships"]["rustjaw"]["hull"]["damage"] == 3
    undone, events = run_events(resolved, c.UndoResolution())
    assert one(events, "ResolutionUndone")
    assert undone["phase"] == "orders" and undone["orders"] == before["orders"]
    assert undone["ships"] == before["ships"]  # tracks, hands and positions as they were
    assert _without(undone, "log") == _without(before, "log")
    assert undone["log"][-1]["type"] == "ResolutionUndone"  # what the room saw stays in the log


def test_undo_then_resolving_again_gives_the_same_result() -> None:
    before = _turn_with_a_hit()
    first, first_events = close(before)
    undone = run(first, c.UndoResolution())
    again, again_events = close(undone)
    assert _without(again, "log") == _without(first, "log")
    assert again_events == first_events


def test_undo_works_while_engineering_is_still_deciding() -> None:
    before = _turn_with_a_hit()
    waiting, _ = close(before)
    assert waiting["phase"] == "allocation"
    undone = run(waiting, c.UndoResolution())
    assert undone["phase"] == "orders" and undone["allocation"] is None
    assert undone["deadline"] is None  # the timer is stopped until the GM restarts it
    assert undone["ships"] == before["ships"]


def test_undo_only_once_and_only_this_turn() -> None:
    resolved = run(close(_turn_with_a_hit())[0], c.ForceAllocation())
    refused(resolved, c.UndoResolution(actor=seat("kestrel", "weapons")), "GM_ONLY")
    undone = run(resolved, c.UndoResolution())
    refused(undone, c.UndoResolution(), "WRONG_PHASE")  # orders are open again
    next_turn = started(resolved)
    next_turn, _ = close(next_turn)
    again = run(next_turn, c.UndoResolution())  # undoes turn 2 only
    assert again["turn"] == 2 and again["ships"] == next_turn["undo"]["state"]["ships"]


def test_undo_keeps_messages_sent_after_the_resolution() -> None:
    resolved = run(
        close(_turn_with_a_hit())[0], c.ForceAllocation(), c.SendMessage(text="Hold on!", to="all")
    )
    undone = run(resolved, c.UndoResolution())
    assert [m["text"] for m in undone["messages"]] == ["Hold on!"]


def test_nothing_to_undo_without_a_snapshot_of_this_turn() -> None:
    resolved = run(close(_turn_with_a_hit())[0], c.ForceAllocation())
    refused(dict(resolved, undo=None), c.UndoResolution(), "NOTHING_TO_UNDO")
    stale = dict(resolved, undo=dict(resolved["undo"], turn=resolved["turn"] - 1))
    refused(stale, c.UndoResolution(), "NOTHING_TO_UNDO")


# --- Corrections ---------------------------------------------------------------------------------


def test_set_track_corrects_without_cascades() -> None:
    state = damage(started(game()), "kestrel", "hull", 4)  # box 4 is red
    assert all(s["damage"] == 0 for s in stations(state, "kestrel").values())
    state = damage(state, "kestrel", "shields", 4)
    assert state["ships"]["kestrel"]["shields"]["active"] is False
    refused(state, c.SetTrack(ship="kestrel", track="hull", damage=13), "BAD_VALUE")
    refused(state, c.SetTrack(ship="rustjaw", track="shields", damage=1), "NO_SHIELDS")
    state, events = run_events(state, c.SetTrack(ship="kestrel", track="hull", damage=12))
    assert state["ships"]["kestrel"]["destroyed"] and one(events, "ShipDestroyed")


def test_destroy_and_restore_a_ship() -> None:
    state = run(started(game()), c.DestroyShip(ship="rustjaw"))
    assert state["ships"]["rustjaw"]["destroyed"]
    refused(state, c.DestroyShip(ship="rustjaw"), "SHIP_DESTROYED")
    refused(state, npc("rustjaw", "pilot", "evasive", 2), "SHIP_DESTROYED")
    state = run(state, c.RestoreShip(ship="rustjaw"))
    assert not state["ships"]["rustjaw"]["destroyed"]
    refused(state, c.RestoreShip(ship="rustjaw"), "NOT_DESTROYED")


def test_combat_long_bonus_lasts_until_it_is_removed() -> None:
    state = run(
        started(game()),
        c.ImposeModifier(
            ship="rustjaw", applies="defence", value=2, reason="debris cover", lasting="combat"
        ),
    )
    for _ in range(2):
        state, _ = close(state)
        state = started(state)
    modifier = state["modifiers"][0]
    assert (modifier["reason"], modifier["value"]) == ("debris cover", 2)
    state = run(state, c.RemoveModifier(modifier=modifier["id"]))
    assert state["modifiers"] == []
    refused(state, c.RemoveModifier(modifier=modifier["id"]), "NO_SUCH_MODIFIER")


# rule: G-HIT-5
def test_turn_bonus_given_in_downtime_lasts_only_the_first_turn_of_the_next_combat() -> None:
    state = started(game())
    for _ in range(3):
        state, _ = close(state)
        state = started(state)
    state = run(state, c.EndCombat())
    state = run(
        state, c.ImposeModifier(ship="rustjaw", applies="attack", value=-2, reason="sensor ghost")
    )
    state = started(state)
    assert (state["turn"], [m["reason"] for m in state["modifiers"]]) == (1, ["sensor ghost"])
    state, _ = close(state)
    assert state["modifiers"] == []


def test_bad_modifiers_are_refused() -> None:
    state = started(game())
    refused(
        state, c.ImposeModifier(ship="rustjaw", applies="luck", value=1, reason="x"), "BAD_MODIFIER"
    )
    refused(
        state, c.ImposeModifier(ship="rustjaw", applies="attack", value=0, reason="x"), "BAD_VALUE"
    )
    refused(
        state, c.ImposeModifier(ship="rustjaw", applies="attack", value=1, reason="  "), "NO_REASON"
    )


def test_seats_are_one_station_each() -> None:
    state = game()
    refused(state, c.SeatCrew(ship="kestrel", station="pilot", seat="x", name="X"), "STATION_TAKEN")
    state = run(state, c.UnseatCrew(ship="kestrel", station="pilot"))
    refused(
        state,
        c.SeatCrew(ship="kestrel", station="pilot", seat="kestrel-comms", name="X"),
        "SEAT_TAKEN",
    )
    state = run(
        state,
        c.SeatCrew(ship="kestrel", station="pilot", seat="x", name="X", character="ilse-marrow"),
    )
    state = run(state, c.UnseatCrew(ship="kestrel", station="comms"))
    refused(
        state,
        c.SeatCrew(ship="kestrel", station="comms", seat="y", name="Y", character="ilse-marrow"),
        "CHARACTER_TAKEN",
    )


def test_a_player_leaving_takes_their_skill_cards_and_order() -> None:
    state = started(game(characters={"kestrel/pilot": "ilse-marrow"}))
    hand = stations(state, "kestrel")["pilot"]["hand"]
    state = run(state, order("kestrel", "pilot", "evasive", hand[:1]))
    state = run(state, c.UnseatCrew(ship="kestrel", station="pilot"))
    pilot = stations(state, "kestrel")["pilot"]
    assert all(state["cards"][card]["source"] == "station" for card in pilot["hand"])
    assert len(state["characters"]["ilse-marrow"]["discard"]) == 3
    assert "kestrel/pilot" not in state["orders"]


# Names the join form refuses (tests/security/test_names.py has the whole list).
HIDING = {"override": "Ann\u202e", "zero-width space": "An\u200bn", "newline": "Ann\nBo"}


def test_names_the_gm_types_meet_the_players_name_rule() -> None:
    """A ship the GM adds or renames and a crew member the GM seats by hand are held
    to the join form's rule (visible text, one line, no bidi overrides), with its sentence."""
    state = run(game(), c.UnseatCrew(ship="kestrel", station="comms"))
    for what, name in HIDING.items():
        seated = c.SeatCrew(ship="kestrel", station="comms", seat="s", name=name)
        error = refused(state, seated, "BAD_NAME")
        assert error.words == name_problem(name, CREW_NAME_LENGTH), what
        wave = c.AddShip(ship_class="cruiser", name=f"Iron {name}", side="raiders", x=9, y=2)
        refused(state, wave, "BAD_NAME")
        renamed = c.SetShipValue(ship="rustjaw", field="name", value=name)
        refused(state, renamed, "BAD_NAME")
    refused(state, c.SeatCrew(ship="kestrel", station="comms", seat="s", name="x" * 41), "BAD_NAME")
    # A rename may not take another ship's name either (as AddShip may not), but may keep its own.
    refused(state, c.SetShipValue(ship="rustjaw", field="name", value="KESTREL"), "NAME_TAKEN")
    state = run(state, c.SetShipValue(ship="rustjaw", field="name", value=" RUSTJAW "))
    assert state["ships"]["rustjaw"]["name"] == "RUSTJAW"
