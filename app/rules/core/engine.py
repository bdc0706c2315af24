"""The one entry point: `apply(state, command) -> (new_state, events)`.

`apply` works on a private copy, so an illegal command (a `RulesError`) leaves the caller's state
exactly as it was.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

from . import combat, evening, gm, timing
from . import commands as c
from .cards import draw_for_turn, draw_up, return_skill_cards
from .context import Context
from .discards import discard_cards
from .errors import refuse
from .hooks import HOOKS
from .messages import message
from .orders import all_ready, pass_order, submit_order, withdraw_order
from .phases import phase_allows
from .resolve import allocate, finish_allocation, reveal_and_resolve
from .state import State, manned, station_key

Events = list[dict[str, Any]]


# Parts of the state the engine never changes in place (it replaces them whole), so a new state
# may share them with the old one instead of copying.
SHARED = ("cards", "undo", "log", "revealed")


def clone(state: State) -> State:
    """A deep copy of the changing parts, through pickle: the state is plain data, which pickle
    copies with less work than copy.deepcopy."""
    changing = {k: v for k, v in state.items() if k not in SHARED}
    # Our own bytes, made the line before: nothing untrusted is unpickled.
    copy: State = pickle.loads(pickle.dumps(changing, protocol=pickle.HIGHEST_PROTOCOL))  # noqa: S301
    for key in SHARED:
        if key in state:
            copy[key] = state[key]
    return copy


def apply(state: State, command: c.Command, *, owned: bool = False) -> tuple[State, Events]:
    """The state after the command, and what happened. The state given is left as it was,
    unless the caller `owned` it: a state made for this one call (just decoded, say) may be
    changed in place, which saves copying it; after the call, or a refusal, it is not to be
    read again."""
    if command.actor.role == "prop":
        if not command.props_may:
            raise refuse("GM_ONLY")
    elif command.gm_only and not command.actor.is_gm:
        raise refuse("GM_ONLY")
    phase = state["phase"]
    check_phase(phase, command)
    ctx = Context(state if owned else clone(state), command.now)
    could_end = combat.can_end(ctx.state)
    handle(ctx, command)
    HOOKS.after_command(ctx, phase)
    combat.notice_end(ctx, could_end)
    return ctx.state, ctx.events


def check_phase(phase: str, command: c.Command) -> None:
    """Refuses a command the phase does not allow: a core command by the table of phases, a
    module's by the phases it registered with."""
    plugged = HOOKS.commands.get(type(command))
    if not (phase_allows(phase, command.type) if plugged is None else phase in plugged.phases):
        raise refuse("WRONG_PHASE", phase=phase)


def handle(ctx: Context, command: c.Command) -> None:
    """Runs the command's handler, the core's or its module's."""
    plugged = HOOKS.commands.get(type(command))
    (HANDLERS[type(command)] if plugged is None else plugged.handler)(ctx, command)


# --- Turn flow -----------------------------------------------------------------------------------


def start_turn(ctx: Context, cmd: c.StartTurn) -> None:
    state = ctx.state
    if state["phase"] == "downtime":
        state["combat"] += 1
        state["turn"] = 0
        for ship in state["ships"].values():  # G-REP-1 counts damage "this combat"
            ship["shields"]["suffered"] = 0
            for station in ship["stations"].values():
                station["suffered"] = 0
        ctx.emit(
            "CombatStarted",
            message("combat_started", combat=state["combat"]),
            combat=state["combat"],
        )
    state["turn"] += 1
    state["undo"] = None
    state["orders"] = {}
    state["phase"] = "orders"
    seconds = state["settings"]["orders_seconds"] if cmd.seconds is None else cmd.seconds
    if not 0 <= seconds <= 3600:
        raise refuse("BAD_VALUE", "bad_timer", most=3600)
    if seconds:
        timing.set_deadline(state, "orders", ctx.now + seconds)
    else:
        timing.clear_deadline(state)
    ctx.emit(
        "TurnStarted",
        message("turn_started_timed", turn=state["turn"], seconds=seconds)
        if seconds
        else message("turn_started", turn=state["turn"]),
        seconds=seconds,
        deadline=state["deadline"]["at"] if state["deadline"] else None,
    )
    draw_for_turn(ctx)
    HOOKS.orders_open(ctx)  # M-NPC-2: NPC crews choose as Orders open


