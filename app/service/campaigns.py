"""Campaigns (G-CAMP-*): the one way a campaign is written, and its evenings' start and end.

Every change to a campaign runs as a game's does (app/service/commands.py), in one transaction:
lock the campaign's row, apply the campaign engine (app/rules/campaign), store the command, the
new state and its events in one statement, commit. An evening's start and end change a game and
its campaign together, in the game's transaction (the game's row is locked first, then the
campaign's, always in that order): a game begun from the roster and its evening are committed at
once, and so are an evening's roster written back and its report kept. A server that dies in
between leaves neither half.
"""

from __future__ import annotations

import dataclasses
import secrets
import time
import uuid
from collections.abc import Collection, Iterable
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import or_, select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from app.db.models import Campaign, CampaignEvening, CampaignPhone, Event, Seat
from app.db.session import autocommit
from app.rules import Actor, RulesError, rng
from app.rules import campaign as camp
from app.rules.core.messages import message
from app.rules.core.names import SHIP_NAME_LENGTH, checked_name
from app.rules.core.report import build_report

from .commands import (
    LockedGame,
    SessionFactory,
    canonical,
    check_command_id,
    encode,
    game_key,
    locked,
)
from .errors import ServiceError
from .games import create_game, token_hash

State = dict[str, Any]
CAMPAIGN_NAME_LENGTH = SHIP_NAME_LENGTH


@dataclasses.dataclass(frozen=True)
class CampaignResult:
    version: int
    events: list[dict[str, Any]]


def campaign_key(campaign_id: uuid.UUID | str) -> uuid.UUID:
    """A campaign id from a URL; anything that is not a UUID is a campaign that does not exist."""
    if isinstance(campaign_id, uuid.UUID):
        return campaign_id
    try:
        return uuid.UUID(campaign_id)
    except (ValueError, TypeError, AttributeError):
        raise no_such_campaign() from None


def no_such_campaign() -> ServiceError:
    return ServiceError("NO_SUCH_CAMPAIGN", message("no_such_campaign"), 404)


_LOCK = text("SELECT version, state::text AS state FROM campaigns WHERE id = :id FOR UPDATE")
_EARLIER = text(
    "SELECT version, result::text AS result FROM campaign_commands"
    " WHERE campaign_id = :id AND sender = :sender AND command_id = :command_id"
)
_EVENTS = text(
    "SELECT COALESCE(jsonb_agg(data ORDER BY seq), '[]')::text FROM campaign_events"
    " WHERE campaign_id = :id AND version = :version"
)
# As a game's write: the command first (nothing more if its sender used the id before), then the
# state and the events, in one statement.
_WRITE = text(
    "WITH command AS ("
    "  INSERT INTO campaign_commands (campaign_id, sender, command_id, version, result)"
    "  VALUES (:id, :sender, :command_id, :version, CAST(:result AS jsonb))"
    "  ON CONFLICT DO NOTHING RETURNING campaign_id),"
    " campaign AS ("
    "  UPDATE campaigns SET state = CAST(:state AS json), version = :version, updated_at = now()"
    "  FROM command WHERE campaigns.id = command.campaign_id RETURNING campaigns.id),"
    " events AS ("
    "  INSERT INTO campaign_events (campaign_id, version, seq, type, data)"
    "  SELECT campaign.id, :version, e.ord - 1, e.data ->> 'type', e.data"
    "  FROM campaign, jsonb_array_elements(CAST(:events AS jsonb)) WITH ORDINALITY AS e(data, ord))"
    " SELECT campaign.id FROM campaign"
)


def _json(data: Any) -> str:
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()


