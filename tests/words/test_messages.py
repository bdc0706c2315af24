"""Every sentence the engine writes for people is a message id with parameters, and
every id has an English sentence (app/web/words.py) and a German one (translations/de), whose
placeholders are the parameters the engine passes.

Messages are collected two ways: from the source (every `message(...)`, `term(...)` and
`refuse(...)` in app/rules, read with `ast`) and from random games played by the rules tests'
bot table, from their events, states and every audience's views.
"""

from __future__ import annotations

import ast
import string
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po

from app.i18n import translations
from app.rules import display_view, gm_view, station_view
from app.web.words import (
    SENTENCES,
    TERMS,
    MessageError,
    Words,
    sentence,
)
from tests.rules.test_properties import Game

ROOT = Path(__file__).resolve().parents[2]
# Where messages are made: the engine, the service layer's own refusals (seats per address) and
# the web layer's (tokens, CSRF).
SOURCES = (
    ROOT / "app" / "rules",
    ROOT / "app" / "service",
    ROOT / "app" / "web",
    ROOT / "app" / "content.py",  # the content files' checks
    ROOT / "app" / "i18n_content.py",
)
GERMAN = ROOT / "translations" / "de" / "LC_MESSAGES" / "engine.po"

# Games the bot table plays: every shipped scenario, with each optional module at least once.
GAMES = (
    ("skirmish", 3, ("starmada", "syshit")),
    ("skirmish", 11, ("npc",)),
    ("convoy", 5, ("seats", "npc")),
    ("torpedo-run", 7, ("weapons",)),
    ("torpedo-run", 8, ("weapons", "syshit")),
    ("nebula-ambush", 2, ()),
    ("boarding-party", 4, ("seats", "npc")),
)


# --- What the engine says ---------------------------------------------------------------------


class Listening(Game):
    """A bot game that keeps every message the engine gave: in events, the state and views."""

    def __init__(self, *args: Any) -> None:
        self.heard: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        super().__init__(*args)

    def do(self, command: Any) -> list[dict[str, Any]]:
        events = super().do(command)
        self.events += events
        for part in (events, self.state["log"], *self.views()):
            self.heard += messages_in(part)
        return events

    def views(self) -> Iterator[dict[str, Any]]:
        yield gm_view(self.state)
        yield display_view(self.state)
        for ship in self.state["ships"].values():
            for station in ship["stations"].values():
                if station["crew"]:
                    yield station_view(self.state, station["crew"]["seat"])


def messages_in(found: Any) -> Iterator[dict[str, Any]]:
    """Every message in a structure, nested ones too (a cause inside an injury)."""
    if isinstance(found, dict):
        if isinstance(found.get("msg"), str):
            yield found
        for value in found.values():
            yield from messages_in(value)
    elif isinstance(found, list | tuple):
        for item in found:
            yield from messages_in(item)


