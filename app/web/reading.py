"""Reading a game: the view is built in a worker thread, not on the event loop.

A view's cost grows with the game (its ships, their stations and hands), and anyone may read a
game's public view, so one large game read again and again would otherwise hold the loop, and
with it every other game's requests, for as long as each read takes. In a thread the loop keeps
its turn: Python hands the interpreter back and forth every few milliseconds. Rendering a read's
HTML goes to a thread for the same reason (app.web.screen).
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from app.service import Viewer, load_state, view_for
from app.service.commands import SessionFactory


async def read_view(
    session_factory: SessionFactory, game_id: uuid.UUID | str, viewer: Viewer
) -> tuple[int, dict[str, Any]]:
    """(version, view) of the game as `viewer` sees it."""
    version, state = await load_state(session_factory, game_id)
    return version, await asyncio.to_thread(view_for, state, viewer)