@dataclasses.dataclass
class LockedCampaign:
    """A campaign locked for this transaction (its row `FOR UPDATE`), at its version."""

    session: AsyncSession
    db: AsyncConnection
    campaign_id: uuid.UUID
    version: int
    state: State

    @classmethod
    async def lock(cls, session: AsyncSession, campaign_id: uuid.UUID) -> LockedCampaign:
        db = await session.connection()
        row = (await db.execute(_LOCK, {"id": campaign_id})).one_or_none()
        if row is None:
            raise no_such_campaign()
        return cls(session, db, campaign_id, row.version, orjson.loads(row.state))

    async def apply(
        self, data: dict[str, Any], actor: Actor, command_id: str, now: float | None = None
    ) -> CampaignResult:
        """Apply and store one command; a retry of one stored (its sender's id) gets the answer
        the first one got, and a refusal raises ServiceError with nothing written."""
        check_command_id(command_id)
        now = time.time() if now is None else now
        try:
            command = camp.parse_campaign_command(data, actor, now)
            state, events = camp.apply(self.state, command)
        except RulesError as error:
            earlier = await self.earlier(actor, command_id)
            if earlier is not None:
                return earlier
            raise ServiceError.from_rules(error) from error
        state = canonical(state)
        version = self.version + 1
        written = await self.db.execute(
            _WRITE,
            {
                "id": self.campaign_id,
                "sender": _sender(actor),
                "command_id": command_id,
                "version": version,
                "result": _json(
                    {
                        "command": camp.command_data(command),
                        "actor": dataclasses.asdict(actor),
                        "now": now,
                    }
                ),
                "state": encode(state).decode(),
                "events": _json(events),
            },
        )
        if written.first() is None:
            earlier = await self.earlier(actor, command_id)
            if earlier is None:
                raise RuntimeError(f"campaign command id {command_id!r} neither written nor found")
            return earlier
        self.version, self.state = version, state
        return CampaignResult(version, events)

    async def earlier(self, actor: Actor, command_id: str) -> CampaignResult | None:
        """What this sender's command of this id got, if it was stored."""
        parameters = {"id": self.campaign_id, "sender": _sender(actor), "command_id": command_id}
        earlier = (await self.db.execute(_EARLIER, parameters)).one_or_none()
        if earlier is None:
            return None
        events = await self.db.scalar(_EVENTS, {"id": self.campaign_id, "version": earlier.version})
        return CampaignResult(earlier.version, orjson.loads(events or "[]"))


def _sender(actor: Actor) -> str:
    return f"player:{actor.seat}" if actor.role == "seat" else actor.role


# --- A campaign of its own ------------------------------------------------------------------------


def _new_row(name: str) -> tuple[Campaign, str]:
    name = _checked(name)
    start = rng.keyed(secrets.token_bytes(rng.KEY_BYTES))  # G-CAMP-8: its own keyed dice
    gm_token = secrets.token_urlsafe(32)
    row = Campaign(
        id=uuid.uuid4(),
        name=name,
        seed=start,
        version=0,
        state=canonical(camp.new_campaign(name, start)),
        gm_token_hash=token_hash(gm_token),
    )
    return row, gm_token


def _checked(name: str) -> str:
    try:
        return checked_name(name, CAMPAIGN_NAME_LENGTH)
    except RulesError as error:
        raise ServiceError.from_rules(error) from error


async def create_campaign(session_factory: SessionFactory, name: str) -> tuple[uuid.UUID, str]:
    """A new campaign with an empty roster: (campaign id, its GM token, shown once)."""
    row, gm_token = _new_row(name)
    async with session_factory() as session, session.begin():
        session.add(row)
    return row.id, gm_token


async def run_campaign_command(
    session_factory: SessionFactory,
    campaign_id: uuid.UUID | str,
    data: dict[str, Any],
    actor: Actor,
    command_id: str,
    now: float | None = None,
) -> CampaignResult:
    """One campaign command in a transaction of its own (Downtime, placing points, undo)."""
    key = campaign_key(campaign_id)
    async with session_factory() as session, session.begin():
        campaign = await LockedCampaign.lock(session, key)
        return await campaign.apply(data, actor, command_id, now)


