"""Typed errors the engine raises for illegal commands: a stable code and a message for players
(an id and its parameters, worded by the web layer in each player's language)."""

from __future__ import annotations

from typing import Any

from .messages import Message, message


class RulesError(ValueError):
    """A command the rules do not allow. Nothing of the state changes when it is raised."""

    def __init__(self, code: str, words: Message) -> None:
        super().__init__(f"{code}: {words}")
        self.code = code
        self.words = words

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "words": self.words}


def refuse(code: str, msg: str | None = None, **params: Any) -> RulesError:
    """Build the error; callers `raise refuse(...)` so the raise stays visible at the call site.
    The message id is the code in lower case unless one code has several sentences."""
    return RulesError(code, message(msg or code.lower(), **params))
