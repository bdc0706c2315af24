"""Limits: request bodies, commands per second per seat and per GM token, and a bucket that
forgets idle callers. (Websocket frame limits are in test_fuzz.py.)"""

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.pace import TokenBuckets
from app.service import seats
from app.settings import Settings
from app.web import deps
from tests.server.conftest import Table


def test_an_oversized_body_gets_413_with_code_and_message(table: Table) -> None:
    url = f"/api/games/{table.game_id}/commands"
    big = {"command_id": "big", "type": "SendMessage", "text": "x" * 70_000}
    announced = table.client.post(url, json=big, headers=table.gm)
    assert announced.status_code == 413
    assert announced.json()["code"] == "TOO_LARGE" and "65536 bytes" in announced.json()["message"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit must count as it reads
        yield b'{"command_id": "streamed", "type": "SendMessage", "text": "'
        for _ in range(100):
            yield b"y" * 1000
        yield b'"}'

    streamed = table.client.post(
        url, content=chunks(), headers={**table.gm, "Content-Type": "application/json"}
    )
    assert streamed.status_code == 413 and streamed.json()["code"] == "TOO_LARGE"
    form = table.client.post(f"/join/{table.join_code}", data={"name": "n" * 70_000})
    assert form.status_code == 413 and form.json()["code"] == "TOO_LARGE"
    assert table.client.get(f"/api/games/{table.game_id}").json()["version"] == 0


def test_the_limits_in_force_are_ten_commands_a_second_with_bursts_of_twenty(
    settings: Settings,
) -> None:
    """A player tapping never meets them; a script gone wrong does at once."""
    assert (settings.command_rate, settings.command_burst) == (10, 20)


@pytest.fixture
def strict_client(settings: Settings) -> Iterator[TestClient]:
    """Limits low enough that no machine is too slow to meet them in a test."""
    limits = {"command_rate": 0.5, "command_burst": 3, "anonymous_rate": 0.5, "anonymous_burst": 3}
    with TestClient(create_app(settings.model_copy(update=limits))) as client:
        yield client


def test_a_seat_sending_too_fast_gets_429_and_nothing_more_happens(
    strict_client: TestClient,
) -> None:
    table = Table(strict_client)
    weapons, pilot = table.seat("weapons"), table.seat("pilot")
    url = f"/api/games/{table.game_id}/commands"
    answers = [
        strict_client.post(
            url,
            json={"command_id": f"spam-{i}", "type": "SendMessage", "text": "hi"},
            headers=weapons["headers"],
        )
        for i in range(6)
    ]
    assert [a.status_code for a in answers[:3]] == [403, 403, 403]  # GM_ONLY: the rules said no
    limited = answers[-1]
    assert limited.status_code == 429
    body = limited.json()
    assert body["code"] == "RATE_LIMITED" and "a second" in body["message"]
    assert int(limited.headers["retry-after"]) >= 1
    # The same token through the phone's screens shares the bucket...
    cookie = {"Cookie": f"bc_seat_{table.game_id}={weapons['seat_token']}"}
    screen = strict_client.post(f"/play/{table.game_id}/pass", headers=cookie)
    assert screen.status_code == 429 and screen.json()["code"] == "RATE_LIMITED"
    # ...while another seat and the GM have their own.
    other = table.command(pilot["headers"], type="SendMessage", text="hello")
    assert other.status_code == 403 and other.json()["code"] == "GM_ONLY"
    assert table.command(table.gm, type="SendMessage", text="still fine").status_code == 200
    assert strict_client.get(f"/api/games/{table.game_id}").json()["version"] == 3


def test_the_gm_token_and_anonymous_callers_are_limited_too(strict_client: TestClient) -> None:
    made = [strict_client.post("/api/games", json={"scenario": "skirmish"}) for _ in range(4)]
    assert [answer.status_code for answer in made] == [201, 201, 201, 429]
    assert made[-1].json()["code"] == "RATE_LIMITED"
    game, token = made[0].json()["game_id"], made[0].json()["gm_token"]
    url = f"/api/games/{game}/commands"
    gm = {"Authorization": f"Bearer {token}"}
    statuses = [
        strict_client.post(
            url, json={"command_id": f"c{i}", "type": "SetRedAlert", "on": True}, headers=gm
        ).status_code
        for i in range(5)
    ]
    assert statuses[:3] == [200, 200, 200] and statuses[3:] == [429, 429]
    assert strict_client.get(f"/api/games/{game}").json()["version"] == 3
    assert strict_client.get(f"/api/games/{game}/view", headers=gm).status_code == 200  # reads


def test_a_bucket_refills_at_its_rate_and_forgets_idle_keys() -> None:
    now = [0.0]
    buckets = TokenBuckets(rate=10, burst=20, clock=lambda: now[0])
    assert all(buckets.take("seat") == 0 for _ in range(20))
    wait = buckets.take("seat")
    assert 0.09 <= wait <= 0.11
    now[0] += 0.5  # five more
    assert sum(buckets.take("seat") == 0 for _ in range(10)) == 5
    buckets.MAX_KEYS = 100
    for i in range(1000):
        buckets.take(f"bogus-{i}")
        now[0] += 10  # each one idle again by the next
    assert len(buckets._buckets) <= 100


def test_a_command_looks_its_token_up_once(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rate limit needs to know whom a token opens before the route does: the route reuses
    what it found instead of asking again."""
    asked: list[str] = []
    real = seats.token_owner

    async def counted(session_factory: Any, game_id: Any, token: str | None) -> Any:
        asked.append(str(token))
        return await real(session_factory, game_id, token)

    monkeypatch.setattr(deps, "token_owner", counted)
    seat = table.seat("weapons")
    asked.clear()
    answer = table.command(seat["headers"], type="PassOrder", ship="kestrel", station="weapons")
    assert answer.status_code in (200, 409), answer.text
    assert asked == [seat["seat_token"]]
    # A phone's screen, in a browser that holds the GM's cookie of the game too: the station
    # reads the seat's, once, and the rate limit counts the seat.
    game = table.game_id
    table.client.cookies.update(
        {
            f"bc_seat_{game}": seat["seat_token"],
            f"bc_gm_{game}": table.gm_token,
            "bc_csrf": "c" * 24,
        }
    )
    asked.clear()
    tapped = table.client.post(f"/play/{game}/withdraw", headers={"X-CSRF-Token": "c" * 24})
    assert tapped.status_code in (204, 409), tapped.text
    assert asked == [seat["seat_token"]]
