"""Props' presses: each fires its cue as the game's props (`Actor.prop()`, which fires only the
cues a scenario gives its props), at most at the game's pace (settings.props_press_rate).

Before anything is looked up, each message is checked as it arrives, in the MQTT client's own
callback, and only a well-formed press, of a size a button sends, waits for the bridge. Of those,
each game's props code may have as many waiting as the game's pace lets through at once, and
codes the bridge does not know (no game it has seen) only a few between them: a flood of made-up
codes or of one game's presses leaves room for every other game's presses.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import hmac
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

import aiomqtt
from sqlalchemy import select

from app.db.models import Game
from app.db.session import autocommit
from app.pace import TokenBuckets
from app.rules import Actor
from app.service import ServiceError, game_info, run_command
from app.service.commands import SessionFactory
from app.settings import Settings

from .topics import Press, inbound_cue

log = logging.getLogger(__name__)

PAYLOAD_BYTES = 256  # a press says "pressed", or nothing at all
WAITING_UNKNOWN = 20  # presses of props codes the bridge has not seen yet, all together
WAITING_ALL = 1_000
UNKNOWN_CODES_RATE = 10.0  # look-ups of props codes no game has been seen with, per second
DROPS_LOGGED_EVERY_S = 10.0
GAMES_REMEMBERED = 10_000  # props codes kept; past it, they are read again


class Gate:
    """Which arriving messages wait for the bridge (`admit`), and the press each one is once the
    bridge takes it (`taken`). `known` tells the props codes of games the bridge has seen;
    `per_code` is how many presses of one code may wait (the game's burst: more would be refused
    for their pace anyway)."""

    def __init__(self, known: Callable[[str], bool], per_code: int) -> None:
        self._known = known
        self._per_code = per_code
        self._waiting: collections.Counter[str] = collections.Counter()
        self._unknown: collections.Counter[str] = collections.Counter()  # of _waiting
        self.dropped = 0  # messages turned away since the bridge started

    def admit(self, message: aiomqtt.Message) -> bool:
        press = inbound_cue(message.topic.value)
        payload = message.payload
        size = len(payload) if isinstance(payload, (bytes, bytearray, str)) else 0
        if press is None or size > PAYLOAD_BYTES or not self._room(press.props_code):
            self.dropped += 1
            return False
        self._waiting[press.props_code] += 1
        if not self._known(press.props_code):
            self._unknown[press.props_code] += 1
        return True

    def _room(self, code: str) -> bool:
        if self._waiting[code] >= self._per_code or self._waiting.total() >= WAITING_ALL:
            return False
        return self._known(code) or self._unknown.total() < WAITING_UNKNOWN

    def taken(self, message: aiomqtt.Message) -> Press:
        """The press a message the gate admitted stands for, which no longer waits."""
        press = inbound_cue(message.topic.value)
        assert press is not None  # admitted
        for counts in (self._waiting, self._unknown):
            if counts[press.props_code] > 0:
                counts[press.props_code] -= 1
            if counts[press.props_code] == 0:
                del counts[press.props_code]
        return press

    def queue_type(self) -> type[asyncio.Queue[aiomqtt.Message]]:
        """The incoming queue for a new connection's aiomqtt Client (its `queue_type`): it keeps
        what this gate admits and drops the rest before it takes any room. Unbounded: the gate
        bounds it. What waited in a lost connection's queue is gone, so nothing waits now."""
        self._waiting.clear()
        self._unknown.clear()
        gate = self

        class GatedQueue(asyncio.Queue[aiomqtt.Message]):
            def put_nowait(self, item: aiomqtt.Message) -> None:
                if gate.admit(item):
                    super().put_nowait(item)

        return GatedQueue