async def is_campaign_gm(
    session_factory: SessionFactory, campaign_id: uuid.UUID | str, token: str | None
) -> bool:
    if not token:
        return False
    try:
        key = campaign_key(campaign_id)
    except ServiceError:
        return False
    async with autocommit(session_factory) as session:
        found = await session.scalar(
            select(Campaign.id).where(
                Campaign.id == key, Campaign.gm_token_hash == token_hash(token)
            )
        )
    return found is not None


async def campaign_of_game(session: AsyncSession, game_id: uuid.UUID) -> CampaignEvening | None:
    """The campaign evening a game is, if any."""
    found: CampaignEvening | None = await session.scalar(
        select(CampaignEvening).where(CampaignEvening.game_id == game_id)
    )
    return found


async def claimed(session: AsyncSession, campaign_id: uuid.UUID) -> set[str]:
    """The characters the campaign knows some phone for."""
    found = await session.scalars(
        select(CampaignPhone.character).where(
            CampaignPhone.campaign_id == campaign_id,
            or_(CampaignPhone.kind == "played", CampaignPhone.approved.is_(True)),
        )
    )
    return set(found)


async def check_claim(
    session: AsyncSession, game_id: uuid.UUID, character: str, known: Collection[str]
) -> None:
    """In a campaign's evening, a character some phone plays is taken only by a phone known for
    them (`known`, from `known_characters`), in the seat's own transaction."""
    evening = await campaign_of_game(session, game_id)
    if evening is None or evening.ended_at is not None or character in known:
        return
    if character in await claimed(session, evening.campaign_id):
        raise ServiceError("CHARACTER_CLAIMED", message("character_claimed"), 409)


# --- Evenings (G-CAMP-1) --------------------------------------------------------------------------


async def begin_evening(
    session_factory: SessionFactory,
    campaign_id: uuid.UUID | str,
    scenario_id: str,
    modules: Iterable[str] = (),
    *,
    modules_off: Iterable[str] = (),
    language: str | None = None,
) -> tuple[uuid.UUID, str, str]:
    """A game of `scenario_id` begun from the roster, and the campaign's evening it is, in the
    game's first transaction: (game id, join code, GM token). Its projector speaks `language`
    (the GM's) from the start, as any new game's does."""
    key = campaign_key(campaign_id)

    async def from_roster(game: LockedGame) -> None:
        campaign = await LockedCampaign.lock(game.session, key)
        slots = camp.roster.slots(campaign.state, game.state)
        command = {
            "type": "BeginEvening",
            "game": str(game.game_id),
            "scenario": game.state["scenario"]["name"],
            "ships": slots,
        }
        await campaign.apply(command, Actor.system(), f"begin:{game.game_id}")
        take = camp.roster.take_roster(campaign.state, game.state, slots)
        await game.apply(take, Actor.gm(), "campaign:roster")
        number = campaign.state["evening"]["number"]
        game.session.add(CampaignEvening(campaign_id=key, number=number, game_id=game.game_id))

    # The game holds the classes of the roster's ships, custom ones too, for them to come aboard.
    async with autocommit(session_factory) as session:
        kept = await session.scalar(select(Campaign.state).where(Campaign.id == key))
    if kept is None:
        raise no_such_campaign()
    roster = orjson.loads(kept) if isinstance(kept, str | bytes) else kept
    classes = [ship["class"] for ship in camp.state.live_ships(roster)]
    return await create_game(
        session_factory,
        scenario_id,
        None,
        modules,
        modules_off=modules_off,
        inside=from_roster,
        classes=classes,
        language=language,
    )


async def end_evening(
    session_factory: SessionFactory,
    game_id: uuid.UUID | str,
    command_id: str,
    now: float | None = None,
) -> uuid.UUID:
    """G-CAMP-1: the evening's game writes the roster back, in one transaction with the
    evening's report and the phones that played; returns the campaign's id. A retry with the
    same command id finds it done."""
    key = game_key(game_id)
    async with locked(session_factory, key) as game:
        evening = await game.session.scalar(
            select(CampaignEvening).where(CampaignEvening.game_id == key).with_for_update()
        )
        if evening is None:
            raise ServiceError("NOT_A_CAMPAIGN_GAME", message("not_a_campaign_game"), 404)
        campaign = await LockedCampaign.lock(game.session, evening.campaign_id)
        await write_back(game, campaign, evening, command_id, now)
    return campaign.campaign_id


