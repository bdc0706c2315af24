"""Reading a game: the view is built in a worker thread, not on the event loop.

A view's cost grows with the game (its ships, their stations and hands), and anyone may read a
game's public view, so one large game read again and again would otherwise hold the loop, and
with it every other game's requests, for as long as each read takes. In a thread the loop keeps
its turn: Python hands the interpreter back and forth every few milliseconds. Rendering a read's
HTML goes to the same thread for the same reason (app.web.screen).

One thread, not a pool: every thread that holds work competes with the event loop for the
interpreter, so with one the loop gets at least every other turn however many reads wait, and
the reads queue (holding nothing but their request) instead of crowding the loop out.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import uuid
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from app.i18n_content import speaking_content
from app.service import Viewer, load_state, view_for
from app.service.commands import SessionFactory
from app.service.games import game_words

T = TypeVar("T")
_READS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reads")


async def off_loop(work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`work(*args, **kwargs)` in the reads' thread, in the caller's context variables (as
    asyncio.to_thread does): a render there speaks the request's language (app.i18n)."""
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    call = functools.partial(context.run, work, *args, **kwargs)
    return await loop.run_in_executor(_READS, call)


async def read_view(
    session_factory: SessionFactory, game_id: uuid.UUID | str, viewer: Viewer
) -> tuple[int, dict[str, Any]]:
    """(version, view) of the game as `viewer` sees it."""
    version, state = await load_state(session_factory, game_id)
    return version, await off_loop(view_for, state, viewer)


@contextlib.asynccontextmanager
async def speaking_game(
    session_factory: SessionFactory, game_id: uuid.UUID | str
) -> AsyncIterator[None]:
    """Renders inside (and the reads' thread, called from inside) say the game's content in the
    words of its own copy, never the library's as it is now."""
    with speaking_content(await game_words(session_factory, game_id)):
        yield
