"""The bridge between the games and an MQTT broker: public events out, props' cues in.

Commands never wait for the broker. A commit only notes what to publish (`committed`, the unit of
work's after-commit hook) on a bounded backlog that forgets its oldest entries when full; one task
reads each noted version's public events and publishes them, in commit order, while the broker is
up. A broker that is down or slow therefore costs the backlog's oldest news, never a command.
Only the process that committed a version publishes it, so no event goes out twice.

Props' presses come in on the same connection (app/props/inbound.py).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import logging
import secrets
import ssl
import time
import uuid
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote, urlsplit

import aiomqtt
import orjson
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from sqlalchemy import select

from app.db.models import Game
from app.db.session import autocommit
from app.rules import deadlines
from app.service import ServiceError, events_after
from app.service.commands import CommitHook, SessionFactory, State
from app.settings import Settings

from .inbound import Gate, Presses
from .topics import (
    PropMessage,
    event_messages,
    inbound_subscription,
    phase_message,
    timer_message,
)

log = logging.getLogger(__name__)

BACKLOG = 500  # commits and timers noted while the broker is away; older ones are forgotten
LAST_SECONDS = 10  # a timer's last seconds, when props hear of it
PUBLISH_TIMEOUT_S = 5.0  # a broker that takes longer to acknowledge is taken for gone
RETRY_S = 2.0
# The largest packet the server takes from the broker (MQTT 5's Maximum Packet Size, which the
# broker honours by not sending it bigger ones): a press's topic and payload fit many times over.
PACKET_BYTES = 2048
BATCH = 20  # commits of one game whose events are read together
EVENTS_READ = 10_000  # enough for any BATCH commits' events
GAMES_REMEMBERED = 10_000  # phases kept per game; past it, each is sent again


@dataclasses.dataclass(frozen=True)
class Broker:
    host: str
    port: int
    tls: bool
    username: str | None
    password: str | None

    @classmethod
    def from_url(cls, url: str) -> Broker:
        parts = urlsplit(url)
        tls = parts.scheme == "mqtts"
        return cls(
            host=parts.hostname or "localhost",
            port=parts.port or (8883 if tls else 1883),
            tls=tls,
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
        )

    def client(self, identifier: str, gate: Gate) -> aiomqtt.Client:
        limits = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        limits.MaximumPacketSize = PACKET_BYTES
        return aiomqtt.Client(
            self.host,
            self.port,
            username=self.username,
            password=self.password,
            identifier=identifier,
            protocol=aiomqtt.ProtocolVersion.V5,
            properties=limits,
            tls_context=ssl.create_default_context() if self.tls else None,
            timeout=PUBLISH_TIMEOUT_S,
            # Signals are taken one at a time; what the gate turns away never waits.
            queue_type=gate.queue_type(),
        )


@dataclasses.dataclass(frozen=True)
class Committed:
    """A version this process committed; `phase` when it differs from the last one seen here."""

    game_id: uuid.UUID
    version: int
    turn: int
    phase: str | None
    players: frozenset[str]  # the ships of the players' side, whose hits sound as theirs


@dataclasses.dataclass(frozen=True)
class TimerDue:
    """A timer reached its last seconds. `set_at` is the version this process saw it set at."""

    game_id: uuid.UUID
    kind: str
    at: float
    set_at: int


@dataclasses.dataclass
class Timer:
    """A game's running timer as this process last saw it, and the call due at its last seconds."""

    key: tuple[str, float]
    handle: asyncio.TimerHandle


