"""Typed errors the engine raises for illegal commands: a stable code and a sentence for players."""

from __future__ import annotations


class RulesError(ValueError):
    """A command the rules do not allow. Nothing of the state changes when it is raised."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


def refuse(code: str, message: str) -> RulesError:
    """Build the error; callers `raise refuse(...)` so the raise stays visible at the call site."""
    return RulesError(code, message)
