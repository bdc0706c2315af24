"""The pages that hold a websocket tell their watchdog how often the server sends a heartbeat
(static/js/app.js reconnects after a few heartbeats of silence); pages without one do not."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.settings import Settings
from tests.web.test_routes import join, new_game


@pytest.fixture
def settings(db_url: str, tmp_path: Path) -> Settings:
    return Settings(database_url=db_url, data_dir=tmp_path, heartbeat_s=2.5)


def test_the_phone_gm_and_projector_pages_carry_the_servers_heartbeat(client: TestClient) -> None:
    game_id, code = new_game(client)
    for path in (f"/gm/{game_id}", f"/display/{game_id}"):
        assert 'data-heartbeat="2.5"' in client.get(path).text, path
    client.cookies.clear()
    join(client, code, "kestrel/weapons", "Ann")
    phone = client.get(f"/play/{game_id}")
    assert "ws-connect" in phone.text
    assert 'data-heartbeat="2.5"' in phone.text
    client.cookies.clear()
    assert "data-heartbeat" not in client.get(f"/join/{code}").text  # no socket, no watchdog
