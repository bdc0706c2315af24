"""The one way a game is written. Every change to a game (orders, GM commands, seats taken or
freed, new games, timers running out) runs in one transaction on one game, `locked`:

1. BEGIN, then lock and read the game's row (`SELECT ... FOR UPDATE`): nobody else writes it
   until this transaction ends.
2. For each command (`LockedGame.apply`): apply the rules, then in one statement store the
   command (for retries and `replay_state`), and only if its sender had not used its id, the
   new state, its events and a NOTIFY. A used id, or a refusal, is answered with what the
   sender's earlier command of that id got, if there is one: a retry gets its first answer.
3. COMMIT. PostgreSQL delivers the NOTIFY to every process's listener at the commit.
4. Only then is the committed version and state handed to this process's live hub (`on_commit`):
   nothing is shown that was not committed.

A refused command raises ServiceError and the transaction is rolled back: nothing of it is kept.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession, async_sessionmaker

from app.content import catalogue_with
from app.db.models import CARDS, AppliedCommand, Game, Seat, stored_state
from app.db.session import autocommit
from app.rules import (
    Actor,
    RulesError,
    apply,
    deadlines,
    display_view,
    event_view,
    gm_view,
    new_game,
    parse_command,
    station_view,
)
from app.rules.core.commands import NextBattle
from app.rules.core.evening import next_battle
from app.rules.core.messages import message
from app.rules.core.state import seat_station

from . import notices
from .errors import ServiceError, no_such_game

log = logging.getLogger(__name__)

SessionFactory = async_sessionmaker[AsyncSession]
State = dict[str, Any]
Viewer = str | tuple[str, str]  # "gm" | "display" | ("seat", seat_id), as the engine's views take
Deadline = tuple[datetime | None, str | None, int | None]  # the row's deadline_at, _kind, _version
NOTIFY_CHANNEL = "bridgecrew"
SEATS_ENDED = "seats"  # a notice "seats:<game id>": that game's seats ended
GAME_GONE = "gone"  # a notice "gone:<game id>": that game was deleted
# Told (game id, version, state) after each commit; (game id, None, None) when a COMMIT failed
# or was cancelled on the wire, so whether it committed is unknown: the hub reads the row.
CommitHook = Callable[[uuid.UUID, int | None, State | None], None]
_ON_COMMIT = "bridgecrew.on_commit"


def on_commit(session_factory: SessionFactory, hook: CommitHook | None) -> None:
    """Whom this app's transactions tell of their commits: its live hub, or nobody. The hook
    travels in the info of the app's own sessions, so two apps in one process never mix."""
    session_factory.configure(info={} if hook is None else {_ON_COMMIT: hook})


@dataclasses.dataclass(frozen=True)
class CommandResult:
    """What one applied command produced: the version it made and its events, raw (secrets
    included: show them to a viewer only through `visible_events`). No state: a retry's answer
    is its first version's, and only the game's newest state is kept."""

    version: int
    events: list[dict[str, Any]]

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
    """Apply one command in a transaction of its own. `now` (epoch seconds) is the clock the
    engine sees: time.time() unless a sweeper or a test says. The seat rows follow the crew: a
    queued move happens however its station frees (a fall, an undo, the GM), in any command,
    and the phone must act for the station it was moved to (M-SEATS-1)."""
    async with locked(session_factory, game_id) as game:
        result = await game.apply(command_data, actor, command_id, expected_version, now)
        if any(event.get("type") in CREW_MOVED for event in result.events):
            await realign(game)
        return result


