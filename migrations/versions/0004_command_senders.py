"""Command ids are kept per sender: applied_commands' key is (game_id, sender, command_id).

The key was (game_id, command_id), shared by everyone in a game. The server's own ids are
predictable (the sweeper's `deadline:<kind>:<at>:<version>`, `unseat:<seat>:<version>`), so a seat
that sent any command under one first made the server's command a "reused id" for good: a turn
timer that never fired, a seat the GM could not free. Now each sender ("system", "gm",
"seat:<seat id>") has ids of its own. Every stored command already names its actor
(`result -> 'actor'`), which is where the sender comes from.

Undone, ids used by more than one sender of a game must be told apart again: the server's (the
code before this looks its own up by id), else the earliest, keeps its id, and each other one is
prefixed with its sender.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PK = "pk_applied_commands"


def upgrade() -> None:
    op.add_column("applied_commands", sa.Column("sender", sa.Text(), nullable=True))
    op.execute(
        "UPDATE applied_commands SET sender = CASE result -> 'actor' ->> 'role'"
        " WHEN 'seat' THEN 'seat:' || (result -> 'actor' ->> 'seat')"
        " WHEN 'gm' THEN 'gm' ELSE 'system' END"
    )
    op.alter_column("applied_commands", "sender", nullable=False)
    op.drop_constraint(PK, "applied_commands", type_="primary")
    op.create_primary_key(PK, "applied_commands", ["game_id", "sender", "command_id"])


def downgrade() -> None:
    op.execute(
        "UPDATE applied_commands a SET command_id = a.sender || ':' || a.command_id"
        " FROM (SELECT game_id, sender, command_id, row_number() OVER ("
        "   PARTITION BY game_id, command_id"
        "   ORDER BY sender = 'system' DESC, version) AS rank"
        "  FROM applied_commands) ranked"
        " WHERE ranked.rank > 1 AND (a.game_id, a.sender, a.command_id)"
        "  = (ranked.game_id, ranked.sender, ranked.command_id)"
    )
    op.drop_constraint(PK, "applied_commands", type_="primary")
    op.create_primary_key(PK, "applied_commands", ["game_id", "command_id"])
    op.drop_column("applied_commands", "sender")
