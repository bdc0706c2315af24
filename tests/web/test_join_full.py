"""The join page once every station is crewed: it says so, offers no form, and points to the
projector's read-only view to watch from."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from tests.web.test_routes import csrf_of, join, new_game


def seats_offered(html: str) -> list[str]:
    return re.findall(r'name="seat" value="([^"]+)" required(?! disabled)', html)


def test_a_full_crew_gets_no_join_form_but_a_seat_to_watch_from(client: TestClient) -> None:
    game_id, code = new_game(client)
    client.cookies.clear()
    free = seats_offered(client.get(f"/join/{code}").text)
    assert len(free) >= 2
    for number, seat in enumerate(free):
        client.cookies.clear()
        join(client, code, seat, f"Crew {number}")

    client.cookies.clear()
    page = client.get(f"/join/{code}")
    assert page.status_code == 200
    assert seats_offered(page.text) == []
    assert "Every station is crewed" in page.text
    assert 'id="name"' not in page.text and ">Join</button>" not in page.text
    assert "Tap the station" not in page.text
    assert f'href="/display/{game_id}?watch=1"' in page.text

    # The projector is public: a phone with no seat and no GM cookie may watch it.
    client.cookies.clear()
    assert client.get(f"/display/{game_id}").status_code == 200


def test_a_join_that_lost_the_last_station_shows_the_full_crew_page(client: TestClient) -> None:
    """The last free station taken between loading the page and tapping Join."""
    game_id, code = new_game(client)
    client.cookies.clear()
    form = client.get(f"/join/{code}").text
    free = seats_offered(form)
    for number, seat in enumerate(free):
        client.cookies.clear()
        join(client, code, seat, f"Crew {number}")
    client.cookies.clear()
    late = client.get("/join").text  # a fresh browser's CSRF cookie and token
    answer = client.post(
        f"/join/{code}", data={"seat": free[-1], "name": "Late", "csrf": csrf_of(late)}
    )
    assert answer.status_code == 409
    assert "already manned" in answer.text
    assert 'id="name"' not in answer.text
    assert f'href="/display/{game_id}?watch=1"' in answer.text
