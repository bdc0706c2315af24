"""The content library: ship classes, decks, characters and scenarios written in the
browser's editor, each with every version it has had, and each game's copy of the library as it
stood when the game began.

`content_items` holds one row per item (its kind and id, and its current version);
`content_versions` every version ever saved, never changed afterwards: who saved it, when, what
changed, and the item's data in the shape of a file of `scenarios/`. A restore saves an earlier
version's data again as a new version. `games.content` is the library's data a game began with
(null for a game of built-in content only), so editing never changes a game in play, and a
replay builds the game from what it began with.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "content_items",
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("item_id", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.PrimaryKeyConstraint("kind", "item_id", name=op.f("pk_content_items")),
    )
    op.create_table(
        "content_versions",
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("item_id", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        # `json` keeps the keys in the order written: an export reads like the file it came from.
        sa.Column("data", postgresql.JSON(astext_type=sa.Text()), nullable=False),
        sa.Column("author", sa.Text(), nullable=False),
        sa.Column("changes", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column(
            "saved_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["kind", "item_id"],
            ["content_items.kind", "content_items.item_id"],
            name=op.f("fk_content_versions_kind_content_items"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("kind", "item_id", "version", name=op.f("pk_content_versions")),
    )
    op.add_column(
        "games", sa.Column("content", postgresql.JSONB(astext_type=sa.Text()), nullable=True)
    )


def downgrade() -> None:
    op.drop_column("games", "content")
    op.drop_table("content_versions")
    op.drop_table("content_items")
