"""The deadline sweeper: expires turn and allocation timers when they pass, in every process.

Each due deadline becomes an `ExpireDeadline` command with an id made from the deadline itself, so
however many processes sweep at once, and however late a restarted server finds it, it is applied
exactly once (the game lock serialises them; the stored command id turns the rest into no-ops).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from datetime import UTC, datetime

from sqlalchemy import select

from app.db.models import Game
from app.rules import Actor
from app.service import ServiceError, run_command
from app.service.commands import SessionFactory

log = logging.getLogger(__name__)

SWEEP_SECONDS = 0.5
# The engine refuses these when another process got there first or the clocks differ a little.
EXPECTED_REFUSALS = frozenset(
    {"NO_SUCH_DEADLINE", "DEADLINE_NOT_DUE", "WRONG_PHASE", "NO_SUCH_GAME"}
)
_reported: set[str] = set()


def deadline_command_id(kind: str, at: float, set_at_version: int | None) -> str:
    return f"deadline:{kind}:{at:.3f}:{set_at_version}"


async def sweep_once(session_factory: SessionFactory, now: float | None = None) -> int:
    """Expire every deadline due by `now` (the clock the engine sees too); returns how many it
    dealt with (applied here, or found applied by another process)."""
    now = time.time() if now is None else now
    async with session_factory() as session:
        due = (
            await session.execute(
                select(Game.id, Game.deadline_kind, Game.state["deadline"], Game.deadline_version)
                .where(Game.deadline_at <= datetime.fromtimestamp(now, UTC))
                .order_by(Game.deadline_at)
                .limit(100)
            )
        ).all()
    applied = 0
    for game_id, kind, deadline, set_at in due:
        if await _expire(session_factory, game_id, kind, deadline, set_at, now):
            applied += 1
    return applied


async def _expire(
    session_factory: SessionFactory,
    game_id: uuid.UUID,
    kind: str | None,
    deadline: dict[str, float] | None,
    set_at: int | None,
    now: float,
) -> bool:
    if kind is None or not deadline:
        return False  # changed between the two reads; the next sweep sees it as it is now
    # The exact `at` comes from the state: the engine matches it, the timestamp column rounds.
    at = float(deadline["at"])
    command_id = deadline_command_id(kind, at, set_at)
    try:
        await run_command(
            session_factory,
            game_id,
            {"type": "ExpireDeadline", "kind": kind, "at": at},
            Actor.system(),
            command_id=command_id,
            now=now,
        )
    except ServiceError as error:
        if error.code not in EXPECTED_REFUSALS and command_id not in _reported:
            _reported.add(command_id)  # it is retried every sweep: say so once
            log.warning("deadline %s of game %s refused: %s", command_id, game_id, error)
        return False
    return True


class DeadlineSweeper:
    """Runs `sweep_once` every SWEEP_SECONDS until stopped; a database outage only pauses it."""

    def __init__(self, session_factory: SessionFactory, interval: float = SWEEP_SECONDS) -> None:
        self._session_factory = session_factory
        self._interval = interval
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="deadline-sweeper")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        failing = False
        while True:
            try:
                await sweep_once(self._session_factory)
                if failing:
                    log.info("deadline sweeper reaches the database again")
                failing = False
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database may be restarting: keep sweeping
                if not failing:
                    log.warning("deadline sweep failed (%s); retrying", error)
                failing = True
            await asyncio.sleep(self._interval)
