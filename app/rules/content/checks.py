"""Strict readers for scenario data: every value is checked where it is read, and every error
names the file and the field path (`stations[2].track.red[0]`) so a GM can fix it without a trace.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_MISSING: Any = object()
_SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


class ContentError(ValueError):
    """A scenario file that does not describe a playable game."""

    def __init__(self, file: str, field: str, message: str) -> None:
        super().__init__(f"{file}: {field}: {message}")
        self.file = file
        self.field = field
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:
        # ValueError pickles by its args, which here is the joined sentence, not the three parts.
        return (type(self), (self.file, self.field, self.message))


def field_path(parent: str, key: str | int) -> str:
    """`stations` + 2 -> `stations[2]`; `stations[2]` + `track` -> `stations[2].track`."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def describe(value: Any) -> str:
    """A TOML-minded name for a value's type, for 'must be X, not Y' messages."""
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int):
        return f"an integer ({value})"
    if isinstance(value, float):
        return f"a float ({value})"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


def check_int(
    file: str, field: str, value: Any, low: int | None = None, high: int | None = None
) -> int:
    # bool is an int subclass in Python; in a ship sheet `true` is never a number.
    if isinstance(value, bool) or not isinstance(value, int):
        raise ContentError(file, field, f"must be an integer, not {describe(value)}")
    if low is not None and high is not None and not low <= value <= high:
        raise ContentError(file, field, f"must be between {low} and {high}, got {value}")
    if low is not None and value < low:
        raise ContentError(file, field, f"must be at least {low}, got {value}")
    if high is not None and value > high:
        raise ContentError(file, field, f"must be at most {high}, got {value}")
    return value


