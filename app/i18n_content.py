"""Scenario content in other languages (the shipped files', and the organisers' library's, which
keeps the same tables): each TOML file may carry a `[translations.<lang>]` table
beside its English fields, shaped like the file itself:

    [translations.de]
    name = "Steuerdeck"

    [translations.de.cards."Trim Thrusters"]      # a list's entry, by its English name or id
    name = "Feinschub"
    effect = "Ein sanfter Stoß: Manöver oder Ausweichen mit Wert 1."

Only the fields people read can be translated (TRANSLATABLE); a translation of any other field,
of an entry the file does not have, or into a language the server does not offer is refused with
the file and the field. Screens look content up by its English text (`content_words`), so a
translation applies wherever that text shows, and missing ones fall back to the English.

The organisers' library keeps the same tables. A game's screens speak the translations of the
game's own copy of the library's content (`speaking_content`), never the library as it is now;
and no content word ever stands in for one of the interface's own: a card called "Weapons"
cannot rename the Weapons station.
"""

from __future__ import annotations

import contextlib
import functools
import tomllib
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from babel.messages.pofile import read_po

from app.i18n import DOMAINS, LANGUAGES, PSEUDO, SOURCE, catalogue_path, known, pseudo, speaking
from app.rules.content import (
    ContentError,
    parse_character,
    parse_deck,
    parse_scenario,
    parse_ship_class,
)
from app.rules.content.checks import Problems
from app.rules.core.messages import message

SCENARIOS_DIR = Path(__file__).resolve().parent.parent / "scenarios"
MAX_TEXT = 500


