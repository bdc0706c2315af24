"""The LISTEN connection: how this process hears of commits in every process, its own included.

Another process's command is applied to this process's copy of the game (app.service.commands
.follow) before it is pushed. Our own commit's NOTIFY can arrive before our command has kept its
new state, so while a command of this process is in flight on the game, the NOTIFY is held until
the command settles.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable

import asyncpg  # type: ignore[import-untyped]

from app.service import notices
from app.service.commands import NOTIFY_CHANNEL, follow, in_flight_here
from app.service.seats import SEATS_ENDED, forget_tokens, seats_ended

from .connections import Room

log = logging.getLogger(__name__)

LISTENER_NAME = "bridgecrew-listener"  # in pg_stat_activity, so operators can tell it apart
LISTEN_CHECK_SECONDS = 5.0  # how often the LISTEN connection is asked after, and the listeners
_LISTENERS = (
    "SELECT count(*) FROM pg_stat_activity"
    " WHERE datname = current_database() AND application_name = $1"
)


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
                # asyncpg notices a dead server only when it talks to it: ask now and then, and
                # ask how many server processes listen (app/service/notices.py).
                while not lost.is_set():
                    listeners = await connection.fetchval(_LISTENERS, LISTENER_NAME, timeout=5)
                    notices.set_others_listen(listeners != 1)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(lost.wait(), LISTEN_CHECK_SECONDS)
                log.warning("lost the LISTEN connection; reconnecting")
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database restarting: retry with back-off
                log.warning("LISTEN connection failed (%s); retrying in %.1f s", error, delay)
            finally:
                self.listening = False
                notices.set_others_listen(True)  # not known while away: the long form is safe
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
        follow(notice)
        if in_flight_here(notice.game_id):
            room.held = max(room.held, notice.version)  # see app.service.commands._in_flight
            return
        self._want(notice.game_id, notice.version)

    def settled(self, game_id: uuid.UUID) -> None:
        """A command of this process on this game has finished, committed or not."""
        room = self._rooms.get(game_id)
        if room is None or in_flight_here(game_id) or room.held < 0:
            return
        held, room.held = room.held, -1
        self._want(game_id, held)
