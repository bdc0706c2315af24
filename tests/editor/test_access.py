"""Who may edit: the organiser key opens the editor; a game's GM token or a seat token
does not, and a refusal is a page a person can read."""

from __future__ import annotations

from html import unescape
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.cli import editor_link, format_urls
from app.settings import Settings
from app.web.logs import redact
from tests.server.conftest import Table

PAGE = {"Accept": "text/html"}


def test_the_printed_link_opens_the_editor_and_keeps_the_key_off_the_address_bar(
    client: TestClient, settings: Settings
) -> None:
    opened = client.get(f"/editor?organiser_token={settings.organiser_key}", follow_redirects=False)
    assert opened.status_code == 303 and opened.headers["location"] == "/editor"
    home = client.get("/editor", headers=PAGE)
    assert home.status_code == 200
    assert "Kestrel-class Frigate" in home.text and "Skirmish at the Gate" in home.text


def test_the_key_is_persisted_or_set_by_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = Settings(data_dir=tmp_path)
    assert len(first.organiser_key) > 30
    assert Settings(data_dir=tmp_path).organiser_key == first.organiser_key
    monkeypatch.setenv("BRIDGECREW_ORGANISER_KEY", "event-key-2026")
    assert Settings(data_dir=tmp_path).organiser_key == "event-key-2026"


def test_gm_and_seat_tokens_do_not_open_the_editor(client: TestClient) -> None:
    table = Table(client)
    seat = table.seat("weapons")
    tries = [
        {"cookies": {f"bc_gm_{table.game_id}": table.gm_token}},
        {"cookies": {f"bc_seat_{table.game_id}": seat["seat_token"]}},
        {"headers": table.gm},
        {"cookies": {"bc_organiser": table.gm_token}},
        {"params": {"organiser_token": table.gm_token}},
        {"params": {"organiser_token": seat["seat_token"]}},
    ]
    for attempt in tries:
        client.cookies.clear()
        cookies = attempt.pop("cookies", {})
        for name, value in cookies.items():
            client.cookies.set(name, value)
        page = client.get("/editor", headers={**PAGE, **attempt.pop("headers", {})}, **attempt)
        assert page.status_code == 403, attempt
        assert "organiser key" in page.text
        assert page.headers["content-type"].startswith("text/html")
        assert "Kestrel-class Frigate" not in page.text


def test_a_typed_key_opens_the_editor_and_a_wrong_one_is_told_so(
    client: TestClient, settings: Settings
) -> None:
    form = client.get("/editor", headers=PAGE)
    csrf = client.cookies["bc_csrf"]
    assert 'name="key"' in form.text
    wrong = client.post("/editor/key", data={"key": "guess", "csrf": csrf}, headers=PAGE)
    assert wrong.status_code == 403 and "not this server's organiser key" in unescape(wrong.text)
    right = client.post(
        "/editor/key", data={"key": settings.organiser_key, "csrf": csrf}, follow_redirects=False
    )
    assert right.status_code == 303
    assert client.get("/editor", headers=PAGE).status_code == 200


def test_the_name_versions_are_saved_with_follows_the_name_rule(
    client: TestClient, settings: Settings
) -> None:
    client.get(f"/editor?organiser_token={settings.organiser_key}")
    csrf = client.cookies["bc_csrf"]
    bad = client.post("/editor/name", data={"name": "Ada\u202e", "csrf": csrf}, headers=PAGE)
    assert bad.status_code == 400 and "invisible" in bad.text
    client.post("/editor/name", data={"name": "Ada", "csrf": csrf})
    assert 'value="Ada"' in client.get("/editor", headers=PAGE).text


def test_serve_prints_the_editor_link_and_the_logs_blank_its_key(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, organiser_key="event-key-2026")
    printed = format_urls("http://10.0.0.5:8000", editor_link(settings))
    assert "http://10.0.0.5:8000/editor?organiser_token=event-key-2026" in printed
    assert "event-key-2026" not in redact(printed)
