"""What people may type: numbers from forms, names, and plain text anywhere.

One parser each, used by every route, so a form field and the JSON API refuse the same things
with the same code and sentence. Refusals are `ServiceError`s: a screen shows them as a toast or
on its page, the API as `{code, message}`.
"""

from __future__ import annotations

import math
import re
from typing import Any

from app.rules.core.messages import Message, message
from app.rules.core.names import CREW_NAME_LENGTH
from app.rules.core.names import name_problem as rules_name_problem
from app.service import ServiceError

# ASCII digits only: str.isdigit() also accepts '²' and '٣', which int() refuses or reads as
# another number. The lengths stop a 5000-digit number before int() has to read it.
_WHOLE = re.compile(r"[+-]?[0-9]{1,19}")
_DECIMAL = re.compile(r"[+-]?[0-9]{1,15}(\.[0-9]{1,9})?")


def whole_number(raw: Any, field: str, low: int, high: int) -> int:
    """A whole number typed into a form, from `low` to `high`; BAD_VALUE otherwise.
    A sign is accepted, so a negative number gets the range in its refusal. `field` is the
    form field's id, named in the reader's language where words.py knows it (`TERMS["input"]`)."""
    text = str(raw).strip()
    if _WHOLE.fullmatch(text):
        value = int(text)
        if low <= value <= high:
            return value
    raise ServiceError("BAD_VALUE", message("not_a_whole_number", input=field, low=low, high=high))


def is_whole_number(raw: Any) -> bool:
    """Whether text reads as a whole number at all (for fields that take a number or a word)."""
    return _WHOLE.fullmatch(str(raw).strip()) is not None


def decimal_number(raw: Any, field: str, low: float, high: float) -> float:
    """A number with an optional decimal point, from `low` to `high`; no exponents, no 'nan'."""
    text = str(raw).strip()
    if _DECIMAL.fullmatch(text):
        value = float(text)
        if math.isfinite(value) and low <= value <= high:
            return value
    raise ServiceError(
        "BAD_VALUE", message("not_a_number", input=field, low=f"{low:g}", high=f"{high:g}")
    )


# --- Text -----------------------------------------------------------------------------------------

# NUL and other control characters (tab and newlines aside), and halves of UTF-16 pairs.
UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


class Unprintable(ValueError):
    """Text holding a character no screen can show; `char` names it, as U+0000."""

    def __init__(self, char: str) -> None:
        super().__init__(f"text may not contain the character {char}")
        self.char = char


def _code_point(char: str) -> str:
    return f"U+{ord(char):04X}"


def plain_text(value: Any) -> None:
    """Refuse text no screen can show and PostgreSQL cannot store, in strings, lists and dicts
    (keys too)."""
    if isinstance(value, str):
        found = UNPRINTABLE.search(value)
        if found:
            raise Unprintable(_code_point(found.group()))
    elif isinstance(value, dict):
        for key, item in value.items():
            plain_text(key)
            plain_text(item)
    elif isinstance(value, list | tuple):
        for item in value:
            plain_text(item)


def plain_form_text(data: Any) -> None:
    """`plain_text` for what a form built: the same rule, as the screens' BAD_VALUE refusal."""
    try:
        plain_text(data)
    except Unprintable as problem:
        unprintable = message("unprintable_text", char=problem.char)
        raise ServiceError("BAD_VALUE", unprintable) from None


NAME_LENGTH = CREW_NAME_LENGTH


def name_problem(name: str) -> Message | None:
    """Why a player's name cannot be shown to the crew as typed, or None: the engine's rule
    (app/rules/core/names.py), which the GM's names meet too."""
    return rules_name_problem(name, NAME_LENGTH)


def checked_name(name: str) -> str:
    """The name without surrounding spaces; BAD_NAME when `name_problem` finds one."""
    problem = name_problem(name)
    if problem:
        raise ServiceError("BAD_NAME", problem)
    return name.strip()
