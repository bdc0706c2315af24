"""Each game's newest committed state, kept in this process as canonical JSON bytes.

PostgreSQL stays the truth: every command still writes the state, its events and itself in one
transaction. What this saves is reading the state back, and most of a command's round trips. When
this process committed, read or followed (`follow`: another process's command applied here) a
game's newest version, a command is applied to that copy and written in one statement that
applies only if the row is still at that version (app/service/commands.py); else the command
locks the row without its 50 KB state column and takes the state from here if the versions
match. The version alone is not enough to trust a copy (an imported game may reuse a game id and
its version numbers), so an entry also carries the row's `updated_at`, which every write sets,
and the row's deadline columns, which the write keeps.

Bytes, not dicts: a state is ~50 KB as JSON and ~180 KB as Python objects, and decoding gives
every caller its own copy, so nobody can change what another reads. They are kept compressed
(zlib level 1). They are canonical (keys sorted), which the engine needs: it iterates dicts, and
the same commands must draw the same dice whichever way the state reached it.

The card catalogue is kept apart. `state["cards"]` is over half of a state's JSON, is built once
when the game is created and is never changed (the engine shares it between versions: SHARED in
app/rules/engine.py). So each distinct catalogue is interned once per process, as one dict and
its canonical JSON, and every state using it holds that same dict. A command then encodes,
compresses and decodes only the rest of the state, and writes only the rest: the row keeps the
catalogue in a column of its own, written when the game is made.
"""

from __future__ import annotations

import threading
import uuid
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from app.db.models import CARDS, stored_state

_CANONICAL = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS
State = dict[str, Any]


def encode(data: Any) -> bytes:
    """Canonical JSON: keys sorted, non-string keys as strings (as json.dumps would)."""
    return orjson.dumps(data, option=_CANONICAL)


def decode(blob: bytes | str) -> Any:
    return orjson.loads(blob)


def canonical(data: Any) -> Any:
    """The same data with every dict's keys in sorted order (a fresh copy)."""
    return orjson.loads(orjson.dumps(data, option=_CANONICAL))


# --- Card catalogues -----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CardSet:
    """One interned card catalogue: the dict every state using it shares (never to be changed),
    and its canonical JSON."""

    cards: dict[str, Any]
    blob: bytes


class CardSets:
    """The distinct card catalogues this process has seen. A game's catalogue comes from its
    scenario and the content files, so a server holds a handful; the registry is bounded all the
    same (imports may bring their own), and entries already made keep their sets alive."""

    def __init__(self, limit: int = 64) -> None:
        self._limit = limit
        self._by_blob: dict[bytes, CardSet] = {}
        self._by_id: dict[int, CardSet] = {}  # id(set.cards) -> set: the engine hands it back
        self._lock = threading.Lock()

    def intern(self, cards: dict[str, Any]) -> CardSet:
        """The set for this catalogue: found by identity when `cards` is an interned dict (every
        command's case), else by content, else made (a canonical copy of `cards`)."""
        with self._lock:
            found = self._by_id.get(id(cards))
            if found is not None and found.cards is cards:
                return found
        blob = encode(cards)
        with self._lock:
            found = self._by_blob.get(blob)
            if found is None:
                if len(self._by_blob) >= self._limit:
                    self._by_blob.clear()
                    self._by_id.clear()
                found = CardSet(decode(blob), blob)
                self._by_blob[blob] = found
                self._by_id[id(found.cards)] = found
            return found

    def __len__(self) -> int:
        with self._lock:
            return len(self._by_blob)


CARD_SETS = CardSets()


@dataclass(frozen=True, eq=False)
class Packed:
    """A state ready to store: the canonical JSON of all but its cards, and its card set (None
    for a state without cards)."""

    rest: bytes
    cards: CardSet | None

    def column(self) -> str:
        """The `state` column's JSON text: all but the catalogue, which has a column of its own
        written once per game (app/db/models.py)."""
        return self.rest.decode()

    def state(self) -> State:
        return unpack(self.rest, self.cards)


def pack(state: State, card_sets: CardSets = CARD_SETS) -> Packed:
    rest, cards = stored_state(state)  # the rest as the `state` column holds it
    return Packed(encode(rest), None if cards is None else card_sets.intern(cards))


def unpack(rest: bytes, cards: CardSet | None) -> State:
    """A fresh canonical state (top-level keys sorted too) sharing the interned catalogue."""
    state: State = decode(rest)
    if cards is None:
        return state
    state[CARDS] = cards.cards
    return dict(sorted(state.items()))


# --- The states ----------------------------------------------------------------------------------


Deadline = tuple[datetime | None, str | None, int | None]  # the row's deadline_at, _kind, _version


@dataclass(frozen=True)
class Entry:
    version: int
    stamp: datetime | None  # the row's updated_at when this version was written
    packed: bytes  # the canonical JSON of all but the cards, compressed
    cards: CardSet | None
    deadline: Deadline | None = None  # the row's deadline columns at this version, if known

    def state(self) -> State:
        return unpack(zlib.decompress(self.packed), self.cards)


class HotStates:
    """A bounded, thread-safe map: game id -> its newest known committed state."""

    def __init__(self, max_bytes: int = 32 * 1024 * 1024) -> None:
        self._max_bytes = max_bytes
        self._bytes = 0
        self._entries: OrderedDict[uuid.UUID, Entry] = OrderedDict()
        self._lock = threading.Lock()

    def remember(
        self,
        game_id: uuid.UUID,
        version: int,
        stamp: datetime | None,
        packed: Packed,
        deadline: Deadline | None = None,
    ) -> None:
        """Call only with a committed version. An older version never replaces a newer one."""
        with self._lock:
            old = self._entries.get(game_id)
            if old is not None and old.version > version:
                return
        entry = Entry(version, stamp, zlib.compress(packed.rest, 1), packed.cards, deadline)
        with self._lock:
            old = self._entries.get(game_id)
            if old is not None:
                if old.version > version:
                    return
                self._bytes -= len(old.packed)
            self._entries[game_id] = entry
            self._entries.move_to_end(game_id)
            self._bytes += len(entry.packed)
            while self._bytes > self._max_bytes and len(self._entries) > 1:
                _, dropped = self._entries.popitem(last=False)
                self._bytes -= len(dropped.packed)

    def recall(self, game_id: uuid.UUID, version: int, stamp: datetime | None) -> State | None:
        """The state at exactly this version and write stamp, if this process has it (a fresh
        copy: the caller may change it, all but its cards)."""
        with self._lock:
            entry = self._entries.get(game_id)
            if entry is None or entry.version != version or entry.stamp != stamp:
                return None
            self._entries.move_to_end(game_id)
        return entry.state()

    def latest(self, game_id: uuid.UUID) -> Entry | None:
        with self._lock:
            return self._entries.get(game_id)

    def forget(self, game_id: uuid.UUID | None = None) -> None:
        with self._lock:
            if game_id is None:
                self._entries.clear()
                self._bytes = 0
            else:
                old = self._entries.pop(game_id, None)
                if old is not None:
                    self._bytes -= len(old.packed)


HOT = HotStates()