@cache
def played() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The messages and events of every game in GAMES (played once for all the tests here)."""
    heard: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    for scenario, seed, modules in GAMES:
        game = Listening(scenario, seed, modules, [True, False, True])
        game.play()
        heard += game.heard
        events += game.events
    return heard, events


@cache
def german() -> Words:
    return translations("de")


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def english_of(msg: str) -> list[str]:
    found = SENTENCES[msg]
    return [found] if isinstance(found, str) else list(found)


def fits(msg: str, params: set[str]) -> bool:
    """The parameters are the sentence's placeholders, no more and no fewer (a plural sentence's
    `count` chooses the form, and a form may leave it out)."""
    used = set().union(*(placeholders(text) for text in english_of(msg)))
    spare = {"count"} if isinstance(SENTENCES[msg], tuple) else set()
    return all(placeholders(text) <= params for text in english_of(msg)) and params <= (
        used | spare
    )


# --- What the source names ----------------------------------------------------------------------


def _literals(node: ast.expr) -> list[str]:
    """The message ids an argument can be: a literal, either branch of `a if c else b`, or the
    values of a dict of literals named in the same module (weapons.py's _STRIKE_WORDS)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    return []


def _source_files() -> list[Path]:
    return sorted(
        [p for source in SOURCES for p in (source.rglob("*.py") if source.is_dir() else [source])]
    )


def source_calls() -> Iterator[tuple[str, str, set[str] | None, str]]:
    """(kind, message id, its parameter names or None when some come from **, where) for every
    `message`, `refuse` and `term` call in app/rules and app/service with a literal id."""
    for path in _source_files():
        if path.name in ("messages.py", "words.py") or (
            path.parent.name == "core" and path.name == "errors.py"
        ):
            continue  # where messages and refusals are made, from their callers' ids
        tree = ast.parse(path.read_text())
        tables = {
            target.id: node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            where = f"{path.name}:{node.lineno}"
            names = {k.arg for k in node.keywords if k.arg is not None}
            params = None if any(k.arg is None for k in node.keywords) else names
            if node.func.id == "message" and node.args:
                ids = _literals(node.args[0])
                first = node.args[0]
                if isinstance(first, ast.Subscript) and isinstance(first.value, ast.Name):
                    table = tables.get(first.value.id)
                    ids += [i for v in (table.values if table else []) for i in _literals(v)]
                assert ids, f"{where}: a message id the test cannot read"
                for msg in ids:
                    yield "message", msg, params, where
            elif node.func.id == "refuse" and node.args:
                code = node.args[0]
                assert isinstance(code, ast.Constant) and isinstance(code.value, str), where
                ids = _literals(node.args[1]) if len(node.args) > 1 else [code.value.lower()]
                assert ids, f"{where}: a refusal's message id the test cannot read"
                for msg in ids:
                    yield "refuse", msg, params, where
            elif node.func.id == "term" and len(node.args) == 2:
                kind = node.args[0]
                if isinstance(kind, ast.Constant):
                    yield "term", str(kind.value), None, where


# --- Tests --------------------------------------------------------------------------------------


def test_every_message_the_source_names_has_a_sentence_with_its_parameters() -> None:
    calls = list(source_calls())
    assert len(calls) > 250  # the walk found the engine's words, not nothing
    for kind, msg, params, where in calls:
        if kind == "term":
            assert msg in TERMS, where
            continue
        assert msg in SENTENCES, f"{where}: no sentence for {msg!r}"
        if params is not None:
            assert fits(msg, params), f"{where}: {msg} passes {sorted(params)}"


def test_no_refusal_of_the_server_is_a_sentence_in_english() -> None:
    """A ServiceError or a refusal says a message (an id and its parameters), which
    words.py words in the reader's language; a literal or f-string sentence would stay English."""
    english = []
    for path in _source_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            index = {"ServiceError": 1, "refusal": 3}.get(str(name))
            if index is None or len(node.args) <= index:
                continue
            said = node.args[index]
            if isinstance(said, ast.JoinedStr) or (
                isinstance(said, ast.Constant) and isinstance(said.value, str)
            ):
                english.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert english == []


def test_every_sentence_is_one_the_engine_can_say() -> None:
    named = {msg for kind, msg, _, _ in source_calls() if kind != "term"}
    assert set(SENTENCES) - named == set()


@pytest.mark.slow
def test_every_message_heard_in_play_fits_its_sentence_in_english_and_german() -> None:
    heard, _ = played()
    ids = {m["msg"] for m in heard}
    assert len(ids) > 60, sorted(ids)  # the games said a good part of what the engine can say
    seen: set[str] = set()
    for message in heard:
        key = repr(sorted(message.items(), key=lambda kv: kv[0]))
        if key in seen:
            continue
        seen.add(key)
        english = sentence(message)
        assert english and "{" not in english, message
        assert sentence(message, german()), message
        if message["msg"] in SENTENCES:
            assert fits(message["msg"], set(message) - {"msg"}), message


@pytest.mark.slow
def test_the_engine_writes_no_english_of_its_own_into_events_or_views() -> None:
    """No `text` is left anywhere but in the GM's own messages (what the GM typed, or a cue's
    message as the scenario writes it, `scripted`, which screens say by its translations)."""
    _, events = played()

    def texts(found: Any, inside: str) -> Iterator[str]:
        if isinstance(found, dict):
            gms = set(found) - {"seats", "scripted"} == {"id", "to", "text", "turn"} or found == {
                "msg": "message_to_all",  # the GM's, typed or prepared in a cue (module cues)
                "text": found.get("text"),
            }
            if "text" in found and not gms:
                yield f"{inside}: {found}"
            for key, value in found.items():
                yield from texts(value, f"{inside}.{key}")
        elif isinstance(found, list):
            for item in found:
                yield from texts(item, inside)

    game = Listening("torpedo-run", 7, ("weapons",), [True])
    game.play()
    views = list(game.views())
    assert list(texts(events, "events")) == []
    assert list(texts(views, "views")) == []
    for view in views:  # names shown on screens are messages too
        assert isinstance(view["game"]["phase_label"], dict)
        for band in view["range_bands"]:
            assert isinstance(band["label"], dict)


def test_every_sentence_and_name_has_a_german_translation_that_is_not_fuzzy() -> None:
    with GERMAN.open("rb") as source:
        catalogue = read_po(source, locale="de", domain="engine")
    english: dict[tuple[str, str | None], str | tuple[str, str]] = {}
    for found in SENTENCES.values():
        english[(found if isinstance(found, str) else found[0], None)] = found
    for kind, names in TERMS.items():
        for name in names.values():
            english[(name, kind)] = name
    for (source_id, context), found in english.items():
        entry = catalogue.get(source_id, context=context)
        assert entry is not None, f"no German for {source_id!r}"
        assert not entry.fuzzy, f"the German for {source_id!r} is fuzzy"
        translated = [
            str(t) for t in (entry.string if isinstance(entry.string, tuple) else [entry.string])
        ]
        assert all(translated), f"the German for {source_id!r} is empty"
        sources = found if isinstance(found, tuple) else (found,)
        for text in translated:
            # every plural form may leave the count out (German's singular often does not)
            assert placeholders(text) | {"count"} >= placeholders(sources[-1]) - {"count"}, text
            assert placeholders(text) <= placeholders(sources[-1]), text


def test_every_sentence_formats_in_both_languages() -> None:
    """Each sentence with a made-up value for each placeholder, so that a translator's typo in
    a placeholder ({schiff} for {ship}) fails here and not at the table."""
    for msg, found in SENTENCES.items():
        names = set().union(*(placeholders(text) for text in english_of(msg)))
        message: dict[str, Any] = {"msg": msg, **{name: 1 for name in names}}
        if isinstance(found, tuple):
            message["count"] = 2
        for words in (None, german()):
            said = sentence(message) if words is None else sentence(message, words)
            assert said and "{" not in said, (msg, said)
    for kind, terms in TERMS.items():
        for id_ in terms:
            assert sentence({"msg": f"{kind}.{id_}"}, german())


def test_german_is_german() -> None:
    assert sentence({"msg": "shields_raised", "ship": "Kestrel"}, german()) == (
        "Kestrel hebt die Schilde."
    )
    assert sentence({"msg": "wrong_phase", "phase": "orders"}, german()) == (
        "Das geht nicht in der Phase Befehle."
    )
    distance = {"msg": "squares_away", "count": 1}
    assert (sentence(distance), sentence(distance, german())) == ("1 square", "1 Feld")
    distance["count"] = 3
    assert (sentence(distance), sentence(distance, german())) == ("3 squares", "3 Felder")


def test_a_message_that_does_not_fit_is_an_error_for_the_tests_and_its_id_at_the_table(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from app.web.words import say

    with pytest.raises(MessageError):
        sentence({"msg": "shields_raised"})  # no ship
    with pytest.raises(MessageError):
        sentence({"msg": "no_such_sentence"})
    assert say({"msg": "shields_raised"}) == "shields_raised"
    assert "does not fit" in caplog.text
