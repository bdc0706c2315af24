"""Timers: the turn timer and Engineering's allocation window are deadlines in the state; the
server's sweeper expires each once, and the GM can pause, resume and extend them."""

from __future__ import annotations

from app.rules import commands as c
from app.rules import deadlines

from .builders import (
    NOW,
    SYSTEM,
    Events,
    State,
    close,
    game,
    npc,
    of_type,
    one,
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


def expire(kind: str, at: float, now: float | None = None) -> c.ExpireDeadline:
    return c.ExpireDeadline(kind=kind, at=at, actor=SYSTEM, now=at if now is None else now)


def timed_turn(seconds: int = 60) -> State:
    return started(game(), seconds=seconds)


def test_turn_timer_is_a_deadline_the_sweeper_reads() -> None:
    state = timed_turn(60)
    assert state["deadline"] == {"kind": "orders", "at": NOW + 60}
    assert deadlines(state) == [{"kind": "orders", "at": NOW + 60}]
    assert deadlines(started(game(), seconds=0)) == []


def test_orders_deadline_applies_once() -> None:
    state = timed_turn(60)
    refused(state, expire("orders", NOW + 60, now=NOW + 59), "DEADLINE_NOT_DUE")
    state, events = run_events(state, expire("orders", NOW + 60))
    assert one(events, "TimerExpired") and one(events, "OrdersRevealed")
    assert state["phase"] == "turn_end" and deadlines(state) == []
    refused(state, expire("orders", NOW + 60, now=NOW + 61), "NO_SUCH_DEADLINE")


def test_a_stale_or_wrong_deadline_is_refused() -> None:
    state = timed_turn(60)
    refused(state, expire("orders", NOW + 30), "NO_SUCH_DEADLINE")
    refused(state, expire("allocation", NOW + 60), "NO_SUCH_DEADLINE")
    refused(game(), expire("orders", NOW), "NO_SUCH_DEADLINE")


def test_silent_stations_pass_when_the_timer_runs_out() -> None:
    state = timed_turn(60)
    state = run(state, c.PassOrder(ship="kestrel", station="pilot", actor=seat("kestrel", "pilot")))
    state = run(state, expire("orders", NOW + 60))
    revealed = state["revealed"]["orders"]
    assert revealed["kestrel/pilot"]["by"] == "seat"
    assert revealed["kestrel/weapons"] == {
        **revealed["kestrel/weapons"],
        "action": "pass",
        "by": "timeout",
    }


def test_pause_resume_and_extend_the_turn_timer() -> None:
    state = run(timed_turn(60), c.PauseTimer(now=NOW + 20))
    assert state["deadline"] is None and state["paused"] == {"kind": "orders", "remaining": 40}
    refused(state, expire("orders", NOW + 60, now=NOW + 70), "NO_SUCH_DEADLINE")
    refused(state, c.PauseTimer(now=NOW + 21), "NO_TIMER")
    state = run(state, c.ExtendTimer(seconds=15, now=NOW + 30))
    assert state["paused"]["remaining"] == 55
    state = run(state, c.ResumeTimer(now=NOW + 100))
    assert state["deadline"] == {"kind": "orders", "at": NOW + 155} and state["paused"] is None
    refused(state, c.ResumeTimer(now=NOW + 101), "NOT_PAUSED")
    state = run(state, c.ExtendTimer(seconds=30, now=NOW + 110))
    assert state["deadline"]["at"] == NOW + 185
    refused(state, expire("orders", NOW + 155, now=NOW + 190), "NO_SUCH_DEADLINE")
    state = run(state, expire("orders", NOW + 185))
    assert state["phase"] == "turn_end"


def test_extend_without_a_timer_starts_one_and_only_the_gm_controls_it() -> None:
    state = timed_turn(0)
    state = run(state, c.ExtendTimer(seconds=45, now=NOW + 5))
    assert state["deadline"] == {"kind": "orders", "at": NOW + 50}
    refused(state, c.ExtendTimer(seconds=0, now=NOW), "BAD_VALUE")
    refused(state, c.PauseTimer(actor=seat("kestrel", "pilot")), "GM_ONLY")
    refused(
        state,
        c.ExpireDeadline(kind="orders", at=NOW + 50, actor=seat("kestrel", "pilot"), now=NOW + 60),
        "GM_ONLY",
    )


def _convoy_hits_both_player_ships() -> tuple[State, Events]:
    """Jackal-1 hits Kestrel and Jackal-2 hits Resolute, shields down: two prompts at once."""
    state = started(game("convoy"))
    state = shields(shields(state, "kestrel", False), "resolute", False)
    state = place(place(state, "jackal-1", 4, 3), "jackal-2", 4, 6)
    state = run(
        state,
        npc(
            "jackal-1", "weapons", "attack", 6, target="kestrel", weapons=("autocannon", "rockets")
        ),
        npc(
            "jackal-2", "weapons", "attack", 6, target="resolute", weapons=("autocannon", "rockets")
        ),
    )
    return close(set_rolls(state, 4, 4))


# rule: G-DMG-4
def test_allocation_deadline_expiry_sends_unanswered_damage_to_the_hull() -> None:
    state, events = _convoy_hits_both_player_ships()
    assert state["phase"] == "allocation"
    assert len(of_type(events, "AllocationRequested")) == 2
    at = state["deadline"]["at"]
    assert state["deadline"] == {"kind": "allocation", "at": NOW + 20}
    state = run(
        state,
        c.AllocateDamage(
            ship="kestrel",
            allocations={"weapons": 1},
            actor=seat("kestrel", "engineering"),
            now=NOW + 5,
        ),
    )
    assert state["phase"] == "allocation"  # Resolute's engineer has not answered
    state, events = run_events(state, expire("allocation", at))
    assert [e["ship"] for e in of_type(events, "AllocationExpired")] == ["resolute"]
    assert state["ships"]["kestrel"]["hull"]["damage"] == 3
    assert stations(state, "kestrel")["weapons"]["damage"] == 1
    assert state["ships"]["resolute"]["hull"]["damage"] == 4
    assert all(s["damage"] == 0 for s in stations(state, "resolute").values())
    assert state["phase"] == "turn_end"
    refused(state, expire("allocation", at, now=at + 1), "NO_SUCH_DEADLINE")


def test_allocation_timer_can_be_paused_and_resumed() -> None:
    state, _ = _convoy_hits_both_player_ships()
    state = run(state, c.PauseTimer(now=NOW + 15))
    assert state["paused"] == {"kind": "allocation", "remaining": 5}
    refused(state, expire("allocation", NOW + 20, now=NOW + 25), "NO_SUCH_DEADLINE")
    state = run(state, c.ResumeTimer(now=NOW + 60))
    state = run(state, expire("allocation", NOW + 65))
    assert state["phase"] == "turn_end"
    assert state["ships"]["resolute"]["hull"]["damage"] == 4


def test_answered_allocation_cannot_be_answered_again() -> None:
    state, _ = _convoy_hits_both_player_ships()
    state = run(
        state,
        c.AllocateDamage(ship="kestrel", allocations={}, actor=seat("kestrel", "engineering")),
    )
    refused(
        state,
        c.AllocateDamage(
            ship="kestrel", allocations={"pilot": 1}, actor=seat("kestrel", "engineering")
        ),
        "NO_ALLOCATION_PENDING",
    )
    refused(state, c.AllocateDamage(ship="jackal-1", allocations={}), "NO_ALLOCATION_PENDING")
