"""Sentences for people leave the engine as data: a message id and its parameters.

`{"msg": "shields_raised", "ship": "Kestrel"}`: the web layer (app/web/words.py) words it in
each screen's language. Parameters are plain data (names, numbers, ids, lists of them), never
words the engine chose, so that no sentence is built by joining pieces of English.
"""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]


def message(msg: str, **params: Any) -> Message:
    return {"msg": msg, **params}


def term(kind: str, id_: str) -> Message:
    """The name of one of the engine's own things (a phase, an action, a range band), by id:
    `term("band", "long")` is the message `band.long`."""
    return {"msg": f"{kind}.{id_}"}


def said(entry: dict[str, Any]) -> dict[str, Any]:
    """A log entry or event with its `words`: one stored before the engine spoke in messages has
    an English `text` instead, which is shown as it is."""
    if "words" in entry or "text" not in entry:
        return entry
    return {**entry, "words": entry["text"]}