@contextlib.asynccontextmanager
async def locked(
    session_factory: SessionFactory, game_id: uuid.UUID | str, *, new: Game | None = None
) -> AsyncIterator[LockedGame]:
    """One transaction on one game, steps 1 to 4 above. With `new`, the game is created (its row
    inserted, and so held until the commit) instead of locked. Callers may change rows of their
    own in `game.session` (a seat's): they commit with the game."""
    key = game_key(game_id)
    async with session_factory() as session:
        if new is None:
            game = await LockedGame.lock(session, key)
        else:
            session.add(new)
            await session.flush()
            deadline = (new.deadline_at, new.deadline_kind, new.deadline_version)
            state = canonical(new.whole_state)
            db = await session.connection()
            game = LockedGame(session, db, new.id, new.version, state, deadline)
        yield game
        written = game.version > game.read_version
        hook: CommitHook | None = session.info.get(_ON_COMMIT)
        try:
            await session.commit()
        except BaseException:
            if written and hook is not None:
                _tell(hook, key, None, None)
            raise
        if written and hook is not None:
            _tell(hook, key, game.version, game.state)


def _tell(hook: CommitHook, game_id: uuid.UUID, version: int | None, state: State | None) -> None:
    try:
        hook(game_id, version, state)
    except Exception:  # a failed push must never look like a failed command
        log.exception("the live hub failed to take %s:%s", game_id, version)


# The `cards` column changes only as the game takes content, which gives it a new content key
# (creation, a move to another battle, an import). So a read names the key whose cards this
# process holds (`known`), and the row sends its cards only if its key is another: the cards,
# half a state's bytes, are not read and parsed again with every command.
_LOCK = text(
    "SELECT version, state::text AS state, content_key,"
    " CASE WHEN content_key = :known THEN NULL ELSE cards::text END AS cards,"
    " deadline_at, deadline_kind, deadline_version FROM games WHERE id = :id FOR UPDATE"
)
_READ = text(
    "SELECT version, state::text AS state, content_key,"
    " CASE WHEN content_key = :known THEN NULL ELSE cards::text END AS cards"
    " FROM games WHERE id = :id"
)
_EARLIER = text(
    "SELECT version, result::text AS result FROM applied_commands"
    " WHERE game_id = :id AND sender = :sender AND command_id = :command_id"
)
_EVENTS = text(
    "SELECT COALESCE(jsonb_agg(data ORDER BY seq), '[]')::text FROM events"
    " WHERE game_id = :id AND version = :version"
)
# The command (unless its sender used its id before: ON CONFLICT sees ids committed while this
# transaction waited for the lock), then only if it was new the state, the events and the
# NOTIFY (which PostgreSQL sends at the commit; it names the game and version, never a state:
# app/service/notices.py). No row back: nothing was written.
_WRITE = text(
    "WITH command AS ("
    "  INSERT INTO applied_commands (game_id, sender, command_id, version, result)"
    "  VALUES (:id, :sender, :command_id, :version, CAST(:result AS jsonb))"
    "  ON CONFLICT DO NOTHING RETURNING game_id),"
    " game AS ("
    "  UPDATE games SET state = CAST(:state AS json), version = :version, updated_at = now(),"
    "   deadline_at = :deadline_at, deadline_kind = :deadline_kind,"
    "   deadline_version = :deadline_version"
    "  FROM command WHERE games.id = command.game_id RETURNING games.id),"
    " events AS ("
    "  INSERT INTO events (game_id, version, seq, type, data)"
    "  SELECT game.id, :version, e.ord - 1, e.data ->> 'type', e.data"
    "  FROM game, jsonb_array_elements(CAST(:events AS jsonb)) WITH ORDINALITY AS e(data, ord))"
    " SELECT game.id, pg_notify(:channel, :notice) FROM game"
)


