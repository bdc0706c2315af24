"""A game's state is stored as `json`, uncompressed, not as compressed `jsonb`.

Every command writes the whole state (~28 KB once a resolution's undo snapshot is in it). As
`jsonb`, PostgreSQL parsed it into its binary form and compressed it (pglz) on every write: an
UPDATE of the row took 1.7-2.0 ms on this machine, where `json` (checked, kept as written) stored
out of line without compression (STORAGE EXTERNAL) takes 0.5 ms. Nothing queries inside the
state but the sweeper's `state -> 'deadline'`, which `json` has too. `json` also keeps keys in
the order written: the server writes them sorted, as the engine needs them (commands.canonical).
The card catalogue (`cards`, written once) stays `jsonb`.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("ALTER TABLE games ALTER COLUMN state TYPE json USING state::json")
    op.execute("ALTER TABLE games ALTER COLUMN state SET STORAGE EXTERNAL")


def downgrade() -> None:
    op.execute("ALTER TABLE games ALTER COLUMN state TYPE jsonb USING state::jsonb")
    op.execute("ALTER TABLE games ALTER COLUMN state SET STORAGE EXTENDED")
