"""Each game gets a props code of its own (`games.props_code`), its level in the props' MQTT
topics: the join code is on the projector, so topics named by it told the room's every stranger
on the broker which game to listen to and press for. The database draws each game's, those
already there too.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # gen_random_uuid() draws from PostgreSQL's strong random source: 122 random bits in hex. A
    # volatile default is drawn for each row, those already there too.
    default = sa.text("replace((gen_random_uuid())::text, '-'::text, ''::text)")
    op.add_column(
        "games", sa.Column("props_code", sa.Text(), server_default=default, nullable=False)
    )
    op.create_unique_constraint(op.f("uq_games_props_code"), "games", ["props_code"])


def downgrade() -> None:
    op.drop_constraint(op.f("uq_games_props_code"), "games", type_="unique")
    op.drop_column("games", "props_code")
