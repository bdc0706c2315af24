"""Each game's newest committed state that this process wrote or read, as JSON with sorted keys,
so that a game locked or pushed again is not read back from the database and decoded there.

An entry is only a copy: the game's row stays the truth. Readers read the row's (version,
updated_at) and take the state from here only when the pair is the entry's. The pair names one
committed state for good: a version is committed once, and updated_at is the start of the
transaction that wrote it, which also tells apart a game deleted and imported again from an older
export (its versions come again, with other states). Only what was committed is kept: the writer
adds its state after COMMIT, the reader what it read outside any transaction.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
import uuid
from datetime import datetime
from typing import Any

import orjson

State = dict[str, Any]
Stamp = tuple[int, datetime]  # a game row's (version, updated_at)
MAX_GAMES = 256  # a 64 KB state each: 16 MB at most, far more games than one evening runs


@dataclasses.dataclass(frozen=True)
class Row:
    """A game's row as this process knows it: its stamp, canonical state (encoded), the deadline
    columns (deadline_at, _kind, _version) and whether it keeps the card catalogue."""

    stamp: Stamp
    encoded: bytes
    deadline: tuple[datetime | None, str | None, int | None]
    has_cards: bool


_entries: collections.OrderedDict[uuid.UUID, Row] = collections.OrderedDict()
_lock = threading.Lock()  # tests drive several event loops, each in its own thread


def encode(state: State) -> bytes:
    """The state as JSON, keys sorted: decoding it gives the canonical state."""
    return orjson.dumps(state, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def recall(game_id: uuid.UUID) -> Row | None:
    with _lock:
        return _entries.get(game_id)


def remember(game_id: uuid.UUID, row: Row) -> None:
    """Keep a committed state, unless a newer one of the game is kept already."""
    with _lock:
        kept = _entries.get(game_id)
        if kept is not None and kept.stamp[0] > row.stamp[0]:
            return
        _entries[game_id] = row
        _entries.move_to_end(game_id)
        while len(_entries) > MAX_GAMES:
            _entries.popitem(last=False)
