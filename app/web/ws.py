"""Websocket routes: one per audience. Each socket gets its full view on connect, then its view
again after every change (HTML out-of-band fragments for htmx, or JSON with ?format=json).

A refused socket is accepted and then closed with 1008 (policy violation): htmx-ext-ws does not
reconnect after that code, so a phone with a stale token stops knocking. A page on another site
is refused the same way, whatever token it holds; clients that are not browsers send no Origin.
A seat's socket is closed (1008) when the seat is freed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Query, WebSocket
from sqlalchemy.exc import DBAPIError

from app.rules.core.messages import message
from app.service import ServiceError, game_info
from app.service.commands import SessionFactory, Viewer, game_key
from app.service.seats import (
    PRESENCE_SECONDS,
    mark_gone,
    mark_seen,
    revoked_among,
)
from app.web.limits import CLOSE_POLICY
from app.web.live import Audience, Format
from app.web.live.hub import CLOSE_TRY_AGAIN
from app.web.security import same_origin
from app.web.words import say

from .deps import Gm, Seated, get_hub, get_session_factory, identify

log = logging.getLogger(__name__)

router = APIRouter()
T = TypeVar("T")

FormatQuery = Annotated[str, Query(alias="format", pattern="^(html|json)$")]
# What the screen opening the socket shows already (app.web.render.shown_as), if it says.
ShownQuery = Annotated[str | None, Query(max_length=100)]
MAX_VERSION = 2**31 - 1  # the events table's version column is a 32-bit integer


@router.websocket("/ws/station/{game_id}")
async def station_socket(
    websocket: WebSocket,
    game_id: str,
    fmt: FormatQuery = "html",
    shown: ShownQuery = None,
) -> None:
    """One phone's station, opened with its seat token: `Authorization: Bearer`, `?token=`, or the
    game's seat cookie (`deps.presented_token`)."""

    async def check() -> tuple[uuid.UUID, Any]:
        key = _asked_game(websocket, game_id)
        caller = await identify(websocket, key, "station")
        if not isinstance(caller, Seated):
            await _existing_game(websocket, game_id)
            raise ServiceError("BAD_TOKEN", message("phone_holds_no_seat"), 401)
        return key, caller.seat

    admitted = await _admit(websocket, check)
    if admitted is None:
        return
    key, seat = admitted
    async with seat_watch(websocket).watching(seat.id, websocket):
        await _serve(websocket, key, "station", seat.viewer, fmt, shown)


@router.websocket("/ws/gm/{game_id}")
async def gm_socket(
    websocket: WebSocket,
    game_id: str,
    fmt: FormatQuery = "html",
    shown: ShownQuery = None,
) -> None:
    """The GM's dashboard, opened with the GM token as the station's is with its seat's (the
    GM's cookie for the cookie); any number of GMs may share it."""

    async def check() -> uuid.UUID:
        key = _asked_game(websocket, game_id)
        if not isinstance(await identify(websocket, key, "gm"), Gm):
            await _existing_game(websocket, game_id)
            raise ServiceError("BAD_TOKEN", message("gm_token_wrong"), 401)
        return key

    key = await _admit(websocket, check)
    if key is not None:
        await _serve(websocket, key, "gm", "gm", fmt, shown)


@router.websocket("/ws/display/{game_id}")
async def display_socket(
    websocket: WebSocket,
    game_id: str,
    fmt: FormatQuery = "html",
    shown: ShownQuery = None,
    watch: bool = False,
) -> None:
    """The projector: public, it shows nothing secret. With ?watch=1 a spectator's screen, not
    counted as the room's projector."""
    key = await _admit(websocket, lambda: _existing_game(websocket, game_id))
    if key is not None:
        await _serve(websocket, key, "display", "display", fmt, shown, counted=not watch)


@router.websocket("/ws/events/{game_id}")
async def events_socket(
    websocket: WebSocket,
    game_id: str,
    after: Annotated[int | None, Query(ge=0, le=MAX_VERSION)] = None,
) -> None:
    """Public events as JSON, one message each, e.g. for a prop that flashes when the hull is hit:
    first {"type": "hello", "version": v}, then {"type": "event", "version", "seq", "event"}.
    With ?after=N the events after version N come right after the hello."""
    key = await _admit(websocket, lambda: _existing_game(websocket, game_id))
    if key is None:
        return
    await get_hub(websocket).serve(
        websocket, key, "events", "display", "json", events_after_version=after
    )


async def _admit(websocket: WebSocket, check: Callable[[], Awaitable[T]]) -> T | None:
    """Accept, then run the socket's checks. A refusal closes with 1008 (htmx does not retry);
    a database that is down closes with 1013, which clients retry after a moment."""
    await websocket.accept()
    try:
        return await check()
    except ServiceError as error:
        await _refuse(websocket, error)
    except (DBAPIError, OSError):
        await websocket.close(CLOSE_TRY_AGAIN, "DATABASE_UNAVAILABLE: try again in a moment")
    return None


async def _serve(
    websocket: WebSocket,
    game_id: uuid.UUID,
    audience: Audience,
    viewer: Viewer,
    fmt: str,
    shown: str | None,
    counted: bool = True,
) -> None:
    chosen: Format = "html" if fmt == "html" else "json"
    await get_hub(websocket).serve(
        websocket, game_id, audience, viewer, chosen, shown=shown, counted=counted
    )


