"""A game's card catalogue is stored as `json` with its keys sorted, as its state is.

Every command reads the whole state back, the catalogue with it (over half of it). As `jsonb`,
PostgreSQL turned it back into text on every read, and handed its keys in its own order, which
the server had to sort again (the engine's dice depend on the order it iterates dicts in). As
`json` written sorted, it is read as stored, and decodes straight to the canonical catalogue.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import orjson
import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("ALTER TABLE games ALTER COLUMN cards TYPE json USING cards::json")
    op.execute("ALTER TABLE games ALTER COLUMN cards SET STORAGE EXTERNAL")
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, cards::text FROM games WHERE cards IS NOT NULL"))
    for game_id, cards in rows.all():
        written = orjson.dumps(orjson.loads(cards), option=orjson.OPT_SORT_KEYS).decode()
        bind.execute(
            sa.text("UPDATE games SET cards = CAST(:cards AS json) WHERE id = :id"),
            {"cards": written, "id": game_id},
        )


def downgrade() -> None:
    op.execute("ALTER TABLE games ALTER COLUMN cards TYPE jsonb USING cards::jsonb")
    op.execute("ALTER TABLE games ALTER COLUMN cards SET STORAGE EXTENDED")