# Left out of the undo snapshot: static cards, and what the room has already seen and heard.
UNDO_SKIPS = ("cards", "undo", "log", "messages", "red_alert")


def close_orders(ctx: Context, cmd: c.Command) -> None:
    """Reveal and resolve. The state just before is kept so the GM can undo the resolution."""
    snapshot = clone({k: v for k, v in ctx.state.items() if k not in UNDO_SKIPS})
    ctx.state["undo"] = {"turn": ctx.state["turn"], "state": snapshot}
    reveal_and_resolve(ctx)


def submit_and_maybe_close(
    handler: Callable[[Context, Any], None],
) -> Callable[[Context, Any], None]:
    """`handler`, then the reveal if it leaves every station the turn waits for ready: the last
    order given, or the last ship the turn waited for gone out of the fight (G-END-1)."""

    def run(ctx: Context, cmd: Any) -> None:
        handler(ctx, cmd)
        if (
            ctx.state["phase"] == "orders"
            and ctx.state["settings"]["close_when_all_ready"]
            and all_ready(ctx.state)
        ):
            ctx.emit("AllOrdersIn", message("all_orders_in"), log=False)
            close_orders(ctx, cmd)

    return run


def pause_timer(ctx: Context, cmd: c.PauseTimer) -> None:
    remaining = timing.pause(ctx.state, ctx.now)
    ctx.emit(
        "TimerPaused",
        message("timer_paused", seconds=round(remaining)),
        remaining=remaining,
    )


def resume_timer(ctx: Context, cmd: c.ResumeTimer) -> None:
    remaining = timing.resume(ctx.state, ctx.now)
    ctx.emit(
        "TimerResumed",
        message("timer_resumed", seconds=round(remaining)),
        deadline=ctx.state["deadline"]["at"],
    )


def extend_timer(ctx: Context, cmd: c.ExtendTimer) -> None:
    timing.extend(ctx.state, ctx.now, cmd.seconds)
    ctx.emit(
        "TimerExtended",
        message("timer_extended", seconds=cmd.seconds),
        seconds=cmd.seconds,
        deadline=ctx.state["deadline"]["at"] if ctx.state["deadline"] else None,
    )


def expire_deadline(ctx: Context, cmd: c.ExpireDeadline) -> None:
    """The sweeper's call. It names the deadline it saw, so a stale or repeated call is refused."""
    deadline = ctx.state["deadline"]
    if deadline is None or deadline["kind"] != cmd.kind or abs(deadline["at"] - cmd.at) > 0.001:
        raise refuse("NO_SUCH_DEADLINE")
    if ctx.now < deadline["at"]:
        raise refuse("DEADLINE_NOT_DUE")
    if cmd.kind == "orders":
        ctx.emit("TimerExpired", message("timer_expired"))
        close_orders(ctx, cmd)
    else:
        finish_allocation(ctx)


def force_allocation(ctx: Context, cmd: c.ForceAllocation) -> None:
    finish_allocation(ctx)


def allocate_damage(ctx: Context, cmd: c.AllocateDamage) -> None:
    allocate(ctx, cmd.ship, cmd.allocations, None if cmd.actor.is_gm else cmd.actor.seat)


