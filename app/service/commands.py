"""The command path: lock the game, apply the rules, store state + events + the command, NOTIFY,
commit, then hand the version to this process's live hub. And the replay that proves it.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import logging
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.content import load_catalogue
from app.db.models import AppliedCommand, Event, Game, stored_state, whole_state
from app.db.session import autocommit
from app.rules import Actor, RulesError, apply, deadlines, event_view, new_game, parse_command

from . import hot, notices
from .errors import ServiceError, no_such_game
from .hot import Deadline

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
        shown = (event_view(event, viewer) for event in self.events)
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


# PostgreSQL delivers a commit's NOTIFY to this process's LISTEN connection about when it answers
# the COMMIT, and often first. Acted on at once, the hub would push before run_command has kept
# the new state, and read it back from the database instead (a round trip and a decode on every
# command). So while this process has a command in flight on a game, the hub holds that game's
# notifications until the command settles: by then `committed` has told it (and the echo is
# moot), or the command failed and the held version is pushed as usual.
_in_flight: collections.Counter[uuid.UUID] = collections.Counter()
SettleListener = Callable[[uuid.UUID], None]
_settle_listeners: list[SettleListener] = []


def in_flight_here(game_id: uuid.UUID) -> bool:
    """Whether a command of this process is running on this game (from its lock to `committed`)."""
    return _in_flight[game_id] > 0


def add_settle_listener(listener: SettleListener) -> None:
    _settle_listeners.append(listener)


def remove_settle_listener(listener: SettleListener) -> None:
    if listener in _settle_listeners:
        _settle_listeners.remove(listener)


@contextlib.contextmanager
def _running_here(game_id: uuid.UUID) -> Iterator[None]:
    _in_flight[game_id] += 1
    try:
        yield
    finally:
        _in_flight[game_id] -= 1
        if _in_flight[game_id] <= 0:
            del _in_flight[game_id]
        for listener in list(_settle_listeners):
            try:
                listener(game_id)
            except Exception:
                log.exception("settle listener failed for %s", game_id)


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
    """Apply one command in one transaction; a command_id this actor applied before returns its
    stored result and changes nothing (each actor's ids are its own: `sender_of`). Raises
    ServiceError (with .status) when refused. `now` (epoch seconds) is the clock the engine sees:
    time.time() unless a sweeper or a test says."""
    game_uuid = game_key(game_id)
    check_command_id(command_id)
    now = time.time() if now is None else now
    asked = _Asked(game_uuid, command_data, actor, command_id, expected_version, now)
    with _running_here(game_uuid):
        done = await _run_on_copy(session_factory, asked)
        if done is not None:
            return done
        return await _run_locked(session_factory, asked)


@dataclasses.dataclass(frozen=True)
class _Asked:
    """One call of run_command: which game, what, who, its id, and the clock the engine sees."""

    game_id: uuid.UUID
    data: dict[str, Any]
    actor: Actor
    command_id: str
    expected_version: int | None
    now: float

    @property
    def sender(self) -> str:
        return sender_of(self.actor)


def sender_of(actor: Actor) -> str:
    """Whose command ids an actor's are: the server's ("system"), the GM's, or one seat's. Stored
    ids are kept per sender, so no client can take an id the server (or anyone else) will use:
    the server's own are predictable (the sweeper's name the deadline they expire)."""
    return f"seat:{actor.seat}" if actor.role == "seat" else actor.role


# A command takes one of two paths. Most often this process holds the game's newest version (it
# wrote, read or followed it last): the command is applied to that copy and written in one
# statement that applies only if the row is still at that version and write stamp, one round trip
# in all. Else, or when that statement finds the row moved on, the command locks the row, applies
# to the row's state and writes in a transaction (BEGIN, lock, write, COMMIT). Both write with
# _WRITE.
_LOCK = text(
    "SELECT g.version, g.updated_at, g.deadline_at, g.deadline_kind, g.deadline_version"
    " FROM games g WHERE g.id = :game_id FOR UPDATE OF g"
)
# The new state, the events, the command (for retries and replay_state), and the NOTIFY that
# tells every process (PostgreSQL delivers it at commit; it carries the command, never a state:
# app/service/notices.py): all of it only if the row is at the version and write stamp the
# command was applied to, and then it returns a row. The PRIMARY KEY of applied_commands refuses
# a command id its sender used before, and the statement with it.
_WRITE = text(
    "WITH game AS ("
    "  UPDATE games SET state = CAST(:state AS jsonb), version = :version,"
    "   updated_at = :stamp, deadline_at = :deadline_at, deadline_kind = :deadline_kind,"
    "   deadline_version = :deadline_version"
    "  WHERE id = :game_id AND version = :base_version AND updated_at = :base_stamp"
    "  RETURNING id),"
    " events AS ("
    "  INSERT INTO events (game_id, version, seq, type, data)"
    "  SELECT game.id, :version, e.ord - 1, e.data ->> 'type', e.data"
    "  FROM game, jsonb_array_elements(CAST(:events AS jsonb)) WITH ORDINALITY AS e(data, ord)),"
    " command AS ("
    "  INSERT INTO applied_commands (game_id, sender, command_id, version, result)"
    "  SELECT game.id, :sender, :command_id, :version, CAST(:result AS jsonb) FROM game)"
    " SELECT pg_notify(:channel, :payload) FROM game"
)


@dataclasses.dataclass(frozen=True)
class _Applied:
    """A command applied to the state at `base` (version, write stamp), ready to be written."""

    asked: _Asked
    base: tuple[int, datetime | None]
    command: Any
    state: State
    events: list[dict[str, Any]]
    deadline: Deadline
    packed: hot.Packed = dataclasses.field(repr=False)
    stamp: datetime  # the row's new write stamp

    @property
    def version(self) -> int:
        return self.base[0] + 1

    @classmethod
    def make(
        cls,
        game_state: State,
        base: tuple[int, datetime | None],
        current_deadline: Deadline,
        asked: _Asked,
        stamp: datetime | None = None,
    ) -> _Applied:
        """`game_state` is this call's own (every caller decodes it for the call), so the engine
        changes it in place rather than copying it first."""
        command, state, events = _apply(game_state, asked.data, asked.actor, asked.now, owned=True)
        deadline = deadline_columns(state, base[0] + 1, current_deadline)
        packed = hot.pack(state)
        return cls(
            asked, base, command, state, events, deadline, packed, stamp or datetime.now(UTC)
        )

    @classmethod
    def on_copy(cls, entry: hot.Entry, asked: _Asked, stamp: datetime | None = None) -> _Applied:
        """Applied to this process's copy of the game (an entry that carries its deadline)."""
        assert entry.deadline is not None
        return cls.make(entry.state(), (entry.version, entry.stamp), entry.deadline, asked, stamp)

    def digest(self) -> str:
        return notices.digest(self.packed.rest, self.deadline)

    async def write(self, session: AsyncSession) -> bool:
        """Whether the row was still at `base`, and so now holds this."""
        game_id = self.asked.game_id
        record = _json(applied_record(self.command, self.asked.actor, self.asked.now))
        if notices.others_listen():
            payload = notices.full(
                game_id, self.version, self.base[1], self.stamp, self.digest(), record
            )
        else:
            payload = notices.short(game_id, self.version)
        written = await session.execute(
            _WRITE,
            {
                "game_id": game_id,
                "base_version": self.base[0],
                "base_stamp": self.base[1],
                "state": self.packed.column(),
                "version": self.version,
                "stamp": self.stamp,
                "deadline_at": self.deadline[0],
                "deadline_kind": self.deadline[1],
                "deadline_version": self.deadline[2],
                "events": _json(self.events),
                "sender": self.asked.sender,
                "command_id": self.asked.command_id,
                "result": record,
                "channel": NOTIFY_CHANNEL,
                "payload": payload,
            },
        )
        return written.first() is not None

    def done(self) -> CommandResult:
        """After the commit: keep the new version here and hand it to the hub."""
        game_id = self.asked.game_id
        hot.HOT.remember(game_id, self.version, self.stamp, self.packed, self.deadline)
        committed(game_id, self.version)
        return CommandResult(self.version, self.events, self.state)