class PropsBridge:
    """One per process with a broker configured: started and stopped with the app (app/main.py),
    told of each commit by the unit of work's hook (`after` puts it behind the hub's)."""

    def __init__(
        self, session_factory: SessionFactory, settings: Settings, *, backlog: int = BACKLOG
    ) -> None:
        if settings.mqtt_url is None:
            raise ValueError("the props' bridge needs a broker (BRIDGECREW_MQTT_URL)")
        self._session_factory = session_factory
        self._broker = Broker.from_url(settings.mqtt_url)
        self._identifier = f"bridgecrew-{secrets.token_hex(6)}"
        self._backlog: collections.deque[Committed | TimerDue] = collections.deque(maxlen=backlog)
        self._noted = asyncio.Event()
        self._phases: dict[uuid.UUID, str] = {}
        self._timers: dict[uuid.UUID, Timer] = {}
        self._presses = Presses(session_factory, settings)
        self._task: asyncio.Task[None] | None = None
        self.connected = False
        self.forgotten = 0  # notes the full backlog forgot: what the broker missed

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run_forever(), name="props-bridge")

    async def stop(self) -> None:
        for timer in self._timers.values():
            timer.handle.cancel()
        self._timers.clear()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def after(self, first: CommitHook) -> CommitHook:
        """The after-commit hook that tells `first` (the live hub) and then this bridge."""

        def hook(game_id: uuid.UUID, version: int | None, state: State | None) -> None:
            try:
                first(game_id, version, state)
            finally:
                self.committed(game_id, version, state)

        return hook

    # --- Noting commits (on the command's path: no waiting, no I/O) -----------------------------

    def committed(self, game_id: uuid.UUID, version: int | None, state: State | None) -> None:
        if version is None or state is None:
            return  # a COMMIT whose outcome is unknown, or a refusal: nothing new to tell
        try:
            phase = state["phase"]
            if len(self._phases) > GAMES_REMEMBERED:
                self._phases.clear()  # each game's phase is then sent once more, as at a restart
            changed = phase if self._phases.get(game_id) != phase else None
            self._phases[game_id] = phase
            players = frozenset(s["id"] for s in state["ships"].values() if s["side"] == "players")
            self._note(Committed(game_id, version, state["turn"], changed, players))
            self._watch_timer(game_id, version, state)
        except Exception:  # props must never look like a failed command
            log.exception("props: noting %s:%s failed", game_id, version)

    def _note(self, entry: Committed | TimerDue) -> None:
        if len(self._backlog) == self._backlog.maxlen:
            if not self.forgotten:
                log.warning("props: the broker is behind; the oldest news is being dropped")
            self.forgotten += 1
        self._backlog.append(entry)
        self._noted.set()

    def _watch_timer(self, game_id: uuid.UUID, version: int, state: State) -> None:
        due = min(deadlines(state), key=lambda d: d["at"], default=None)
        key = None if due is None else (str(due["kind"]), float(due["at"]))
        timer = self._timers.get(game_id)
        if timer is not None and timer.key == key:
            return
        if timer is not None:
            timer.handle.cancel()
            del self._timers[game_id]
        if key is None:
            return
        kind, at = key
        delay = max(0.0, at - LAST_SECONDS - time.time())
        loop = asyncio.get_running_loop()
        handle = loop.call_later(delay, self._timer_due, TimerDue(game_id, kind, at, version))
        self._timers[game_id] = Timer(key, handle)

    def _timer_due(self, due: TimerDue) -> None:
        timer = self._timers.get(due.game_id)
        if timer is not None and timer.key == (due.kind, due.at):
            del self._timers[due.game_id]
        self._note(due)

    # --- Publishing (one task, while the broker is up) ------------------------------------------

    async def _run_forever(self) -> None:
        """Connect, publish and listen; after any failure, connect again (aiomqtt leaves
        reconnecting to its caller)."""
        while True:
            try:
                async with self._broker.client(self._identifier, self._presses.gate) as client:
                    try:
                        await self._presses.know_games()
                    except Exception:  # the database away: codes are then looked up as pressed
                        log.warning("props: reading the games' props codes failed", exc_info=True)
                    await client.subscribe(inbound_subscription(self._presses.group), qos=1)
                    self.connected = True
                    log.info("props: connected to %s:%s", self._broker.host, self._broker.port)
                    async with asyncio.TaskGroup() as group:
                        group.create_task(self._publish_forever(client))
                        group.create_task(self._presses.listen_forever(client))
            except* aiomqtt.MqttError as failure:
                if self.connected:
                    log.warning("props: lost the broker (%s)", failure.exceptions[0])
                else:
                    log.debug("props: no broker (%s)", failure.exceptions[0])
            except* Exception:  # a bug here must not silence the props for the server's life
                log.exception("props: the bridge failed; it starts again")
            finally:
                self.connected = False
            await asyncio.sleep(RETRY_S)

    async def _publish_forever(self, client: aiomqtt.Client) -> None:
        while True:
            while not self._backlog:
                self._noted.clear()
                await self._noted.wait()
            taken = self._take()
            try:
                messages = await self._messages(taken)
            except ServiceError:
                continue  # the game is gone
            except Exception:  # the database away, say: these notes are lost, not the next ones
                log.warning("props: reading what to publish failed", exc_info=True)
                continue
            for message in messages:
                payload = orjson.dumps(message.payload)
                await client.publish(message.topic, payload, qos=1, timeout=PUBLISH_TIMEOUT_S)
            if self.forgotten and not self._backlog:
                log.warning("props: caught up; %s notes were dropped meanwhile", self.forgotten)
                self.forgotten = 0

    def _take(self) -> list[Committed] | TimerDue:
        """The next note; with the commits of the same game noted right after it, so a burst of
        commands costs the bridge one read of their events, not one each."""
        first = self._backlog.popleft()
        if isinstance(first, TimerDue):
            return first
        taken = [first]
        while self._backlog and len(taken) < BATCH:
            following = self._backlog[0]
            if not isinstance(following, Committed) or following.game_id != first.game_id:
                break
            taken.append(following)
            self._backlog.popleft()
        return taken

    async def _messages(self, taken: list[Committed] | TimerDue) -> list[PropMessage]:
        if isinstance(taken, TimerDue):
            code = await self._presses.code_of(taken.game_id)
            if not await self._still_due(taken):
                return []
            left = max(0, round(taken.at - time.time()))
            return [timer_message(code, taken.kind, taken.at, left)]
        game_id = taken[0].game_id
        code = await self._presses.code_of(game_id)
        # The events as the projector may see them: nothing secret leaves through here.
        _, events = await events_after(
            self._session_factory, game_id, taken[0].version - 1, "display", limit=EVENTS_READ
        )
        by_version: dict[int, list[dict[str, Any]]] = {}
        for event in events:
            by_version.setdefault(event["version"], []).append(event)
        messages = []
        for note in taken:
            events = by_version.get(note.version, [])
            messages += event_messages(code, note.version, events, note.players)
            if note.phase is not None:
                messages.append(phase_message(code, note.version, note.turn, note.phase))
        return messages

    async def _still_due(self, due: TimerDue) -> bool:
        """The game still has this timer, set by the version this process saw setting it (so
        only that process announces it; a process that merely saw it later stays quiet)."""
        async with autocommit(self._session_factory) as session:
            row = (
                await session.execute(
                    select(Game.deadline_at, Game.deadline_kind, Game.deadline_version).where(
                        Game.id == due.game_id
                    )
                )
            ).one_or_none()
        if row is None or row.deadline_at is None:
            return False
        at = datetime.fromtimestamp(due.at, UTC)
        return (row.deadline_at, row.deadline_kind, row.deadline_version) == (
            at,
            due.kind,
            due.set_at,
        )
