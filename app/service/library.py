"""The content library: ship classes, decks, characters and scenarios a GM writes in
the browser, stored in PostgreSQL with every version they have had.

An item's data has the shape of a file of `scenarios/` (a dict as TOML reads it), and is checked
as the loader checks a file (app/content.py, app/rules/content/), then with the whole catalogue
(the shipped content and the rest of the library) so that references, ids and card ids hold
together. Only a whole, valid item is saved: every save and restore takes one lock, checks the
library as it will be, and writes a new version, or refuses with every problem it found.

A game copies what its scenario uses as it begins (`games.content`, see `create_game`), and what
the next scenario uses when the table moves on (app/service/evening.py), so editing never changes
a game in play. The library as a whole, parsed into a catalogue with its words, is kept by each
process until an item is saved (`library`).
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from app.content import FOLDERS, builtin_files, catalogue_with, load_catalogue, parse_item
from app.db.models import ContentItem, ContentVersion
from app.db.session import autocommit
from app.i18n_content import Words, words_of
from app.rules import new_game
from app.rules.content import (
    Catalogue,
    ContentError,
    Scenario,
    ScenarioSettings,
    ShipPlacement,
)
from app.rules.core import rng
from app.rules.core.messages import message
from app.rules.core.names import name_problem

from .commands import SessionFactory
from .errors import ServiceError
from .kept import Kept

Data = dict[str, Any]
Content = dict[str, dict[str, Data]]  # {kind: {id: data}}, as `games.content` holds it
KINDS = tuple(FOLDERS)

# Caps, beyond what the content checks themselves bound (40 zones, 8 ships, 60 boxes
# a track, 20 copies of a card): every game carries the whole library, so it stays small.
ITEMS_MAX = 100  # of each kind
ITEM_BYTES_MAX = 64 * 1024  # an item's data as JSON
CARDS_MAX = 100  # cards of one deck or one character's Skill deck, copies counted
NAME_MAX = 60  # characters of any name
TEXT_MAX = 500  # characters of any other text (a description, an effect, a blurb)
CHANGES_LISTED = 20  # fields a version's "what changed" names before it says "and N more"
# One transaction at a time changes the library: each checks the library as the next will see it.
_LIBRARY_LOCK = 330_033


class ContentProblems(ServiceError):
    """An item that cannot be saved, with every problem found: each a ContentError naming the
    file (or item) and the field."""

    def __init__(self, problems: list[ContentError]) -> None:
        problems = [one for problem in problems for one in problem.every]
        first = problems[0]
        super().__init__(
            "BAD_CONTENT",
            message("content_problem", file=first.file, field=first.field, problem=first.message),
        )
        self.problems = problems


@dataclasses.dataclass(frozen=True)
class ItemInfo:
    kind: str
    id: str
    name: str
    version: int  # 0 for a built-in
    description: str = ""


@dataclasses.dataclass(frozen=True)
class VersionInfo:
    version: int
    author: str
    saved_at: datetime
    changes: list[str]


# --- Checks ---------------------------------------------------------------------------------------


def text_problems(data: Any, source: str, where: str = "") -> Iterator[ContentError]:
    """Every string of the item against the text rules: names one line of visible text (the
    name rule of app/rules/core/names.py: no control or invisible format characters), other text
    without control characters but tabs and line breaks, each within its length cap."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            at = f"{where}.{key}" if where else str(key)
            if len(str(key)) > NAME_MAX:
                yield ContentError(
                    source, at[: NAME_MAX + 3], message("content_key_too_long", most=NAME_MAX)
                )
            elif key == "name" and isinstance(value, str):
                yield from _name_problems(value, source, at)
            else:
                yield from text_problems(value, source, at)
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from text_problems(value, source, f"{where}[{index}]")
    elif isinstance(data, str):
        if len(data) > TEXT_MAX:
            too_long = message("content_text_too_long", length=len(data), most=TEXT_MAX)
            yield ContentError(source, where, too_long)
        for char in data:
            if unicodedata.category(char) in ("Cc", "Cs") and char not in "\t\n\r":
                control = message("content_control_character", char=_code(char))
                yield ContentError(source, where, control)
                break


