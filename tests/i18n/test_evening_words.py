"""A whole evening in German and in the pseudo-language, for every shipped scenario: every screen,
log line, reveal and report line says each name in the reader's language, and none shows an id.

Content (ships, classes, weapons, zones, cues and their messages, characters, sides, scenarios)
is said by its translations, the engine's own things (stations, dice, settings, modules) by the
catalogues; where a translation is missing the source text shows, never an id.
"""

from __future__ import annotations

import re

import pytest

from app.i18n import LANGUAGES, PSEUDO
from app.i18n_content import content_words
from tests.web.test_render import PAGE

from .evening import SCENARIOS, TYPED, TYPED_PATTERN, Evening, evenings
from .screens import readable

# Not words of any language: the join link and code, the switchers' language names (each in its
# own language, on purpose), a file format, the props' topic.
NOT_WORDS = (*(str(v) for v in PAGE.values()), *LANGUAGES.values(), "JSON", "bridgecrew/")
# Three or more plain letters: nothing the pseudo-language says has them.
_PLAIN_WORD = re.compile(r"\b[A-Za-z]{3,}\b")
# The engine's dice as English writes them; German says W6 and W20.
_ENGLISH_DICE = re.compile(r"\bd(?:6|20)\b")


def _people_read(page: str) -> str:
    """What a person reads on a page, without what people typed (shown as typed)."""
    text = readable(page)
    for typed in sorted((*TYPED, *NOT_WORDS), key=len, reverse=True):
        text = text.replace(typed, " ")
    return TYPED_PATTERN.sub(" ", text)


def _around(text: str, found: re.Match[str]) -> str:
    at, end = found.span()
    return " ".join(text[max(0, at - 60) : end + 40].split())


def _evening(locale: str, scenario: str) -> Evening:
    return next(e for e in evenings(locale) if e.scenario == scenario)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_pseudo_evening_shows_nothing_that_skipped_the_translations(scenario: str) -> None:
    """In the pseudo-language every translated word is accented, content's as well as the
    interface's: a plain word left is an id, or a name or text that no translation reached."""
    problems: dict[str, str] = {}
    for screen in _evening(PSEUDO, scenario).screens:
        text = _people_read(screen.html)
        for word in _PLAIN_WORD.finditer(text):
            problems.setdefault(word[0], f"{screen.name}: «{_around(text, word)}»")
    assert not problems, "untranslated on pseudo screens:\n" + "\n".join(
        f"{word!r} in {where}" for word, where in problems.items()
    )


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_german_evening_shows_no_id_and_no_english_that_has_german(scenario: str) -> None:
    evening = _evening("de", scenario)
    ids = [re.compile(r"(?<![\w-])" + re.escape(i) + r"(?![\w-])") for i in evening.ids()]
    english = [
        re.compile(r"(?<!\w)" + re.escape(source) + r"(?!\w)")
        for source, german in content_words("de").items()
        if source != german and len(source) > 3
    ]
    problems: dict[str, str] = {}
    for screen in evening.screens:
        text = _people_read(screen.html)
        for pattern in (*ids, *english, _ENGLISH_DICE):
            for found in pattern.finditer(text):
                problems.setdefault(found[0], f"{screen.name}: «{_around(text, found)}»")
    assert not problems, "ids or English on German screens:\n" + "\n".join(
        f"{found!r} in {where}" for found, where in problems.items()
    )
