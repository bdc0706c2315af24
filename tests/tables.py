"""A game made through the API, with the tokens the tests act with: on the test client (`Table`)
or on a running server (`AsyncTable`)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
from fastapi.testclient import TestClient


class Table:
    """A game made through the API of the test client, with the tokens the tests act with."""

    def __init__(self, client: TestClient, scenario: str = "skirmish", seed: int = 7) -> None:
        self.client = client
        made = client.post("/api/games", json={"scenario": scenario, "seed": seed})
        assert made.status_code == 201, made.text
        body = made.json()
        self.game_id: str = body["game_id"]
        self.join_code: str = body["join_code"]
        self.gm: dict[str, str] = {"Authorization": f"Bearer {body['gm_token']}"}
        self.gm_token: str = body["gm_token"]
        self.seats: dict[str, dict[str, Any]] = {}

    def seat(self, station: str, ship: str = "kestrel", name: str | None = None) -> dict[str, Any]:
        made = self.client.post(
            f"/api/games/{self.game_id}/seats",
            json={"ship": ship, "station": station, "name": name or station.title()},
        )
        assert made.status_code == 201, made.text
        seat = {**made.json(), "headers": {"Authorization": f"Bearer {made.json()['seat_token']}"}}
        self.seats[station] = seat
        return seat

    def command(self, headers: dict[str, str] | None, **data: Any) -> Any:
        data.setdefault("command_id", uuid.uuid4().hex)
        return self.client.post(
            f"/api/games/{self.game_id}/commands", json=data, headers=headers or {}
        )

    def gm_command(self, **data: Any) -> dict[str, Any]:
        response = self.command(self.gm, **data)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body


class AsyncTable:
    """A game made through the API of a running server."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http
        self.game_id = ""
        self.gm: dict[str, str] = {}
        self.gm_token = ""

    async def create(self, scenario: str = "skirmish", seed: int = 7) -> AsyncTable:
        made = await self.http.post("/api/games", json={"scenario": scenario, "seed": seed})
        assert made.status_code == 201, made.text
        self.game_id = made.json()["game_id"]
        self.gm_token = made.json()["gm_token"]
        self.gm = {"Authorization": f"Bearer {self.gm_token}"}
        return self

    async def seat(self, station: str, ship: str = "kestrel") -> dict[str, Any]:
        made = await self.http.post(
            f"/api/games/{self.game_id}/seats",
            json={"ship": ship, "station": station, "name": station},
        )
        assert made.status_code == 201, made.text
        return dict(made.json())

    async def gm_command(self, **data: Any) -> dict[str, Any]:
        data.setdefault("command_id", uuid.uuid4().hex)
        response = await self.http.post(
            f"/api/games/{self.game_id}/commands", json=data, headers=self.gm
        )
        assert response.status_code == 200, response.text
        return dict(response.json())