def _name_problems(name: str, source: str, at: str) -> Iterator[ContentError]:
    """The one name rule, the join form's and the engine's, for a name in the library."""
    problem = name_problem(name, NAME_MAX)
    if problem is not None:
        yield ContentError(source, at, problem)


def _code(char: str) -> str:
    return f"U+{ord(char):04X}"


def _size_problems(kind: str, item: Any, source: str) -> Iterator[ContentError]:
    cards = {"deck": "cards", "character": "skill_cards"}.get(kind)
    if cards and len(getattr(item, cards)) > CARDS_MAX:
        count = len(getattr(item, cards))
        yield ContentError(
            source, cards, message("content_too_many_cards", count=count, most=CARDS_MAX)
        )


def check_item(kind: str, data: Data, source: str) -> Any:
    """The item parsed, or ContentProblems with every problem its own data shows (the text
    rules and caps all at once; the loader's checks stop at their first)."""
    if kind not in FOLDERS:
        raise ServiceError("BAD_CONTENT", message("content_kind_unknown", kind=kind))
    size = len(json.dumps(data, default=str).encode())
    if size > ITEM_BYTES_MAX:
        too_big = message("content_item_too_big", size=size // 1024, most=ITEM_BYTES_MAX // 1024)
        raise ContentProblems([ContentError(source, "(whole)", too_big)])
    problems = list(text_problems(data, source))
    try:
        item = parse_item(kind, data, source)
    except ContentError as error:
        raise ContentProblems([*problems, error]) from None
    problems += _size_problems(kind, item, source)
    if problems:
        raise ContentProblems(problems)
    return item


def check_library(
    library: Mapping[str, Mapping[str, Data]],
    sources: Mapping[tuple[str, str], str] | None = None,
) -> None:
    """The shipped content and the library together: every reference known, ids and card ids
    unique, every station's deck deep enough to fill its hand. Raises ContentProblems."""
    for kind, items in library.items():
        if len(items) > ITEMS_MAX:
            too_many = message("content_library_full", count=len(items), most=ITEMS_MAX)
            raise ContentProblems([ContentError(kind, "(library)", too_many)])
    try:
        catalogue = catalogue_with(library, sources)
    except ContentError as error:
        raise ContentProblems([error]) from None
    # G-CARD-2: a full hand is as many cards as the station's boxes; a deck thinner than that
    # leaves a healthy station short of cards. Only the library's ships are held to it.
    thin = []
    for ship_id in library.get("ship", {}):
        ship = catalogue.ships[ship_id]
        for index, station in enumerate(ship.stations):
            deck = catalogue.decks[station.deck]
            if len(deck.cards) < station.track.boxes:
                short = message(
                    "content_deck_too_thin",
                    deck=deck.name,
                    count=len(deck.cards),
                    hand=station.track.boxes,
                )
                thin.append(ContentError(ship.source, f"stations[{index}].deck", short))
    if thin:
        raise ContentProblems(thin)


# --- Reading --------------------------------------------------------------------------------------


def _current_versions() -> Any:
    """Each item's current version: its kind, id, data and number."""
    return select(
        ContentVersion.kind, ContentVersion.item_id, ContentVersion.data, ContentItem.version
    ).join(
        ContentItem,
        (ContentItem.kind == ContentVersion.kind)
        & (ContentItem.item_id == ContentVersion.item_id)
        & (ContentItem.version == ContentVersion.version),
    )


async def current_library(session: AsyncSession) -> dict[str, dict[str, Data]]:
    """Every item's current data, {kind: {id: data}}, kinds without items left out."""
    rows = await session.execute(
        _current_versions().order_by(ContentVersion.kind, ContentVersion.item_id)
    )
    found: dict[str, dict[str, Data]] = {}
    for kind, item_id, data, _ in rows:
        found.setdefault(kind, {})[item_id] = data
    return found


@dataclasses.dataclass(frozen=True)
class Library:
    """The library at one moment: its items (read only), the catalogue they make with the
    shipped content, and their translations. `problem` says why the library does not fit the
    shipped content (then `catalogue` is the shipped content alone)."""

    key: tuple[Any, ...]  # what it is kept under: changes with every save (`_LIBRARY_KEY`)
    items: Content
    catalogue: Catalogue
    words: Words
    problem: ContentError | None = None

    def used_by(self, scenario: Scenario, classes_too: Iterable[str] = ()) -> Content | None:
        """What a game of `scenario` copies from the library: the scenario if it is the
        library's, the ship classes it places or its cues bring in (and `classes_too`: a
        campaign's ships that come aboard), their decks, and every character (players pick
        theirs as they join: a scenario names none). None when that is nothing: the shipped
        content is every game's already."""
        classes = {placement.ship_class for placement in scenario.ships}
        classes |= {c for c in classes_too if c in self.catalogue.ships}
        classes |= {
            str(action["ship_class"])
            for cue in scenario.sections.get("cues", ())
            for action in cue.actions
            if action["type"] == "AddShip"
        }
        decks = {
            station.deck
            for ship_class in classes
            for station in self.catalogue.ships[ship_class].stations
        }
        wanted = {
            "scenario": {scenario.id},
            "ship": classes,
            "deck": decks,
            "character": set(self.items.get("character", {})),
        }
        used = {
            kind: {i: self.items[kind][i] for i in sorted(ids) if i in self.items.get(kind, {})}
            for kind, ids in wanted.items()
        }
        return {kind: found for kind, found in used.items() if found} or None


# Each save adds a version to an item or a new item: their count, the sum of their versions and
# the newest item's birth change with every save (and with items deleted and made again).
_LIBRARY_KEY = select(
    func.count(), func.coalesce(func.sum(ContentItem.version), 0), func.max(ContentItem.created_at)
)
_kept: Kept[tuple[Any, ...], Library] = Kept(1)


async def library(session_factory: SessionFactory) -> Library:
    """The library as it is now: built once (off the event loop: a large library takes seconds
    to parse) and kept until an item is saved, in this process or any other."""
    async with autocommit(session_factory) as session:
        key = tuple((await session.execute(_LIBRARY_KEY)).one())

    async def build() -> Library:
        # Read after the key: what is kept is at least as new as its key says.
        async with autocommit(session_factory) as session:
            items = await current_library(session)
        return await asyncio.to_thread(library_of, key, items)

    return await _kept.get(key, build)


def library_of(key: tuple[Any, ...], items: Content) -> Library:
    """The library of these items: parsed and checked with the shipped content, its words."""
    try:
        catalogue, problem = catalogue_with(items), None
    except ContentError as error:  # a release whose shipped content the library no longer fits
        catalogue, problem = load_catalogue(), error
    return Library(key, items, catalogue, words_of(items), problem)


async def library_content(session_factory: SessionFactory) -> Content:
    """Every item's current data (read only)."""
    return (await library(session_factory)).items


async def game_catalogue(session_factory: SessionFactory) -> Catalogue:
    """What a new game can be made of now: the shipped content and the library."""
    found = await library(session_factory)
    if found.problem is not None:
        raise found.problem
    return found.catalogue


def _described(kind: str, item_id: str, data: Mapping[str, Any], version: int) -> ItemInfo:
    return ItemInfo(
        kind,
        item_id,
        str(data.get("name", item_id)),
        version,
        str(data.get("description", data.get("blurb", ""))),
    )


async def items(session_factory: SessionFactory) -> dict[str, list[ItemInfo]]:
    """{kind: built-in items, then the library's}, each by name."""
    async with autocommit(session_factory) as session:
        rows = await session.execute(_current_versions())
        custom = [_described(kind, item_id, data, version) for kind, item_id, data, version in rows]
    shipped = builtin_files()
    found: dict[str, list[ItemInfo]] = {}
    for kind in KINDS:
        builtin = [_described(kind, i, data, 0) for i, (data, _) in shipped[kind].items()]
        own = [info for info in custom if info.kind == kind]
        found[kind] = sorted(builtin, key=lambda i: i.name) + sorted(own, key=lambda i: i.name)
    return found


async def item_data(
    session_factory: SessionFactory, kind: str, item_id: str, version: int | None = None
) -> tuple[Data, int]:
    """(data, version) of a library item (its current version unless one is asked for), or of
    a built-in (version 0). NO_SUCH_CONTENT when there is none."""
    shipped = builtin_files().get(kind, {})
    if item_id in shipped and not version:
        return shipped[item_id][0], 0
    async with autocommit(session_factory) as session:
        wanted = version or await session.scalar(
            select(ContentItem.version).where(
                ContentItem.kind == kind, ContentItem.item_id == item_id
            )
        )
        data = await session.scalar(
            select(ContentVersion.data).where(
                ContentVersion.kind == kind,
                ContentVersion.item_id == item_id,
                ContentVersion.version == (wanted or 0),
            )
        )
    if data is None:
        raise ServiceError(
            "NO_SUCH_CONTENT", message("no_such_content", kind=kind, id=item_id), 404
        )
    return data, int(wanted or 0)


async def history(session_factory: SessionFactory, kind: str, item_id: str) -> list[VersionInfo]:
    """Every version of a library item, newest first."""
    async with autocommit(session_factory) as session:
        rows = await session.execute(
            select(
                ContentVersion.version,
                ContentVersion.author,
                ContentVersion.saved_at,
                ContentVersion.changes,
            )
            .where(ContentVersion.kind == kind, ContentVersion.item_id == item_id)
            .order_by(ContentVersion.version.desc())
        )
        return [VersionInfo(*row) for row in rows]


def is_builtin(kind: str, item_id: str) -> bool:
    return item_id in builtin_files().get(kind, {})


# --- Writing --------------------------------------------------------------------------------------


def changed_fields(before: Any, after: Any, where: str = "") -> list[str]:
    """The field paths whose values differ, in the new data's order."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        found: list[str] = []
        for key in [*after, *(k for k in before if k not in after)]:
            at = f"{where}.{key}" if where else str(key)
            found += changed_fields(before.get(key), after.get(key), at)
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [
            path
            for index, (old, new) in enumerate(zip(before, after, strict=True))
            for path in changed_fields(old, new, f"{where}[{index}]")
        ]
    return [] if before == after else [where or "(whole)"]


def _summary(fields: list[str]) -> list[str]:
    if len(fields) <= CHANGES_LISTED:
        return fields
    return [*fields[:CHANGES_LISTED], f"+{len(fields) - CHANGES_LISTED}"]


@dataclasses.dataclass(frozen=True)
class Change:
    """One item to save: its kind, its data, the version it replaces (0: a new item), and
    what errors call it (an imported file's name)."""

    kind: str
    data: Data
    expected_version: int | None  # None: whichever is current (an import)
    source: str = ""

    @property
    def id(self) -> str:
        return str(self.data.get("id", ""))

    @property
    def named(self) -> str:
        return self.source or f"{self.kind} {self.id or '(new)'}"


async def save_item(
    session_factory: SessionFactory,
    kind: str,
    data: Data,
    author: str,
    *,
    expected_version: int,
    source: str | None = None,
) -> int:
    """Save `data` as the next version of its item (a new item when `expected_version` is 0);
    the new version's number. STALE_CONTENT when someone saved the item since
    `expected_version`; ContentProblems when it does not check."""
    change = Change(kind, data, expected_version, source or "")
    return (await save_items(session_factory, [change], author))[0]


async def save_items(
    session_factory: SessionFactory, changes: list[Change], author: str
) -> list[int]:
    """Every change checked alone, then all of them with the whole library, in one
    transaction: all are saved, or none. Each item's new version (unchanged data keeps its)."""
    problems: list[ContentError] = []
    for change in changes:
        try:
            check_item(change.kind, change.data, change.named)
        except ContentProblems as refused:
            problems += refused.problems
        if is_builtin(change.kind, change.id):
            taken = message("content_builtin_id", id=change.id)
            problems.append(ContentError(change.named, "id", taken))
    if problems:
        raise ContentProblems(problems)
    async with session_factory() as session, session.begin():
        await session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LIBRARY_LOCK})
        library = await current_library(session)
        rows = []
        for change in changes:
            row = await session.get(ContentItem, (change.kind, change.id), with_for_update=True)
            current = row.version if row else 0
            if change.expected_version is not None and current != change.expected_version:
                raise ServiceError(
                    "STALE_CONTENT",
                    message("content_saved_since", id=change.id, version=current),
                    409,
                )
            rows.append((change, row, library.get(change.kind, {}).get(change.id)))
            library.setdefault(change.kind, {})[change.id] = change.data
        check_library(library, {(c.kind, c.id): c.named for c in changes})
        return [await _write(session, change, row, before, author) for change, row, before in rows]