@dataclasses.dataclass
class LockedGame:
    """A game locked for this transaction: its version and the canonical state at that version,
    after each command applied. The engine changes `state` in place; a refused command's changes
    are dropped at once (`_read_again`), so `state` is never one the version does not name."""

    session: AsyncSession  # for the caller's own rows (a seat's), committed with the game
    db: AsyncConnection  # the session's connection: this module's statements need no ORM
    game_id: uuid.UUID
    version: int
    state: State
    deadline: Deadline
    refused: bool = False  # a command was refused: the transaction takes no other
    read_version: int = -1

    def __post_init__(self) -> None:
        self.read_version = self.version

    @classmethod
    async def lock(cls, session: AsyncSession, game_id: uuid.UUID) -> LockedGame:
        db = await session.connection()
        row = (await db.execute(_LOCK, {"id": game_id, "known": known_content(game_id)})).first()
        if row is None:
            raise no_such_game()
        deadline = (row.deadline_at, row.deadline_kind, row.deadline_version)
        return cls(session, db, game_id, row.version, _decoded(game_id, row), deadline)

    async def apply(
        self,
        command_data: dict[str, Any],
        actor: Actor,
        command_id: str,
        expected_version: int | None = None,
        now: float | None = None,
    ) -> CommandResult:
        check_command_id(command_id)
        if self.refused:
            raise RuntimeError("a command was refused in this transaction: let it roll back")
        now = time.time() if now is None else now
        sender = sender_of(actor)
        applying = False
        try:
            check_version(self.version, expected_version)
            command = parse_command(command_data, actor, now)
            # The state was decoded for this transaction alone, so the engine changes it in place.
            applying = True
            state, events = apply(self.state, command, owned=True)
        except (RulesError, ServiceError) as error:
            self.refused = True
            if applying:
                await self._read_again()
            # A retry carries the version it was first sent at, or is refused for finding its
            # own effect: it gets its first answer.
            earlier = await self._earlier(command_data, actor, sender, command_id)
            if earlier is not None:
                return earlier
            if isinstance(error, ServiceError):
                raise
            raise ServiceError.from_rules(error) from error
        written = await self.write(state, events, command, actor, command_id, now)
        if written is None:  # this sender used this id before: nothing was written
            self.refused = True
            await self._read_again()  # the engine changed `state` for nothing
            earlier = await self._earlier(command_data, actor, sender, command_id)
            if earlier is None:
                raise RuntimeError(f"command id {command_id!r} neither written nor found")
            return earlier
        return written

    async def write(
        self,
        state: State,
        events: list[dict[str, Any]],
        command: Any,
        actor: Actor,
        command_id: str,
        now: float,
    ) -> CommandResult | None:
        """Store a command with the state and events it made (step 2): the next version, or None
        when its sender had used the id (then nothing is written)."""
        version = self.version + 1
        deadline = deadline_columns(state, version, self.deadline)
        columns, _ = stored_state(state)
        written = await self.db.execute(
            _WRITE,
            {
                "id": self.game_id,
                "state": encode(columns).decode(),
                "version": version,
                "deadline_at": deadline[0],
                "deadline_kind": deadline[1],
                "deadline_version": deadline[2],
                "events": _json(events),
                "sender": sender_of(actor),
                "command_id": command_id,
                # What replay_state needs to apply it again: its fields, who gave it, and when.
                "result": _json(
                    {
                        "command": command_fields(command),
                        "actor": dataclasses.asdict(actor),
                        "now": now,
                    }
                ),
                "channel": NOTIFY_CHANNEL,
                "notice": notices.payload(self.game_id, version),
            },
        )
        if written.first() is None:
            return None
        self.version, self.state, self.deadline = version, state, deadline
        return CommandResult(version, events)

    async def _earlier(
        self, command_data: dict[str, Any], actor: Actor, sender: str, command_id: str
    ) -> CommandResult | None:
        """The answer this sender's earlier command with this id got, if there is one: a retry
        gets the answer it got the first time. A different command reusing the id (ids are the
        sender's own, so the same sender's) is refused, not answered as another."""
        parameters = {"id": self.game_id, "sender": sender, "command_id": command_id}
        earlier = (await self.db.execute(_EARLIER, parameters)).one_or_none()
        if earlier is None:
            return None
        stored = orjson.loads(earlier.result)
        try:
            same = (
                command_fields(parse_command(command_data, actor)) == stored["command"]
                and dataclasses.asdict(actor) == stored["actor"]
            )
        except RulesError:
            same = False
        if not same:
            raise ServiceError("COMMAND_ID_REUSED", message("command_id_reused"))
        events = await self.db.scalar(_EVENTS, {"id": self.game_id, "version": earlier.version})
        return CommandResult(earlier.version, orjson.loads(events or "[]"))

    async def _read_again(self) -> None:
        """`state` as the row this transaction holds locked has it (with its own writes): what
        the engine changed in place for a refused command is gone."""
        read = {"id": self.game_id, "known": known_content(self.game_id)}
        row = (await self.db.execute(_READ, read)).one()
        self.state = _decoded(self.game_id, row)