class Entries:
    """A list of tables in the file (path from its root), each translated under its `key`.
    A field may be `texts`' rather than the entry's own: the texts it names inside the entry (a
    cue's messages are its `message` actions), translated one for one, a single text as it is
    and several as a list in their order."""

    def __init__(
        self,
        path: tuple[str, ...],
        key: str,
        fields: tuple[str, ...],
        texts: Mapping[str, Callable[[Mapping[str, Any]], list[str]]] | None = None,
    ) -> None:
        self.path, self.key, self.fields = path, key, fields
        self.texts = dict(texts or {})

    def texts_of(self, row: Mapping[str, Any], field: str) -> list[str]:
        """The texts a field of an entry holds (none where the entry does not have it)."""
        if field in self.texts:
            return self.texts[field](row)
        return [str(row[field])] if field in row else []

    def of(self, data: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
        found: Any = data
        for part in self.path:
            found = found.get(part, {}) if isinstance(found, Mapping) else {}
        rows = found if isinstance(found, list) else []
        return {
            str(row[self.key]): row for row in rows if isinstance(row, Mapping) and self.key in row
        }


def _messages(cue: Mapping[str, Any]) -> list[str]:
    actions = cue.get("actions")
    rows = actions if isinstance(actions, list) else []
    return [str(a["message"]) for a in rows if isinstance(a, Mapping) and "message" in a]


# What can be translated, per kind of file: plain fields, and lists of entries.
TRANSLATABLE: dict[str, dict[str, Entries | None]] = {
    "ship class": {"name": None, "weapons": Entries(("weapons",), "id", ("name",))},
    "deck": {"name": None, "cards": Entries(("cards",), "name", ("name", "effect"))},
    "character": {
        "name": None,
        "blurb": None,
        "skill_cards": Entries(("skill_cards",), "name", ("name", "effect")),
    },
    "scenario": {
        "name": None,
        "description": None,
        "ships": Entries(("ships",), "id", ("name",)),
        "zones": Entries(("map", "zones"), "id", ("name",)),
        # The GM's names for them, and the messages they send the crews (module cues).
        "cues": Entries(("cues",), "id", ("name", "message"), {"message": _messages}),
    },
}
KINDS: dict[Callable[..., Any], str] = {
    parse_ship_class: "ship class",
    parse_deck: "deck",
    parse_character: "character",
    parse_scenario: "scenario",
}


def without_translations(data: dict[str, Any], source: str, kind: str) -> dict[str, Any]:
    """The file's content for the engine's parser, its translations checked and taken out.
    Raises ContentError naming the file and the field (ContentErrors: every one)."""
    if "translations" not in data:
        return data
    translations_of(data, source, kind)
    return {key: value for key, value in data.items() if key != "translations"}


def translations_of(data: Mapping[str, Any], source: str, kind: str) -> dict[str, dict[str, str]]:
    """{language: {English text: its translation}} of one file, checked: raises every problem
    found at once."""
    problems = Problems()
    tables = data.get("translations", {})
    if not isinstance(tables, Mapping):
        raise ContentError(source, "translations", message("content_translations_not_table"))
    found: dict[str, dict[str, str]] = {}
    for lang, table in tables.items():
        where = f"translations.{lang}"
        if lang not in LANGUAGES or lang == SOURCE:
            offered = [code for code in LANGUAGES if code != SOURCE]
            unknown = message("content_unknown_language", language=str(lang), known=offered)
            problems.add(ContentError(source, where, unknown))
        elif not isinstance(table, Mapping):
            problems.add(ContentError(source, where, message("content_translations_not_table")))
        else:
            found[lang] = _words(data, table, _Where(source, where, problems), TRANSLATABLE[kind])
    problems.check()
    return found


class _Where:
    """Where a translation table is read, and the problems of its reading."""

    def __init__(self, source: str, at: str, problems: Problems) -> None:
        self.source, self.at, self.problems = source, at, problems

    def report(self, at: str, said: dict[str, Any]) -> None:
        self.problems.add(ContentError(self.source, at, said))


def _words(
    data: Mapping[str, Any],
    table: Mapping[str, Any],
    where: _Where,
    allowed: Mapping[str, Entries | None],
) -> dict[str, str]:
    words: dict[str, str] = {}
    for field, value in table.items():
        at = f"{where.at}.{field}"
        if field not in allowed:
            where.report(at, message("content_not_translatable", known=list(allowed)))
            continue
        entries = allowed[field]
        if entries is None:
            if field not in data:
                where.report(at, message("content_translates_nothing"))
            elif _text(value, where, at):
                words[str(data[field])] = value
            continue
        if not isinstance(value, Mapping):
            where.report(at, message("content_translations_not_table"))
            continue
        rows = entries.of(data)
        for key, fields in value.items():
            row_at = f"{at}.{key}"
            if key not in rows:
                where.report(row_at, message("content_translates_no_entry", key=str(key)))
            elif not isinstance(fields, Mapping):
                where.report(row_at, message("content_translations_not_table"))
            else:
                for name, text in fields.items():
                    sources = entries.texts_of(rows[key], name) if name in entries.fields else []
                    if not sources:
                        known = list(entries.fields)
                        where.report(
                            f"{row_at}.{name}", message("content_not_translatable", known=known)
                        )
                    else:
                        words.update(_texts(sources, text, where, f"{row_at}.{name}"))
    return words


def _texts(sources: list[str], value: Any, where: _Where, at: str) -> dict[str, str]:
    """Each source text with its translation: one text for one, a list for several."""
    if len(sources) == 1:
        return {sources[0]: value} if _text(value, where, at) else {}
    if not isinstance(value, list) or len(value) != len(sources):
        where.report(at, message("content_translation_list", count=len(sources)))
        return {}
    return {
        text: item
        for index, (text, item) in enumerate(zip(sources, value, strict=True))
        if _text(item, where, f"{at}[{index}]")
    }


def _text(value: Any, where: _Where, at: str) -> bool:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
        where.report(at, message("content_translation_length", most=MAX_TEXT))
        return False
    return True


@functools.cache
def content_words(locale: str, root: Path | None = None) -> dict[str, str]:
    """Every shipped translation into one language, by English text (read once per process),
    from `root` or the shipped folder as this module names it when first asked."""
    root = root or SCENARIOS_DIR
    words: dict[str, str] = {}
    folders = (
        (root / "ships", "ship class"),
        (root / "decks", "deck"),
        (root / "characters", "character"),
        (root, "scenario"),
    )
    for folder, kind in folders:
        for path in sorted(folder.glob("*.toml")):
            with path.open("rb") as handle:
                data = tomllib.load(handle)
            source = path.relative_to(root.parent).as_posix()
            words.update(translations_of(data, source, kind).get(locale, {}))
    return words


Words = Mapping[str, Mapping[str, str]]  # {language: {English text: its translation}}
# The library's kinds (app/content.py FOLDERS) as the translation tables name them.
LIBRARY_KINDS = {
    "ship": "ship class",
    "deck": "deck",
    "character": "character",
    "scenario": "scenario",
}
# The words of the content being rendered beyond the shipped files': a game's own copy of the
# library's items, or the library's (the lobby, the editor). None outside such a render.
_speaking: ContextVar[Words | None] = ContextVar("content_words", default=None)


def words_of(*contents: Mapping[str, Mapping[str, Mapping[str, Any]]] | None) -> Words:
    """The translations of library items (`{kind: {id: data}}`, as the library and a game's
    copy hold them), later contents' over earlier ones'. Each item was checked when it was
    saved; one that no longer reads is left out rather than stopping every screen."""
    words: dict[str, dict[str, str]] = {}
    for items_by_kind in contents:
        for kind, items in (items_by_kind or {}).items():
            for item_id, data in items.items():
                try:
                    found = translations_of(data, f"{kind} {item_id}", LIBRARY_KINDS[kind])
                except (ContentError, KeyError):
                    continue
                for locale, table in found.items():
                    words.setdefault(locale, {}).update(table)
    return words


@contextlib.contextmanager
def speaking_content(words: Words) -> Iterator[None]:
    """Renders inside say the content in these words (a game's, or the library's). Work handed
    to a thread (app/web/reading.py) takes them along with the rest of the context."""
    token = _speaking.set(words)
    try:
        yield
    finally:
        _speaking.reset(token)


@functools.cache
def interface_words(locale: str) -> frozenset[str]:
    """The texts the interface's catalogues translate in one language (read once per process)."""
    found: set[str] = set()
    for domain in DOMAINS:
        path = catalogue_path(locale, domain)
        if path.exists():
            with path.open("rb") as source:
                found |= {
                    m.id
                    for m in read_po(source)
                    if isinstance(m.id, str) and m.string and not (m.context or m.fuzzy)
                }
    return frozenset(found)


def _interface_has(locale: str, value: str) -> bool:
    words = interface_words(locale)
    return value in words or value.replace("_", " ") in words


def content(value: str, locale: str | None = None) -> str:
    """Scenario content (names, descriptions, card texts) in the rendering language (or
    `locale`): the interface's own word where it has one (a station's role, say), else the
    translation the shipped files give, else the one the content being rendered gives
    (`speaking_content`), else as written. The pseudo-language pseudo-localises it, as a
    complete translation would, so that what stays English in a pseudo render is interface
    text."""
    locale = locale or speaking.get()
    if not isinstance(value, str) or locale == SOURCE:
        return value
    if locale == PSEUDO:
        return pseudo(value)
    if _interface_has(locale, value):
        return known(value, locale)
    found = content_words(locale).get(value) or (_speaking.get() or {}).get(locale, {}).get(value)
    return found if found is not None else value


def side_name(side: str, locale: str | None = None) -> str:
    """A side, by its id, as people name it: the catalogue's word for it (the players, the
    raiders), else the content's translation of it, else as the scenario writes it; its first
    letter capital, as a side's name has it in every language offered."""
    if not isinstance(side, str) or not side:
        return side
    shown = content(side, locale)
    return shown[:1].upper() + shown[1:]


def spoken_content() -> Words | None:
    """The content words being rendered (`speaking_content`), if any."""
    return _speaking.get()
