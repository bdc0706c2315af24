"""The one way a game is written: every change to a game (orders, GM commands, seats taken or
freed, new games, timers running out) is made by `Writing.apply`, and only by it:

1. The game's version and canonical state: this process's copy of the newest state it committed
   or read (app/service/recent.py), else the row's.
2. The rules apply the command; one statement then writes the new state, its events, the command
   itself (for retries and replay_state) and a NOTIFY, but only if the row is still at the version
   read (and its updated_at: the pair names one committed state) and no command with this id
   from this sender is stored. If it is not, nothing is written: a command id used before gets
   its first answer, and anything else is applied again to the row's newest state.
3. Committed: the statement alone (`run_command`: one round trip in all, when the copy is
   current), or the transaction it is part of (`writing`, for callers that change rows of their
   own with the game's, such as a seat's: they lock the game's row first, so no one else moves
   it meanwhile). PostgreSQL delivers the NOTIFY to every process's listener at the commit.
4. Only then is this process's live hub told (`committed`), and it pushes: nothing is shown that
   was not committed.

The statements go straight to the driver (asyncpg): each costs a quarter of the CPU it costs
through SQLAlchemy (bench/command_cost.py). `run_command`'s one statement needs no session and
borrows a pooled connection without one (`pooled`); `writing` uses its session's. A
transaction is this module's own (`_transaction`): SQLAlchemy is handed the connection in
autocommit mode, so it sends no BEGIN or COMMIT of its own, and a caller's ORM work (a seat's
row) runs inside ours.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import orjson
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.content import load_catalogue
from app.db.models import AppliedCommand, Game, stored_state
from app.rules import Actor, RulesError, apply, deadlines, event_view, new_game, parse_command

from . import notices, recent
from .errors import ServiceError, no_such_game

log = logging.getLogger(__name__)

SessionFactory = async_sessionmaker[AsyncSession]
State = dict[str, Any]
Driver = Any  # an asyncpg.Connection (asyncpg ships no type information)
Viewer = str | tuple[str, str]  # "gm" | "display" | ("seat", seat_id), as the engine's views take
Deadline = tuple[datetime | None, str | None, int | None]  # the row's deadline_at, _kind, _version
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
    """Apply one command; a command_id this actor applied before returns its stored result and
    changes nothing (each actor's ids are its own: `sender_of`). Raises ServiceError (with
    .status) when refused. `now` (epoch seconds) is the clock the engine sees: time.time() unless
    a sweeper or a test says.

    First on this process's copy of the game, with no transaction but the write statement's own:
    one round trip in all. If the copy was behind the row, or another writer got there first, or
    the copy refuses the command (the row may not), nothing was written: then under the lock."""
    key = game_key(game_id)
    copy = recent.recall(key)
    if copy is not None:
        async with pooled(session_factory) as db:
            game = Writing.of(None, db, key, copy, checked=False)
            try:
                result = await game.apply(command_data, actor, command_id, expected_version, now)
            except Moved:
                pass
            else:
                game.committed()
                return result
    async with writing(session_factory, key) as game:
        return await game.apply(command_data, actor, command_id, expected_version, now)


class Moved(Exception):
    """The row is no longer at the version the command was applied to (another process wrote
    it meanwhile), or may not be (a copy refused it): nothing was written."""


@contextlib.asynccontextmanager
async def writing(
    session_factory: SessionFactory, game_id: uuid.UUID | str, *, new: Game | None = None
) -> AsyncIterator[Writing]:
    """One transaction on one game: steps 1 to 4 above. With `new`, the game is created (its row
    inserted, and so held until the commit) instead of locked."""
    key = game_key(game_id)
    async with session_factory() as session:
        db = await driver(session)
        async with _transaction(db):
            game = await (_created(session, db, new) if new else _locked(session, db, key))
            yield game
            await session.flush()  # the caller's own rows, if any
        game.committed()


@dataclasses.dataclass
class Writing:
    """A game as read (or locked, in `writing`): its version and canonical state, and after each
    command applied."""

    orm: AsyncSession | None  # `writing`'s, for the caller's own rows (`session`); else None
    db: Driver
    game_id: uuid.UUID
    version: int
    state: State
    rest: bytes  # `state` as of `version` without its catalogue, as the column holds it
    cards: State | None  # its catalogue, shared and read only (app/service/recent.py)
    stamp: recent.Stamp | None  # (version, updated_at) of the row; None until known
    deadline: Deadline
    has_cards: bool  # the row keeps the catalogue (games from before that have it in `state`)
    checked: bool = True  # read from the row (locked, or in this try); else a copy, maybe behind
    base_version: int = -1

    def __post_init__(self) -> None:
        self.base_version = self.version

    @property
    def session(self) -> AsyncSession:
        """The ORM session of the transaction, for the caller's own rows (a seat's)."""
        if self.orm is None:
            raise RuntimeError("run_command's one statement has no session: use `writing`")
        return self.orm

    @classmethod
    def of(
        cls,
        session: AsyncSession | None,
        db: Driver,
        game_id: uuid.UUID,
        row: recent.Row,
        *,
        checked: bool = True,
    ) -> Writing:
        return cls(
            session,
            db,
            game_id,
            row.stamp[0],
            row.state(),
            row.rest,
            row.cards,
            row.stamp,
            row.deadline,
            row.has_cards,
            checked,
        )

    async def apply(
        self,
        command_data: dict[str, Any],
        actor: Actor,
        command_id: str,
        expected_version: int | None = None,
        now: float | None = None,
    ) -> CommandResult:
        check_command_id(command_id)
        now = time.time() if now is None else now
        try:
            check_version(self.version, expected_version)
            # The state is this writing's own (decoded for it), so the engine changes it in place.
            command = parse_command(command_data, actor, now)
            state, events = apply(self.state, command, owned=True)
        except (RulesError, ServiceError) as error:
            self.state = recent.decode(self.rest, self.cards)  # the engine may have half-changed it
            if not self.checked:  # refused by a copy: has the game moved on?
                raise Moved("the copy may be behind the row") from error
            # This may be a retry (carrying the version it was first sent at, or refused for
            # finding its own effect, its first send committed while this one waited).
            earlier = await self._earlier(actor, command_id)
            if earlier is not None:
                return await self.earlier_result(earlier, command_data, actor)
            if isinstance(error, ServiceError):
                raise
            raise ServiceError.from_rules(error) from error
        version = self.version + 1
        deadline = deadline_columns(state, version, self.deadline)
        rest, cards = stored_state(state)
        encoded = recent.encode(rest)  # keys sorted: decoded, it is canonical again
        row = await _sql(
            self.db,
            _WRITE,
            self.game_id,
            self.version,
            encoded.decode(),
            None if self.has_cards else _json(cards),
            version,
            *deadline,
            _json(events),
            sender_of(actor),
            command_id,
            _json(applied_record(command, actor, now)),
            NOTIFY_CHANNEL,
            notices.short(self.game_id, version),
            self.stamp[1] if self.stamp else None,
        )
        if row is None:  # not written: the id was used, or the row moved, since it was read
            self.state = recent.decode(self.rest, self.cards)
            earlier = await self._earlier(actor, command_id)
            if earlier is not None:
                return await self.earlier_result(earlier, command_data, actor)
            raise Moved(f"game {self.game_id} is no longer at version {self.version}")
        self.version, self.state, self.deadline = version, state, deadline
        self.rest, self.stamp = encoded, (version, row["updated_at"])
        self.cards = cards  # the catalogue it was given: the engine never changes it
        self.has_cards = self.has_cards or cards is not None
        return CommandResult(version, events, state)

    def committed(self) -> None:
        """Call once what was written is committed: this process keeps the state, and its hub
        may show it."""
        if self.stamp is not None:
            kept = recent.Row(self.stamp, self.rest, self.cards, self.deadline, self.has_cards)
            recent.remember(self.game_id, kept)
        if self.version > self.base_version:
            committed(self.game_id, self.version)

    async def _earlier(self, actor: Actor, command_id: str) -> Any:
        return await _sql(self.db, _EARLIER, self.game_id, sender_of(actor), command_id)

    async def earlier_result(
        self, earlier: Any, command_data: dict[str, Any], actor: Actor
    ) -> CommandResult:
        """A retried command gets the answer it got the first time; a different command reusing
        the id (ids are the sender's own, so the same sender's) is refused, not answered as
        another."""
        stored = orjson.loads(earlier["result"])
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
        events = await _sql(self.db, _EVENTS, self.game_id, earlier["version"])
        return CommandResult(earlier["version"], orjson.loads(events[0]), self.state)


# A game's row; its state and cards only when this process has no copy of that version
# (app/service/recent.py): a 64 KB state costs more to send and decode than the round trip.
_READ = (
    "SELECT version, updated_at, deadline_at, deadline_kind, deadline_version,"
    " cards IS NOT NULL AS has_cards,"
    " CASE WHEN version = $2 AND updated_at = $3 THEN NULL ELSE state::text END AS state,"
    " CASE WHEN version = $2 AND updated_at = $3 THEN NULL ELSE cards::text END AS cards"
    " FROM games WHERE id = $1"
)
_LOCK = _READ + " FOR UPDATE"
_EARLIER = (
    "SELECT version, result::text AS result FROM applied_commands"
    " WHERE game_id = $1 AND sender = $2 AND command_id = $3"
)
_EVENTS = (
    "SELECT COALESCE(jsonb_agg(data ORDER BY seq), '[]')::text FROM events"
    " WHERE game_id = $1 AND version = $2"
)
# The new state, its events, the command, and the NOTIFY (which PostgreSQL delivers at commit;
# it names the game and version, never a state: app/service/notices.py); only if the row is at
# the version (and updated_at, unless $15 is NULL: a game created in this transaction) it was
# read at, and the sender has not used this command id (the PRIMARY KEY of applied_commands
# would refuse it too). Else no row comes back, and nothing was written.
_WRITE = (
    "WITH game AS ("
    "  UPDATE games SET state = $3::text::json, version = $5, updated_at = now(),"
    "   cards = COALESCE(cards, $4::text::jsonb), deadline_at = $6,"
    "   deadline_kind = $7, deadline_version = $8"
    "  WHERE id = $1 AND version = $2"
    "   AND ($15::timestamptz IS NULL OR updated_at = $15::timestamptz)"
    "   AND NOT EXISTS (SELECT FROM applied_commands AS a"
    "    WHERE a.game_id = $1 AND a.sender = $10 AND a.command_id = $11)"
    "  RETURNING id, updated_at),"
    " events AS ("
    "  INSERT INTO events (game_id, version, seq, type, data)"
    "  SELECT game.id, $5, e.ord - 1, e.data ->> 'type', e.data"
    "  FROM game, jsonb_array_elements($9::text::jsonb) WITH ORDINALITY AS e(data, ord)),"
    " command AS ("
    "  INSERT INTO applied_commands (game_id, sender, command_id, version, result)"
    "  SELECT game.id, $10, $11, $5, $12::text::jsonb FROM game)"
    " SELECT pg_notify($13, $14), game.updated_at FROM game"
)


async def read_row(db: Driver, game_id: uuid.UUID, *, lock: bool = False) -> recent.Row:
    """The game's row, locked until the transaction ends if `lock`."""
    kept = recent.recall(game_id)
    version, updated_at = kept.stamp if kept else (-1, None)
    row = await _sql(db, _LOCK if lock else _READ, game_id, version, updated_at)
    if row is None:
        raise no_such_game()
    if row["state"] is None and kept is not None:
        rest, cards = kept.rest, kept.cards
    elif row["cards"] is None:  # a game from before the catalogue had its column
        rest, cards = recent.split(orjson.loads(row["state"]))
    else:
        rest, cards = recent.encode(orjson.loads(row["state"])), recent.catalogue(row["cards"])
    deadline = (row["deadline_at"], row["deadline_kind"], row["deadline_version"])
    return recent.Row((row["version"], row["updated_at"]), rest, cards, deadline, row["has_cards"])