async def load_state(
    session_factory: SessionFactory, game_id: uuid.UUID | str
) -> tuple[int, State]:
    """The committed (version, state), canonical, read without a lock. Never show it as it is:
    go through `view_for`."""
    key = game_key(game_id)
    async with autocommit(session_factory) as session:
        row = (await session.execute(_READ, {"id": key, "known": known_content(key)})).first()
    if row is None:
        raise no_such_game()
    return row.version, _decoded(key, row)


# Each game's content key and the cards read under it, for the games this process touched last.
_CARDS: OrderedDict[uuid.UUID, tuple[str, dict[str, Any]]] = OrderedDict()
CARDS_KEPT = 2048  # games; their cards are shared by every state of the game read meanwhile


def known_content(game_id: uuid.UUID) -> str | None:
    """The content key of the game as this process last read it (None: not read, or a game made
    before content had keys)."""
    found = _CARDS.get(game_id)
    return None if found is None else found[0]


def forget_content(game_id: uuid.UUID) -> None:
    """The game takes new content in this transaction: read its cards and key afresh."""
    _CARDS.pop(game_id, None)


def _decoded(game_id: uuid.UUID, row: Any) -> State:
    """A row's whole state, its cards parsed from the row or, when the row left them out (this
    process holds them under the row's content key), the ones kept. The engine never changes
    cards in place (app/rules/core/engine.py, SHARED), so states may share them."""
    if row.cards is not None or row.content_key is None:
        state = decode(row.state, row.cards)
        if row.content_key is not None and isinstance(state.get(CARDS), dict):
            _CARDS[game_id] = (row.content_key, state[CARDS])
            while len(_CARDS) > CARDS_KEPT:
                _CARDS.popitem(last=False)
        return state
    kept = _CARDS[game_id]
    _CARDS.move_to_end(game_id)
    decoded: State = orjson.loads(row.state)
    decoded[CARDS] = kept[1]
    return dict(sorted(decoded.items()))


def view_for(state: State, viewer: Viewer, shared: dict[str, Any] | None = None) -> dict[str, Any]:
    """One viewer's view. `shared` (app.rules.shared_view of the same state) saves working out
    what every view shows again for each of several viewers; such views share parts: read only."""
    if viewer == "gm":
        return gm_view(state, shared)
    if viewer == "display":
        return display_view(state, shared)
    if isinstance(viewer, tuple) and viewer[0] == "seat":
        return station_view(state, viewer[1], shared)
    raise ValueError(f"unknown viewer {viewer!r}")


def encode(data: Any) -> bytes:
    """JSON with keys sorted, as the `state` and `cards` columns hold it: decoded, canonical."""
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def decode(state: str | bytes, cards: str | bytes | None) -> State:
    """A whole canonical state from the `state` and `cards` columns (each written sorted)."""
    decoded: State = orjson.loads(state)
    if cards is None:
        return decoded
    decoded[CARDS] = orjson.loads(cards)
    return dict(sorted(decoded.items()))


def sender_of(actor: Actor) -> str:
    """Whose command ids an actor's are: the server's ("system"), the GM's, or one seat's. Stored
    ids are kept per sender, so no client can take an id the server (or anyone else) will use:
    the server's own are predictable (the sweeper's name the deadline they expire)."""
    return f"seat:{actor.seat}" if actor.role == "seat" else actor.role


