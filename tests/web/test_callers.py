"""Who is calling: one browser can hold the GM's cookie and a seat's of the same game (a GM trying
their own game as a player), and each screen opens as what it asks for."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings

from .test_routes import csrf_of, join, new_game


@pytest.fixture
def client(db_url: str, tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(Settings(database_url=db_url, data_dir=tmp_path))
    with TestClient(app, base_url="http://10.1.2.3:8000") as running:
        yield running


def given_by(client: TestClient, game_id: str, ship: str, station: str) -> list[str]:
    """The actions of the orders a station gave, as the GM's event log has them."""
    url = f"/api/games/{game_id}/events?after=0"
    events: list[dict[str, Any]] = client.get(url, headers=gm_bearer(client, game_id)).json()[
        "events"
    ]
    return [
        e["secret"]["order"]["action"]
        for e in events
        if e["type"] == "OrderGiven" and (e["ship"], e["station"]) == (ship, station)
    ]


def gm_bearer(client: TestClient, game_id: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {client.cookies.get(f'bc_gm_{game_id}')}"}


def test_a_gm_who_also_holds_a_seat_gets_the_station_on_play_and_the_dashboard_on_gm(
    client: TestClient,
) -> None:
    game_id, code = new_game(client)  # this browser holds the GM's cookie...
    join(
        client, code, "kestrel/pilot", "Friedrich-Wilhelm von Hohenzollern-Sigma"
    )  # ...and a seat's
    station = client.get(f"/play/{game_id}", follow_redirects=False)
    assert station.status_code == 200, station.headers.get("location")
    assert 'id="hand"' in station.text and "Pilot" in station.text
    again = client.get(f"/join/{code}", follow_redirects=False)
    assert again.status_code == 303 and again.headers["location"] == f"/play/{game_id}"
    dashboard = client.get(f"/gm/{game_id}")
    assert dashboard.status_code == 200 and 'ws-connect="/ws/gm/' in dashboard.text

    # The phone's order is the seat's, taken, not dropped with a reload.
    headers = {"X-CSRF-Token": csrf_of(dashboard.text), "HX-Request": "true"}
    started = client.post(
        f"/gm/{game_id}/command", data={"type": "StartTurn", "seconds": "0"}, headers=headers
    )
    assert started.status_code == 204, started.text
    passed = client.post(f"/play/{game_id}/pass", headers=headers)
    assert passed.status_code == 204 and "HX-Refresh" not in passed.headers
    assert given_by(client, game_id, "kestrel", "pilot") == ["pass"]
    panels = client.get(f"/play/{game_id}/panels", headers=headers)
    assert panels.status_code == 200 and 'id="hand"' in panels.text


def test_a_gm_without_a_seat_is_sent_to_join_once_not_in_a_loop(client: TestClient) -> None:
    game_id, code = new_game(client)
    station = client.get(f"/play/{game_id}", follow_redirects=False)
    assert station.status_code == 303 and station.headers["location"] == f"/join/{code}"
    joining = client.get(f"/join/{code}", follow_redirects=False)
    assert joining.status_code == 200 and 'name="seat"' in joining.text


def test_the_dashboard_shows_its_gm_link_only_when_asked_and_only_to_its_gm(
    client: TestClient,
) -> None:
    game_id, code = new_game(client)
    token = client.cookies.get(f"bc_gm_{game_id}") or ""
    dashboard = client.get(f"/gm/{game_id}").text
    assert token not in dashboard and 'hx-get="link?show=true"' in dashboard
    shown = client.get(f"/gm/{game_id}/link?show=true")
    assert shown.status_code == 200 and shown.headers["cache-control"] == "no-store"
    link = f"http://10.1.2.3:8000/gm/{game_id}?token={token}"
    assert f'value="{link}"' in shown.text and "<svg" in shown.text
    hidden = client.get(f"/gm/{game_id}/link")
    assert token not in hidden.text and 'id="gm-link"' in hidden.text

    # A co-GM's tablet: refused with where the link is, then let in by it.
    client.cookies.clear()
    refused = client.get(f"/gm/{game_id}", headers={"Accept": "text/html"})
    assert refused.status_code == 403 and "GM link for another device" in refused.text
    join(client, code, "kestrel/pilot", "Ann")  # a seat opens no GM link
    assert client.get(f"/gm/{game_id}/link?show=true").status_code == 403
    opened = client.get(link.removeprefix("http://10.1.2.3:8000"))
    assert opened.status_code == 200 and 'ws-connect="/ws/gm/' in opened.text
