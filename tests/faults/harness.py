"""Fault injection against real processes: a uvicorn server that can be SIGKILLed and restarted on
the same port, a bot crew that plays through the JSON API and retries with the same command id,
websocket clients that reconnect by themselves, and checks that read the database directly.

Used by tests/faults (the short runs) and bench/chaos.py (the long one).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import json
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, Self

import httpx
from sqlalchemy import column, select, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from app.content import load_catalogue
from app.db.models import AppliedCommand, Event, Game, whole_state
from app.db.session import create_engine, create_session_factory
from app.rules import Actor, apply, event_view, new_game, parse_command
from app.rules.bot import propose, stations_to_order
from app.service import canonical, load_state, replay_state, view_for
from app.service.commands import command_fields
from app.web.live import presence
from tests.processes import Server

ROOT = Path(__file__).resolve().parents[2]
State = dict[str, Any]
Viewer = str | tuple[str, str]
Log = Callable[[str], None]
CLOSE_REFUSED = 1008
# Every command the crew sends is legal when it reads the state; the only refusals it may get come
# from the sweeper moving the game in between (expected_version catches most of them).
RACES = frozenset({"STALE_VERSION", "WRONG_PHASE", "NO_ALLOCATION_PENDING", "NOTHING_TO_UNDO"})


# --- Talking to the JSON API like a phone --------------------------------------------------------


@dataclasses.dataclass
class Ack:
    """A command the server answered 200 for: it must be in the game forever after."""

    command_id: str
    version: int
    type: str
    viewer: Viewer
    events: list[dict[str, Any]]
    attempts: int  # > 1: an earlier attempt died with the connection (the answer came on retry)
    marker: str | None = None  # a SendMessage's unique text, to count it in the event log
    sent_at: float = 0.0  # time.time() of the first attempt


class Refused(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code


class Phone:
    """POSTs commands; after a connection error or a 5xx it sends the SAME command id again until
    it gets an answer, exactly as the phones' JavaScript does."""

    def __init__(self, base_url: str, give_up_after: float = 120.0) -> None:
        self.http = httpx.AsyncClient(base_url=base_url, timeout=httpx.Timeout(10.0))
        self.give_up_after = give_up_after
        self.in_flight = asyncio.Event()  # a request is on the wire (the killer aims at this)
        self.transport_errors = 0
        self.server_errors = 0
        self.rate_limited = 0

    async def close(self) -> None:
        await self.http.aclose()

    async def post_command(
        self,
        game_id: str,
        token: str,
        fields: dict[str, Any],
        viewer: Viewer,
        *,
        command_id: str | None = None,
        expected_version: int | None = None,
        marker: str | None = None,
    ) -> Ack:
        command_id = command_id or uuid.uuid4().hex
        body: dict[str, Any] = {"command_id": command_id, **fields}
        if expected_version is not None:
            body["expected_version"] = expected_version
        give_up = time.monotonic() + self.give_up_after
        sent_at = time.time()
        attempts = 0
        while True:
            attempts += 1
            self.in_flight.set()
            try:
                response = await self.http.post(
                    f"/api/games/{game_id}/commands",
                    json=body,
                    headers={"Authorization": f"Bearer {token}"},
                )
            except httpx.TransportError:
                self.transport_errors += 1
                response = None
            finally:
                self.in_flight.clear()
            if time.monotonic() > give_up:
                raise AssertionError(f"command {command_id} got no answer for a long time")
            if response is not None and response.status_code == 429:
                # Too fast for the server's limit: wait as told, then the same command again.
                self.rate_limited += 1
                await asyncio.sleep(float(response.headers.get("retry-after", "1")))
                continue
            if response is not None and response.status_code < 500:
                break
            if response is not None:
                self.server_errors += 1
            await asyncio.sleep(0.05 if attempts < 20 else 0.25)
        if response.status_code != 200:
            error = response.json()
            raise Refused(response.status_code, error.get("code", "?"), error.get("message", ""))
        answer = response.json()
        return Ack(
            command_id,
            int(answer["version"]),
            str(fields["type"]),
            viewer,
            list(answer["events"]),
            attempts,
            marker,
            sent_at,
        )

    async def get_view(self, game_id: str, token: str | None) -> tuple[int, dict[str, Any]]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        while True:
            try:
                response = await self.http.get(f"/api/games/{game_id}/view", headers=headers)
            except httpx.TransportError:
                await asyncio.sleep(0.1)
                continue
            if response.status_code >= 500:
                await asyncio.sleep(0.1)
                continue
            assert response.status_code == 200, response.text
            body = response.json()
            return int(body["version"]), dict(body["view"])


