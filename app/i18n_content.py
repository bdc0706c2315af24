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
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from app.i18n import LANGUAGES, PSEUDO, SOURCE, known, pseudo, speaking
from app.rules.content import (
    ContentError,
    parse_character,
    parse_deck,
    parse_scenario,
    parse_ship_class,
)

SCENARIOS_DIR = Path(__file__).resolve().parent.parent / "scenarios"
MAX_TEXT = 500


class Entries:
    """A list of tables in the file (path from its root), each translated under its `key`."""

    def __init__(self, path: tuple[str, ...], key: str, fields: tuple[str, ...]) -> None:
        self.path, self.key, self.fields = path, key, fields

    def of(self, data: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
        found: Any = data
        for part in self.path:
            found = found.get(part, {}) if isinstance(found, Mapping) else {}
        rows = found if isinstance(found, list) else []
        return {
            str(row[self.key]): row for row in rows if isinstance(row, Mapping) and self.key in row
        }


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
        "zones": Entries(("map", "zones"), "id", ("name",)),
        "cues": Entries(("cues",), "id", ("name",)),  # the GM's names for them (module cues)
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
    Raises ContentError naming the file and the field."""
    if "translations" not in data:
        return data
    translations_of(data, source, kind)
    return {key: value for key, value in data.items() if key != "translations"}


def translations_of(data: Mapping[str, Any], source: str, kind: str) -> dict[str, dict[str, str]]:
    """{language: {English text: its translation}} of one file, checked."""
    tables = data.get("translations", {})
    if not isinstance(tables, Mapping):
        raise ContentError(source, "translations", "must be a table of languages")
    found: dict[str, dict[str, str]] = {}
    for lang, table in tables.items():
        where = f"translations.{lang}"
        if lang not in LANGUAGES or lang == SOURCE:
            offered = ", ".join(code for code in LANGUAGES if code != SOURCE)
            raise ContentError(source, where, f"unknown language {lang!r}; offered: {offered}")
        if not isinstance(table, Mapping):
            raise ContentError(source, where, "must be a table")
        found[lang] = _words(data, table, source, where, TRANSLATABLE[kind])
    return found


def _words(
    data: Mapping[str, Any],
    table: Mapping[str, Any],
    source: str,
    where: str,
    allowed: Mapping[str, Entries | None],
) -> dict[str, str]:
    words: dict[str, str] = {}
    for field, value in table.items():
        at = f"{where}.{field}"
        if field not in allowed:
            names = ", ".join(allowed)
            raise ContentError(source, at, f"cannot be translated; translatable here: {names}")
        entries = allowed[field]
        if entries is None:
            if field not in data:
                raise ContentError(source, at, "translates a field this file does not have")
            words[str(data[field])] = _text(value, source, at)
            continue
        if not isinstance(value, Mapping):
            raise ContentError(source, at, f"must be a table of entries by {entries.key}")
        rows = entries.of(data)
        for key, fields in value.items():
            row_at = f"{at}.{key}"
            if key not in rows:
                raise ContentError(source, row_at, f"no entry with {entries.key} {key!r} here")
            if not isinstance(fields, Mapping):
                raise ContentError(source, row_at, "must be a table")
            for name, text in fields.items():
                if name not in entries.fields or name not in rows[key]:
                    names = ", ".join(entries.fields)
                    raise ContentError(
                        source, f"{row_at}.{name}", f"cannot be translated; translatable: {names}"
                    )
                words[str(rows[key][name])] = _text(text, source, f"{row_at}.{name}")
    return words


def _text(value: Any, source: str, at: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
        raise ContentError(source, at, f"must be text of 1 to {MAX_TEXT} characters")
    return value


@functools.cache
def content_words(locale: str, root: Path = SCENARIOS_DIR) -> dict[str, str]:
    """Every shipped translation into one language, by English text (read once per process)."""
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


# The organisers' library's translations, by language and English text (`use_library`): the
# library is one for the whole server, as the shipped files are.
_library_words: dict[str, dict[str, str]] = {}
# The library's kinds (app/content.py FOLDERS) as the translation tables name them.
LIBRARY_KINDS = {
    "ship": "ship class",
    "deck": "deck",
    "character": "character",
    "scenario": "scenario",
}


def use_library(library: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> None:
    """Take the library's translations (`{kind: {id: data}}`, as read from the database) for
    every screen of this process from now on. Each item was checked when it was saved; one that
    no longer reads is left out rather than stopping every screen."""
    words: dict[str, dict[str, str]] = {}
    for kind, items in library.items():
        for item_id, data in items.items():
            try:
                found = translations_of(data, f"{kind} {item_id}", LIBRARY_KINDS[kind])
            except (ContentError, KeyError):
                continue
            for locale, table in found.items():
                words.setdefault(locale, {}).update(table)
    _library_words.clear()
    _library_words.update(words)


def content(value: str) -> str:
    """Scenario content (names, descriptions, card texts) in the rendering language: the
    translation its TOML file gives, else the catalogue's word for it (a station's role, say),
    else as shipped. The pseudo-language pseudo-localises it, as a complete
    translation would, so that what stays English in a pseudo render is interface text."""
    locale = speaking.get()
    if not isinstance(value, str) or locale == SOURCE:
        return value
    if locale == PSEUDO:
        return pseudo(value)
    found = content_words(locale).get(value) or _library_words.get(locale, {}).get(value)
    return found if found is not None else known(value)
