"""The tables. A game's state is a JSON document (`json`, stored as written with keys sorted: see
migrations 0005 and 0006), its card catalogue another in a column of its own (written once);
events are its append-only history."""

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    MetaData,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSON as PlainJSON
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

JSON = dict[str, Any]


class Base(DeclarativeBase):
    # Stable constraint names, so Alembic can find and drop them in later migrations.
    metadata = MetaData(
        naming_convention={
            "ix": "ix_%(table_name)s_%(column_0_N_name)s",
            "uq": "uq_%(table_name)s_%(column_0_N_name)s",
            "ck": "ck_%(table_name)s_%(constraint_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )
    type_annotation_map = {  # noqa: RUF012 - the name and shape SQLAlchemy expects
        JSON: JSONB,
        datetime: DateTime(timezone=True),
        str: Text,
    }


# A game's props code as the database draws it: 122 random bits from its strong random source, in
# 32 hex digits. Written as PostgreSQL gives it back, so Alembic's comparison sees the same default.
PROPS_CODE = "replace((gen_random_uuid())::text, '-'::text, ''::text)"


def _created_at() -> Mapped[datetime]:
    return mapped_column(server_default=func.now())


class Game(Base):
    __tablename__ = "games"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    join_code: Mapped[str] = mapped_column(unique=True)  # short uppercase code, e.g. "K7QF"
    # The game's level in the props' MQTT topics (docs/props.md), for the GM's eyes alone: the
    # join code is on the projector for the whole room to read. Drawn for every row, however
    # it is written.
    props_code: Mapped[str] = mapped_column(unique=True, server_default=text(PROPS_CODE))
    scenario: Mapped[str]
    # The dice generator as the game began (app/rules/rng.py): replay starts from it. Secret.
    seed: Mapped[JSON]
    # Bumped by every applied command; a client holding an older version is behind.
    version: Mapped[int] = mapped_column(default=0, server_default=text("0"))
    # The whole state but its card catalogue (see whole_state); `json`, which PostgreSQL keeps
    # as written, not `jsonb`, which costs every command's write a parse and a compression.
    state: Mapped[JSON] = mapped_column(PlainJSON)
    # The card catalogue, written once: the engine never changes it. `json` too, keys sorted.
    cards: Mapped[JSON | None] = mapped_column(PlainJSON)
    gm_token_hash: Mapped[str]
    created_at: Mapped[datetime] = _created_at()
    updated_at: Mapped[datetime] = mapped_column(server_default=func.now(), onupdate=func.now())
    # The next clock-driven command (orders or allocation timing out); deadline_version makes a
    # timer that fires after the game moved on a no-op.
    deadline_at: Mapped[datetime | None]
    deadline_kind: Mapped[str | None]
    deadline_version: Mapped[int | None]
    # What the game took from the content library as it began (app/service/library.py, what
    # its scenario uses): {kind: {id: data}}; None when that was nothing. Replays build the game
    # from it, so editing never changes it. Each move to another battle keeps the copy it took
    # with its command (applied_commands.result.content).
    content: Mapped[JSON | None]
    # Fresh whenever the game takes content (made, moved on, imported): what a process keeps
    # the game's words under (app/service/games.py, game_words).
    content_key: Mapped[str | None]

    @property
    def whole_state(self) -> JSON:
        return whole_state(self.state, self.cards)


CARDS = "cards"


def whole_state(state: JSON, cards: JSON | None) -> JSON:
    """A game's state as the engine knows it: the `state` column with `cards` put back."""
    return state if cards is None else {**state, CARDS: cards}


def stored_state(whole: JSON) -> tuple[JSON, JSON | None]:
    """A whole state as the `state` and `cards` columns hold it."""
    cards = whole.get(CARDS)
    if not isinstance(cards, dict):
        return whole, None
    return {k: v for k, v in whole.items() if k != CARDS}, cards


class Event(Base):
    __tablename__ = "events"
    # Clients catch up with "events of this game after version v, in order": this constraint's
    # index serves that and every lookup by game_id, so game_id needs no index of its own.
    __table_args__ = (UniqueConstraint("game_id", "version", "seq"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    game_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    version: Mapped[int]  # the game version this event's command produced
    seq: Mapped[int]  # order within that version
    type: Mapped[str]
    data: Mapped[JSON]
    created_at: Mapped[datetime] = _created_at()


class Seat(Base):
    """A phone's claim on one station of one ship; the phone holds the token, we keep its hash."""

    __tablename__ = "seats"
    __table_args__ = (
        # A revoked seat frees its station for someone else.
        Index(
            "uq_seats_game_id_ship_station_active",
            "game_id",
            "ship",
            "station",
            unique=True,
            postgresql_where=text("revoked_at IS NULL"),
        ),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    game_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), index=True
    )
    token_hash: Mapped[str] = mapped_column(unique=True)
    ship: Mapped[str]
    station: Mapped[str]
    name: Mapped[str]
    character: Mapped[str | None]
    # The client address the seat was taken from (a /64 for IPv6): seats are limited per address
    # and game, and the GM can free every seat one address holds. None for seats from before.
    taken_from: Mapped[str | None]
    created_at: Mapped[datetime] = _created_at()
    last_seen_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]


class AppliedCommand(Base):
    """Remembers each command id once per sender, so a phone that retries a request does not act
    twice. Each sender has ids of its own ("system", "gm", "seat:<seat id>"): nobody can take an
    id that someone else, the server above all, will use."""

    __tablename__ = "applied_commands"

    game_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    sender: Mapped[str] = mapped_column(primary_key=True)
    command_id: Mapped[str] = mapped_column(primary_key=True)
    version: Mapped[int]
    result: Mapped[JSON]
    created_at: Mapped[datetime] = _created_at()


class ContentItem(Base):
    """One item of the content library (a ship class, deck, character or scenario written in the
    editor), by kind and id; `version` is its current one."""

    __tablename__ = "content_items"

    kind: Mapped[str] = mapped_column(primary_key=True)
    item_id: Mapped[str] = mapped_column(primary_key=True)
    version: Mapped[int]
    created_at: Mapped[datetime] = _created_at()


class ContentVersion(Base):
    """Every version an item has had, never changed once saved: its data (the shape of a file
    of `scenarios/`), who saved it, when, and the fields that changed."""

    __tablename__ = "content_versions"
    __table_args__ = (
        ForeignKeyConstraint(
            ["kind", "item_id"],
            ["content_items.kind", "content_items.item_id"],
            ondelete="CASCADE",
        ),
    )

    kind: Mapped[str] = mapped_column(primary_key=True)
    item_id: Mapped[str] = mapped_column(primary_key=True)
    version: Mapped[int] = mapped_column(primary_key=True)
    # `json`, which keeps keys in the order written: an export reads like the file it came from.
    data: Mapped[JSON] = mapped_column(PlainJSON)
    author: Mapped[str]
    changes: Mapped[list[str]] = mapped_column(JSONB)
    saved_at: Mapped[datetime] = mapped_column(server_default=func.now())


# --- Campaigns (G-CAMP-*): a crew's story over several games ------------------------------------


class Campaign(Base):
    """A campaign: its state (the roster, the evenings, the Downtime; the engine's
    app/rules/campaign) as a JSON document like a game's, and its GM's token's hash."""

    __tablename__ = "campaigns"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    name: Mapped[str]
    # The dice generator as the campaign began: replay starts from it. Secret, like a game's.
    seed: Mapped[JSON]
    version: Mapped[int] = mapped_column(default=0, server_default=text("0"))
    state: Mapped[JSON] = mapped_column(PlainJSON)
    gm_token_hash: Mapped[str] = mapped_column(unique=True)
    created_at: Mapped[datetime] = _created_at()
    updated_at: Mapped[datetime] = mapped_column(server_default=func.now(), onupdate=func.now())


class CampaignEvent(Base):
    __tablename__ = "campaign_events"
    __table_args__ = (UniqueConstraint("campaign_id", "version", "seq"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    campaign_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    version: Mapped[int]
    seq: Mapped[int]
    type: Mapped[str]
    data: Mapped[JSON]
    created_at: Mapped[datetime] = _created_at()


class CampaignCommand(Base):
    """Each campaign command once per sender and id, with what replay needs to apply it again."""

    __tablename__ = "campaign_commands"

    campaign_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True
    )
    sender: Mapped[str] = mapped_column(primary_key=True)
    command_id: Mapped[str] = mapped_column(primary_key=True)
    version: Mapped[int]
    result: Mapped[JSON]
    created_at: Mapped[datetime] = _created_at()


class CampaignEvening(Base):
    """An evening of a campaign: the game it is played in, and once written back, its
    after-action report, which outlives the game (games expire)."""

    __tablename__ = "campaign_evenings"
    __table_args__ = (
        # One evening of a campaign runs at a time.
        Index(
            "uq_campaign_evenings_campaign_id_running",
            "campaign_id",
            unique=True,
            postgresql_where=text("ended_at IS NULL"),
        ),
    )

    campaign_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(primary_key=True)
    # No foreign key: the game may expire; a game belongs to one campaign's evening at most.
    game_id: Mapped[uuid.UUID] = mapped_column(unique=True)
    report: Mapped[JSON | None]
    began_at: Mapped[datetime] = _created_at()
    ended_at: Mapped[datetime | None]


class CampaignPhone(Base):
    """A phone the campaign knows for a character. `played`: the hash of a seat token the
    character was played with in one of the campaign's games (a phone's joins derive their
    tokens from its key, so the phone can be recognised without the game); `asked`: a phone
    that asked the GM for a character (the hash of its key), with the GM's answer."""

    __tablename__ = "campaign_phones"
    __table_args__ = (UniqueConstraint("campaign_id", "kind", "phone_hash", "character"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    campaign_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), index=True
    )
    character: Mapped[str]
    kind: Mapped[str]  # "played" | "asked"
    phone_hash: Mapped[str]
    game_id: Mapped[uuid.UUID | None]
    seat: Mapped[
        str | None
    ]  # played: the "ship/station" they played at, which joining offers again
    name: Mapped[str | None]  # who asked, as they typed it
    approved: Mapped[bool | None]  # an ask: None until the GM answers
    created_at: Mapped[datetime] = _created_at()