async def _run_on_copy(session_factory: SessionFactory, asked: _Asked) -> CommandResult | None:
    """The command on this process's copy of the game, written in one statement; None whenever
    that cannot settle it (no copy, the row moved on, the command refused or its id used
    before): the locked path then decides, on the row's own state."""
    entry = hot.HOT.latest(asked.game_id)
    if entry is None or entry.deadline is None:
        return None
    if asked.expected_version not in (None, entry.version):
        return None
    try:
        applied = _Applied.on_copy(entry, asked)
    except ServiceError:
        return None  # perhaps refused only because this copy is behind the row
    try:
        async with autocommit(session_factory) as session:
            if not await applied.write(session):
                return None
    except IntegrityError:
        return None  # most likely a retry: the locked path answers it as one
    return applied.done()


def follow(notice: notices.Notice) -> bool:
    """Another process's command, applied to this process's copy of the version it was applied
    to, so that this process holds the new version without reading it back: True when it now
    does. Only when the copy is of the very row the writer wrote over (version and write stamp),
    and kept only when the result is the one the writer wrote (its digest); else nothing changes
    and the state is read from the row when it is wanted, as after a short notice."""
    if not notice.followable():
        return False
    entry = hot.HOT.latest(notice.game_id)
    if (
        entry is None
        or entry.deadline is None
        or entry.version != notice.version - 1
        or entry.stamp != notice.base_stamp
    ):
        return False
    try:
        record = orjson.loads(notice.record)
        asked = _Asked(
            notice.game_id, record["command"], Actor(**record["actor"]), "", None, record["now"]
        )
        applied = _Applied.on_copy(entry, asked, notice.stamp)
    except Exception:  # a notice must never break the listener: read the row instead
        log.warning("could not follow %s:%s", notice.game_id, notice.version, exc_info=True)
        return False
    if applied.digest() != notice.digest:
        log.warning(
            "following %s:%s gave another state than its writer's; reading it instead",
            notice.game_id,
            notice.version,
        )
        return False
    hot.HOT.remember(notice.game_id, notice.version, notice.stamp, applied.packed, applied.deadline)
    return True


