"""Campaigns (G-CAMP-*): a crew's story over several games.

`campaigns` holds each campaign's state (its roster, evenings and Downtime) as a JSON document
like a game's, with its dice's start and its GM token's hash; `campaign_commands` and
`campaign_events` are its commands (for retries and replay) and its history, as a game's.
`campaign_evenings` ties each evening to its game and keeps the evening's report once written
back (games expire; the story does not); at most one evening of a campaign runs at a time.
`campaign_phones` says which phones the campaign knows for which character.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-30
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _now() -> sa.Column[Any]:
    return sa.Column(
        "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
    )


def upgrade() -> None:
    op.create_table(
        "campaigns",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("seed", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("version", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("state", postgresql.JSON(astext_type=sa.Text()), nullable=False),
        sa.Column("gm_token_hash", sa.Text(), nullable=False),
        _now(),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_campaigns")),
        sa.UniqueConstraint("gm_token_hash", name=op.f("uq_campaigns_gm_token_hash")),
    )
    op.create_table(
        "campaign_events",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("campaign_id", sa.Uuid(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column("data", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        _now(),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_campaign_events_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_campaign_events")),
        sa.UniqueConstraint(
            "campaign_id",
            "version",
            "seq",
            name=op.f("uq_campaign_events_campaign_id_version_seq"),
        ),
    )
    op.create_table(
        "campaign_commands",
        sa.Column("campaign_id", sa.Uuid(), nullable=False),
        sa.Column("sender", sa.Text(), nullable=False),
        sa.Column("command_id", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("result", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        _now(),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_campaign_commands_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "campaign_id", "sender", "command_id", name=op.f("pk_campaign_commands")
        ),
    )
    op.create_table(
        "campaign_evenings",
        sa.Column("campaign_id", sa.Uuid(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Uuid(), nullable=False),
        sa.Column("report", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column(
            "began_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_campaign_evenings_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("campaign_id", "number", name=op.f("pk_campaign_evenings")),
        sa.UniqueConstraint("game_id", name=op.f("uq_campaign_evenings_game_id")),
    )
    op.create_index(
        "uq_campaign_evenings_campaign_id_running",
        "campaign_evenings",
        ["campaign_id"],
        unique=True,
        postgresql_where=sa.text("ended_at IS NULL"),
    )
    op.create_table(
        "campaign_phones",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("campaign_id", sa.Uuid(), nullable=False),
        sa.Column("character", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("phone_hash", sa.Text(), nullable=False),
        sa.Column("game_id", sa.Uuid(), nullable=True),
        sa.Column("seat", sa.Text(), nullable=True),
        sa.Column("name", sa.Text(), nullable=True),
        sa.Column("approved", sa.Boolean(), nullable=True),
        _now(),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_campaign_phones_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_campaign_phones")),
        sa.UniqueConstraint(
            "campaign_id",
            "kind",
            "phone_hash",
            "character",
            name=op.f("uq_campaign_phones_campaign_id_kind_phone_hash_character"),
        ),
    )
    op.create_index(
        op.f("ix_campaign_phones_campaign_id"), "campaign_phones", ["campaign_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_campaign_phones_campaign_id"), table_name="campaign_phones")
    op.drop_table("campaign_phones")
    op.drop_index("uq_campaign_evenings_campaign_id_running", table_name="campaign_evenings")
    op.drop_table("campaign_evenings")
    op.drop_table("campaign_commands")
    op.drop_table("campaign_events")
    op.drop_table("campaigns")
