"""A screen that connects while the database is unreachable is told to come back (1013), not cut
off with an error: htmx-ext-ws reconnects after 1013, and the phone recovers by itself."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

import app.web.ws as ws_routes


async def _unreachable(*args: object, **kwargs: object) -> None:
    raise OSError("connection refused")


@pytest.mark.parametrize(
    "path",
    [
        "/ws/display/{game}",
        "/ws/gm/{game}?token=x",
        "/ws/station/{game}?token=x",
        "/ws/events/{game}",
    ],
)
def test_sockets_opened_while_the_database_is_down_close_with_try_again(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    game = client.post("/api/games", json={"scenario": "skirmish"}).json()["game_id"]
    monkeypatch.setattr(ws_routes, "game_info", _unreachable)
    with (
        client.websocket_connect(path.format(game=game)) as socket,
        pytest.raises(WebSocketDisconnect) as closed,
    ):
        socket.receive_text()
    assert closed.value.code == 1013
    assert "DATABASE_UNAVAILABLE" in closed.value.reason
