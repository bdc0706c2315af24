"""How deeply a document from outside may nest: content files, the editor's forms, the API's
bodies and game exports. Python's parsers (json, tomllib) and everything that reads their result
(the content checks, the templates, JSON and TOML writers) recurse, so a few kilobytes nested
thousands deep would exhaust the stack; past NESTING_MAX levels a document is refused before
anything reads it.
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

# Deeper than anything real: a game's export nests about a dozen levels (state, ships, stations,
# a hand), a scenario file six (its ships' translations).
NESTING_MAX = 32


class TooDeep(ValueError):
    """A document nested more than `most` levels deep."""

    def __init__(self, most: int = NESTING_MAX) -> None:
        super().__init__(f"nested more than {most} levels deep")
        self.most = most


def depth(value: Any) -> int:
    """Levels of lists and tables, walked without recursion: 0 for a plain value, 1 for `[]`."""
    deepest = 0
    waiting: list[tuple[Any, int]] = [(value, 0)]
    while waiting:
        item, level = waiting.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list | tuple):
            continue
        level += 1
        deepest = max(deepest, level)
        waiting.extend((inner, level) for inner in item)
    return deepest


def shallow(value: Any, most: int = NESTING_MAX) -> Any:
    """The value, if it nests at most `most` levels; TooDeep otherwise."""
    if depth(value) > most:
        raise TooDeep(most)
    return value


def loads_json(text: str | bytes, most: int = NESTING_MAX) -> Any:
    """JSON, refused past `most` levels. The parser itself gives up with RecursionError on a
    document deeper than the stack allows, which is deeper than `most` by far."""
    try:
        return shallow(json.loads(text), most)
    except RecursionError:
        raise TooDeep(most) from None


def loads_toml(text: str, most: int = NESTING_MAX) -> dict[str, Any]:
    """TOML, as `loads_json`. Dotted keys (`a.b.c`) nest without the parser recursing, so the
    result is measured as well."""
    try:
        parsed: dict[str, Any] = shallow(tomllib.loads(text), most)
    except RecursionError:
        raise TooDeep(most) from None
    return parsed
