"""What a commit tells every process on the notification channel: `<game id>:<version>:<writer>`,
that this version of this game was committed, by the process whose token `writer` is. A process
that wants it reads the state from the row; a notice never carries a state, nor a command's
fields. A process's own commits reach its hub from the transaction itself
(app/service/commands.py, `on_commit`), so its listener leaves their notices alone.
"""

from __future__ import annotations

import dataclasses
import re
import secrets
import uuid

WRITER = secrets.token_hex(6)  # this process's token
_WRITER_SHAPE = re.compile(r"[0-9a-f]{12}")


@dataclasses.dataclass(frozen=True)
class Notice:
    game_id: uuid.UUID
    version: int
    writer: str


def payload(game_id: uuid.UUID, version: int, writer: str = WRITER) -> str:
    return f"{game_id}:{version}:{writer}"


def parse(text: str) -> Notice:
    """A notice read back (ValueError when it is not one)."""
    game_id, version, writer = text.split(":")
    if not _WRITER_SHAPE.fullmatch(writer):
        raise ValueError(f"not a writer's token: {writer!r}")
    return Notice(uuid.UUID(game_id), int(version), writer)