async def _locked(session: AsyncSession, db: Driver, game_id: uuid.UUID) -> Writing:
    return Writing.of(session, db, game_id, await read_row(db, game_id, lock=True))


async def _created(session: AsyncSession, db: Driver, game: Game) -> Writing:
    session.add(game)
    await session.flush()
    deadline = (game.deadline_at, game.deadline_kind, game.deadline_version)
    rest, cards = recent.split(game.whole_state)
    has_cards = game.cards is not None
    # No stamp: the row's updated_at is the database's; the game's first read or write tells it.
    state = recent.decode(rest, cards)
    return Writing(
        session, db, game.id, game.version, state, rest, cards, None, deadline, has_cards
    )


# --- The driver's connection ---------------------------------------------------------------------


@contextlib.asynccontextmanager
async def pooled(session_factory: SessionFactory) -> AsyncIterator[Driver]:
    """A pooled connection as asyncpg's, without a session: for statements that need none (about
    170 µs of CPU less than a session's per use; docs/performance.md, twelfth pass). Nothing here
    starts a transaction, so the pool takes it back as it was lent."""
    engine: AsyncEngine = session_factory.kw["bind"]
    try:
        lent = await engine.raw_connection()
    except (engine.dialect.loaded_dbapi.Error, OSError) as error:  # the pool does not wrap them
        raise ConnectionError(f"the database did not answer: {error}") from error
    try:
        yield lent.driver_connection
    finally:
        lent.close()


