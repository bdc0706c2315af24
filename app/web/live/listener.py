"""The LISTEN connection: how this process hears of commits in other processes. A notice is only
`<game>:<version>:<writer>`; the push round reads the committed state from the row. This
process's own commits reach its hub from the transaction (app/service/commands.py, `on_commit`),
so their notices are left alone."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable

import asyncpg  # type: ignore[import-untyped]

from app.service import notices
from app.service.commands import GAME_GONE, NOTIFY_CHANNEL, SEATS_ENDED

log = logging.getLogger(__name__)

LISTENER_NAME = "bridgecrew-listener"  # in pg_stat_activity, so operators can tell it apart
LISTEN_CHECK_SECONDS = 5.0  # how often the LISTEN connection is asked after


class Listener:
    def __init__(
        self,
        dsn: str,
        want: Callable[[uuid.UUID, int], None],
        resync_all: Callable[[], None],
        seats_ended: Callable[[uuid.UUID], None],
        game_gone: Callable[[uuid.UUID], None],
    ) -> None:
        self._dsn = dsn
        self._want = want
        self._resync_all = resync_all
        self._seats_ended = seats_ended
        self._game_gone = game_gone
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
                self._resync_all()  # NOTIFYs may have been missed
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
        # "seats:<game id>" and "gone:<game id>", from any process, this one's too.
        told = {SEATS_ENDED: self._seats_ended, GAME_GONE: self._game_gone}.get(game)
        if told is not None:
            try:
                told(uuid.UUID(version))
            except ValueError:
                log.warning("ignoring odd notification %r", payload)
            return
        try:
            notice = notices.parse(payload)
        except ValueError:
            log.warning("ignoring odd notification %r", payload[:200])
            return
        if notice.writer != notices.WRITER:
            self._want(notice.game_id, notice.version)
