"""Reads cannot stall the room: every page and JSON read is paced per address as
commands are; a report is built once per version of its game whoever reads it and however many
read it at once; the library's catalogue is parsed once until an item is saved, in any process."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.main import create_app
from app.rules.core import report as report_rules
from app.service import library as library_service
from app.service.library import save_item
from app.settings import Settings
from tests.editor.content import ship_copy, zone_scenario
from tests.server.conftest import LiveServer, Table

Sessions = async_sessionmaker[AsyncSession]
PAGE = {"Accept": "text/html"}


@pytest.fixture
def slow_reader(settings: Settings) -> Iterator[TestClient]:
    """Reads paced low enough that no machine is too slow to meet the limit in a test."""
    paced = settings.model_copy(update={"read_rate": 0.2, "read_burst": 3})
    with TestClient(create_app(paced), client=("10.0.0.7", 5000)) as client:
        yield client


def test_reads_are_paced_per_address_but_static_files_and_health_are_not(
    slow_reader: TestClient,
) -> None:
    answers = [slow_reader.get("/gm", headers=PAGE) for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert 'data-code="RATE_LIMITED"' in answers[-1].text  # a page, for a person
    assert int(answers[-1].headers["retry-after"]) >= 1
    scenarios = slow_reader.get("/api/scenarios")
    assert scenarios.status_code == 429 and scenarios.json()["code"] == "RATE_LIMITED"
    assert slow_reader.get("/healthz").status_code == 200
    assert slow_reader.get("/static/js/app.js").status_code == 200
    assert slow_reader.get("/docs").status_code == 429
    # Another address reads on: the pace is each address's own. (A page that needs no
    # database: this second client runs the app on a loop of its own.)
    neighbour = TestClient(slow_reader.app, client=("10.0.0.8", 5000))
    assert neighbour.get("/docs").status_code == 200


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


async def test_four_readers_at_once_cost_one_report_per_version_of_the_game(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = _counting(monkeypatch, report_rules, "effective_events")  # once a report
    async with httpx.AsyncClient(base_url=live.http, timeout=30) as http:
        made = (await http.post("/api/games", json={"scenario": "skirmish", "seed": 3})).json()
        game, gm = made["game_id"], {"Authorization": f"Bearer {made['gm_token']}"}
        fought: list[dict[str, Any]] = [
            {"type": "StartTurn", "seconds": 0},
            {"type": "CloseOrders"},
            {"type": "EndCombat"},
        ]
        for n, command in enumerate(fought):
            sent = await http.post(
                f"/api/games/{game}/commands", json={"command_id": f"c{n}", **command}, headers=gm
            )
            assert sent.status_code == 200, sent.text
        urls = [f"/report/{game}", f"/report/{game}", f"/api/games/{game}/report"]
        urls += [f"/report/{game}.csv", f"/report/{game}?lang=de", f"/report/{game}"]
        answers = await asyncio.gather(*(http.get(url) for url in urls))
        assert [a.status_code for a in answers] == [200] * len(urls)
        assert answers[0].content == answers[1].content == answers[-1].content
        assert "Gefecht 1" in answers[4].text
        assert len(built) == 1
        # The game moves on: the next read builds the report of the game as it stands.
        alert = {"command_id": "alert", "type": "SetRedAlert", "on": True}
        assert (await http.post(f"/api/games/{game}/commands", json=alert, headers=gm)).is_success
        await asyncio.gather(*(http.get(f"/report/{game}") for _ in range(4)))
        assert len(built) == 2


async def test_the_library_is_parsed_once_until_an_item_is_saved_anywhere(
    client: TestClient, session_factory: Sessions, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lobby, the scenarios list and every new game read the library's catalogue; it is
    parsed once, and again once someone saves an item, in this process or any other (here the
    save goes to the database without this server)."""
    parsed = _counting(monkeypatch, library_service, "catalogue_with")
    for _ in range(3):
        assert client.get("/gm", headers=PAGE).status_code == 200
        assert client.get("/api/scenarios").status_code == 200
        Table(client)
    assert len(parsed) <= 1  # none if this process kept an empty library already
    await save_item(session_factory, "ship", ship_copy(), "Ada", expected_version=0)
    await save_item(session_factory, "scenario", zone_scenario(), "Ada", expected_version=0)
    before = len(parsed)  # each save checks the library it makes
    assert "Ring Fight" in client.get("/gm", headers=PAGE).text
    assert "ring-fight" in {s["id"] for s in client.get("/api/scenarios").json()["scenarios"]}
    Table(client, "ring-fight")
    assert len(parsed) == before + 1