async def driver(session: AsyncSession) -> Driver:
    """The session's connection as asyncpg's, in autocommit mode as SQLAlchemy sees it: SQLAlchemy
    then sends no BEGIN, COMMIT or ROLLBACK of its own (`_transaction` does)."""
    connection = await session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
    return (await connection.get_raw_connection()).driver_connection


@contextlib.asynccontextmanager
async def _transaction(db: Driver) -> AsyncIterator[None]:
    await _sql(db, "BEGIN", fetch=False)
    try:
        yield
        await _sql(db, "COMMIT", fetch=False)
    except BaseException:
        await _rollback(db)
        raise


async def _rollback(db: Driver) -> None:
    """Never hand the pool back a connection inside a transaction: SQLAlchemy, which thinks it
    in autocommit, would not end it. A connection that cannot roll back is closed (the pool
    replaces a closed one when next checked out: app/db/session.py)."""
    if db.is_closed():
        return
    try:
        await db.execute("ROLLBACK")
    except BaseException:  # cancelled meanwhile, or the connection broke: the caller's error wins
        db.terminate()


# What the driver raises when the database is away (stopped, restarting, the connection lost):
# told to the web layer as ConnectionError, which it answers 503 ("try again") as it does the
# same failures through SQLAlchemy.
_GONE = (
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.InterfaceError,
    OSError,
)


