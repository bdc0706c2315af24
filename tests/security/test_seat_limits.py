"""One client address took every station of a game in a fraction of a second,
so the real players could only watch. Seats are limited per address and game (the setting
`seats_per_address`, 6 unless set), with a code and a sentence on the join page and in the API;
a phone crews one station; and the GM frees every seat one address holds in one action.

Clients are told apart by their address as a reverse proxy reports it (`Venue`)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

import pytest

from app.service import ServiceError, create_seat, seats_of
from app.settings import Settings
from app.web.deps import gm_cookie
from tests.security.test_abuse import Venue, _venue
from tests.web.test_routes import csrf_of

GM_AT = "192.0.2.250"
STRANGER = "198.51.100.7"
PLAYER = "203.0.113.9"


@pytest.fixture
def venue(settings: Settings) -> Iterator[Venue]:
    yield from _venue(settings, None)  # the rate limits as shipped


def _convoy(venue: Venue) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """A convoy game (two player ships, nine stations) and its player stations."""
    made = venue.at(GM_AT)("POST", "/api/games", json={"scenario": "convoy", "seed": 5})
    assert made.status_code == 201, made.text
    scenarios = venue.at(GM_AT)("GET", "/api/scenarios").json()["scenarios"]
    convoy = next(s for s in scenarios if s["id"] == "convoy")
    stations = [
        (ship["id"], station["id"])
        for ship in convoy["ships"]
        if ship["crew"] == "players"
        for station in ship["stations"]
    ]
    return made.json(), stations


def _take(venue: Venue, address: str, game_id: str, ship: str, station: str) -> Any:
    return venue.at(address)(
        "POST",
        f"/api/games/{game_id}/seats",
        json={"ship": ship, "station": station, "name": f"{ship} {station}"},
    )


def _join_form(venue: Venue, address: str, code: str, ship: str, station: str) -> Any:
    """The join page's form, sent as a phone at `address` fills it in."""
    page = venue.at(address)("GET", f"/join/{code}")
    return venue.at(address)(
        "POST",
        f"/join/{code}",
        data={"seat": f"{ship}/{station}", "name": "Ann", "csrf": csrf_of(page.text)},
        follow_redirects=False,
    )


def test_one_address_holds_at_most_six_seats_of_a_game(venue: Venue) -> None:
    game, stations = _convoy(venue)
    assert len(stations) > 6 + 1
    taken = [_take(venue, STRANGER, game["game_id"], *where) for where in stations[:6]]
    assert [answer.status_code for answer in taken] == [201] * 6

    refused = _take(venue, STRANGER, game["game_id"], *stations[6])
    assert refused.status_code == 409
    assert refused.json()["code"] == "SEATS_PER_ADDRESS"
    assert "network address already holds 6 stations" in refused.json()["message"]

    # The join page says the same, with the form kept for another try.
    answer = _join_form(venue, STRANGER, game["join_code"], *stations[6])
    assert answer.status_code == 409
    assert 'data-code="SEATS_PER_ADDRESS"' in answer.text
    assert "network address already holds 6 stations" in answer.text

    # Players elsewhere still get in, and the count is per game.
    assert _take(venue, PLAYER, game["game_id"], *stations[6]).status_code == 201
    other, _ = _convoy(venue)
    assert _take(venue, STRANGER, other["game_id"], *stations[0]).status_code == 201


@pytest.fixture
def two_per_address(settings: Settings) -> Iterator[Venue]:
    yield from _venue(settings.model_copy(update={"seats_per_address": 2}), None)


