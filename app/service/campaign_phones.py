"""Which phone plays which of a campaign's characters (G-CAMP-1: who plays them).

A phone is known for a character when it played them in one of the campaign's games, or when the
GM approved its asking. Played: the campaign keeps the hashes of the seat tokens its characters
were played with (`campaign_phones`, kind `played`), and a phone's joins derive their seat tokens
from its own key and the game (`phone_seat_tokens`), so the phone is recognised by working its
tokens out again, without the game (which may have expired). Asked: the hash of the phone's key
under the server's key, so the campaign keeps nothing a phone could be impersonated with.

A character the campaign knows a phone for is that phone's: another phone sits down with them
only once the GM approves its asking (CHARACTER_CLAIMED); a character nobody has played yet, or
one new to the campaign, anyone may take.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import uuid
from datetime import datetime

from sqlalchemy import and_, or_, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Campaign, CampaignEvening, CampaignPhone, Seat
from app.db.session import autocommit
from app.rules.core.messages import message

from .campaigns import campaign_key, campaign_of_game, claimed
from .commands import SessionFactory, game_key
from .errors import ServiceError
from .games import token_hash
from .seats import phone_seat_tokens


def phone_hash(secret_key: str, phone: str) -> str:
    """What the campaign keeps of a phone that asked: its key's HMAC under the server's key."""
    return hmac.new(
        secret_key.encode(), f"campaign-phone:{phone}".encode(), hashlib.sha256
    ).hexdigest()


async def known_characters(
    session_factory: SessionFactory,
    campaign_id: uuid.UUID | str,
    secret_key: str,
    phone: str | None,
) -> set[str]:
    """The characters of the campaign this phone plays: played in one of its games (this
    evening's too), or asked for and approved."""
    if not phone:
        return set()
    key = campaign_key(campaign_id)
    async with autocommit(session_factory) as session:
        return await _known(session, key, secret_key, phone)


async def _known(session: AsyncSession, key: uuid.UUID, secret_key: str, phone: str) -> set[str]:
    games = list(
        await session.scalars(
            select(CampaignEvening.game_id).where(CampaignEvening.campaign_id == key)
        )
    )
    hashes = [token_hash(t) for g in games for t in phone_seat_tokens(secret_key, g, phone)]
    played = select(CampaignPhone.character).where(
        CampaignPhone.campaign_id == key,
        or_(
            and_(CampaignPhone.kind == "played", CampaignPhone.phone_hash.in_(hashes)),
            and_(
                CampaignPhone.kind == "asked",
                CampaignPhone.phone_hash == phone_hash(secret_key, phone),
                CampaignPhone.approved.is_(True),
            ),
        ),
    )
    tonight = select(Seat.character).where(
        Seat.game_id.in_(games), Seat.token_hash.in_(hashes), Seat.character.is_not(None)
    )
    return {str(c) for c in await session.scalars(played.union(tonight))}


@dataclasses.dataclass(frozen=True)
class JoinInfo:
    """What the join page of a campaign's evening says to this phone."""

    campaign_id: uuid.UUID
    name: str
    yours: set[str]  # characters this phone plays
    claimed: set[str]  # characters other phones play: asking the GM first
    asked: dict[str, bool | None]  # this phone's askings: character -> the GM's answer
    seat: str | None = None  # "ship/station" this phone played at last
    player: str | None = None  # the name its character was last played under


async def join_info(
    session_factory: SessionFactory, game_id: uuid.UUID | str, secret_key: str, phone: str | None
) -> JoinInfo | None:
    """For the join page of a campaign's running evening; None for any other game."""
    async with autocommit(session_factory) as session:
        evening = await campaign_of_game(session, game_key(game_id))
        if evening is None or evening.ended_at is not None:
            return None
        key = evening.campaign_id
        name = await session.scalar(select(Campaign.name).where(Campaign.id == key))
        yours = await _known(session, key, secret_key, phone) if phone else set()
        asked: dict[str, bool | None] = {}
        if phone:
            rows = await session.execute(
                select(CampaignPhone.character, CampaignPhone.approved).where(
                    CampaignPhone.campaign_id == key,
                    CampaignPhone.kind == "asked",
                    CampaignPhone.phone_hash == phone_hash(secret_key, phone),
                )
            )
            asked = {row.character: row.approved for row in rows}
        seat, player = await _last_seat(session, key, secret_key, phone) if phone else (None, None)
        return JoinInfo(
            key, str(name), yours, await claimed(session, key) - yours, asked, seat, player
        )


async def _last_seat(
    session: AsyncSession, key: uuid.UUID, secret_key: str, phone: str
) -> tuple[str | None, str | None]:
    """Where this phone last played in the campaign, and under what name: a returning phone's
    join form comes filled in."""
    games = list(
        await session.scalars(
            select(CampaignEvening.game_id).where(CampaignEvening.campaign_id == key)
        )
    )
    hashes = [token_hash(t) for g in games for t in phone_seat_tokens(secret_key, g, phone)]
    last = (
        await session.execute(
            select(CampaignPhone.seat, CampaignPhone.character)
            .where(
                CampaignPhone.campaign_id == key,
                CampaignPhone.kind == "played",
                CampaignPhone.phone_hash.in_(hashes),
            )
            .order_by(CampaignPhone.id.desc())
            .limit(1)
        )
    ).first()
    if last is None:
        return None, None
    state = await session.scalar(select(Campaign.state).where(Campaign.id == key))
    player = ((state or {}).get("characters", {}).get(last.character) or {}).get("player")
    return last.seat, player


async def ask_for_character(
    session_factory: SessionFactory,
    game_id: uuid.UUID | str,
    character: str,
    secret_key: str,
    phone: str,
    name: str,
) -> None:
    """A phone asks the GM for a character another phone plays; asking again after a refusal
    asks anew."""
    async with session_factory() as session, session.begin():
        evening = await campaign_of_game(session, game_key(game_id))
        if evening is None or evening.ended_at is not None:
            raise ServiceError("NOT_A_CAMPAIGN_GAME", message("not_a_campaign_game"), 404)
        statement = insert(CampaignPhone).values(
            campaign_id=evening.campaign_id,
            character=character,
            kind="asked",
            phone_hash=phone_hash(secret_key, phone),
            game_id=evening.game_id,
            name=name,
            approved=None,
        )
        await session.execute(
            statement.on_conflict_do_update(
                index_elements=["campaign_id", "kind", "phone_hash", "character"],
                set_={"approved": None, "name": statement.excluded.name},
                where=CampaignPhone.approved.is_not(True),
            )
        )


@dataclasses.dataclass(frozen=True)
class Ask:
    id: int
    character: str
    name: str | None
    at: datetime


async def asks_waiting(session_factory: SessionFactory, campaign_id: uuid.UUID | str) -> list[Ask]:
    async with autocommit(session_factory) as session:
        rows = await session.execute(
            select(
                CampaignPhone.id,
                CampaignPhone.character,
                CampaignPhone.name,
                CampaignPhone.created_at,
            )
            .where(
                CampaignPhone.campaign_id == campaign_key(campaign_id),
                CampaignPhone.kind == "asked",
                CampaignPhone.approved.is_(None),
            )
            .order_by(CampaignPhone.created_at)
        )
        return [Ask(*row) for row in rows]


async def answer_ask(
    session_factory: SessionFactory, campaign_id: uuid.UUID | str, ask_id: int, approve: bool
) -> None:
    """The GM's answer to a phone's asking: approved, the phone plays the character."""
    async with session_factory() as session, session.begin():
        done = await session.execute(
            update(CampaignPhone)
            .where(
                CampaignPhone.id == ask_id,
                CampaignPhone.campaign_id == campaign_key(campaign_id),
                CampaignPhone.kind == "asked",
            )
            .values(approved=approve)
            .returning(CampaignPhone.id)
        )
        if done.first() is None:
            raise ServiceError("NO_SUCH_ASK", message("no_such_ask"), 404)
