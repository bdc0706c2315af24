"""What a commit tells every process on the notification channel: `<game id>:<version>`, that
this version of this game was committed. A process that wants it reads the state from the row;
a notice never carries a state, nor a command's fields.
"""

from __future__ import annotations

import dataclasses
import uuid


@dataclasses.dataclass(frozen=True)
class Notice:
    game_id: uuid.UUID
    version: int


def short(game_id: uuid.UUID, version: int) -> str:
    return f"{game_id}:{version}"


def parse(payload: str) -> Notice:
    """A notice read back (ValueError when it is not one)."""
    game_id, version = payload.split(":")
    return Notice(uuid.UUID(game_id), int(version))
