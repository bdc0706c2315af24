"""Each game's own content has a key: a fresh random value whenever the game takes content (its
creation, a move to another battle, an import). A process keeps a game's words (the translations
of its own copy of the library's items) under the game and this key, and asks for the key, a
few bytes, rather than read the content on every push. Null for games made before: their
content is the one they began with, under that null.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("content_key", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("games", "content_key")