# --- Websocket clients that reconnect by themselves ----------------------------------------------


@dataclasses.dataclass
class Connection:
    opened_at: float  # time.monotonic() once the handshake completed
    first: dict[str, Any] | None = None
    latest: dict[str, Any] | None = None
    messages: int = 0
    close_code: int | None = None


class _Background:
    """A watcher's loop as a task: started, and stopped by cancelling it."""

    _task: asyncio.Task[None] | None = None
    _name = "watch"

    def start(self) -> Self:
        self._task = asyncio.create_task(self._run(), name=self._name)
        return self

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        raise NotImplementedError


class ViewWatcher(_Background):
    """A screen (display, GM or a seat's phone) on /ws/<audience>/<game>?format=json, reconnecting
    after every drop, remembering each connection's first message and the newest one."""

    def __init__(
        self, base_ws: str, game_id: str, audience: str, viewer: Viewer, token: str | None
    ) -> None:
        self.game_id = game_id
        self.audience = audience
        self.viewer = viewer
        self.token = token
        query = "format=json" + (f"&token={token}" if token else "")
        self.url = f"{base_ws}/ws/{audience}/{game_id}?{query}"
        self.connections: list[Connection] = []
        self.refused: list[tuple[int | None, str]] = []
        self.failed_attempts = 0
        self.last_error = ""
        self.odd_errors: list[str] = []
        self.changed = asyncio.Event()
        self._name = f"watch-{audience}"

    async def _run(self) -> None:
        while True:
            try:
                async with connect(self.url, open_timeout=5, ping_interval=None) as socket_:
                    connection = Connection(time.monotonic())
                    self.connections.append(connection)
                    try:
                        async for raw in socket_:
                            message = json.loads(raw)
                            if message.get("type") == "heartbeat":
                                continue
                            # Which phones and projectors are connected is the GM socket's own
                            # news, not the game's: the checks hold screens to the game as stored.
                            if isinstance(message.get("view"), dict):
                                for key in presence.KEYS:
                                    message["view"].pop(key, None)
                            connection.messages += 1
                            if connection.first is None:
                                connection.first = message
                            connection.latest = message
                            self.changed.set()
                    finally:
                        connection.close_code = socket_.close_code
                        if socket_.close_code == CLOSE_REFUSED:
                            self.refused.append((socket_.close_code, socket_.close_reason or ""))
            except asyncio.CancelledError:
                raise
            except Exception as err:  # a phone keeps trying whatever went wrong
                self.failed_attempts += 1
                self.last_error = repr(err)
                if not isinstance(err, (OSError, ConnectionClosed, InvalidHandshake)):
                    self.odd_errors.append(repr(err))
            await asyncio.sleep(0.1)  # the phones' back-off starts about here

    async def connection_since(self, since: float, within: float = 30) -> Connection:
        """The first connection opened after `since` (monotonic), once its first message came."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            for connection in self.connections:
                if connection.opened_at > since and connection.first is not None:
                    return connection
            assert not self.refused, f"{self.audience} socket refused: {self.refused}"
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), 0.2)
        recent = self.connections[-5:]
        raise AssertionError(
            f"the {self.audience} socket did not come back within {within} s: "
            f"{self.failed_attempts} failed attempts, last {self.last_error}, "
            f"odd {self.odd_errors[-3:]}, task {self._task}; "
            "connections "
            + str([(round(c.opened_at - since, 2), c.messages, c.close_code) for c in recent])
        )

    async def shows(self, view: dict[str, Any], within: float = 15) -> bool:
        """Wait until the newest message of the newest connection is this view."""

        async def same() -> dict[str, Any]:
            return view

        return await self.catches_up(same, within)

    async def catches_up(
        self, current: Callable[[], Awaitable[dict[str, Any]]], within: float = 15
    ) -> bool:
        """Wait until the newest message of the newest connection is the view `current` answers,
        asked again each time: the game may move on meanwhile (the server's sweeper closes a
        timed turn's orders while the crew holds still), and the screen must then show where it
        got to, not a view it may have skipped (the hub folds commits that come together into
        one push). A screen left behind by a lost push still fails: it never matches."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            self.changed.clear()
            view = await current()
            latest = self.connections[-1].latest if self.connections else None
            if latest is not None and latest["view"] == view:
                return True
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), 0.2)
        return False