async def _run_locked(session_factory: SessionFactory, asked: _Asked) -> CommandResult:
    game_id = asked.game_id
    async with session_factory() as session, session.begin():
        connection = await session.connection()
        row = (await connection.execute(_LOCK, {"game_id": game_id})).one_or_none()
        if row is None:
            raise no_such_game()
        current: Deadline = (row.deadline_at, row.deadline_kind, row.deadline_version)
        state = await locked_state(session, game_id, row.version, row.updated_at, current)
        # Looked for only now, in a statement of its own: one made before the lock was granted
        # (READ COMMITTED) would miss the same command's first send committed while this one
        # waited, and apply it twice or refuse it for finding its own effect. Under the lock no
        # other command of this game can commit.
        earlier = await session.get(AppliedCommand, (game_id, asked.sender, asked.command_id))
        if earlier is not None:
            return await _earlier_result(session, game_id, state, earlier, asked.data, asked.actor)
        check_version(row.version, asked.expected_version)
        applied = _Applied.make(state, (row.version, row.updated_at), current, asked)
        if not await applied.write(session):  # the row is locked: it cannot have moved
            raise RuntimeError(f"game {game_id} changed under its lock")
    return applied.done()


def _json(data: Any) -> str:
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()


async def lock_game(session: AsyncSession, game_id: uuid.UUID) -> Game:
    """The game row, locked FOR UPDATE: every command on one game is serialised, across all
    processes."""
    game = await session.scalar(select(Game).where(Game.id == game_id).with_for_update())
    if game is None:
        raise no_such_game()
    return game


