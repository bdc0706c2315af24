"""The one way a game is written: every change to a game (orders, GM commands, seats taken or
freed, new games, timers running out) goes through `writing`, and only through it:

1. BEGIN, and lock the game's row (SELECT ... FOR UPDATE), reading its version and state. Every
   change to one game is serialised there, across all the processes sharing the database.
2. `Writing.apply`, once per command: a command id its sender used before gets its first answer
   and changes nothing; else the rules apply the command, and one statement writes the new state,
   its events, the command itself (for retries and replay_state) and a NOTIFY. The caller may
   change rows of its own in the same transaction (a seat's row).
3. COMMIT: all of it, or (a refusal, a crash, a killed process) none of it. PostgreSQL delivers
   the NOTIFY to every process's listener only now.
4. Only then is this process's live hub told (`committed`), and it pushes: nothing is shown that
   was not committed.
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

import orjson
from sqlalchemy import select, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.content import load_catalogue
from app.db.models import AppliedCommand, Event, Game, stored_state, whole_state
from app.rules import Actor, RulesError, apply, deadlines, event_view, new_game, parse_command

from . import notices
from .errors import ServiceError, no_such_game

log = logging.getLogger(__name__)

SessionFactory = async_sessionmaker[AsyncSession]
State = dict[str, Any]
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
    """Apply one command in one transaction; a command_id this actor applied before returns its
    stored result and changes nothing (each actor's ids are its own: `sender_of`). Raises
    ServiceError (with .status) when refused. `now` (epoch seconds) is the clock the engine sees:
    time.time() unless a sweeper or a test says."""
    async with writing(session_factory, game_id) as game:
        return await game.apply(command_data, actor, command_id, expected_version, now)


@contextlib.asynccontextmanager
async def writing(
    session_factory: SessionFactory, game_id: uuid.UUID | str, *, new: Game | None = None
) -> AsyncIterator[Writing]:
    """One transaction on one game: steps 1 to 4 above. With `new`, the game is created (its row
    inserted, and so held until the commit) instead of locked."""
    key = game_key(game_id)
    async with session_factory() as session:
        async with session.begin():
            game = await (_created(session, new) if new else _locked(session, key))
            yield game
        if game.version > game.base_version:  # committed: the hub may show it now
            committed(key, game.version)


@dataclasses.dataclass
class Writing:
    """A game locked in an open transaction: its version and canonical state as of the lock, and
    after each command applied in it."""

    session: AsyncSession
    game_id: uuid.UUID
    version: int
    state: State
    deadline: Deadline
    has_cards: bool  # the row keeps the catalogue (games from before that have it in `state`)
    base_version: int = -1
    spent: bool = False  # a refused command may have changed `state` half-way

    def __post_init__(self) -> None:
        self.base_version = self.version

    async def apply(
        self,
        command_data: dict[str, Any],
        actor: Actor,
        command_id: str,
        expected_version: int | None = None,
        now: float | None = None,
    ) -> CommandResult:
        check_command_id(command_id)
        if self.spent:
            raise RuntimeError("a refused command ends its writing: the state may be half-changed")
        # Looked for only under the lock, in a statement of its own: one made before the lock was
        # granted (READ COMMITTED) would miss the same command's first send committed while this
        # one waited, and apply it twice or refuse it for finding its own effect.
        earlier = await self.session.get(
            AppliedCommand, (self.game_id, sender_of(actor), command_id)
        )
        if earlier is not None:
            return await self._earlier_result(earlier, command_data, actor)
        check_version(self.version, expected_version)
        now = time.time() if now is None else now
        try:
            # The state is this writing's own (decoded for it), so the engine changes it in place.
            command = parse_command(command_data, actor, now)
            self.spent = True
            state, events = apply(self.state, command, owned=True)
        except RulesError as error:
            raise ServiceError.from_rules(error) from error
        version = self.version + 1
        deadline = deadline_columns(state, version, self.deadline)
        rest, cards = stored_state(state)
        written = await self.session.execute(
            _WRITE,
            {
                "game_id": self.game_id,
                "base_version": self.version,
                "state": _json(rest),
                "cards": None if self.has_cards else _json(cards),
                "version": version,
                "deadline_at": deadline[0],
                "deadline_kind": deadline[1],
                "deadline_version": deadline[2],
                "events": _json(events),
                "sender": sender_of(actor),
                "command_id": command_id,
                "result": _json(applied_record(command, actor, now)),
                "channel": NOTIFY_CHANNEL,
                "payload": notices.short(self.game_id, version),
            },
        )
        if written.first() is None:  # the row is locked: it cannot have moved
            raise RuntimeError(f"game {self.game_id} changed under its lock")
        self.version, self.state, self.deadline, self.spent = version, state, deadline, False
        self.has_cards = self.has_cards or cards is not None
        return CommandResult(version, events, state)

    async def _earlier_result(
        self, earlier: AppliedCommand, command_data: dict[str, Any], actor: Actor
    ) -> CommandResult:
        """A retried command gets the answer it got the first time; a different command reusing
        the id (ids are the sender's own, so the same sender's) is refused, not answered as
        another."""
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
        rows = await self.session.scalars(
            select(Event.data)
            .where(Event.game_id == self.game_id, Event.version == earlier.version)
            .order_by(Event.seq)
        )
        return CommandResult(earlier.version, list(rows), self.state)


_LOCK = text(
    "SELECT version, deadline_at, deadline_kind, deadline_version, state, cards"
    " FROM games WHERE id = :game_id FOR UPDATE"
).columns(state=JSONB, cards=JSONB)
# The new state, its events, the command, and the NOTIFY (which PostgreSQL delivers at commit;
# it names the game and version, never a state: app/service/notices.py). The PRIMARY KEY of
# applied_commands refuses a command id its sender used before, and the statement with it.
_WRITE = text(
    "WITH game AS ("
    "  UPDATE games SET state = CAST(:state AS jsonb), version = :version, updated_at = now(),"
    "   cards = COALESCE(cards, CAST(:cards AS jsonb)), deadline_at = :deadline_at,"
    "   deadline_kind = :deadline_kind, deadline_version = :deadline_version"
    "  WHERE id = :game_id AND version = :base_version"
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


async def _locked(session: AsyncSession, game_id: uuid.UUID) -> Writing:
    row = (await session.execute(_LOCK, {"game_id": game_id})).one_or_none()
    if row is None:
        raise no_such_game()
    return Writing(
        session,
        game_id,
        row.version,
        canonical(whole_state(row.state, row.cards)),
        (row.deadline_at, row.deadline_kind, row.deadline_version),
        row.cards is not None,
    )


async def _created(session: AsyncSession, game: Game) -> Writing:
    session.add(game)
    await session.flush()
    deadline = (game.deadline_at, game.deadline_kind, game.deadline_version)
    state = canonical(game.whole_state)
    return Writing(session, game.id, game.version, state, deadline, game.cards is not None)


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
    return orjson.loads(orjson.dumps(data, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS))


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
