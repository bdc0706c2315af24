"""Refusals in the phone's language: the seats-per-address limit
refuses a German phone in German, on the join page and in the API; so do the web layer's own
refusals (a form number) and the service's (a stale version)."""

from __future__ import annotations

from collections.abc import Iterator
from html import unescape

import pytest
from fastapi.testclient import TestClient

from app.settings import Settings
from tests.security.test_abuse import Venue, _venue
from tests.security.test_seat_limits import _convoy, _take
from tests.server.conftest import Table
from tests.web.test_form_numbers import CSRF, client
from tests.web.test_routes import csrf_of

from ..server.conftest import settings  # noqa: F401 - fixture

__all__ = ["client"]  # the whole app on a real database (a fixture)
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


def test_a_german_phone_hears_a_form_number_refusal_and_its_fields_name_in_german(
    client: TestClient,
) -> None:
    """The web layer: the square a pilot typed is refused in German, the field named
    in German too; the same refusal stays English for an English phone."""
    table = Table(client)
    pilot = table.seat("pilot")
    table.gm_command(type="StartTurn", seconds=0)
    client.cookies[f"bc_seat_{table.game_id}"] = pilot["seat_token"]
    said = {}
    for language in ("de", "en"):
        answer = client.post(
            f"/play/{table.game_id}/order",
            data={"action": "manoeuvre", "cards": "plt-01", "dest": "\u00b2,3"},
            headers={"X-CSRF-Token": CSRF, "HX-Request": "true", "Accept-Language": language},
        )
        assert answer.status_code == 400
        toast = unescape(answer.text).split('data-code="BAD_VALUE"', 1)[1]
        said[language] = toast.split("</", 1)[0]
    assert "Die Spalte eines Felds: eine ganze Zahl von 0 bis" in said["de"]
    assert not _ENGLISH.findall(said["de"]), said["de"]
    assert "A square's column must be a whole number from 0 to" in said["en"]


def test_a_german_script_hears_a_stale_version_in_german_with_its_numbers(
    client: TestClient,
) -> None:
    """The service layer: STALE_VERSION keeps its code, its numbers are parameters."""
    table = Table(client)
    table.gm_command(type="SendMessage", text="First")
    late = {**table.gm, "Accept-Language": "de"}
    stale = table.command(late, expected_version=0, type="SendMessage", text="Late")
    assert stale.status_code == 409
    assert stale.json()["code"] == "STALE_VERSION"
    assert stale.json()["message"].startswith("Das Spiel ist weiter (Version ")
    assert "du hattest 0" in stale.json()["message"]
    english = table.command(table.gm, expected_version=0, type="SendMessage", text="Late")
    assert english.json()["message"].startswith("The game has moved on (version ")
