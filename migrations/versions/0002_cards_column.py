"""The card catalogue in a column of its own, written once per game.

A game's `state["cards"]` (the card catalogue, over half of a state's JSON) is built when the
game is made and never changed by the engine. Kept in `games.state` it was parsed, stored and
logged again by every command; now `games.cards` holds it and `games.state` the rest. The whole
state is `state` with `cards` put back (app/db/models.py, whole_state).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("cards", postgresql.JSONB(), nullable=True))
    op.execute(
        "UPDATE games SET cards = state -> 'cards', state = state - 'cards' WHERE state ? 'cards'"
    )


def downgrade() -> None:
    op.execute(
        "UPDATE games SET state = state || jsonb_build_object('cards', cards)"
        " WHERE cards IS NOT NULL"
    )
    op.drop_column("games", "cards")
