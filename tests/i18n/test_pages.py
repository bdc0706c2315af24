"""The pages of a real game, served over HTTP to a German browser: joining, the lobby, a phone,
the GM, the projector, the report and a refusal, each without English."""

import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.settings import Settings
from tests.tables import Table

from .screens import catalogue_sources, data_strings, readable, without
from .test_screens import _ENGLISH, _PLAIN_WORD


@pytest.fixture
def settings(db_url: str, tmp_path: Path) -> Settings:
    """A development server: the pseudo-language may be asked for."""
    return Settings(database_url=db_url, data_dir=tmp_path, pseudo_language=True)


def _pages(client: TestClient, lang: str) -> dict[str, tuple[str, object]]:
    table = Table(client)
    weapons = table.seat("weapons", name="Ada")
    table.gm_command(type="SetDisplayLanguage", language=lang)
    table.gm_command(type="StartTurn", seconds=60)
    view = client.get(f"/api/games/{table.game_id}/view", headers=table.gm).json()
    # The join code (random capitals, sometimes word-like) is shown on pages too, and is data.
    data: object = {"view": view, "join_code": table.join_code}
    accept = {"Accept-Language": lang, "Accept": "text/html"}
    seat = {**accept, **weapons["headers"]}
    gm = {**accept, **table.gm}
    urls = {
        "join by code": ("/join", accept),
        "join this game": (f"/join/{table.join_code}", accept),
        "GM lobby": ("/gm", accept),
        "phone": (f"/play/{table.game_id}", seat),
        "GM dashboard": (f"/gm/{table.game_id}?token={table.gm_token}", accept),
        "GM seats": (f"/gm/{table.game_id}/seats", gm),
        "projector": (f"/display/{table.game_id}", accept),
        "report": (f"/report/{table.game_id}", gm),
        "refusal": (f"/play/{uuid.uuid4()}", accept),
    }
    pages = {}
    for name, (url, headers) in urls.items():
        answer = client.get(url, headers=headers)
        assert answer.status_code in (200, 404), (name, answer.status_code)
        pages[name] = (answer.text, data)
    return pages


def _data(view: object) -> set[str]:
    """What a page shows that is data, not words: the view's strings, and the address each seat
    was taken from (the GM's seats list), which is Starlette's test client's host here."""
    return (data_strings(view) - catalogue_sources()) | {"testclient"}


def test_every_page_of_a_real_game_is_german_for_a_german_browser(client: TestClient) -> None:
    problems = {}
    for name, (page, view) in _pages(client, "de").items():
        text = without(readable(page), _data(view))
        found = sorted(set(_ENGLISH.findall(text)))
        if found or ('<html lang="de">' not in page and "<html" in page):
            problems[name] = found
    assert not problems, f"English on German pages: {problems}"


def test_every_page_of_a_real_game_comes_from_the_catalogue(client: TestClient) -> None:
    problems = {}
    for name, (page, view) in _pages(client, "en_XA").items():
        # The lobby lists every scenario: their texts are content, pseudo-localised with it.
        text = without(readable(page), _data(view))
        found = sorted(set(_PLAIN_WORD.findall(text)))
        if found:
            problems[name] = found
    assert not problems, f"hard-coded words: {problems}"
