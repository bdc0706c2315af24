"""The command path: lock the game, apply the rules, store state + events + the command, NOTIFY,
commit, then hand the version to this process's live hub. And the replay that proves it.
"""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import defer

from app.content import load_catalogue
from app.db.models import AppliedCommand, Event, Game
from app.rules import Actor, RulesError, apply, deadlines, event_view, new_game, parse_command

from . import hot
from .errors import ServiceError, no_such_game

log = logging.getLogger(__name__)

SessionFactory = async_sessionmaker[AsyncSession]
State = dict[str, Any]
Viewer = str | tuple[str, str]  # "gm" | "display" | ("seat", seat_id), as the engine's views take
NOTIFY_CHANNEL = "bridgecrew"


@dataclasses.dataclass(frozen=True)
class CommandResult:
    """What one applied command produced. `events` are raw (secrets included): show them to a
    viewer only through `visible_events`."""

    version: int
    events: list[dict[str, Any]]
    state: State = dataclasses.field(repr=False)

    def visible_events(self, viewer: Viewer) -> list[dict[str, Any]]:
        return visible(self.state, self.events, viewer)


def visible(state: State, events: list[dict[str, Any]], viewer: Viewer) -> list[dict[str, Any]]:
    shown = (event_view(state, event, viewer) for event in events)
    return [event for event in shown if event is not None]


# --- After commit: this process's live hub -------------------------------------------------------

CommitListener = Callable[[uuid.UUID, int], None]
_commit_listeners: list[CommitListener] = []


def add_commit_listener(listener: CommitListener) -> None:
    """The live hub registers here to push a committed version without waiting for the NOTIFY
    round trip (the NOTIFY still reaches every other process; this one ignores the echo)."""
    _commit_listeners.append(listener)


def remove_commit_listener(listener: CommitListener) -> None:
    if listener in _commit_listeners:
        _commit_listeners.remove(listener)


def committed(game_id: uuid.UUID, version: int) -> None:
    """Call only after the transaction that made `version` has committed."""
    for listener in list(_commit_listeners):
        try:
            listener(game_id, version)
        except Exception:  # a failed push must never look like a failed command
            log.exception("commit listener failed for %s:%s", game_id, version)


# --- Commands -------------------------------------------------------------------------------------


async def run_command(
    session_factory: SessionFactory,
    game_id: uuid.UUID | str,
    command_data: dict[str, Any],
    actor: Actor,
    *,
    command_id: str,
    expected_version: int | None = None,
    now: float | None = None,
) -> CommandResult:
    """Apply one command in one transaction; a command_id applied before returns its stored
    result and changes nothing. Raises ServiceError (with .status) when refused. `now` (epoch
    seconds) is the clock the engine sees: time.time() unless a sweeper or a test says."""
    game_uuid = game_key(game_id)
    async with session_factory() as session, session.begin():
        game = await lock_game(session, game_uuid, with_state=False)
        state = await locked_state(session, game)
        result, fresh = await apply_locked(
            session, game, command_data, actor, command_id, expected_version, now, state=state
        )
    if fresh:
        hot.HOT.remember(game_uuid, result.version, game.updated_at, hot.encode(result.state))
        committed(game_uuid, result.version)
    return result


async def lock_game(session: AsyncSession, game_id: uuid.UUID, *, with_state: bool = True) -> Game:
    """The game row, locked FOR UPDATE: every command on one game is serialised, across all
    processes. Without its state, `locked_state` gives the state (from memory when it can)."""
    query = select(Game).where(Game.id == game_id).with_for_update()
    if not with_state:
        query = query.options(defer(Game.state))
    game = await session.scalar(query)
    if game is None:
        raise no_such_game()
    return game


async def locked_state(session: AsyncSession, game: Game) -> State:
    """The locked game's state, canonical: this process's copy of that exact version if it has
    one, else read from the row."""
    blob = hot.HOT.recall(game.id, game.version, game.updated_at)
    if blob is None:
        stored = await session.scalar(select(Game.state).where(Game.id == game.id))
        if stored is None:
            raise no_such_game()
        blob = hot.encode(stored)
        hot.HOT.remember(game.id, game.version, game.updated_at, blob)
    state: State = hot.decode(blob)
    return state


