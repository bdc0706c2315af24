"""Reading campaigns: the committed state and events, the evenings with their games and kept
reports, the campaigns a server holds. Never show a state as it is: go through the campaign's
views (app/rules/campaign/views.py)."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import orjson
from sqlalchemy import select, text

from app.db.models import Campaign, CampaignEvening
from app.db.session import autocommit
from app.rules.core.messages import message

from .campaigns import campaign_key, campaign_of_game, no_such_campaign
from .commands import SessionFactory, game_key
from .errors import ServiceError

State = dict[str, Any]
_READ = text("SELECT version, state::text AS state, name FROM campaigns WHERE id = :id")


async def load_campaign(
    session_factory: SessionFactory, campaign_id: uuid.UUID | str
) -> tuple[int, State]:
    """The committed (version, state). Never show it as it is: go through the campaign's views."""
    async with autocommit(session_factory) as session:
        row = (await session.execute(_READ, {"id": campaign_key(campaign_id)})).one_or_none()
    if row is None:
        raise no_such_campaign()
    return row.version, orjson.loads(row.state)


async def campaign_version(session_factory: SessionFactory, campaign_id: uuid.UUID | str) -> int:
    """Only the version: what a page left open asks every few seconds."""
    async with autocommit(session_factory) as session:
        version = await session.scalar(
            select(Campaign.version).where(Campaign.id == campaign_key(campaign_id))
        )
    if version is None:
        raise no_such_campaign()
    return int(version)


async def campaign_events(
    session_factory: SessionFactory, campaign_id: uuid.UUID | str
) -> list[dict[str, Any]]:
    async with autocommit(session_factory) as session:
        rows = await session.scalars(
            text("SELECT data FROM campaign_events WHERE campaign_id = :id ORDER BY version, seq"),
            {"id": campaign_key(campaign_id)},
        )
        return list(rows)


@dataclasses.dataclass(frozen=True)
class EveningRow:
    number: int
    game_id: uuid.UUID
    join_code: str | None  # None once the game has expired
    ended: bool
    has_report: bool


async def evenings_of(
    session_factory: SessionFactory, campaign_id: uuid.UUID | str
) -> list[EveningRow]:
    async with autocommit(session_factory) as session:
        rows = await session.execute(
            text(
                "SELECT e.number, e.game_id, g.join_code, e.ended_at IS NOT NULL AS ended,"
                " e.report IS NOT NULL AS has_report FROM campaign_evenings e"
                " LEFT JOIN games g ON g.id = e.game_id WHERE e.campaign_id = :id"
                " ORDER BY e.number"
            ),
            {"id": campaign_key(campaign_id)},
        )
        return [EveningRow(*row) for row in rows]


async def evening_report(
    session_factory: SessionFactory, campaign_id: uuid.UUID | str, number: int
) -> dict[str, Any]:
    """The after-action report kept when an evening was written back."""
    async with autocommit(session_factory) as session:
        report = await session.scalar(
            select(CampaignEvening.report).where(
                CampaignEvening.campaign_id == campaign_key(campaign_id),
                CampaignEvening.number == number,
            )
        )
    if report is None:
        raise ServiceError("NO_SUCH_EVENING", message("no_such_evening", number=number), 404)
    return dict(report)


async def game_campaign(
    session_factory: SessionFactory, game_id: uuid.UUID | str
) -> tuple[uuid.UUID, int, bool] | None:
    """(campaign id, evening number, still running) for a campaign's game, else None."""
    async with autocommit(session_factory) as session:
        evening = await campaign_of_game(session, game_key(game_id))
    if evening is None:
        return None
    return evening.campaign_id, evening.number, evening.ended_at is None


async def campaigns_held(session_factory: SessionFactory) -> list[tuple[uuid.UUID, str]]:
    async with autocommit(session_factory) as session:
        rows = await session.execute(
            select(Campaign.id, Campaign.name).order_by(Campaign.created_at.desc())
        )
        return [(row.id, row.name) for row in rows]
