"""Which language a device gets, the pseudo-language, and the API's messages."""

import uuid

import pytest
from fastapi.testclient import TestClient

from app.i18n import (
    PSEUDO,
    chosen,
    from_accept_language,
    negotiate,
    pseudo,
    supported,
    translations,
)
from app.main import create_app
from app.settings import Settings
from tests.tables import Table


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


def test_the_pseudo_language_is_no_devices_choice_outside_development() -> None:
    assert chosen("en_XA") is None and chosen("en-xa", pseudo=True) == PSEUDO
    assert negotiate("en_XA", "en-XA") == "en"
    assert from_accept_language("en-XA, de;q=0.5") == "de"
    assert negotiate("en_XA", None, pseudo=True) == PSEUDO
    assert supported("en_XA") == PSEUDO  # tests still render in it


def _join_page(client: TestClient, query: str = "", **headers: str) -> tuple[str, str]:
    answer = client.get(f"/join{query}", headers=headers)
    return answer.text, answer.headers.get("set-cookie", "")


def test_a_link_to_the_pseudo_language_is_ignored_and_leaves_no_cookie(
    client: TestClient,
) -> None:
    """`?lang=en_XA` in a link put a phone in the pseudo-language for 400 days. Outside
    development it is ignored, as are a cookie and a browser asking for it, on pages and on a
    screen's socket; the switchers offer the real languages only."""
    page, cookie = _join_page(client, "?lang=en_XA")
    assert '<html lang="en">' in page and "Join the bridge" in page
    assert "bc_lang" not in cookie
    assert "en_XA" not in page and "lang=de" in page
    client.cookies.set("bc_lang", "en_XA")
    page, _ = _join_page(client, **{"Accept-Language": "en-XA"})
    assert "Join the bridge" in page
    table = Table(client)
    with client.websocket_connect(
        f"/ws/gm/{table.game_id}?token={table.gm_token}", headers={"Accept-Language": "en-XA"}
    ) as socket:
        first = socket.receive_text()
    assert "⟦" not in first and "Downtime" in first
    client.cookies.clear()


def test_a_development_server_offers_the_pseudo_language_to_whoever_asks(
    settings: Settings,
) -> None:
    with TestClient(create_app(settings.model_copy(update={"pseudo_language": True}))) as dev:
        page, cookie = _join_page(dev, "?lang=en_XA")
        assert '<html lang="en">' in page and "⟦" in page
        assert "bc_lang=en_XA" in cookie
        table = Table(dev)
        with dev.websocket_connect(f"/ws/gm/{table.game_id}?token={table.gm_token}") as socket:
            assert "⟦" in socket.receive_text()  # the cookie the link set
