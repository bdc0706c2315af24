"""Each game's newest committed state that this process wrote or read, so that a game written or
pushed again is not read back from the database.

A copy holds the `state` column as written (JSON with sorted keys, everything but the card
catalogue) and the catalogue decoded, shared by every game with the same one: the engine never
changes the catalogue (app/rules/engine.py, SHARED), and it is over half of a state, so a command
neither decodes nor encodes it.

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
import hashlib
import threading
import uuid
from datetime import datetime
from typing import Any

import orjson

from app.db.models import CARDS, stored_state

State = dict[str, Any]
Stamp = tuple[int, datetime]  # a game row's (version, updated_at)
MAX_GAMES = 256  # a 20-40 KB state each: 10 MB at most, far more games than one evening runs
MAX_CATALOGUES = 8  # one per content version in play, in practice one


@dataclasses.dataclass(frozen=True)
class Row:
    """A game's row as this process knows it: its stamp, the `state` column as written (`rest`),
    the catalogue (None when the state has none), the deadline columns (deadline_at, _kind,
    _version) and whether the row keeps the catalogue in a column of its own."""

    stamp: Stamp
    rest: bytes
    cards: State | None
    deadline: tuple[datetime | None, str | None, int | None]
    has_cards: bool

    def state(self) -> State:
        return decode(self.rest, self.cards)


def encode(state: State) -> bytes:
    """The state as JSON, keys sorted: decoding it gives the canonical state."""
    return orjson.dumps(state, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def decode(rest: bytes, cards: State | None) -> State:
    """The canonical state, the caller's own to change but for its catalogue, which is shared and
    read only (as the engine treats it)."""
    state: State = orjson.loads(rest)
    if cards is None:
        return state
    state[CARDS] = cards
    return dict(sorted(state.items()))  # where the catalogue's key sorts: as `canonical` gives


_catalogues: dict[bytes, State] = {}


def catalogue(raw: bytes | str) -> State:
    """A catalogue from its JSON, decoded (keys sorted) once for every game that has the same."""
    data = raw.encode() if isinstance(raw, str) else raw
    key = hashlib.blake2b(data, digest_size=16).digest()
    found = _catalogues.get(key)
    if found is None:
        if len(_catalogues) >= MAX_CATALOGUES:  # content edited again and again: start afresh
            _catalogues.clear()
        found = _catalogues.setdefault(key, orjson.loads(encode(orjson.loads(data))))
    return found


def split(state: State) -> tuple[bytes, State | None]:
    """A whole state as a copy keeps it: the rest encoded, the catalogue shared."""
    rest, cards = stored_state(state)
    return encode(rest), None if cards is None else catalogue(encode(cards))


_entries: collections.OrderedDict[uuid.UUID, Row] = collections.OrderedDict()
_lock = threading.Lock()  # tests drive several event loops, each in its own thread


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
