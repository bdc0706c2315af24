"""Refusals from the service layer in the phone's language (issue 30): the seats-per-address
limit (issue 31, item 6) refuses a German phone in German, on the join page and in the API."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.settings import Settings
from tests.security.test_abuse import Venue, _venue
from tests.security.test_seat_limits import _convoy, _take
from tests.web.test_routes import csrf_of

from ..server.conftest import settings  # noqa: F401 - fixture
from .test_screens import _ENGLISH

CROWD = "198.51.100.7"
GERMAN = {"Accept-Language": "de"}


@pytest.fixture
def venue(settings: Settings) -> Iterator[Venue]:  # noqa: F811
    yield from _venue(settings, {"seats_per_address": 2})


def test_a_german_phone_past_the_seats_per_address_hears_why_in_german(venue: Venue) -> None:
    game, stations = _convoy(venue)
    for station in stations[:2]:
        assert _take(venue, CROWD, game["game_id"], *station).status_code == 201

    refused = venue.at(CROWD)(
        "POST",
        f"/api/games/{game['game_id']}/seats",
        json={"ship": stations[2][0], "station": stations[2][1], "name": "Bo"},
        headers=GERMAN,
    )
    assert refused.status_code == 409
    assert refused.json()["code"] == "SEATS_PER_ADDRESS"
    assert "Deine Netzwerkadresse hält schon 2 Stationen" in refused.json()["message"]

    page = venue.at(CROWD)("GET", f"/join/{game['join_code']}", headers=GERMAN)
    answer = venue.at(CROWD)(
        "POST",
        f"/join/{game['join_code']}",
        data={"seat": "/".join(stations[2]), "name": "Bo", "csrf": csrf_of(page.text)},
        headers=GERMAN,
        follow_redirects=False,
    )
    assert answer.status_code == 409
    box = answer.text.split('data-code="SEATS_PER_ADDRESS">', 1)[1].split("</p>", 1)[0]
    assert "Netzwerkadresse" in box
    assert not _ENGLISH.findall(box), box
