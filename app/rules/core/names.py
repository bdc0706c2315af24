"""The one rule for a name people type, whoever types it: a player joining, or the GM naming a
ship, renaming one or seating a crew member by hand. A name is one line of visible text: no
control characters, and no invisible format characters such as the bidi overrides and isolates
(U+202E turns "Ann" into "nnA" on every screen after it) or zero-width spaces (two names that
look alike)."""

from __future__ import annotations

import unicodedata

from .errors import RulesError
from .messages import Message, message

CREW_NAME_LENGTH = 40
SHIP_NAME_LENGTH = 60
# Joiners stay: emoji sequences and several scripts need them between visible letters.
_JOINERS = frozenset("\u200c\u200d")


def name_problem(name: str, most: int) -> Message | None:
    """Why this name cannot be shown to the crew as typed, or None."""
    name = name.strip()
    if not 1 <= len(name) <= most:
        return message("name_length", most=most)
    for char in name:
        category = unicodedata.category(char)
        if category in ("Cc", "Cs", "Zl", "Zp") or (category == "Cf" and char not in _JOINERS):
            return message("name_invisible", char=f"U+{ord(char):04X}")
    if all(char in _JOINERS or char.isspace() for char in name):
        return message("name_not_visible")
    return None


def checked_name(name: str, most: int) -> str:
    """The name without surrounding spaces; BAD_NAME when `name_problem` finds one."""
    problem = name_problem(name, most)
    if problem is not None:
        raise RulesError("BAD_NAME", problem)
    return name.strip()