class EventWatcher(_Background):
    """A prop on /ws/events/<game>?after=N: after a drop it resumes from the version before the
    last one it saw (that version may have come only in part) and drops what it already has."""

    def __init__(self, base_ws: str, game_id: str) -> None:
        self.base = f"{base_ws}/ws/events/{game_id}"
        self.events: dict[tuple[int, int], dict[str, Any]] = {}
        self.conflicts: list[str] = []  # the same (version, seq) came twice with other content
        self.redelivered = 0
        self.connects = 0
        self.last_version = 0
        self._name = "watch-events"

    async def _run(self) -> None:
        while True:
            after = max(0, self.last_version - 1)
            try:
                async with connect(f"{self.base}?after={after}", open_timeout=5) as socket_:
                    self.connects += 1
                    async for raw in socket_:
                        message = json.loads(raw)
                        if message.get("type") != "event":
                            continue
                        key = (int(message["version"]), int(message["seq"]))
                        if key in self.events:
                            self.redelivered += 1
                            if self.events[key] != message["event"]:
                                self.conflicts.append(f"{key}: {self.events[key]} / {message}")
                        self.events[key] = message["event"]
                        self.last_version = max(self.last_version, key[0])
            except asyncio.CancelledError:
                raise
            except Exception as err:
                self.last_error = repr(err)
            await asyncio.sleep(0.1)


# --- What the database holds, and the checks on it -----------------------------------------------


@dataclasses.dataclass
class Snapshot:
    version: int
    state: State
    scenario: str
    seed: dict[str, Any]  # the dice generator's start
    applied: list[tuple[str, int, dict[str, Any]]]  # (command_id, version, result) by version
    events: list[tuple[int, int, dict[str, Any]]]  # (version, seq, data) in order


async def snapshot(engine: AsyncEngine, game_id: str) -> Snapshot:
    """The game, its applied commands and its events as of one moment (REPEATABLE READ)."""
    key = uuid.UUID(game_id)
    async with engine.connect() as conn:
        conn = await conn.execution_options(isolation_level="REPEATABLE READ")
        async with conn.begin():
            game = (
                await conn.execute(
                    select(Game.version, Game.state, Game.cards, Game.scenario, Game.seed).where(
                        Game.id == key
                    )
                )
            ).one()
            applied = (
                await conn.execute(
                    select(AppliedCommand.command_id, AppliedCommand.version, AppliedCommand.result)
                    .where(AppliedCommand.game_id == key)
                    .order_by(AppliedCommand.version)
                )
            ).all()
            events = (
                await conn.execute(
                    select(Event.version, Event.seq, Event.data)
                    .where(Event.game_id == key)
                    .order_by(Event.version, Event.seq)
                )
            ).all()
    return Snapshot(
        int(game.version),
        whole_state(game.state, game.cards),
        game.scenario,
        game.seed,
        [(row.command_id, int(row.version), row.result) for row in applied],
        [(int(row.version), int(row.seq), row.data) for row in events],
    )


def replay(snap: Snapshot) -> Iterator[tuple[int, State, list[dict[str, Any]]]]:
    """(version, state, events) from version 0 on, by applying the stored commands again the way
    app.service.replay_state does; the events too, so they can be held against the event log."""
    catalogue = load_catalogue()
    state: State = canonical(new_game(catalogue.scenarios[snap.scenario], catalogue, snap.seed))
    yield 0, state, []
    for _, version, entry in snap.applied:
        command = parse_command(entry["command"], Actor(**entry["actor"]), entry["now"])
        state, events = apply(state, command)
        state = canonical(state)
        yield version, state, canonical(events)


@dataclasses.dataclass
class StoreReport:
    version: int
    lost: list[str]  # acknowledged, then missing or at another version
    duplicates: list[str]  # applied more than once, by any sign
    problems: list[str]  # anything else that is not as promised
    states: dict[int, State]  # replayed states at the versions asked for


