"""The deadline sweeper: expires turn and allocation timers when they pass, in every process.

Each due deadline becomes an `ExpireDeadline` command with an id made from the deadline itself, so
however many processes sweep at once, and however late a restarted server finds it, it is applied
exactly once (the game lock serialises them; the stored command id turns the rest into no-ops).
Command ids are kept per sender (app/service/commands.py, `sender_of`), so nobody but the server
can use the ones it will use here, however predictable they are.

Each sweep goes through every due deadline, so no number of games ahead of one can keep its timer
from firing; one whose expiry fails is tried again less and less often, so games whose expiry
keeps failing cost little, whatever the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, tuple_
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from app.db.models import Game
from app.db.session import autocommit
from app.rules import Actor
from app.service import ServiceError, run_command
from app.service.commands import SessionFactory

log = logging.getLogger(__name__)

SWEEP_SECONDS = 0.5
BATCH = 100  # due deadlines read at a time; a sweep reads batch after batch until none is left
RETRY_SECONDS = 30.0  # the longest wait before a failing expiry is tried again
# The engine refuses these when another process got there first or the clocks differ a little.
EXPECTED_REFUSALS = frozenset(
    {"NO_SUCH_DEADLINE", "DEADLINE_NOT_DUE", "WRONG_PHASE", "NO_SUCH_GAME"}
)


@dataclasses.dataclass
class _Failing:
    failures: int
    retry_at: float  # on the sweep's clock (`now`)


# Expiries that failed in this process, by game and deadline: each waits twice as long as the
# last time before it is tried again, up to RETRY_SECONDS. Forgotten once its deadline is no
# longer due (expired by another process, or the game moved on).
_failing: dict[tuple[uuid.UUID, str], _Failing] = {}


def deadline_command_id(kind: str, at: float, set_at_version: int | None) -> str:
    return f"deadline:{kind}:{at:.3f}:{set_at_version}"


async def sweep_once(session_factory: SessionFactory, now: float | None = None) -> int:
    """Expire every deadline due by `now` (the clock the engine sees too); returns how many it
    dealt with (applied here, or found applied by another process)."""
    now = time.time() if now is None else now
    applied = 0
    seen: set[tuple[uuid.UUID, str]] = set()
    async for game_id, kind, deadline, set_at in _due(session_factory, now):
        if kind is None or not deadline:
            continue  # the state has no deadline after all: nothing to expire
        key = (game_id, f"{kind}:{deadline!r}:{set_at}")  # this deadline of this game
        seen.add(key)
        failing = _failing.get(key)
        if failing is not None and failing.retry_at > now:
            continue
        if await _expire(session_factory, key, kind, deadline, set_at, now):
            applied += 1
    for gone in _failing.keys() - seen:
        del _failing[gone]
    return applied


async def _due(
    session_factory: SessionFactory, now: float
) -> AsyncIterator[tuple[uuid.UUID, str | None, Any, int | None]]:
    """Every game whose deadline is due by `now`: (game id, kind, the state's deadline, the
    version that set it), earliest first, read BATCH at a time."""
    due = Game.deadline_at <= datetime.fromtimestamp(now, UTC)
    after: tuple[datetime | None, uuid.UUID] | None = None
    while True:
        query = select(
            Game.deadline_at,
            Game.id,
            Game.deadline_kind,
            Game.state["deadline"],
            Game.deadline_version,
        ).where(due)
        if after is not None:
            query = query.where(tuple_(Game.deadline_at, Game.id) > after)
        async with autocommit(session_factory) as session:
            batch = (
                await session.execute(query.order_by(Game.deadline_at, Game.id).limit(BATCH))
            ).all()
        for _, game_id, kind, deadline, set_at in batch:
            yield game_id, kind, deadline, set_at
        if len(batch) < BATCH:
            return
        after = (batch[-1][0], batch[-1][1])


async def _expire(
    session_factory: SessionFactory,
    key: tuple[uuid.UUID, str],
    kind: str,
    deadline: dict[str, Any],
    set_at: int | None,
    now: float,
) -> bool:
    game_id = key[0]
    try:
        # The exact `at` comes from the state: the engine matches it, the column rounds.
        at = float(deadline["at"])
        await run_command(
            session_factory,
            game_id,
            {"type": "ExpireDeadline", "kind": kind, "at": at},
            Actor.system(),
            command_id=deadline_command_id(kind, at, set_at),
            now=now,
        )
    except ServiceError as error:
        unexpected = error.code not in EXPECTED_REFUSALS
        _failed(key, now, error if unexpected else None)
        return False
    except Exception as error:
        if _database_away(error):
            raise  # every other game would fail too: the sweeper's loop waits and sweeps again
        _failed(key, now, error)
        return False
    _failing.pop(key, None)
    return True


def _failed(key: tuple[uuid.UUID, str], now: float, error: Exception | None) -> None:
    failing = _failing.get(key)
    failures = 1 if failing is None else failing.failures + 1
    wait = min(RETRY_SECONDS, SWEEP_SECONDS * 2 ** (failures - 1))
    _failing[key] = _Failing(failures, now + wait)
    if failures == 1 and error is not None:  # it is tried again and again: say so once
        crash = None if isinstance(error, ServiceError) else error
        log.warning("deadline %s of game %s failed: %s", key[1], key[0], error, exc_info=crash)


def _database_away(error: Exception) -> bool:
    """The database did not answer (as opposed to refusing this one game's command)."""
    if isinstance(error, (OperationalError, InterfaceError, ConnectionError, TimeoutError)):
        return True
    return isinstance(error, DBAPIError) and error.connection_invalidated


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
