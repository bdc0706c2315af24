"""Moving a whole game between servers: its state, event log, seats and remembered commands.

The file is JSON. Seat and GM tokens travel only as their hashes, so the players' phones (and the
GM's link) keep working against the server the game is imported into. It carries the game's seed,
the dice generator's secret start (G-TURN-3): it is for the GM's eyes only.

Format 2 holds the seed as that start (app/rules/rng.py); format 1, written before the generator
was keyed, as the number a splitmix64 generator started from. Both are read.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import AppliedCommand, Event, Game, Seat, stored_state
from app.rules import Actor, rng
from app.service.commands import sender_of
from app.service.games import JOIN_ALPHABET

FORMAT = "bridgecrew-game"
FORMAT_VERSION = 2
READS = (1, FORMAT_VERSION)


class BackupError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def _row(obj: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    out = {}
    for column in obj.__table__.columns:
        if column.key in skip:
            continue
        value = getattr(obj, column.key)
        if isinstance(value, uuid.UUID):
            value = str(value)
        elif isinstance(value, datetime):
            value = value.isoformat()
        out[column.key] = value
    return out


async def export_game(
    session_factory: async_sessionmaker[AsyncSession], game_ref: str
) -> dict[str, Any]:
    """Everything needed to play a game on elsewhere; `game_ref` is its id or join code."""
    async with session_factory() as session:
        game = await _find(session, game_ref)
        events = (
            await session.scalars(
                select(Event).where(Event.game_id == game.id).order_by(Event.version, Event.seq)
            )
        ).all()
        seats = (
            await session.scalars(
                select(Seat).where(Seat.game_id == game.id).order_by(Seat.created_at)
            )
        ).all()
        commands = (
            await session.scalars(
                select(AppliedCommand)
                .where(AppliedCommand.game_id == game.id)
                .order_by(AppliedCommand.version)
            )
        ).all()
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            # The whole state, catalogue included, as every format has carried it.
            "game": {**_row(game, skip=("cards",)), "state": game.whole_state},
            "events": [_row(e, skip=("id", "game_id")) for e in events],
            "seats": [_row(s, skip=("game_id",)) for s in seats],
            "applied_commands": [_row(c, skip=("game_id",)) for c in commands],
        }


async def _find(session: AsyncSession, game_ref: str) -> Game:
    try:
        query = select(Game).where(Game.id == uuid.UUID(game_ref))
    except ValueError:
        query = select(Game).where(Game.join_code == game_ref.upper())
    game = await session.scalar(query)
    if game is None:
        raise BackupError("NO_SUCH_GAME", f"There is no game {game_ref!r} on this server.")
    return game


def _seed(data: dict[str, Any]) -> dict[str, Any]:
    """The game's generator start: format 1 has a splitmix64 seed, a number."""
    seed = data["game"]["seed"]
    try:
        if data["format_version"] == 1 and type(seed) is int and 0 <= seed < 2**64:
            return rng.legacy(seed)
        if data["format_version"] > 1 and isinstance(seed, dict):
            return rng.start(seed)
    except (KeyError, TypeError, ValueError):
        pass
    raise BackupError(
        "NOT_A_BACKUP", "The export's seed is not a dice generator this server knows."
    )


def _parse_time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _check(data: Any) -> None:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BackupError("NOT_A_BACKUP", "This file is not a Bridge Crew game export.")
    if data.get("format_version") not in READS:
        raise BackupError(
            "UNSUPPORTED_BACKUP",
            f"This export has format version "
            f"{data.get('format_version')!r}; this server reads {' and '.join(map(str, READS))}.",
        )
    for key in ("game", "events", "seats", "applied_commands"):
        if key not in data:
            raise BackupError("NOT_A_BACKUP", f"The export has no {key!r} section.")


async def import_game(
    session_factory: async_sessionmaker[AsyncSession], data: dict[str, Any]
) -> tuple[str, str]:
    """Insert an exported game in one transaction; returns (game_id, join_code).

    The game keeps its id (a second import is refused); a join code already used here is
    replaced by a fresh one.
    """
    _check(data)
    g = data["game"]
    seed = _seed(data)
    game_id = uuid.UUID(g["id"])
    async with session_factory() as session, session.begin():
        if await session.get(Game, game_id) is not None:
            raise BackupError("GAME_EXISTS", "That game is already on this server.")
        join_code = g["join_code"]
        while await session.scalar(select(Game.id).where(Game.join_code == join_code)):
            join_code = "".join(secrets.choice(JOIN_ALPHABET) for _ in range(6))
        state, cards = stored_state(g["state"])
        session.add(
            Game(
                id=game_id,
                join_code=join_code,
                scenario=g["scenario"],
                seed=seed,
                version=g["version"],
                state=state,
                cards=cards,
                gm_token_hash=g["gm_token_hash"],
                deadline_at=_parse_time(g.get("deadline_at")),
                deadline_kind=g.get("deadline_kind"),
                deadline_version=g.get("deadline_version"),
                created_at=_parse_time(g["created_at"]),
            )
        )
        await session.flush()
        for e in data["events"]:
            session.add(
                Event(
                    game_id=game_id,
                    version=e["version"],
                    seq=e["seq"],
                    type=e["type"],
                    data=e["data"],
                    created_at=_parse_time(e["created_at"]),
                )
            )
        for s in data["seats"]:
            session.add(
                Seat(
                    id=uuid.UUID(s["id"]),
                    game_id=game_id,
                    token_hash=s["token_hash"],
                    ship=s["ship"],
                    station=s["station"],
                    name=s["name"],
                    character=s.get("character"),
                    last_seen_at=_parse_time(s.get("last_seen_at")),
                    revoked_at=_parse_time(s.get("revoked_at")),
                    created_at=_parse_time(s["created_at"]),
                )
            )
        for c in data["applied_commands"]:
            session.add(
                AppliedCommand(
                    game_id=game_id,
                    # Exports made before commands were kept per sender name it by the actor.
                    sender=c.get("sender") or sender_of(Actor(**c["result"]["actor"])),
                    command_id=c["command_id"],
                    version=c["version"],
                    result=c["result"],
                    created_at=_parse_time(c["created_at"]),
                )
            )
    return str(game_id), join_code