def test_seats_sent_at_once_from_one_address_stop_at_the_limit(two_per_address: Venue) -> None:
    """The count is taken under the game's lock: a burst cannot slip past it."""
    venue = two_per_address
    game, stations = _convoy(venue)
    factory = venue.app.state.session_factory

    async def burst() -> list[Any]:
        tries = [
            create_seat(
                factory, game["game_id"], ship, station, "Bot", taken_from=STRANGER, per_address=2
            )
            for ship, station in stations
        ]
        return await asyncio.gather(*tries, return_exceptions=True)

    answers = venue.run(burst)
    refused = [answer for answer in answers if isinstance(answer, ServiceError)]
    assert len(answers) - len(refused) == 2
    assert {error.code for error in refused} == {"SEATS_PER_ADDRESS"}

    async def held() -> int:
        return len(await seats_of(factory, game["game_id"]))

    assert venue.run(held) == 2
    # The setting is the limit the join routes apply.
    assert _take(venue, STRANGER, game["game_id"], *stations[-1]).status_code == 409


def test_a_phone_crews_one_station_of_a_game(venue: Venue) -> None:
    """A phone seated here that sends the join form again (another tab, the back button) goes
    back to its station: it gets no second seat."""
    game, stations = _convoy(venue)
    code = game["join_code"]
    for ship, station in stations[:2]:
        answer = _join_form(venue, PLAYER, code, ship, station)
        assert answer.status_code == 303
        assert answer.headers["location"] == f"/play/{game['game_id']}"
    seats = venue.at(GM_AT)(
        "GET", f"/api/games/{game['game_id']}/view", headers={"Authorization": _bearer(game)}
    ).json()["view"]["ships"]
    crewed = [st for ship in seats for st in ship["stations"] if st["crew"]]
    assert len(crewed) == 1, crewed


def _bearer(game: dict[str, Any]) -> str:
    return f"Bearer {game['gm_token']}"


def test_the_gm_frees_every_seat_one_address_holds(venue: Venue) -> None:
    game, stations = _convoy(venue)
    game_id = game["game_id"]
    tokens = [
        _take(venue, STRANGER, game_id, *where).json()["seat_token"] for where in stations[:6]
    ]
    player = _take(venue, PLAYER, game_id, *stations[6]).json()["seat_token"]

    gm = venue.at(GM_AT)
    venue.client.cookies.set(gm_cookie(game_id), game["gm_token"])
    dashboard = gm("GET", f"/gm/{game_id}")
    seats = gm("GET", f"/gm/{game_id}/seats").text
    assert seats.count(f"from {STRANGER}") == 6 and seats.count(f"from {PLAYER}") == 1
    assert "Free all 6 from this address" in seats
    button = re.search(r'<button[^>]*data-confirm="([^"]*)"[^>]*>Free all 6', seats)
    assert button is not None and STRANGER in button.group(1)  # a second click, as Free asks

    csrf = {"X-CSRF-Token": csrf_of(dashboard.text)}
    free_all = f"/gm/{game_id}/seats/free-address"
    freed = gm("POST", free_all, data={"address": STRANGER}, headers=csrf)
    assert freed.status_code == 200
    assert f"from {STRANGER}" not in freed.text and f"from {PLAYER}" in freed.text

    for token in tokens:  # each seat ended as Free ends one: its token opens nothing
        view = gm("GET", f"/api/games/{game_id}/view", headers={"Authorization": f"Bearer {token}"})
        assert view.status_code == 401
    view = gm("GET", f"/api/games/{game_id}/view", headers={"Authorization": _bearer(game)})
    crew = {
        (ship["id"], st["id"]): st["crew"]
        for ship in view.json()["view"]["ships"]
        for st in ship["stations"]
    }
    assert all(crew[where] is None for where in stations[:6])
    assert crew[stations[6]] is not None
    mine = gm("GET", f"/api/games/{game_id}/view", headers={"Authorization": f"Bearer {player}"})
    assert mine.status_code == 200

    # The stations are free again for the players; and nothing is left to free there.
    assert _take(venue, PLAYER, game_id, *stations[0]).status_code == 201
    again = gm("POST", free_all, data={"address": STRANGER}, headers=csrf)
    assert "No seat of this game is held from that address" in again.text
