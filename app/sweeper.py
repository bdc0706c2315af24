"""The deadline sweeper: expires turn and allocation timers when they pass, in every process;
and, less often, deletes the games nobody plays any more (`expire_games`).

Each due deadline becomes an `ExpireDeadline` command with an id made from the deadline itself, so
however many processes sweep at once, and however late a restarted server finds it, it is applied
exactly once (the game lock serialises them; the stored command id turns the rest into no-ops).
Command ids are kept per sender (app/service/commands.py, `sender_of`), so nobody but the server
can use the ones it will use here, however predictable they are.

Each sweep goes through every due deadline, so no number of games ahead of one can keep its timer
from firing; one whose expiry fails is tried again less and less often, so games whose expiry
keeps failing cost little, whatever the reason.

Anyone can make a game, and each one is kept until deleted, so a stranger at the creation limit
filled the disk by half a gigabyte an hour. A game nobody has changed for a while expires: out of
combat (never started, or back in Downtime) after `finished_game_hours`, any game after
`idle_game_days`; never one with a phone connected (a seat seen within ONLINE_SECONDS). Each is
deleted in a transaction of its own that locks its row and checks again under the lock, skipping a
row some command holds: a command that commits first leaves the game changed, so it is kept; one
that comes after finds no game. With `expired_games_dir` set, the game is exported there first
(a file `bridgecrew import --keep-tokens` brings back), and kept if the file cannot be written.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import time
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import ColumnElement, and_, delete, exists, or_, select, tuple_
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from app.backup import export_of
from app.db.models import CampaignEvening, Game, Seat
from app.db.session import autocommit
from app.rules import Actor
from app.service import ServiceError, run_command
from app.service.commands import SessionFactory, tell_game_gone
from app.service.seats import ONLINE_SECONDS
from app.settings import Settings

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


# --- Games nobody plays any more ---------------------------------------------------------------

EXPIRE_SECONDS = 600.0  # how often each process looks for games to expire
EXPIRE_BATCH = 100


@dataclasses.dataclass(frozen=True)
class Expiry:
    """When a game nobody changes is deleted, and where it is exported first (None: nowhere)."""

    finished_after: timedelta  # out of combat: never started, or back in Downtime
    idle_after: timedelta  # any game
    export_dir: Path | None = None

    @classmethod
    def of(cls, settings: Settings) -> Expiry:
        return cls(
            timedelta(hours=settings.finished_game_hours),
            timedelta(days=settings.idle_game_days),
            settings.expired_games_dir,
        )


def _expired(expiry: Expiry, now: datetime) -> ColumnElement[bool]:
    """Whether a game's row is expired at `now`: unchanged for long enough, no phone on it."""
    out_of_combat = Game.updated_at < now - expiry.finished_after
    connected = exists().where(
        Seat.game_id == Game.id,
        Seat.revoked_at.is_(None),
        Seat.last_seen_at >= now - timedelta(seconds=ONLINE_SECONDS),
    )
    # A campaign's evening not yet written back keeps its game: the roster is still in it.
    campaign_tonight = exists().where(
        CampaignEvening.game_id == Game.id, CampaignEvening.ended_at.is_(None)
    )
    # The cheap test first: only games unchanged for long enough have their phase read.
    in_downtime = Game.state["phase"].as_string() == "downtime"
    stale = or_(Game.updated_at < now - expiry.idle_after, in_downtime)
    return and_(out_of_combat, stale, ~connected, ~campaign_tonight)


async def expire_games(
    session_factory: SessionFactory, expiry: Expiry, now: datetime | None = None
) -> list[uuid.UUID]:
    """Delete every game expired at `now` (the database's clock stamps `updated_at`; the caller's
    decides); returns the ids deleted."""
    now = datetime.now(UTC) if now is None else now
    deleted: list[uuid.UUID] = []
    after = uuid.UUID(int=0)
    while True:
        async with autocommit(session_factory) as session:
            batch = (
                await session.scalars(
                    select(Game.id)
                    .where(_expired(expiry, now), Game.id > after)
                    .order_by(Game.id)
                    .limit(EXPIRE_BATCH)
                )
            ).all()
        for game_id in batch:
            try:
                if await _expire_game(session_factory, game_id, expiry, now):
                    deleted.append(game_id)
            except OSError as error:  # its export could not be written: the game is kept
                log.warning("game %s not expired: its export failed (%s)", game_id, error)
        if len(batch) < EXPIRE_BATCH:
            break
        after = batch[-1]
    return deleted


async def _expire_game(
    session_factory: SessionFactory, game_id: uuid.UUID, expiry: Expiry, now: datetime
) -> bool:
    async with session_factory() as session, session.begin():
        game = await session.scalar(
            select(Game)
            .where(Game.id == game_id, _expired(expiry, now))
            .with_for_update(skip_locked=True)
        )
        if game is None:
            return False  # changed since, or a command holds it: it is being played
        if expiry.export_dir is not None:
            data = await export_of(session, game)
            await asyncio.to_thread(_write_export, expiry.export_dir, game_id, data)
        await session.execute(delete(Game).where(Game.id == game_id))  # its rows go with it
        # Every socket on it closes with a sentence, the GM's and the projector's as the phones'.
        await tell_game_gone(session, game_id)
    log.info("game %s expired%s", game_id, " (exported first)" if expiry.export_dir else "")
    return True


def _write_export(folder: Path, game_id: uuid.UUID, data: dict[str, Any]) -> None:
    """The export, whole or not at all: written aside, then renamed into place."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{game_id}.json"
    part = path.with_name(f".{path.name}.part")
    part.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    os.replace(part, path)


class DeadlineSweeper:
    """Runs `sweep_once` every SWEEP_SECONDS until stopped, and with an `expiry`, `expire_games`
    every `expire_every` seconds (the first at once); a database outage only pauses it."""

    def __init__(
        self,
        session_factory: SessionFactory,
        interval: float = SWEEP_SECONDS,
        *,
        expiry: Expiry | None = None,
        expire_every: float = EXPIRE_SECONDS,
    ) -> None:
        self._session_factory = session_factory
        self._interval = interval
        self._expiry = expiry
        self._expire_every = expire_every
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
        expire_at = time.monotonic()
        while True:
            try:
                await sweep_once(self._session_factory)
                if self._expiry is not None and time.monotonic() >= expire_at:
                    expire_at = time.monotonic() + self._expire_every  # even if this one fails
                    await expire_games(self._session_factory, self._expiry)
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