def check_store(
    snap: Snapshot, acks: list[Ack], want_states: frozenset[int] = frozenset()
) -> StoreReport:
    """Everything acknowledged is stored once at the version it was acknowledged with; the stored
    commands replay to the stored state and to the stored events, version by version."""
    problems: list[str] = []
    duplicates: list[str] = []
    lost: list[str] = []
    states: dict[int, State] = {}

    versions = [version for _, version, _ in snap.applied]
    if versions != list(range(1, snap.version + 1)):
        counts = collections.Counter(versions)
        duplicates += [f"version {v} applied {n} times" for v, n in counts.items() if n > 1]
        problems.append(f"applied versions are not 1..{snap.version}: {versions[-10:]}")
    ids = collections.Counter(command_id for command_id, _, _ in snap.applied)
    duplicates += [f"command id {c} stored {n} times" for c, n in ids.items() if n > 1]
    applied_at = {command_id: version for command_id, version, _ in snap.applied}

    stored_events: dict[int, list[tuple[int, dict[str, Any]]]] = collections.defaultdict(list)
    for version, seq, data in snap.events:
        stored_events[version].append((seq, data))
    stray = sorted(set(stored_events) - set(versions))
    if stray:
        problems.append(f"events at versions no command made: {stray[:10]}")

    acks_at: dict[int, list[Ack]] = collections.defaultdict(list)
    for ack in acks:
        if applied_at.get(ack.command_id) != ack.version:
            lost.append(
                f"{ack.command_id} ({ack.type}) acknowledged at version {ack.version}, "
                f"stored at {applied_at.get(ack.command_id)}"
            )
        acks_at[ack.version].append(ack)

    state: State = {}
    for version, state, events in replay(snap):
        if version in want_states:
            states[version] = canonical(state)  # a copy: the next apply may share parts
        if version == 0:
            continue
        stored = stored_events.get(version, [])
        if [seq for seq, _ in stored] != list(range(len(stored))):
            problems.append(f"version {version}: event seqs {[s for s, _ in stored]}")
        if [data for _, data in stored] != events:
            problems.append(
                f"version {version}: stored events {[d.get('type') for _, d in stored]} are not "
                f"the replayed {[e.get('type') for e in events]}"
            )
        for ack in acks_at.get(version, []):
            shown = [e for e in (event_view(ev, ack.viewer) for ev in events) if e]
            # The API adds each event's sentence (`text`) in the caller's language to its message.
            answered = [{k: v for k, v in e.items() if k != "text"} for e in ack.events]
            if shown != canonical(answered):
                problems.append(
                    f"{ack.command_id} ({ack.type}, {ack.attempts} attempts) was answered with "
                    f"events {[e.get('type') for e in ack.events]}, the log has "
                    f"{[e.get('type') for e in shown]}"
                )
    if state != canonical(snap.state):
        problems.append(f"the stored state (version {snap.version}) is not the replayed one")

    # Applied twice under any id: every marker text is sent once, so it is in the log once.
    markers = collections.Counter(
        data["message"]["text"]
        for _, _, data in snap.events
        if data.get("type") == "MessageSent" and "message" in data
    )
    for ack in acks:
        if ack.marker is not None and markers[ack.marker] != 1:
            (duplicates if markers[ack.marker] > 1 else lost).append(
                f"message {ack.marker!r} is in the log {markers[ack.marker]} times"
            )
    duplicates += [
        f"message {text!r} is in the log {n} times"
        for text, n in markers.items()
        if n > 1 and text.startswith("chaos ") and text not in {a.marker for a in acks}
    ]
    return StoreReport(snap.version, lost, duplicates, problems, states)


async def replay_matches(
    engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession], game_id: str
) -> bool:
    """app.service.replay_state itself against the stored state, at a moment nothing changed."""
    for _ in range(50):
        before, _ = await load_state(session_factory, game_id)
        replayed = await replay_state(session_factory, game_id)
        after, stored = await load_state(session_factory, game_id)
        if before == after:
            return bool(replayed == canonical(stored))
        await asyncio.sleep(0.05)  # the sweeper moved it meanwhile: look again
    raise AssertionError("the game never stood still long enough to compare")


