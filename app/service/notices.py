"""What a commit tells every process on the notification channel, and how it is read back.

The short form, `<game id>:<version>`, only says that a version was committed: a process that
wants it reads the state from the row. A command written in one statement says more, so that a
process holding the version before it can apply the same command to its own copy instead (the
engine is deterministic) and read nothing back:

    <game id>:<version>:<origin>:<base stamp>:<stamp>:<digest>:<record>

- origin: the writing process (`ORIGIN`), which skips its own echoes;
- base stamp, stamp: the row's write stamps (`updated_at`, in microseconds since the epoch)
  before and after, so that a copy is followed only from the very row the writer wrote over;
- digest: of the new state (all but its card catalogue) and deadline columns, so that a follower
  keeps its result only if it is what the writer wrote;
- record: the command as `applied_commands.result` stores it (its fields, actor and clock).

The record holds a command's fields (a played hand, a GM's message), never a state, and goes
only to the server's own processes. PostgreSQL refuses a payload of 8000 bytes or more, so a
command whose record would not fit sends the short form. So does a process that has heard that
no other process listens (`others_listen`, which the live hub keeps up to date): nobody would
follow, and the digest is not worth working out.
"""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
import uuid
from datetime import UTC, datetime, timedelta

from .hot import Deadline

ORIGIN = secrets.token_hex(4)  # this process, in the notices it sends
LIMIT = 7900  # bytes of payload, under PostgreSQL's 8000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_others_listen = True  # until the hub has counted: the long form is always correct


def others_listen() -> bool:
    """Whether another server process may follow this one's commands."""
    return _others_listen


def set_others_listen(value: bool) -> None:
    global _others_listen
    _others_listen = value


@dataclasses.dataclass(frozen=True)
class Notice:
    game_id: uuid.UUID
    version: int
    origin: str = ""
    base_stamp: datetime | None = None
    stamp: datetime | None = None
    digest: str = ""
    record: str = ""  # empty in the short form

    def followable(self) -> bool:
        """Whether it carries a command another process could apply to its own copy."""
        known = self.base_stamp is not None and self.stamp is not None
        return bool(self.record) and known and self.origin != ORIGIN


def short(game_id: uuid.UUID, version: int) -> str:
    return f"{game_id}:{version}"


def full(
    game_id: uuid.UUID,
    version: int,
    base_stamp: datetime | None,
    stamp: datetime,
    digest: str,
    record: str,
) -> str:
    """The notice of a command written in one statement: the long form when it fits."""
    text = ":".join(
        (short(game_id, version), ORIGIN, _micros(base_stamp), _micros(stamp), digest, record)
    )
    return text if len(text.encode()) < LIMIT else short(game_id, version)


def parse(payload: str) -> Notice:
    """A notice read back (ValueError when it is not one)."""
    parts = payload.split(":", 6)
    if len(parts) not in (2, 7):
        raise ValueError(f"not a notice: {payload[:80]!r}")
    game_id, version = uuid.UUID(parts[0]), int(parts[1])
    if len(parts) == 2:
        return Notice(game_id, version)
    origin, base_stamp, stamp, digest, record = parts[2:]
    if origin == ORIGIN:  # this process's own echo: nothing in it to follow
        return Notice(game_id, version, origin)
    return Notice(game_id, version, origin, _stamp(base_stamp), _stamp(stamp), digest, record)


def digest(rest: bytes, deadline: Deadline) -> str:
    """Names a state (its canonical JSON but the catalogue) with its deadline columns."""
    return hashlib.blake2b(rest + repr(deadline).encode(), digest_size=12).hexdigest()


def _micros(stamp: datetime | None) -> str:
    return "" if stamp is None else str((stamp - _EPOCH) // _MICROSECOND)


def _stamp(text: str) -> datetime | None:
    return None if not text else _EPOCH + timedelta(microseconds=int(text))