async def _sql(db: Driver, query: str, *args: Any, fetch: bool = True) -> Any:
    try:
        return await (db.fetchrow(query, *args) if fetch else db.execute(query, *args))
    except _GONE as error:
        raise ConnectionError(f"the database did not answer: {error}") from error


# --- After commit: this process's live hub -------------------------------------------------------

CommitListener = Callable[[uuid.UUID, int], None]
_commit_listeners: list[CommitListener] = []


def add_commit_listener(listener: CommitListener) -> None:
    """The live hub registers here to push a committed version without waiting for the NOTIFY
    round trip (the NOTIFY still reaches every other process, and this one)."""
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


def sender_of(actor: Actor) -> str:
    """Whose command ids an actor's are: the server's ("system"), the GM's, or one seat's. Stored
    ids are kept per sender, so no client can take an id the server (or anyone else) will use:
    the server's own are predictable (the sweeper's name the deadline they expire)."""
    return f"seat:{actor.seat}" if actor.role == "seat" else actor.role


def _json(data: Any) -> str:
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()


def check_command_id(command_id: Any) -> None:
    if not isinstance(command_id, str) or not 1 <= len(command_id) <= 200:
        raise ServiceError("BAD_COMMAND", "A command needs a command_id of 1 to 200 characters.")


def check_version(version: int, expected: int | None) -> None:
    if expected is not None and expected != version:
        raise ServiceError(
            "STALE_VERSION",
            f"The game has moved on (version {version}, you had {expected}); look again and retry.",
        )


def applied_record(command: Any, actor: Actor, now: float) -> dict[str, Any]:
    """What replay_state needs to apply this command again: its fields, who gave it, and when."""
    return {"command": command_fields(command), "actor": dataclasses.asdict(actor), "now": now}


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
    return orjson.loads(recent.encode(data))


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