async def apply_locked(
    session: AsyncSession,
    game: Game,
    command_data: dict[str, Any],
    actor: Actor,
    command_id: str,
    expected_version: int | None = None,
    now: float | None = None,
    *,
    state: State | None = None,
) -> tuple[CommandResult, bool]:
    """Apply inside the caller's transaction, with `game` locked. Returns (result, fresh); fresh
    is False when the command_id had been applied before. The caller commits, then `committed`.
    `state` is the game's canonical state when the caller has it (else `game.state` is read)."""
    if not isinstance(command_id, str) or not 1 <= len(command_id) <= 200:
        raise ServiceError("BAD_COMMAND", "A command needs a command_id of 1 to 200 characters.")
    earlier = await session.get(AppliedCommand, (game.id, command_id))
    if state is None:
        state = canonical(game.state)
    if earlier is not None:
        return await _earlier_result(session, game, state, earlier, command_data, actor), False
    if expected_version is not None and expected_version != game.version:
        raise ServiceError(
            "STALE_VERSION",
            f"The game has moved on (version {game.version}, "
            f"you had {expected_version}); look again and retry.",
        )
    now = time.time() if now is None else now
    try:
        command = parse_command(command_data, actor, now)
        state, events = apply(state, command)
    except RulesError as error:
        raise ServiceError.from_rules(error) from error
    version = game.version + 1
    _store_deadline(game, state, version)
    game.state = state
    game.version = version
    game.updated_at = datetime.now(UTC)
    session.add_all(
        Event(game_id=game.id, version=version, seq=seq, type=event["type"], data=event)
        for seq, event in enumerate(events)
    )
    # What replay_state needs to apply this command again: its fields, who gave it, and when.
    session.add(
        AppliedCommand(
            game_id=game.id,
            command_id=command_id,
            version=version,
            result={
                "command": command_fields(command),
                "actor": dataclasses.asdict(actor),
                "now": now,
            },
        )
    )
    # Delivered by PostgreSQL at commit, to every process's listener; only ids, never state.
    await session.execute(
        text("SELECT pg_notify(:channel, :payload)"),
        {"channel": NOTIFY_CHANNEL, "payload": f"{game.id}:{version}"},
    )
    return CommandResult(version, events, state), True


async def _earlier_result(
    session: AsyncSession,
    game: Game,
    state: State,
    earlier: AppliedCommand,
    command_data: dict[str, Any],
    actor: Actor,
) -> CommandResult:
    """A retried command gets the answer it got the first time; a different command reusing the
    id is refused, so nobody reads another seat's result by guessing ids."""
    stored = earlier.result
    try:
        same = (
            command_fields(parse_command(command_data, actor)) == stored["command"]
            and dataclasses.asdict(actor) == stored["actor"]
        )
    except RulesError:
        same = False
    if not same:
        raise ServiceError(
            "COMMAND_ID_REUSED",
            "That command id was already used for another command; send a new id.",
        )
    rows = await session.scalars(
        select(Event)
        .where(Event.game_id == game.id, Event.version == earlier.version)
        .order_by(Event.seq)
    )
    return CommandResult(earlier.version, [row.data for row in rows], state)


def command_fields(command: Any) -> dict[str, Any]:
    """A command as data that `parse_command` reads back into the same command."""
    fields = {
        f.name: getattr(command, f.name)
        for f in dataclasses.fields(command)
        if f.name not in ("actor", "now")
    }
    result: dict[str, Any] = canonical({"type": command.type, **fields})
    return result


def canonical(data: Any) -> Any:
    """The same data with dict keys sorted. JSONB hands keys back in its own order, and the engine
    iterates dicts (ships, orders), so both the live path and replay_state feed `apply` sorted
    states: the same commands then draw the same dice in the same order."""
    return hot.canonical(data)


def _store_deadline(game: Game, state: State, version: int) -> None:
    due = min(deadlines(state), key=lambda d: d["at"], default=None)
    if due is None:
        game.deadline_at = game.deadline_kind = game.deadline_version = None
        return
    at = datetime.fromtimestamp(due["at"], UTC)
    # deadline_version marks when this deadline was set, so the sweeper's command id tells apart
    # a deadline that comes back unchanged after an undo from the one already expired.
    if (game.deadline_kind, game.deadline_at) != (due["kind"], at):
        game.deadline_version = version
    game.deadline_at = at
    game.deadline_kind = due["kind"]


async def replay_state(session_factory: SessionFactory, game_id: uuid.UUID | str) -> State:
    """The game rebuilt from its scenario and seed by applying every stored command again."""
    game_uuid = game_key(game_id)
    async with session_factory() as session:
        game = await session.get(Game, game_uuid)
        if game is None:
            raise no_such_game()
        rows = await session.scalars(
            select(AppliedCommand)
            .where(AppliedCommand.game_id == game_uuid)
            .order_by(AppliedCommand.version)
        )
        stored = [row.result for row in rows]
    catalogue = load_catalogue()
    state: State = canonical(
        new_game(catalogue.scenarios[game.scenario], catalogue, seed=game.seed)
    )
    for entry in stored:
        command = parse_command(entry["command"], Actor(**entry["actor"]), entry["now"])
        state, _ = apply(state, command)
        state = canonical(state)
    return state


def game_key(game_id: uuid.UUID | str) -> uuid.UUID:
    """A game id from a URL; anything that is not a UUID is simply a game that does not exist."""
    if isinstance(game_id, uuid.UUID):
        return game_id
    try:
        return uuid.UUID(game_id)
    except (ValueError, TypeError, AttributeError):
        raise no_such_game() from None