async def write_back(
    game: LockedGame,
    campaign: LockedCampaign,
    evening: CampaignEvening,
    command_id: str,
    now: float | None = None,
) -> None:
    """The roster, the report and the phones, written in the caller's transaction."""
    if evening.ended_at is not None:
        if await campaign.earlier(Actor.system(), command_id) is None:  # a retry finds it done
            raise ServiceError(
                "EVENING_ENDED", message("evening_already_written", number=evening.number), 409
            )
        return
    if game.state["phase"] != "downtime":
        raise ServiceError("WRONG_PHASE", message("evening_needs_downtime"), 409)
    events = list(
        await game.session.scalars(
            select(Event.data)
            .where(Event.game_id == game.game_id, Event.version <= game.version)
            .order_by(Event.version, Event.seq)
        )
    )
    report = build_report(game.state, events)
    data = camp.roster.evening_from_game(campaign.state, game.state, events, report)
    await campaign.apply(data, Actor.system(), command_id, now)
    evening.report = report
    evening.ended_at = datetime.now(UTC)
    await game.session.flush()
    # The phones that played each character, by their seats' token hashes (kept, never shown):
    # a phone's joins derive their tokens from its key, so it is known again next evening.
    seats = await game.session.execute(
        select(Seat.character, Seat.token_hash, Seat.ship, Seat.station).where(
            Seat.game_id == game.game_id, Seat.character.is_not(None)
        )
    )
    rows = [
        {
            "campaign_id": campaign.campaign_id,
            "character": character,
            "kind": "played",
            "phone_hash": hashed,
            "game_id": game.game_id,
            "seat": f"{ship}/{station}",
        }
        for character, hashed, ship, station in seats
    ]
    if rows:
        await game.session.execute(insert(CampaignPhone).values(rows).on_conflict_do_nothing())


async def campaign_from_game(
    session_factory: SessionFactory,
    game_id: uuid.UUID | str,
    name: str,
    command_id: str,
    now: float | None = None,
) -> tuple[uuid.UUID, str]:
    """A finished evening becomes a campaign's first: the campaign made, the game its evening 1,
    the roster written from it, in one transaction. (campaign id, its GM token)."""
    key = game_key(game_id)
    row, gm_token = _new_row(name)
    async with locked(session_factory, key) as game:
        if await campaign_of_game(game.session, key) is not None:
            raise ServiceError("ALREADY_A_CAMPAIGN", message("already_a_campaign"), 409)
        if game.state["phase"] != "downtime":
            raise ServiceError("WRONG_PHASE", message("evening_needs_downtime"), 409)
        game.session.add(row)
        await game.session.flush()
        campaign = await LockedCampaign.lock(game.session, row.id)
        begin = {
            "type": "BeginEvening",
            "game": str(key),
            "scenario": game.state["scenario"]["name"],
        }
        await campaign.apply(begin, Actor.system(), f"begin:{key}", now)
        evening = CampaignEvening(campaign_id=row.id, number=1, game_id=key)
        game.session.add(evening)
        await game.session.flush()
        await write_back(game, campaign, evening, command_id, now)
    return row.id, gm_token


async def carry_to_next_battle(game: LockedGame, before: State, command_id: str) -> None:
    """E-EVENING-1 in a campaign's running evening: the campaign's ships stay aboard as the
    table moves on (G-CAMP-1), by a stored TakeRoster in the move's own transaction."""
    evening = await campaign_of_game(game.session, game.game_id)
    if evening is None or evening.ended_at is not None:
        return
    carried = camp.roster.carry_ships(before, game.state)
    if carried is not None:
        await game.apply(carried, Actor.gm(), f"{command_id}:roster")