def _asked_game(websocket: WebSocket, game_id: str) -> uuid.UUID:
    """The game this socket asks for, once we know the page asking is ours (every socket's first
    step, so a cross-site page learns nothing, not even whether the game exists)."""
    _check_origin(websocket)
    return game_key(game_id)


async def _existing_game(websocket: WebSocket, game_id: str) -> uuid.UUID:
    """The game this socket asks for, if it exists (NO_SUCH_GAME). A socket that opens with a
    token asks this only when the token opens nothing: the token's look-up finds the game too."""
    key = _asked_game(websocket, game_id)
    await game_info(get_session_factory(websocket), key)
    return key


def _check_origin(websocket: WebSocket) -> None:
    origin = websocket.headers.get("origin")
    if origin is None:
        return  # not a browser: it proves itself with its token alone
    public = websocket.app.state.settings.public_base_url
    if not same_origin(origin, websocket.headers, public):
        raise ServiceError("CROSS_SITE", message("cross_site"), 403)


async def _refuse(websocket: WebSocket, error: ServiceError) -> None:
    # The reason travels in the close frame, which allows at most 123 bytes.
    reason = f"{error.code}: {say(error.message)}".encode()[:120].decode(errors="ignore")
    await websocket.close(CLOSE_POLICY, reason)


# --- Freed seats lose their sockets ---------------------------------------------------------------


def seat_watch(websocket: WebSocket) -> SeatWatch:
    watch: SeatWatch = websocket.app.state.seat_watch
    return watch


class SeatWatch:
    """This process's station sockets by seat, and a task that closes those whose seat was freed
    and tells other processes which phones are connected here.

    It looks as soon as the hub's LISTEN connection hears that seats of a game ended, in any
    process (a GM freeing a seat closes the phone at once: the page reloads and shows the join
    screen), and every few seconds (in case a notice was missed). One query covers every watched
    seat, at most ten times a second. The same task stamps the seats it holds sockets for (when
    one first connects, then every PRESENCE_SECONDS) and clears a seat's stamp when its last
    socket here closes, so that the GM's seat list, answered by any process, shows who is
    online (app/service/seats.py).
    """

    MIN_GAP = 0.1  # seconds between two looks, however fast commands come

    def __init__(
        self,
        session_factory: SessionFactory,
        poll_seconds: float = 2.0,
        presence_seconds: float = PRESENCE_SECONDS,
    ) -> None:
        self._session_factory = session_factory
        self._poll_seconds = poll_seconds
        self._presence_seconds = presence_seconds
        self._sockets: dict[uuid.UUID, set[WebSocket]] = {}
        self._unstamped: set[uuid.UUID] = set()  # seats whose first socket here is not stamped
        self._left: set[uuid.UUID] = set()  # seats whose last socket here closed: to clear
        self._stamped_at = 0.0  # loop time of the last stamp of every seat here
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Task[None]] = set()  # held, or the loop may drop them

    async def start(self) -> None:
        self._task = asyncio.create_task(self._watch_forever(), name="seat-watch")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def connected(self) -> set[uuid.UUID]:
        """The seats with a station socket open in this process."""
        return set(self._sockets)

    @contextlib.asynccontextmanager
    async def watching(self, seat_id: uuid.UUID, websocket: WebSocket) -> AsyncIterator[None]:
        if seat_id not in self._sockets:
            self._unstamped.add(seat_id)
            self._wake.set()
        self._sockets.setdefault(seat_id, set()).add(websocket)
        try:
            yield
        finally:
            sockets = self._sockets.get(seat_id, set())
            sockets.discard(websocket)
            if not sockets:
                self._sockets.pop(seat_id, None)
                self._unstamped.discard(seat_id)
                self._left.add(seat_id)
                self._wake.set()

    def notice(self, game_id: uuid.UUID) -> None:
        """Seats of a game were ended (the hub's listener heard it): look again soon."""
        if self._sockets:
            self._wake.set()

    async def _watch_forever(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._poll_seconds)
            self._wake.clear()
            if not self._sockets and not self._left:
                continue
            await asyncio.sleep(self.MIN_GAP)  # commits in a burst: one look for all of them
            try:
                await self._stamp()
            except Exception:  # the database away: the next round tries again
                log.warning("could not record which phones are connected", exc_info=True)
            if not self._sockets:
                continue
            try:
                revoked = await revoked_among(self._session_factory, list(self._sockets))
            except Exception:  # the database away: the next round tries again
                log.warning("could not check for freed seats", exc_info=True)
                continue
            for seat_id in revoked:
                for websocket in self._sockets.pop(seat_id, set()):
                    closing = asyncio.create_task(_close_freed(websocket))
                    self._closing.add(closing)
                    closing.add_done_callback(self._closing.discard)

    async def _stamp(self) -> None:
        """Clear the seats that left (unless back meanwhile), stamp those here when due."""
        self._left -= self._sockets.keys()
        left = set(self._left)
        await mark_gone(self._session_factory, left)
        self._left -= left
        loop = asyncio.get_running_loop()
        due = loop.time() - self._stamped_at >= self._presence_seconds
        if self._sockets and (due or self._unstamped):
            here = set(self._sockets)
            await mark_seen(self._session_factory, here)
            self._unstamped -= here
            self._stamped_at = loop.time()


async def _close_freed(websocket: WebSocket) -> None:
    with contextlib.suppress(Exception):  # already gone: nothing to close
        await websocket.close(CLOSE_POLICY, "SEAT_FREED: this seat was freed; join again.")
