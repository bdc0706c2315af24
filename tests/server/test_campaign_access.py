"""Who may do what with a campaign: only its GM (its own token) changes it or takes its file; no
page or answer carries its dice's key; a character another phone plays is taken only with the
GM's approval, whichever way a seat is asked for (the join page or the JSON API)."""

from __future__ import annotations

import html
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db.models import Campaign
from app.main import create_app
from app.settings import Settings
from tests.server.test_campaign_screens import Device
from tests.web.test_routes import csrf_of


@pytest.fixture
def client(db_url: str, tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=db_url, data_dir=tmp_path))) as made:
        yield made


def started(client: TestClient) -> tuple[str, str, str]:
    """A campaign whose first evening was played by Ada's phone and written back, and its second
    evening begun: (campaign id, the second evening's game id, its join code)."""
    lobby = client.get("/gm")
    made = client.post(
        "/gm/campaigns",
        data={"name": "Sternenstaub", "csrf": csrf_of(lobby.text)},
        follow_redirects=False,
    )
    campaign = made.headers["location"].split("/")[2]
    games, codes = [], []
    for _ in range(2):
        page = client.get(f"/campaign/{campaign}/gm")
        begun = client.post(
            f"/campaign/{campaign}/gm/evening",
            data={"scenario": "skirmish", "csrf": csrf_of(page.text)},
            follow_redirects=False,
        )
        game_id = begun.headers["location"].rsplit("/", 1)[1]
        games.append(game_id)
        dashboard = client.get(f"/gm/{game_id}").text
        code = re.search(r'class="d-code">(\w+)<', dashboard)
        assert code is not None
        codes.append(code.group(1))
        if len(games) == 1:
            join = client.get(f"/join/{codes[0]}")
            joined = client.post(
                f"/join/{codes[0]}",
                data={"seat": "kestrel/weapons", "name": "Ada", "character": "amara-lind",
                      "csrf": csrf_of(join.text)},
                follow_redirects=False,
            )  # fmt: skip
            assert joined.status_code == 303, joined.text
            written = client.post(
                f"/gm/{game_id}/campaign/end",
                headers={"X-CSRF-Token": csrf_of(dashboard), "HX-Request": "true"},
            )
            assert written.status_code == 200, written.text
    return campaign, games[1], codes[1]


def test_only_the_campaigns_gm_changes_it_or_takes_its_file(client: TestClient) -> None:
    campaign, _, _ = started(client)
    client.cookies.clear()
    page = client.get(f"/campaign/{campaign}")  # the story is for everyone at the table
    assert page.status_code == 200
    csrf = csrf_of(page.text)
    for method, url, data in (
        ("GET", f"/campaign/{campaign}/gm", {}),
        ("GET", f"/campaign/{campaign}/gm/export", {}),
        ("GET", f"/campaign/{campaign}/gm/link?show=true", {}),
        ("POST", f"/campaign/{campaign}/gm/downtime", {"days": "3"}),
        ("POST", f"/campaign/{campaign}/gm/evening", {"scenario": "skirmish"}),
        ("POST", f"/campaign/{campaign}/gm/undo", {}),
    ):
        answer = client.request(
            method, url, data={**data, "csrf": csrf} if data or method == "POST" else None
        )
        assert answer.status_code == 403, (url, answer.status_code)
        assert "Only the campaign's GM opens this" in html.unescape(answer.text), url
    # A made-up campaign is a page that says so, not an error.
    assert client.get(f"/campaign/{uuid.uuid4()}").status_code == 404
    assert client.get("/campaign/not-a-campaign").status_code == 404


def test_no_page_or_answer_carries_the_campaigns_dice_key(client: TestClient) -> None:
    campaign, game_id, code = started(client)
    app: Any = client.app
    key = client.portal.call(_key, app.state.session_factory, campaign)  # type: ignore[union-attr]
    for url in (
        f"/campaign/{campaign}",
        f"/campaign/{campaign}?screen=display",
        f"/campaign/{campaign}/gm",
        f"/campaign/{campaign}/main",
        f"/campaign/{campaign}/evening/1",
        f"/api/campaigns/{campaign}",
        f"/gm/{game_id}/campaign",
        f"/join/{code}",
    ):
        answer = client.get(url)
        assert answer.status_code == 200, url
        assert key not in answer.text, url
    # Only the GM's export holds it.
    assert key in client.get(f"/campaign/{campaign}/gm/export").text


async def _key(sessions: Any, campaign: str) -> str:
    async with sessions() as session:
        seed = await session.scalar(select(Campaign.seed).where(Campaign.id == uuid.UUID(campaign)))
    return str(seed["key"])


def test_a_character_another_phone_plays_needs_the_gms_approval_through_the_api(
    client: TestClient,
) -> None:
    _, game_id, _ = started(client)
    refused = client.post(
        f"/api/games/{game_id}/seats",
        json={"ship": "kestrel", "station": "pilot", "name": "Eve", "character": "amara-lind"},
    )
    assert refused.status_code == 409 and refused.json()["code"] == "CHARACTER_CLAIMED"
    # A character nobody has played yet is anyone's.
    taken = client.post(
        f"/api/games/{game_id}/seats",
        json={"ship": "kestrel", "station": "pilot", "name": "Eve", "character": "juno-pike"},
    )
    assert taken.status_code == 201, taken.text


def test_a_new_phone_takes_a_played_character_once_the_gm_approves(client: TestClient) -> None:
    campaign, _, code = started(client)
    gm = Device(client)  # the browser that made the campaign: its GM
    gm.cookies = dict(client.cookies.items())
    newcomer = Device(client)
    page = newcomer.get(f"/join/{code}")
    assert 'data-character="amara-lind"' in page.text and "taking them asks the GM" in page.text
    form = {"seat": "kestrel/pilot", "name": "Neu", "character": "amara-lind"}
    asked = newcomer.post(f"/join/{code}", data={**form, "csrf": csrf_of(page.text)})
    assert asked.status_code == 409 and 'data-code="CHARACTER_ASKED"' in asked.text
    assert "waiting for an answer" in html.unescape(asked.text)
    gm_page = gm.get(f"/campaign/{campaign}/gm").text
    ask = re.search(r'action="/campaign/[\w-]+/gm/asks/(\d+)"', gm_page)
    assert ask is not None and "Neu asks to play Dr Amara Lind" in html.unescape(gm_page)
    approved = gm.post(
        f"/campaign/{campaign}/gm/asks/{ask.group(1)}",
        data={"approve": "1", "csrf": csrf_of(gm_page)},
        follow_redirects=False,
    )
    assert approved.status_code == 303
    page = newcomer.get(f"/join/{code}")
    assert "Welcome back" in page.text  # the character is this phone's now
    joined = newcomer.post(
        f"/join/{code}", data={**form, "csrf": csrf_of(page.text)}, follow_redirects=False
    )
    assert joined.status_code == 303, joined.text