async def as_stored(engine: AsyncEngine, state: State) -> State:
    """The state as the server holds it: canonical (keys sorted, whatever order JSONB gave them
    back in), and views list some things (revealed orders, hands) in dict order."""
    async with engine.connect() as conn:  # through PostgreSQL all the same, as the server's was
        query = text("SELECT CAST(:doc AS jsonb) AS doc").columns(column("doc", JSONB))
        stored: State = (await conn.execute(query, {"doc": json.dumps(state)})).scalar_one()
    ordered: State = canonical(stored)
    return ordered


async def committed_before_a_kill(
    session_factory: async_sessionmaker[AsyncSession],
    game_id: str,
    acks: list[Ack],
    kill_times: list[float],
) -> int:
    """How many of these acknowledgements came from the stored result of an earlier attempt: the
    command's transaction began before a kill that came after it was sent, so the killed server
    committed it and the retry to the next server found it applied. (The engine's clock is not
    compared: created_at is PostgreSQL's now(), on the same machine.)"""
    async with session_factory() as session:
        rows = await session.execute(
            select(AppliedCommand.command_id, AppliedCommand.created_at).where(
                AppliedCommand.game_id == uuid.UUID(game_id),
                AppliedCommand.command_id.in_([a.command_id for a in acks]),
            )
        )
        began = {command_id: created.timestamp() for command_id, created in rows}
    return sum(
        1
        for ack in acks
        if any(ack.sent_at <= k and began.get(ack.command_id, k) < k for k in kill_times)
    )


def public_events(snap: Snapshot, after: int) -> dict[tuple[int, int], dict[str, Any]]:
    """What the events socket owes a prop: every event after `after`, as the projector sees it."""
    out = {}
    for version, seq, data in snap.events:
        if version > after:
            shown = event_view(data, "display")
            if shown is not None:
                out[(version, seq)] = shown
    return out


