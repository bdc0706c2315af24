"""Which language a device gets, the pseudo-language, and the API's messages (issue 30)."""

import uuid

import pytest
from fastapi.testclient import TestClient

from app.i18n import PSEUDO, from_accept_language, negotiate, pseudo, supported, translations


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("fr-FR,fr;q=0.9,de;q=0.5,en;q=0.4", "de"),  # French is not offered: the next best
        ("en;q=0.3, de;q=0.7", "de"),  # by quality, not by order
        ("de;q=0, en", "en"),  # q=0 means "not this one"
        ("fr, it", None),
        ("", None),
        ("de-AT", "de"),
    ],
)
def test_accept_language_picks_the_best_language_offered(header: str, expected: str | None) -> None:
    assert from_accept_language(header) == expected


def test_the_cookie_wins_over_the_browser_and_english_is_the_fallback() -> None:
    assert negotiate("en", "de-DE,de") == "en"
    assert negotiate("de", "en-GB") == "de"
    assert negotiate("xx", "de") == "de"  # an unknown cookie is no choice
    assert negotiate(None, None) == "en"
    assert supported("en-xa") == PSEUDO


def test_the_pseudo_language_accents_lengthens_and_keeps_placeholders_and_markup() -> None:
    text = "Divert up to <b>%(n)s</b> to crew stations; the rest hits the Hull."
    made = pseudo(text)
    assert "<b>%(n)s</b>" in made
    assert not any(ch.isascii() and ch.isalpha() for ch in made.replace("<b>%(n)s</b>", ""))
    shown = len(text) - len("<b>%(n)s</b>")
    assert len(made) - len("<b>%(n)s</b>") >= shown * 1.4
    assert translations(PSEUDO).gettext("Hull") == pseudo("Hull")


def test_german_catalogue_is_loaded_with_its_plural_rule() -> None:
    german = translations("de")
    assert german.gettext("Hull") == "Rumpf"
    assert german.ngettext("%(num)s zone", "%(num)s zones", 1) == "%(num)s Zone"
    assert german.ngettext("%(num)s zone", "%(num)s zones", 2) == "%(num)s Zonen"


def test_pages_follow_accept_language_and_lang_sets_the_cookie(client: TestClient) -> None:
    german = client.get("/join", headers={"Accept-Language": "de-DE,de;q=0.9"})
    assert '<html lang="de">' in german.text and "Auf die Brücke" in german.text
    english = client.get("/join", headers={"Accept-Language": "en-GB"})
    assert '<html lang="en">' in english.text and "Join the bridge" in english.text
    # The switcher's link: the choice sticks to this device, whatever its browser says.
    chosen = client.get("/join?lang=de", headers={"Accept-Language": "en-GB"})
    assert "Auf die Brücke" in chosen.text
    assert "bc_lang=de" in chosen.headers["set-cookie"]
    again = client.get("/join", headers={"Accept-Language": "en-GB"})
    assert "Auf die Brücke" in again.text
    client.cookies.clear()


def test_api_messages_follow_accept_language_and_codes_stay(client: TestClient) -> None:
    url = f"/elsewhere/{uuid.uuid4()}/report"
    answers = {
        lang: client.get(url, headers={"Accept": "application/json", "Accept-Language": lang})
        for lang in ("de", "en")
    }
    assert answers["de"].status_code == answers["en"].status_code == 404
    assert answers["de"].json() == {"code": "NOT_FOUND", "message": "Diese Seite gibt es nicht."}
    assert answers["en"].json() == {"code": "NOT_FOUND", "message": "There is no such page."}
