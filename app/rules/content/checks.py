"""Strict readers for scenario data: every value is checked where it is read, and every problem
names the file and the field path (`stations[2].track.red[0]`) so a GM can fix it without a trace.

A problem is a message id with parameters (`{"msg": "content_required"}`), as the engine speaks
(core/messages.py); app/web/words.py words it in the reader's language. A reading goes on past a
problem, with a stand-in value, and names every problem it found at the end (`Problems`), so an
organiser fixes a file in one go rather than one error per try.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..core.messages import Message, message

_MISSING: Any = object()
_SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
SHOWN_MAX = 60  # characters of a value a message repeats


class ContentError(ValueError):
    """A scenario file that does not describe a playable game: where, and what is wrong."""

    def __init__(self, file: str, field: str, message: Message) -> None:
        params = ", ".join(f"{k}={v!r}" for k, v in message.items() if k != "msg")
        super().__init__(f"{file}: {field}: {message.get('msg')}({params})")
        self.file = file
        self.field = field
        self.message = message

    @property
    def every(self) -> tuple[ContentError, ...]:
        """Each problem this error stands for."""
        return (self,)

    def __reduce__(self) -> tuple[Any, ...]:
        # ValueError pickles by its args, which here is the joined text, not the three parts.
        return (type(self), (self.file, self.field, self.message))


class ContentErrors(ContentError):
    """Several problems found in one reading: the first names the error, `every` holds all."""

    def __init__(self, errors: Iterable[ContentError]) -> None:
        found = tuple(one for error in errors for one in error.every)
        super().__init__(found[0].file, found[0].field, found[0].message)
        self.errors = found

    @property
    def every(self) -> tuple[ContentError, ...]:
        return self.errors

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (list(self.errors),))


def _inside(field: str, other: str) -> bool:
    return field == other or field.startswith((f"{other}.", f"{other}["))


class Problems:
    """Every problem of one reading. A problem at a field, or inside one, that already has one is
    its consequence (a table that is not one has no fields to miss), not news: it is left out."""

    def __init__(self) -> None:
        self.found: list[ContentError] = []

    def add(self, error: ContentError) -> None:
        for one in error.every:
            if not any(
                one.file == seen.file and _inside(one.field, seen.field) for seen in self.found
            ):
                self.found.append(one)

    def each(self) -> _Kept:
        """A part read on its own (`with problems.each(): ...`): a problem that stops it is
        kept, and the reading goes on."""
        return _Kept(self)

    def check(self) -> None:
        """Raises every problem found, if any: one ContentError, or ContentErrors."""
        if len(self.found) == 1:
            raise self.found[0]
        if self.found:
            raise ContentErrors(self.found)


class _Kept:
    def __init__(self, problems: Problems) -> None:
        self.problems = problems

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _: Any
    ) -> bool:
        if isinstance(error, ContentError):
            self.problems.add(error)
            return True
        return False


def field_path(parent: str, key: str | int) -> str:
    """`stations` + 2 -> `stations[2]`; `stations[2]` + `track` -> `stations[2].track`."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def shown(value: Any) -> str:
    """A value as a TOML file writes it, cut short: for messages that say what was found."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        text = value if len(value) <= SHOWN_MAX else value[: SHOWN_MAX - 1] + "…"
        return f'"{text}"'
    if isinstance(value, list):
        return "[…]"
    if isinstance(value, dict):
        return "{…}"
    return str(value)[:SHOWN_MAX]


def check_int(
    file: str, field: str, value: Any, low: int | None = None, high: int | None = None
) -> int:
    # bool is an int subclass in Python; in a ship sheet `true` is never a number.
    if isinstance(value, bool) or not isinstance(value, int):
        raise ContentError(file, field, message("content_not_whole_number", value=shown(value)))
    if low is not None and high is not None and not low <= value <= high:
        raise ContentError(
            file, field, message("content_not_between", low=low, high=high, value=value)
        )
    if low is not None and value < low:
        raise ContentError(file, field, message("content_too_small", low=low, value=value))
    if high is not None and value > high:
        raise ContentError(file, field, message("content_too_large", high=high, value=value))
    return value


def check_text(file: str, field: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ContentError(file, field, message("content_not_text", value=shown(value)))
    if not value.strip():
        raise ContentError(file, field, message("content_empty"))
    return str(value)


def check_slug(file: str, field: str, value: Any) -> str:
    """Ids are used as keys in game state and URLs, so they stay lower-case and plain."""
    check_text(file, field, value)
    if not _SLUG.match(value):
        raise ContentError(file, field, message("content_bad_id", value=shown(value)))
    return str(value)


def check_choice(file: str, field: str, value: Any, choices: Iterable[str]) -> str:
    options = tuple(choices)
    check_text(file, field, value)
    if value not in options:
        raise ContentError(
            file, field, message("content_not_a_choice", value=shown(value), known=list(options))
        )
    return str(value)


def check_bool(file: str, field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ContentError(file, field, message("content_not_bool", value=shown(value)))
    return value


def check_array(file: str, field: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ContentError(file, field, message("content_not_list", value=shown(value)))
    return value


class Table:
    """One TOML table being read: names unknown and missing fields, then hands out checked values
    that know their own field path. A value that does not check is kept as a problem of the
    reading (`problems`, shared with the tables inside) and read as a stand-in, so the reading
    goes on; the parser raises them all at its end (`Problems.check`)."""

    def __init__(
        self,
        data: Any,
        file: str,
        path: str = "",
        *,
        required: Iterable[str] = (),
        optional: Iterable[str] = (),
        problems: Problems | None = None,
    ) -> None:
        self.file = file
        self.path = path
        self.problems = problems if problems is not None else Problems()
        # A table that is not one, or missing: its fields are no news of their own.
        self.broken = not isinstance(data, dict)
        self.data: dict[str, Any] = data if isinstance(data, dict) else {}
        if self.broken and data is not _MISSING:
            not_table = message("content_not_table", value=shown(data))
            self.problems.add(ContentError(file, path or "(document)", not_table))
        required, optional = tuple(required), tuple(optional)
        allowed = required + optional
        for key in self.data:
            if key not in allowed:
                unknown = message("content_unknown_field", key=str(key), allowed=list(allowed))
                self.report(str(key), unknown)
        for key in required:
            if key not in self.data and not self.broken:
                self.report(key, message("content_required"))

    def at(self, key: str | int) -> str:
        return field_path(self.path, key)

    def error(self, key: str | int, said: Message) -> ContentError:
        return ContentError(self.file, self.at(key), said)

    def report(self, key: str | int, said: Message) -> None:
        """A problem at one of this table's fields; the reading goes on."""
        self.problems.add(self.error(key, said))

    def has(self, key: str) -> bool:
        return key in self.data

    def _read(self, key: str, default: Any, check: Any, stand_in: Any) -> Any:
        """The value at `key` as `check` reads it; the default when it is absent and has one;
        else the problem kept and `stand_in` read instead."""
        if key not in self.data:
            if default is not _MISSING:
                return default
            if not self.broken:
                self.report(key, message("content_required"))
            return stand_in
        try:
            return check(self.file, self.at(key), self.data[key])
        except ContentError as error:
            self.problems.add(error)
            return stand_in

    def integer(
        self, key: str, *, low: int | None = None, high: int | None = None, default: Any = _MISSING
    ) -> int:
        stand_in = low if low is not None else 0
        found = self._read(key, default, lambda f, a, v: check_int(f, a, v, low, high), stand_in)
        return int(found)

    def text(self, key: str, *, default: Any = _MISSING) -> str:
        return str(self._read(key, default, check_text, ""))

    def slug(self, key: str, *, default: Any = _MISSING) -> str:
        # A bad id still names what it names: a ship's other fields refer to it as written.
        raw = self.data.get(key)
        return str(self._read(key, default, check_slug, raw if isinstance(raw, str) else ""))

    def choice(self, key: str, choices: Iterable[str], *, default: Any = _MISSING) -> str:
        options = tuple(choices)
        found = self._read(key, default, lambda f, a, v: check_choice(f, a, v, options), options[0])
        return str(found)

    def flag(self, key: str, *, default: Any = _MISSING) -> bool:
        return bool(self._read(key, default, check_bool, False))

    def array(self, key: str, *, default: Any = _MISSING) -> list[Any]:
        return list(self._read(key, default, check_array, []))

    def integers(
        self, key: str, *, low: int | None = None, high: int | None = None, default: Any = _MISSING
    ) -> list[int]:
        found: list[int] = []
        for index, item in enumerate(self.array(key, default=default)):
            with self.problems.each():
                found.append(check_int(self.file, field_path(self.at(key), index), item, low, high))
        return found

    def table(
        self, key: str, *, required: Iterable[str] = (), optional: Iterable[str] = ()
    ) -> Table:
        if key not in self.data and not self.broken:
            self.report(key, message("content_required"))
        return self.inner(self.data.get(key, _MISSING), self.at(key), required, optional)

    def inner(
        self, data: Any, path: str, required: Iterable[str] = (), optional: Iterable[str] = ()
    ) -> Table:
        """A table inside this one (or this one's data read again, with other fields allowed),
        whose problems are this reading's."""
        return Table(
            data, self.file, path, required=required, optional=optional, problems=self.problems
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
        required, optional = tuple(required), tuple(optional)
        return [
            self.inner(item, field_path(self.at(key), i), required, optional)
            for i, item in enumerate(self.array(key, default=default))
        ]


def first_duplicate(values: Iterable[str]) -> tuple[int, int] | None:
    """Indexes (earlier, later) of the first value seen twice, or None."""
    seen: dict[str, int] = {}
    for index, value in enumerate(values):
        if value in seen:
            return seen[value], index
        seen[value] = index
    return None


def duplicates(values: Iterable[str]) -> Iterator[tuple[int, int]]:
    """Indexes (first, later) of every value seen again."""
    seen: dict[str, int] = {}
    for index, value in enumerate(values):
        if value in seen:
            yield seen[value], index
        else:
            seen[value] = index


def check_hit_table(
    file: str, field: str, rows: list[Any], targets: tuple[str, ...]
) -> tuple[tuple[int, int, str], ...]:
    """M-SYSHIT rows [low, high, target] must cover a d20 from 1 to 20 in order, once each."""
    table: list[tuple[int, int, str]] = []
    expected_low = 1
    for index, row in enumerate(rows):
        where = field_path(field, index)
        if not isinstance(row, list) or len(row) != 3:
            raise ContentError(file, where, message("content_hit_row_shape"))
        low = check_int(file, field_path(where, 0), row[0], 1, 20)
        high = check_int(file, field_path(where, 1), row[1], low, 20)
        if low != expected_low:
            raise ContentError(
                file,
                field_path(where, 0),
                message("content_hit_row_gap", low=low, expected=expected_low),
            )
        target = check_choice(file, field_path(where, 2), row[2], targets)
        table.append((low, high, target))
        expected_low = high + 1
    if expected_low != 21:
        raise ContentError(file, field, message("content_hit_table_short", last=expected_low - 1))
    return tuple(table)


def index_by_id(items: Iterable[Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for item in items:
        if item.id in found:
            raise ContentError(
                item.source or "(unknown file)",
                "id",
                message(
                    "content_id_defined_twice",
                    id=item.id,
                    file=found[item.id].source or "(unknown file)",
                ),
            )
        found[item.id] = item
    return found
