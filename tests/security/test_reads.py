"""Reads cannot stall the room: every page and JSON read is paced per address as commands are;
a report is built once per version of its game whoever reads it and however many read it at
once."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.rules.core import report as report_rules
from app.settings import Settings
from tests.server.conftest import LiveServer

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
