"""The projector's language is a game setting the GM sets: the engine keeps a locale
code, and refuses anything else with BAD_VALUE."""

import pytest

from app.rules import RulesError, apply, display_view
from app.rules import commands as c
from app.web.render import render_toast
from tests.web import games

from .screens import speaking_as


def test_the_gm_sets_the_projector_language_and_the_projector_view_carries_it() -> None:
    state = games.seated()
    assert display_view(state)["game"]["language"] == "en"
    state, _ = apply(state, c.SetDisplayLanguage(language="de"))
    assert display_view(state)["game"]["language"] == "de"


@pytest.mark.parametrize("language", ["German please", "DE", "de-DE", ""])
def test_a_projector_language_that_is_no_locale_code_is_refused(language: str) -> None:
    with pytest.raises(RulesError) as refused:
        apply(games.seated(), c.SetDisplayLanguage(language=language))
    assert refused.value.code == "BAD_VALUE"


def test_a_toast_says_the_refusal_in_the_phones_language() -> None:
    sentence = "This page is out of date: reload it and try again."
    with speaking_as("de"):
        html = render_toast(sentence, "BAD_CSRF")
    assert "Diese Seite ist veraltet" in html and 'data-code="BAD_CSRF"' in html
