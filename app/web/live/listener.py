"""The LISTEN connection: how this process hears of commits in every process, its own included.
A notice is only `<game>:<version>:<writer>`; the push round reads the committed state from the
row, or from this process's copy when this process wrote it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable

import asyncpg  # type: ignore[import-untyped]

from app.service import notices
from app.service.commands import NOTIFY_CHANNEL
from app.service.seats import SEATS_ENDED, forget_tokens, seats_ended

from .connections import Room

log = logging.getLogger(__name__)

LISTENER_NAME = "bridgecrew-listener"  # in pg_stat_activity, so operators can tell it apart
LISTEN_CHECK_SECONDS = 5.0  # how often the LISTEN connection is asked after
# A notice of this process's own commit often arrives before the writer, a few steps on, hands
# the hub that version with its state; acted on at once, it would have the push read the state
# back from the row. So it only backs the writer up (a writer cancelled while its COMMIT was on
# the wire never tells the hub), after this long; by then it is almost always a no-op.
OWN_NOTICE_SECONDS = 0.5


class Listener:
    def __init__(
        self,
        dsn: str,
        rooms: dict[uuid.UUID, Room],
        want: Callable[[uuid.UUID, int], None],
        resync_all: Callable[[], None],
    ) -> None:
        self._dsn = dsn
        self._rooms = rooms
        self._want = want
        self._resync_all = resync_all
        self.listening = False

    async def run_forever(self) -> None:
        delay = 0.5
        while True:
            connection: asyncpg.Connection | None = None
            try:
                connection = await asyncpg.connect(
                    self._dsn, timeout=10, server_settings={"application_name": LISTENER_NAME}
                )
                lost = asyncio.Event()

                def on_lost(_: object, lost: asyncio.Event = lost) -> None:
                    lost.set()

                connection.add_termination_listener(on_lost)
                await connection.add_listener(NOTIFY_CHANNEL, self.on_notify)
                self.listening, delay = True, 0.5
                forget_tokens()  # seats may have ended while nobody listened
                self._resync_all()  # and NOTIFYs may have been missed
                # asyncpg notices a dead server only when it talks to it: ask now and then.
                while not lost.is_set():
                    await connection.fetchval("SELECT 1", timeout=5)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(lost.wait(), LISTEN_CHECK_SECONDS)
                log.warning("lost the LISTEN connection; reconnecting")
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database restarting: retry with back-off
                log.warning("LISTEN connection failed (%s); retrying in %.1f s", error, delay)
            finally:
                self.listening = False
                if connection is not None:
                    connection.terminate()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    def on_notify(self, _connection: object, _pid: int, _channel: str, payload: str) -> None:
        game, _, version = payload.partition(":")
        if game == SEATS_ENDED:  # "seats:<game id>": who that game's tokens are has changed
            try:
                seats_ended(uuid.UUID(version))
            except ValueError:
                log.warning("ignoring odd notification %r", payload)
            return
        try:
            notice = notices.parse(payload)
        except ValueError:
            log.warning("ignoring odd notification %r", payload[:200])
            return
        room = self._rooms.get(notice.game_id)
        if room is None:
            return  # nobody here watches that game
        if notice.writer == notices.WRITER:
            loop = asyncio.get_running_loop()
            loop.call_later(OWN_NOTICE_SECONDS, self._want, notice.game_id, notice.version)
        else:
            self._want(notice.game_id, notice.version)
