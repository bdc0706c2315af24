"""Each seat keeps the client address it was taken from (`seats.taken_from`).

One address could take every station of a game in a fraction of a second, leaving the players
only the projector's view. Seats are now limited per address and game, counted under the game's
lock from this column, and the GM sees each seat's address and can free every seat one address
holds at once. Seats taken before this have none: they count against no address.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("seats", sa.Column("taken_from", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("seats", "taken_from")
