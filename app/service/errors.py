"""The service's refusals: a stable code, a sentence for players, and the HTTP status it maps to."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules import RulesError
from app.rules.core.messages import message

# HTTP status per error code; anything not listed is the caller's mistake, 400.
FORBIDDEN = frozenset({"GM_ONLY", "NOT_YOUR_STATION", "NOT_YOUR_SEAT"})
NOT_FOUND = frozenset(
    {
        "NO_SUCH_GAME",
        "NO_SUCH_SCENARIO",
        "NO_SUCH_SEAT",
        "NO_SUCH_SHIP",
        "NO_SUCH_STATION",
        "NO_SUCH_CHARACTER",
        "NO_SUCH_MODIFIER",
        "NOT_IN_ROSTER",
    }
)
CONFLICT = frozenset(
    {
        "STALE_VERSION",
        "WRONG_PHASE",
        "STATION_TAKEN",
        "SEAT_TAKEN",
        "CHARACTER_TAKEN",
        "NO_SUCH_DEADLINE",
        "DEADLINE_NOT_DUE",
        "COMMAND_ID_REUSED",
        "NOTHING_TO_UNDO",
        "NO_ALLOCATION_PENDING",
        "EVENING_RUNNING",
        "DOWNTIME_RUNNING",
    }
)


class ServiceError(Exception):
    """A refused request. Nothing was stored when it is raised. The rules engine's refusals
    carry its message (an id and parameters), which the web layer words for the reader."""

    def __init__(
        self, code: str, message: str | Mapping[str, Any], status: int | None = None
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status or status_for(code)

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message}

    @classmethod
    def from_rules(cls, error: RulesError) -> ServiceError:
        return cls(error.code, error.words)


def status_for(code: str) -> int:
    if code in FORBIDDEN:
        return 403
    if code in NOT_FOUND:
        return 404
    if code in CONFLICT:
        return 409
    return 400


def no_such_game() -> ServiceError:
    return ServiceError("NO_SUCH_GAME", message("no_such_game"))