async def _write(
    session: AsyncSession,
    change: Change,
    row: ContentItem | None,
    before: Data | None,
    author: str,
) -> int:
    changes = changed_fields(before, change.data) if before is not None else ["(new)"]
    if row is not None and not changes:
        return row.version
    if row is None:
        row = ContentItem(kind=change.kind, item_id=change.id, version=0)
        session.add(row)
        await session.flush()
    row.version += 1
    session.add(
        ContentVersion(
            kind=change.kind,
            item_id=change.id,
            version=row.version,
            data=change.data,
            author=author,
            changes=_summary(changes),
        )
    )
    return row.version


async def restore(
    session_factory: SessionFactory, kind: str, item_id: str, version: int, author: str
) -> int:
    """An earlier version saved again as the newest, if it still fits the library as it is."""
    data, _ = await item_data(session_factory, kind, item_id, version)
    _, current = await item_data(session_factory, kind, item_id)
    return await save_item(session_factory, kind, data, author, expected_version=current)


def copy_of(kind: str, data: Data, taken: set[str]) -> Data:
    """A copy of an item to start from: a new id nothing has, the original's translations, and
    for a deck no card prefix of the original's, so its cards get ids of their own."""
    base = str(data.get("id", kind))
    new_id = next(
        candidate
        for n in range(1, ITEMS_MAX + 2)
        if (candidate := f"{base}-copy" if n == 1 else f"{base}-copy-{n}") not in taken
    )
    # The translations come along: they name the same entries (by id, or by the same words).
    copied = copy.deepcopy({key: value for key, value in data.items() if key != "prefix"})
    copied["id"] = new_id
    return copied


# --- Previews -------------------------------------------------------------------------------------


def preview_state(kind: str, data: Data, library: Mapping[str, Mapping[str, Data]]) -> Any:
    """A new game's state showing the item as the screens will: a scenario as itself; a ship
    class as two of its kind, on two sides of the grid. None for decks and characters, whose
    cards need no game. Raises ContentProblems when the item or the library does not check."""
    item = check_item(kind, data, f"{kind} {data.get('id', '(new)')}")
    together = {k: dict(v) for k, v in library.items()}
    together.setdefault(kind, {})[item.id] = data
    try:
        catalogue = catalogue_with(together)
    except ContentError as error:
        raise ContentProblems([error]) from None
    if kind == "scenario":
        scenario = catalogue.scenarios[item.id]
    elif kind == "ship":
        scenario = Scenario(
            "preview",
            item.name,
            "",
            tuple(
                ShipPlacement(side, item.name, item.id, "npc", side, x, 4, item.shields.boxes > 0)
                for side, x in (("players", 2), ("raiders", 8))
            ),
            frozenset(),
            ScenarioSettings(),
            "preview",
        )
    else:
        return None
    return new_game(scenario, catalogue, seed=rng.chosen(1))
