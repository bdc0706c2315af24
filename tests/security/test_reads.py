"""Reads cannot stall the room: every page and JSON read is paced per address as commands are."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings

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