def check_text(file: str, field: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ContentError(file, field, f"must be a string, not {describe(value)}")
    if not value.strip():
        raise ContentError(file, field, "must not be empty")
    return str(value)


def check_slug(file: str, field: str, value: Any) -> str:
    """Ids are used as keys in game state and URLs, so they stay lower-case and plain."""
    check_text(file, field, value)
    if not _SLUG.match(value):
        raise ContentError(file, field, f"{value!r} is not a valid id (use a-z, 0-9, '-' and '_')")
    return str(value)


def check_choice(file: str, field: str, value: Any, choices: Iterable[str], what: str) -> str:
    options = tuple(choices)
    check_text(file, field, value)
    if value not in options:
        raise ContentError(
            file, field, f"unknown {what} {value!r}; expected one of: {', '.join(options)}"
        )
    return str(value)


def check_bool(file: str, field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ContentError(file, field, f"must be true or false, not {describe(value)}")
    return value


def check_array(file: str, field: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ContentError(file, field, f"must be an array, not {describe(value)}")
    return value


class Table:
    """One TOML table being read: rejects unknown and missing fields up front, then hands out
    checked values that know their own field path."""

    def __init__(
        self,
        data: Any,
        file: str,
        path: str = "",
        *,
        required: Iterable[str] = (),
        optional: Iterable[str] = (),
    ) -> None:
        self.file = file
        self.path = path
        if not isinstance(data, dict):
            raise ContentError(file, path or "(document)", f"must be a table, not {describe(data)}")
        self.data: dict[str, Any] = data
        required, optional = tuple(required), tuple(optional)
        allowed = required + optional
        unknown = [key for key in data if key not in allowed]
        if unknown:
            names = ", ".join(repr(key) for key in unknown)
            plural = "s" if len(unknown) > 1 else ""
            raise ContentError(
                file,
                self.at(unknown[0]),
                f"unknown field{plural} {names}; allowed here: {', '.join(allowed)}",
            )
        for key in required:
            if key not in data:
                raise ContentError(file, self.at(key), "is required")

    def at(self, key: str | int) -> str:
        return field_path(self.path, key)

    def error(self, key: str | int, message: str) -> ContentError:
        return ContentError(self.file, self.at(key), message)

    def has(self, key: str) -> bool:
        return key in self.data

    def _get(self, key: str, default: Any) -> Any:
        if key in self.data:
            return self.data[key]
        if default is _MISSING:
            raise self.error(key, "is required")
        return default

    def integer(
        self, key: str, *, low: int | None = None, high: int | None = None, default: Any = _MISSING
    ) -> int:
        if key not in self.data and default is not _MISSING:
            return int(default)
        return check_int(self.file, self.at(key), self._get(key, default), low, high)

    def text(self, key: str, *, default: Any = _MISSING) -> str:
        if key not in self.data and default is not _MISSING:
            return str(default)
        return check_text(self.file, self.at(key), self._get(key, default))

    def slug(self, key: str, *, default: Any = _MISSING) -> str:
        if key not in self.data and default is not _MISSING:
            return str(default)
        return check_slug(self.file, self.at(key), self._get(key, default))

    def choice(
        self, key: str, choices: Iterable[str], what: str, *, default: Any = _MISSING
    ) -> str:
        if key not in self.data and default is not _MISSING:
            return str(default)
        return check_choice(self.file, self.at(key), self._get(key, default), choices, what)

    def flag(self, key: str, *, default: Any = _MISSING) -> bool:
        if key not in self.data and default is not _MISSING:
            return bool(default)
        return check_bool(self.file, self.at(key), self._get(key, default))

    def array(self, key: str, *, default: Any = _MISSING) -> list[Any]:
        if key not in self.data and default is not _MISSING:
            return list(default)
        return check_array(self.file, self.at(key), self._get(key, default))

    def integers(
        self, key: str, *, low: int | None = None, high: int | None = None, default: Any = _MISSING
    ) -> list[int]:
        items = self.array(key, default=default)
        return [
            check_int(self.file, field_path(self.at(key), i), item, low, high)
            for i, item in enumerate(items)
        ]

    def table(
        self, key: str, *, required: Iterable[str] = (), optional: Iterable[str] = ()
    ) -> Table:
        return Table(
            self._get(key, _MISSING), self.file, self.at(key), required=required, optional=optional
        )

    def tables(
        self,
        key: str,
        *,
        required: Iterable[str] = (),
        optional: Iterable[str] = (),
        default: Any = _MISSING,
    ) -> list[Table]:
        """An array of tables (`[[stations]]`), each checked for its own fields."""
        items = self.array(key, default=default)
        required, optional = tuple(required), tuple(optional)
        return [
            Table(
                item, self.file, field_path(self.at(key), i), required=required, optional=optional
            )
            for i, item in enumerate(items)
        ]


def first_duplicate(values: Iterable[str]) -> tuple[int, int] | None:
    """Indexes (earlier, later) of the first value seen twice, or None."""
    seen: dict[str, int] = {}
    for index, value in enumerate(values):
        if value in seen:
            return seen[value], index
        seen[value] = index
    return None


def check_hit_table(
    file: str, field: str, rows: list[Any], targets: tuple[str, ...]
) -> tuple[tuple[int, int, str], ...]:
    """M-SYSHIT rows [low, high, target] must cover a d20 from 1 to 20 in order, once each."""
    table: list[tuple[int, int, str]] = []
    expected_low = 1
    for index, row in enumerate(rows):
        where = field_path(field, index)
        if not isinstance(row, list) or len(row) != 3:
            raise ContentError(file, where, 'must be [low, high, target], e.g. [3, 6, "pilot"]')
        low = check_int(file, field_path(where, 0), row[0], 1, 20)
        high = check_int(file, field_path(where, 1), row[1], low, 20)
        if low != expected_low:
            raise ContentError(
                file,
                field_path(where, 0),
                f"row starts at {low} but the d20 rows must continue from {expected_low}",
            )
        target = check_choice(file, field_path(where, 2), row[2], targets, "hit table target")
        table.append((low, high, target))
        expected_low = high + 1
    if expected_low != 21:
        raise ContentError(
            file, field, f"must cover 1 to 20 on the d20; it stops at {expected_low - 1}"
        )
    return tuple(table)


def index_by_id(items: Iterable[Any], what: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for item in items:
        if item.id in found:
            raise ContentError(
                item.source or "(unknown file)",
                "id",
                f"{what} {item.id!r} is already defined in "
                f"{found[item.id].source or 'another file'}",
            )
        found[item.id] = item
    return found