def undo_resolution(ctx: Context, cmd: c.UndoResolution) -> None:
    """Back to the Orders phase of this turn with every order still given; the dice generator is
    rewound too, so resolving again without changes gives the same result."""
    undo = ctx.state["undo"]
    if undo is None or undo["turn"] != ctx.state["turn"]:
        raise refuse("NOTHING_TO_UNDO")
    keep = {k: ctx.state[k] for k in UNDO_SKIPS}
    crews = {
        (ship["id"], station["id"]): station["crew"]
        for ship in ctx.state["ships"].values()
        for station in ship["stations"].values()
    }
    before = ctx.state
    ctx.state = {**clone(undo["state"]), **keep}
    ctx.state["undo"] = None
    timing.clear_deadline(ctx.state)
    ctx.dice = type(ctx.dice)(ctx.state["rng"])
    ctx.emit(
        "ResolutionUndone",
        message("resolution_undone", turn=ctx.state["turn"]),
    )
    keep_crews(ctx, crews)
    HOOKS.undone(ctx, before)


def keep_crews(ctx: Context, crews: dict[tuple[str, str], Any]) -> None:
    """The undo takes back the dice, not the table: whoever sits where now stays there (a player
    freed since is not brought back, a newcomer keeps the seat, a move stands). A station whose
    crew changed loses its restored order and the Skill cards of who sat there, and its crew
    draws as at a sit-down (G-CARD-3)."""
    changed = []
    for ship in ctx.state["ships"].values():
        for station in ship["stations"].values():
            now = crews.get((ship["id"], station["id"]))
            if station["crew"] == now:
                continue
            changed.append((ship, station, now))
            if station["crew"] is not None:
                return_skill_cards(ctx, station)
            station["crew"] = None
            ctx.state["orders"].pop(station_key(ship, station), None)
    for ship, station, now in changed:  # after every leaver, so no Skill card is seated twice
        station["crew"] = now
        if now is not None and manned(ctx.state, station) and not ship["destroyed"]:
            draw_up(ctx, ship, station)


def start_next_combat(ctx: Context, cmd: c.StartNextCombat) -> None:
    combat.prepare_next_combat(ctx.state)
    combat.check_both_sides_can_fight(ctx.state)
    start_turn(ctx, c.StartTurn(seconds=cmd.seconds, actor=cmd.actor, now=cmd.now))


HANDLERS: dict[type[c.Command], Callable[[Context, Any], None]] = {
    c.SubmitOrder: submit_and_maybe_close(submit_order),
    c.PassOrder: submit_and_maybe_close(pass_order),
    c.WithdrawOrder: withdraw_order,
    c.DiscardCards: discard_cards,
    c.AllocateDamage: allocate_damage,
    c.StartTurn: start_turn,
    c.CloseOrders: close_orders,
    c.PauseTimer: pause_timer,
    c.ResumeTimer: resume_timer,
    c.ExtendTimer: extend_timer,
    c.ExpireDeadline: expire_deadline,
    c.ForceAllocation: force_allocation,
    c.UndoResolution: undo_resolution,
    c.EndCombat: combat.end_combat,
    c.StartNextCombat: start_next_combat,
    c.SetShipOut: submit_and_maybe_close(combat.set_ship_out),
    c.ImposeModifier: gm.impose_modifier,
    c.RemoveModifier: gm.remove_modifier,
    c.SetTrack: gm.set_track,
    c.SetShields: gm.set_shields,
    c.SetPosition: gm.set_position,
    c.SetShipValue: gm.set_ship_value,
    c.SetCharacteristic: gm.set_characteristic,
    c.DowntimeRepair: gm.downtime_repair,
    c.FirstAid: gm.first_aid,
    c.DestroyShip: submit_and_maybe_close(gm.destroy_ship),
    c.RestoreShip: gm.restore_ship,
    c.AddShip: gm.add_ship,
    c.SeatCrew: gm.seat_crew,
    c.UnseatCrew: gm.unseat_crew,
    c.LeaveRoster: evening.leave_roster,
    c.SendMessage: gm.send_message,
    c.SetRedAlert: gm.set_red_alert,
    c.PlaySound: gm.play_sound,
    c.SetModule: gm.set_module,
    c.SetSetting: gm.set_setting,
    c.SetDisplayLanguage: gm.set_display_language,
    c.NextBattle: evening.needs_scenario,
}
