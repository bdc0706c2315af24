"""Reads the scenario folder's TOML files from disk and hands them to the pure validator in
`app.rules.content`; errors name each file relative to the repository (`scenarios/ships/x.toml`).
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from app.i18n_content import KINDS, without_translations
from app.rules.content import (
    Catalogue,
    ContentError,
    build_catalogue,
    parse_character,
    parse_deck,
    parse_scenario,
    parse_ship_class,
)
from app.rules.core.messages import message

SCENARIOS_DIR = Path(__file__).resolve().parent.parent / "scenarios"

T = TypeVar("T")
Data = dict[str, Any]

# The kinds of content, as the library and the editor name them: (their folder under
# `scenarios/`, their parser). Scenarios sit in the folder itself.
FOLDERS: dict[str, tuple[str, Callable[[Data, str], Any]]] = {
    "ship": ("ships", parse_ship_class),
    "deck": ("decks", parse_deck),
    "character": ("characters", parse_character),
    "scenario": ("", parse_scenario),
}


def load_catalogue(root: Path | None = None) -> Catalogue:
    """All ships, decks, characters and scenarios under `root` (default: the repo's
    `scenarios/`, read once per process). Raises ContentError naming the file and field."""
    if root is None:
        return _default_catalogue()
    return _read_catalogue(Path(root))


@functools.lru_cache(maxsize=1)
def _default_catalogue() -> Catalogue:
    return _read_catalogue(SCENARIOS_DIR)


def _read_catalogue(root: Path) -> Catalogue:
    if not root.is_dir():
        raise FileNotFoundError(f"scenario folder not found: {root}")
    # Names in errors are relative to the folder holding `scenarios/`, i.e. the repository.
    base = root.resolve().parent
    return build_catalogue(
        _read_all(root / "ships", base, parse_ship_class),
        _read_all(root / "decks", base, parse_deck),
        _read_all(root / "characters", base, parse_character),
        _read_all(root, base, parse_scenario),
    )


def builtin_files(root: Path = SCENARIOS_DIR) -> dict[str, dict[str, tuple[Data, str]]]:
    """Every shipped file as read, translations and all: {kind: {id: (data, file name)}}, for
    the editor to copy and export. Files are read as they are now (the catalogue is checked)."""
    base = root.resolve().parent
    found: dict[str, dict[str, tuple[Data, str]]] = {}
    for kind, (folder, _) in FOLDERS.items():
        found[kind] = {}
        for path in sorted((root / folder).glob("*.toml")):
            data, name = _read_toml(path, base)
            found[kind][str(data.get("id", path.stem))] = (data, name)
    return found


def parse_item(kind: str, data: Data, source: str) -> Any:
    """One item of a kind, parsed and checked as the loader checks a file (translations too)."""
    parse = FOLDERS[kind][1]
    return parse(without_translations(data, source, KINDS[parse]), source)


def catalogue_with(
    library: Mapping[str, Mapping[str, Data]] | None,
    sources: Mapping[tuple[str, str], str] | None = None,
) -> Catalogue:
    """The shipped catalogue and the library's items (`{kind: {id: data}}`) together,
    cross-checked whole. Errors name an item by `sources[kind, id]` (an imported file's name),
    else as `<kind> <id>`. Raises ContentError."""
    shipped = load_catalogue()
    if not library:
        return shipped
    named = sources or {}
    parsed = {
        kind: [
            parse_item(kind, data, named.get((kind, item_id), f"{kind} {item_id}"))
            for item_id, data in items.items()
        ]
        for kind, items in library.items()
    }
    return build_catalogue(
        [*shipped.ships.values(), *parsed.get("ship", [])],
        [*shipped.decks.values(), *parsed.get("deck", [])],
        [*shipped.characters.values(), *parsed.get("character", [])],
        [*shipped.scenarios.values(), *parsed.get("scenario", [])],
    )


def _read_all(folder: Path, base: Path, parse: Callable[[dict[str, Any], str], T]) -> list[T]:
    found = []
    for path in sorted(folder.glob("*.toml")):
        data, name = _read_toml(path, base)
        # Translations are checked apart and never reach the engine.
        found.append(parse(without_translations(data, name, KINDS[parse]), name))
    return found


def _read_toml(path: Path, base: Path) -> tuple[dict[str, Any], str]:
    resolved = path.resolve()
    name = resolved.relative_to(base).as_posix() if resolved.is_relative_to(base) else str(path)
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle), name
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise unreadable(name, error) from error


_AT = re.compile(r"line (\d+), column (\d+)")


def unreadable(name: str, error: ValueError) -> ContentError:
    """A file that is not TOML (or not UTF-8 text), with where the reading stopped: tomllib says
    why in English only, so the line and column are what the reader is told."""
    if isinstance(error, UnicodeDecodeError):
        return ContentError(name, "(syntax)", message("content_not_utf8", at=error.start))
    found = _AT.search(str(error))
    if found is None:  # tomllib's "at end of document"
        return ContentError(name, "(syntax)", message("content_not_toml_at_end"))
    at = message("content_not_toml", line=int(found[1]), column=int(found[2]))
    return ContentError(name, "(syntax)", at)