class Presses:
    """The props' side of one bridge: which game each props code is (both ways, for the topics
    out and the presses in), the gate, each game's pace, and the press that fires a cue."""

    def __init__(self, session_factory: SessionFactory, settings: Settings) -> None:
        self._session_factory = session_factory
        self.group = server_group(settings.secret_key)
        self._codes: dict[uuid.UUID, str] = {}  # game -> props code
        self._games: dict[str, uuid.UUID] = {}  # props code -> game
        self.gate = Gate(lambda code: code in self._games, settings.props_press_burst)
        self._pace = TokenBuckets(settings.props_press_rate, settings.props_press_burst)
        self._lookups = TokenBuckets(UNKNOWN_CODES_RATE, int(UNKNOWN_CODES_RATE))
        self._paced: collections.Counter[uuid.UUID] = collections.Counter()
        self._unknown = 0  # presses for no game's props code, since the log last said so
        self._drops_logged = (0, 0.0)  # the gate's count then, and when

    async def code_of(self, game_id: uuid.UUID) -> str:
        code = self._codes.get(game_id)
        if code is None:
            code = (await game_info(self._session_factory, game_id)).props_code
            self._remember(game_id, code)
        return code

    def _remember(self, game_id: uuid.UUID, code: str) -> None:
        if len(self._codes) > GAMES_REMEMBERED:
            self._codes.clear()
            self._games.clear()
        self._codes[game_id] = code
        self._games[code] = game_id

    async def know_games(self) -> None:
        """The props codes of the games played last, so their presses find room at the gate
        however many made-up codes arrive with them."""
        async with autocommit(self._session_factory) as session:
            rows = await session.execute(
                select(Game.id, Game.props_code)
                .order_by(Game.updated_at.desc())
                .limit(GAMES_REMEMBERED)
            )
        for game_id, code in rows:
            self._remember(game_id, code)

    async def listen_forever(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            press = self.gate.taken(message)
            self._log_drops()
            try:
                await self.press(press)
            except Exception:  # the database away, say: the next press may fare better
                log.warning("props: firing cue %r failed", press.cue, exc_info=True)

    def _log_drops(self) -> None:
        """What was turned away, said at most every few seconds: a flood is one line, not one
        line a message."""
        logged, at = self._drops_logged
        now = time.monotonic()
        if now - at < DROPS_LOGGED_EVERY_S or (self.gate.dropped == logged and not self._unknown):
            return
        if self.gate.dropped > logged:
            log.warning(
                "props: %s signals turned away (malformed, too big, or too many waiting)",
                self.gate.dropped - logged,
            )
        if self._unknown:
            log.warning("props: %s presses for no game's props code", self._unknown)
        self._drops_logged, self._unknown = (self.gate.dropped, now), 0

    async def press(self, press: Press) -> None:
        """The cue fired as the game's props: one command, through the unit of work, at the
        game's pace; the engine fires only a cue the scenario gives the props."""
        game_id = self._games.get(press.props_code)
        if game_id is None:
            if not self._lookups.take("unknown"):
                game_id = await self._game_of(press.props_code)
            if game_id is None:
                self._unknown += 1
                self._log_drops()
                return
        if self._pace.take(str(game_id)):
            self._paced[game_id] += 1
            return
        if self._paced[game_id]:
            log.warning("props: %s presses of game %s came too fast", self._paced[game_id], game_id)
            del self._paced[game_id]
        command: dict[str, Any] = {"type": "FireCue", "cue": press.cue}
        try:
            await run_command(
                self._session_factory,
                game_id,
                command,
                Actor.prop(),
                command_id=f"prop:{uuid.uuid4().hex}",
            )
        except ServiceError as refused:
            log.warning("props: cue %r of game %s refused: %s", press.cue, game_id, refused.code)

    async def _game_of(self, props_code: str) -> uuid.UUID | None:
        async with autocommit(self._session_factory) as session:
            game_id = await session.scalar(select(Game.id).where(Game.props_code == props_code))
        if game_id is not None:
            self._remember(game_id, props_code)
        return game_id


def server_group(secret_key: str) -> str:
    """The shared subscription's group: the same for every process of this server (they share
    its secret key), and a name nobody else can work out, so nobody else joins it to take the
    presses that come to the group."""
    digest = hmac.new(secret_key.encode(), b"props shared subscription", hashlib.sha256)
    return f"bridgecrew-{digest.hexdigest()[:24]}"