async def locked_state(
    session: AsyncSession,
    game_id: uuid.UUID,
    version: int,
    stamp: datetime | None,
    deadline: Deadline | None = None,
) -> State:
    """The locked game's state, canonical: this process's copy of that exact version (and write
    stamp) if it has one, else read from the row."""
    state = hot.HOT.recall(game_id, version, stamp)
    if state is None:
        stored = (
            await session.execute(select(Game.state, Game.cards).where(Game.id == game_id))
        ).one_or_none()
        if stored is None:
            raise no_such_game()
        packed = hot.pack(whole_state(*stored))
        hot.HOT.remember(game_id, version, stamp, packed, deadline)
        state = packed.state()
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
    """Apply inside the caller's transaction, with `game` locked (seats, new games: run_command
    is the fast path for everything else). Returns (result, fresh); fresh is False when the
    actor had applied this command_id before. The caller commits, then calls `committed`.
    `state` is the game's canonical state when the caller has it (else the game row's is read)."""
    check_command_id(command_id)
    sender = sender_of(actor)
    earlier = await session.get(AppliedCommand, (game.id, sender, command_id))
    if state is None:
        state = canonical(game.whole_state)
    if earlier is not None:
        result = await _earlier_result(session, game.id, state, earlier, command_data, actor)
        return result, False
    check_version(game.version, expected_version)
    now = time.time() if now is None else now
    command, state, events = _apply(state, command_data, actor, now)
    version = game.version + 1
    game.deadline_at, game.deadline_kind, game.deadline_version = deadline_columns(
        state, version, (game.deadline_at, game.deadline_kind, game.deadline_version)
    )
    game.state, cards = stored_state(state)
    if game.cards is None and cards is not None:  # else the same catalogue, already stored
        game.cards = cards
    game.version = version
    game.updated_at = datetime.now(UTC)
    session.add_all(
        Event(game_id=game.id, version=version, seq=seq, type=event["type"], data=event)
        for seq, event in enumerate(events)
    )
    session.add(
        AppliedCommand(
            game_id=game.id,
            sender=sender,
            command_id=command_id,
            version=version,
            result=applied_record(command, actor, now),
        )
    )
    await session.execute(
        text("SELECT pg_notify(:channel, :payload)"),
        {"channel": NOTIFY_CHANNEL, "payload": notices.short(game.id, version)},
    )
    return CommandResult(version, events, state), True


def check_command_id(command_id: Any) -> None:
    if not isinstance(command_id, str) or not 1 <= len(command_id) <= 200:
        raise ServiceError("BAD_COMMAND", "A command needs a command_id of 1 to 200 characters.")


def check_version(version: int, expected: int | None) -> None:
    if expected is not None and expected != version:
        raise ServiceError(
            "STALE_VERSION",
            f"The game has moved on (version {version}, you had {expected}); look again and retry.",
        )


def _apply(
    state: State, command_data: dict[str, Any], actor: Actor, now: float, *, owned: bool = False
) -> tuple[Any, State, list[dict[str, Any]]]:
    try:
        command = parse_command(command_data, actor, now)
        new_state, events = apply(state, command, owned=owned)
    except RulesError as error:
        raise ServiceError.from_rules(error) from error
    return command, new_state, events


def applied_record(command: Any, actor: Actor, now: float) -> dict[str, Any]:
    """What replay_state needs to apply this command again: its fields, who gave it, and when."""
    return {"command": command_fields(command), "actor": dataclasses.asdict(actor), "now": now}


async def _earlier_result(
    session: AsyncSession,
    game_id: uuid.UUID,
    state: State,
    earlier: AppliedCommand,
    command_data: dict[str, Any],
    actor: Actor,
) -> CommandResult:
    """A retried command gets the answer it got the first time; a different command reusing the
    id (ids are the sender's own, so the same sender's) is refused, not answered as another."""
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
        .where(Event.game_id == game_id, Event.version == earlier.version)
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


def deadline_columns(state: State, version: int, current: Deadline) -> Deadline:
    """The game row's deadline columns after `version`: the next timer to fire, if any."""
    due = min(deadlines(state), key=lambda d: d["at"], default=None)
    if due is None:
        return None, None, None
    at = datetime.fromtimestamp(due["at"], UTC)
    # deadline_version marks when this deadline was set, so the sweeper's command id tells apart
    # a deadline that comes back unchanged after an undo from the one already expired.
    same = (current[0], current[1]) == (at, due["kind"])
    return at, due["kind"], current[2] if same else version


async def replay_state(session_factory: SessionFactory, game_id: uuid.UUID | str) -> State:
    """The game rebuilt from its scenario and seed (its dice generator's start, whichever kind)
    by applying every stored command again."""
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
