"""A game's seed is its dice generator's starting state (JSONB), no longer a 64-bit number.

New games get a keyed generator with a secret of 256 bits (G-TURN-3), which a BIGINT cannot
hold. A game already stored keeps its splitmix64 generator: its number becomes the state that
generator started from, `{"state": <16 hex digits>}`, exactly what its game state began with, so
it continues and replays as before (app/rules/rng.py).

Going back is possible only while every game still has the old generator: a keyed game's secret
does not fit the old column, and the old code could not play it anyway.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.alter_column(
        "games",
        "seed",
        type_=postgresql.JSONB(),
        existing_nullable=False,
        # Seeds were made from 0 to 2^63 - 1, so none is negative.
        postgresql_using="jsonb_build_object('state', lpad(to_hex(seed), 16, '0'))",
    )


def downgrade() -> None:
    keyed = op.get_bind().scalar(sa.text("SELECT count(*) FROM games WHERE seed ? 'key'"))
    if keyed:
        raise RuntimeError(
            f"{keyed} game(s) have a keyed dice generator, which the older schema cannot hold: "
            "export them (bridgecrew export) and delete them before going back."
        )
    op.alter_column(
        "games",
        "seed",
        type_=sa.BigInteger(),
        existing_nullable=False,
        postgresql_using="('x' || (seed ->> 'state'))::bit(64)::bigint",
    )