def diff(a: Any, b: Any, path: str = "") -> str:
    """Where two JSON values first differ, for assertion messages."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key, "<missing>") != b.get(key, "<missing>"):
                return diff(a.get(key, "<missing>"), b.get(key, "<missing>"), f"{path}.{key}")
        return ""
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return diff(x, y, f"{path}[{i}]")
        return ""
    return f"{path}: {str(a)[:300]} != {str(b)[:300]}"


# --- The chaos run -------------------------------------------------------------------------------


@dataclasses.dataclass
class ChaosReport:
    kills: int = 0
    turns: int = 0
    timed_turns: int = 0
    acknowledged: int = 0
    answered_on_retry: int = 0
    answered_from_store: int = 0  # committed by a server that was then killed, answered by the next
    lost: list[str] = dataclasses.field(default_factory=list)
    duplicates: list[str] = dataclasses.field(default_factory=list)
    problems: list[str] = dataclasses.field(default_factory=list)
    refused: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    resyncs_checked: int = 0
    resyncs_exact: int = 0  # first message == GET /view at the same version
    resyncs_replayed: int = 0  # the game moved on first: checked against the replayed version
    deadline_expiries: int = 0
    final_version: int = 0
    seconds: float = 0.0
    transport_errors: int = 0
    server_errors: int = 0
    rate_limited: int = 0
    events_redelivered: int = 0

    def summary(self) -> str:
        return "\n".join(
            [
                f"kills survived:           {self.kills}",
                f"turns played:             {self.turns} ({self.timed_turns} closed by the timer)",
                f"commands acknowledged:    {self.acknowledged} "
                f"({self.answered_on_retry} answered only on a retry, {self.answered_from_store} "
                "of them committed before the kill and answered from the store)",
                f"commands lost:            {len(self.lost)}",
                f"duplicate applications:   {len(self.duplicates)}",
                f"other problems:           {len(self.problems)}",
                f"timers expired by sweeper:{self.deadline_expiries:>4}",
                f"client resyncs checked:   {self.resyncs_checked} "
                f"({self.resyncs_exact} equal to GET /view, "
                f"{self.resyncs_replayed} to the replayed view of their version)",
                f"refused commands:         {dict(self.refused)}",
                f"connection errors/5xx/429:{self.transport_errors:>4}/{self.server_errors}/"
                f"{self.rate_limited}",
                f"final game version:       {self.final_version}",
                f"wall time:                {self.seconds:.1f} s",
            ]
        )


class Crew:
    """The players and the GM, played by app.rules.bot through the JSON API."""

    def __init__(
        self,
        phone: Phone,
        session_factory: async_sessionmaker[AsyncSession],
        game_id: str,
        gm_token: str,
        seat_tokens: dict[str, str],
        rng: random.Random,
        timed_share: float,
    ) -> None:
        self.phone = phone
        self.session_factory = session_factory
        self.game_id = game_id
        self.gm_token = gm_token
        self.seat_tokens = seat_tokens  # seat id -> token
        self.rng = rng
        self.timed_share = timed_share
        self.gate = asyncio.Lock()  # held while a command is being sent (retries included)
        self.acks: list[Ack] = []
        self.refused: collections.Counter[str] = collections.Counter()
        self.turns = 0
        self.timed_turns = 0
        self.messages = 0

    async def send(
        self,
        actor: Actor,
        fields: dict[str, Any],
        version: int | None,
        marker: str | None = None,
    ) -> Ack | None:
        viewer: Viewer = "gm"
        token = self.gm_token
        if actor.role == "seat":
            assert actor.seat is not None
            token, viewer = self.seat_tokens[actor.seat], ("seat", actor.seat)
        async with self.gate:
            try:
                ack = await self.phone.post_command(
                    self.game_id, token, fields, viewer, expected_version=version, marker=marker
                )
            except Refused as refused:
                self.refused[refused.code] += 1
                return None
        self.acks.append(ack)
        return ack

    async def state(self) -> tuple[int, State]:
        version, state = await load_state(self.session_factory, self.game_id)
        return version, canonical(state)

    async def wait_for_change(self, version: int, within: float = 120) -> None:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if (await self.state())[0] != version:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"the game stayed at version {version} (the sweeper did nothing)")

    async def step(self, may_finish: bool) -> bool:
        """One move of the game; False once it may finish and stands between turns."""
        version, state = await self.state()
        phase = state["phase"]
        gm = Actor.gm()
        if self.rng.random() < 0.06:
            self.messages += 1
            marker = f"chaos {self.game_id[:8]} {self.messages}"
            await self.send(gm, {"type": "SendMessage", "text": marker, "to": "all"}, None, marker)
            return True
        wrecked = [ship["id"] for ship in state["ships"].values() if ship["destroyed"]]
        if wrecked:  # keep the fight going: the GM brings the wreck back, hull mended
            await self.send(gm, {"type": "RestoreShip", "ship": wrecked[0]}, version)
            await self.send(gm, {"type": "SetTrack", "ship": wrecked[0], "track": "hull",
                                 "damage": 0}, None)  # fmt: skip
            return True
        if phase in ("downtime", "turn_end"):
            if may_finish:
                return False
            if phase == "turn_end" and state["undo"] and self.rng.random() < 0.05:
                await self.send(gm, {"type": "UndoResolution"}, version)
                return True
            timed = self.rng.random() < self.timed_share
            ack = await self.send(gm, {"type": "StartTurn", "seconds": 1 if timed else 0}, version)
            if ack is not None:
                self.turns += 1
                self.timed_turns += timed
        elif phase == "orders":
            todo = stations_to_order(state)
            if state["deadline"] is not None:
                # One seat stays silent, so the orders stay open until the timer closes them.
                silent = next((t for t in todo if t[2].role == "seat"), None)
                others = [t for t in todo if t is not silent]
                if silent is not None and others:
                    await self.order(state, version, others[0])
                elif silent is not None:
                    await self.wait_for_change(version)
                else:
                    await self.send(gm, {"type": "CloseOrders"}, version)
            elif not todo or self.rng.random() < 0.12:
                await self.send(gm, {"type": "CloseOrders"}, version)
            else:
                await self.order(state, version, todo[0])
        elif phase == "allocation":
            waiting = [s for s, p in state["allocation"]["ships"].items() if not p["answered"]]
            engineering = [
                st["crew"]["seat"]
                for st in state["ships"][waiting[0]]["stations"].values()
                if st["role"] == "engineering" and st["crew"]
            ]
            if engineering and engineering[0] in self.seat_tokens and self.rng.random() < 0.8:
                actor = Actor.for_seat(engineering[0])
                fields = {"type": "AllocateDamage", "ship": waiting[0], "allocations": {}}
                await self.send(actor, fields, version)
            else:
                await self.send(gm, {"type": "ForceAllocation"}, version)
        return True

    async def order(self, state: State, version: int, todo: tuple[str, str, Actor]) -> None:
        ship, station, actor = todo
        fields = command_fields(propose(state, ship, station, self.rng, actor))
        await self.send(actor, fields, version)


async def run_chaos(
    db_url: str,
    data_dir: Path,
    *,
    turns: int,
    kills: int,
    seed: int = 1,
    timed_share: float = 0.15,
    max_uptime: float = 1.5,
    max_downtime: float = 0.4,
    log: Log = lambda _: None,
) -> ChaosReport:
    """Play a game of at least `turns` turns while the server is SIGKILLed and restarted at least
    `kills` times, checking the promises after every restart and at the end."""
    rng = random.Random(seed)
    report = ChaosReport()
    started = time.monotonic()
    engine = create_engine(db_url)
    session_factory = create_session_factory(engine)
    server = Server(db_url, data_dir, "chaos").start()
    phone = Phone(server.http)
    watchers: list[ViewWatcher] = []
    events: EventWatcher | None = None
    try:
        await server.ready()
        made = await phone.http.post("/api/games", json={"scenario": "skirmish", "seed": seed})
        assert made.status_code == 201, made.text
        game_id, gm_token = made.json()["game_id"], made.json()["gm_token"]
        seat_tokens: dict[str, str] = {}
        seat_of: dict[str, str] = {}  # station -> seat id
        for station in ("weapons", "engineering", "pilot", "comms"):
            seated = await phone.http.post(
                f"/api/games/{game_id}/seats",
                json={"ship": "kestrel", "station": station, "name": station.title()},
            )
            assert seated.status_code == 201, seated.text
            seat_tokens[seated.json()["seat_id"]] = seated.json()["seat_token"]
            seat_of[station] = seated.json()["seat_id"]
        weapons = seat_of["weapons"]
        watchers = [
            ViewWatcher(server.ws, game_id, "display", "display", None).start(),
            ViewWatcher(server.ws, game_id, "gm", "gm", gm_token).start(),
            ViewWatcher(
                server.ws, game_id, "station", ("seat", weapons), seat_tokens[weapons]
            ).start(),
        ]
        events_from = (await phone.get_view(game_id, None))[0]
        events = EventWatcher(server.ws, game_id)
        events.last_version = events_from + 1  # resumes "after" events_from
        events.start()
        tokens: dict[Viewer, str | None] = {"display": None, "gm": gm_token}
        tokens[("seat", weapons)] = seat_tokens[weapons]

        crew = Crew(phone, session_factory, game_id, gm_token, seat_tokens, rng, timed_share)
        stop_killing = asyncio.Event()
        kill_times: list[float] = []  # time.time() of each SIGKILL

        def now_shown(watcher: ViewWatcher) -> Callable[[], Awaitable[dict[str, Any]]]:
            async def current() -> dict[str, Any]:
                return (await phone.get_view(game_id, tokens[watcher.viewer]))[1]

            return current

        async def check_resync(killed_at: float) -> None:
            """Each screen reconnected by itself, and its first message was the game as it was."""
            pending = []
            for watcher in watchers:
                try:
                    connection = await watcher.connection_since(killed_at)
                except AssertionError:
                    server.assert_alive()
                    raise
                assert connection.first is not None
                version, view = await phone.get_view(game_id, tokens[watcher.viewer])
                first_version = int(connection.first["version"])
                report.resyncs_checked += 1
                if first_version == version:
                    assert connection.first["view"] == view, f"{watcher.audience} resync differs"
                    report.resyncs_exact += 1
                else:
                    assert first_version < version, (first_version, version)
                    pending.append((watcher, connection, first_version))
            if pending:  # a command slipped in between: hold the first message to its version
                snap = await snapshot(engine, game_id)
                wanted = frozenset(v for _, _, v in pending)
                states = check_store(snap, crew.acks, wanted).states
                for watcher, connection, first_version in pending:
                    assert connection.first is not None
                    stored = await as_stored(engine, states[first_version])
                    expected = view_for(stored, watcher.viewer)
                    assert connection.first["view"] == expected, (
                        f"{watcher.audience} resync at {first_version} (now {snap.version}): "
                        + diff(connection.first["view"], expected)
                    )
                    assert await watcher.catches_up(now_shown(watcher)), (
                        f"{watcher.audience} was not brought up"
                    )
                    report.resyncs_replayed += 1

        async def check_store_now(label: str) -> None:
            store = check_store(await snapshot(engine, game_id), crew.acks)
            report.lost += [f"{label}: {x}" for x in store.lost]
            report.duplicates += [f"{label}: {x}" for x in store.duplicates]
            report.problems += [f"{label}: {x}" for x in store.problems]
            if not await replay_matches(engine, session_factory, game_id):
                report.problems.append(f"{label}: replay_state differs from the stored state")
            assert not (store.lost or store.duplicates or store.problems), (
                f"{label}: lost {store.lost[:3]}, duplicated {store.duplicates[:3]}, "
                f"problems {store.problems[:3]}\n{server.tail()}"
            )

        async def killer() -> None:
            while not stop_killing.is_set():
                await asyncio.sleep(rng.uniform(0.05, max_uptime))
                if stop_killing.is_set():
                    return
                if rng.random() < 0.6:  # aim at a command on the wire
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(phone.in_flight.wait(), 3)
                    await asyncio.sleep(rng.uniform(0, 0.02))
                killed_at = time.monotonic()
                kill_times.append(time.time())
                server.kill()
                report.kills += 1
                await asyncio.sleep(rng.uniform(0, max_downtime))
                await server.start().ready()
                async with crew.gate:  # the crew holds still while we look
                    await check_store_now(f"after kill {report.kills}")
                    await check_resync(killed_at)
                log(
                    f"kill {report.kills}: turn {crew.turns}, {len(crew.acks)} acknowledged, "
                    f"version {(await crew.state())[0]}"
                )

        killing = asyncio.create_task(killer(), name="killer")
        try:
            while await crew.step(crew.turns >= turns and report.kills >= kills):
                if killing.done():
                    killing.result()  # a failed check ends the run
        finally:
            stop_killing.set()
            await killing

        # The end: one last look at the store, every screen and the event stream.
        server.assert_alive()
        await check_store_now("at the end")
        for watcher in watchers:
            _, view = await phone.get_view(game_id, tokens[watcher.viewer])
            assert await watcher.shows(view), f"{watcher.audience} does not show the game"
        snap = await snapshot(engine, game_id)
        owed = public_events(snap, events_from)
        for _ in range(100):
            if set(events.events) >= set(owed):
                break
            await asyncio.sleep(0.1)
        missing = sorted(set(owed) - set(events.events))
        extra = sorted(set(events.events) - set(owed))
        wrong = [k for k in owed if k in events.events and events.events[k] != owed[k]]
        if missing or extra or wrong or events.conflicts:
            report.problems.append(
                f"event stream: missing {missing[:5]}, extra {extra[:5]}, differing {wrong[:5]}, "
                f"conflicts {events.conflicts[:2]}"
            )
        report.events_redelivered = events.redelivered
        report.turns, report.timed_turns = crew.turns, crew.timed_turns
        report.acknowledged = len(crew.acks)
        retried = [a for a in crew.acks if a.attempts > 1]
        report.answered_on_retry = len(retried)
        report.answered_from_store = await committed_before_a_kill(
            session_factory, game_id, retried, kill_times
        )
        report.refused = crew.refused
        unexpected = {code: n for code, n in crew.refused.items() if code not in RACES}
        if unexpected:
            report.problems.append(f"commands refused for no race with the timer: {unexpected}")
        report.deadline_expiries = sum(1 for c, _, _ in snap.applied if c.startswith("deadline:"))
        report.final_version = snap.version
        report.transport_errors = phone.transport_errors
        report.server_errors = phone.server_errors
        report.rate_limited = phone.rate_limited
        for watcher in watchers:
            if watcher.refused:
                report.problems.append(f"{watcher.audience} socket refused: {watcher.refused}")
        return report
    finally:
        report.seconds = time.monotonic() - started
        for watcher in watchers:
            await watcher.stop()
        if events is not None:
            await events.stop()
        await phone.close()
        server.stop()
        await engine.dispose()