def _json(data: Any) -> str:
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()


def check_command_id(command_id: Any) -> None:
    if not isinstance(command_id, str) or not 1 <= len(command_id) <= 200:
        raise ServiceError("BAD_COMMAND", message("bad_command_id"))


def check_version(version: int, expected: int | None) -> None:
    if expected is not None and expected != version:
        raise ServiceError(
            "STALE_VERSION", message("stale_version", version=version, expected=expected)
        )


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
    """The same data with dict keys sorted. The engine iterates dicts (ships, orders), so both
    the live path and replay_state feed `apply` sorted states: the same commands then draw the
    same dice in the same order, whatever order storage hands keys back in."""
    return orjson.loads(encode(data))


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
    catalogue = catalogue_with(game.content)  # what the game took from the library as it began
    state: State = canonical(
        new_game(catalogue.scenarios[game.scenario], catalogue, seed=game.seed)
    )
    for entry in stored:
        command = parse_command(entry["command"], Actor(**entry["actor"]), entry["now"])
        if isinstance(command, NextBattle):  # E-EVENING-1: the service builds it, so here too
            # From the copy the move took (a move stored without one was made from the whole
            # library the game began with).
            moved = catalogue_with(entry["content"]) if "content" in entry else catalogue
            state, _ = next_battle(state, moved.scenarios[command.scenario], moved)
        else:
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


async def tell_seats_ended(session: AsyncSession, game_id: uuid.UUID) -> None:
    """Seats of this game ended: every process's SeatWatch (app/web/ws.py) hears it when this
    transaction commits (and only if it does), and closes their sockets."""
    await session.execute(
        text("SELECT pg_notify(:channel, :payload)"),
        {"channel": NOTIFY_CHANNEL, "payload": f"{SEATS_ENDED}:{game_id}"},
    )


async def tell_game_gone(session: AsyncSession, game_id: uuid.UUID) -> None:
    """This game is deleted: every process's hub hears it when this transaction commits, and
    closes the game's sockets, saying why."""
    await session.execute(
        text("SELECT pg_notify(:channel, :payload)"),
        {"channel": NOTIFY_CHANNEL, "payload": f"{GAME_GONE}:{game_id}"},
    )


# --- Seat rows follow the crew (M-SEATS-1) --------------------------------------------------

# Events after which the engine may have the crew somewhere its seat rows do not say: a queued
# move that happened (however its station freed), a fallen character carried off, an undo.
CREW_MOVED = frozenset(
    {"PositionChanged", "CrewCarriedOff", "ResolutionUndone", "CrewMovedAboard", "CrewStoodDown"}
)


async def realign(game: LockedGame) -> None:
    """Make the game's live seat rows name the stations the engine has their crew at; a seat
    the engine no longer has anywhere (carried off its station, M-SEATS-3) ends."""
    session, state = game.session, game.state
    rows = (
        await session.scalars(
            select(Seat).where(Seat.game_id == game.game_id, Seat.revoked_at.is_(None))
        )
    ).all()
    moving: list[tuple[Seat, str, str]] = []
    for row in rows:
        found = seat_station(state, str(row.id))
        if found is None:
            row.revoked_at = datetime.now(UTC)
        elif (found[0]["id"], found[1]["id"]) != (row.ship, row.station):
            moving.append((row, found[0]["id"], found[1]["id"]))
    ended = [row for row in rows if row.revoked_at is not None]
    if not moving and not ended:
        return
    # Two steps, so that rows trading stations never both claim one (a unique index).
    for row, _, _ in moving:
        row.station = f"~{row.id}"
    await session.flush()
    for row, ship, station in moving:  # a new battle (E-EVENING-1) moves crews between ships
        row.ship, row.station = ship, station
    await session.flush()
    await tell_seats_ended(session, game.game_id)
