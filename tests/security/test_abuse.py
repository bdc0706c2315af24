"""Abuse from one place: a client making up tokens or cookies to dodge the rate limit, and a
client guessing join codes. Each client is told apart by its address, as a reverse proxy in
front of the server reports it (X-Forwarded-For, read by uvicorn's own middleware)."""

from __future__ import annotations

import random
import secrets
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from app.db.models import Game, Seat
from app.main import create_app
from app.service.games import JOIN_ALPHABET
from app.settings import Settings

STRICT = {
    "command_rate": 0.01,
    "command_burst": 3,
    "anonymous_rate": 0.01,
    "anonymous_burst": 3,
    "join_miss_rate": 0.01,
    "join_miss_burst": 5,
}
T = TypeVar("T")
PAGE = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}  # what a browser sends


class Venue:
    """The app behind a proxy: `at(address)` sends as a client at that address."""

    def __init__(self, client: TestClient, app: FastAPI) -> None:
        self.client = client
        self.app = app

    def at(self, address: str) -> Callable[..., httpx.Response]:
        def send(method: str, url: str, **kwargs: Any) -> httpx.Response:
            headers = {"X-Forwarded-For": address, **kwargs.pop("headers", {})}
            response: httpx.Response = self.client.request(method, url, headers=headers, **kwargs)
            return response

        return send

    def count(self, table: type[Game] | type[Seat]) -> int:
        async def rows() -> int:
            async with self.app.state.session_factory() as session:
                return int(await session.scalar(select(func.count()).select_from(table)) or 0)

        return self.run(rows)

    def run(self, job: Callable[[], Awaitable[T]]) -> T:
        """Run a coroutine on the app's event loop (its database pool lives there)."""
        assert self.client.portal is not None
        return self.client.portal.call(job)

    def game(self, address: str = "192.0.2.250") -> dict[str, Any]:
        made = self.at(address)("POST", "/api/games", json={"scenario": "skirmish", "seed": 3})
        assert made.status_code == 201, made.text
        return dict(made.json())


def _venue(settings: Settings, limits: dict[str, Any] | None) -> Iterator[Venue]:
    app = create_app(settings.model_copy(update=limits or {}))
    app.add_middleware(ProxyHeadersMiddleware, trusted_hosts="*")  # outermost: first to run
    with TestClient(app) as client:
        yield Venue(client, app)


@pytest.fixture
def venue(settings: Settings) -> Iterator[Venue]:
    yield from _venue(settings, STRICT)


@pytest.fixture
def venue_as_shipped(settings: Settings) -> Iterator[Venue]:
    yield from _venue(settings, None)


def junk() -> str:
    return secrets.token_urlsafe(32)


def bearer() -> dict[str, str]:
    return {"Authorization": f"Bearer {junk()}"}


# --- Finding 5: a made-up token is not an identity ---------------------------------------------

# Every unsafe route a stranger can reach, each time with a fresh made-up credential: a bearer
# token, and for the screens the game's seat or GM cookie as well.
ROUTES: dict[str, Callable[[dict[str, Any]], tuple[str, str, dict[str, Any]]]] = {
    "create a game (API)": lambda g: ("POST", "/api/games", {"json": {"scenario": "skirmish"}}),
    "create a game (lobby form)": lambda g: ("POST", "/gm", {"data": {"scenario": "skirmish"}}),
    "join (API)": lambda g: (
        "POST",
        f"/api/games/{g['game_id']}/seats",
        {"json": {"ship": "kestrel", "station": "comms", "name": "Ann"}},
    ),
    "join (form)": lambda g: (
        "POST",
        f"/join/{g['join_code']}",
        {
            "data": {"seat": "kestrel/comms", "name": "Ann"},
            "cookies": {f"bc_seat_{g['game_id']}": junk()},
        },
    ),
    "command (API)": lambda g: (
        "POST",
        f"/api/games/{g['game_id']}/commands",
        {"json": {"command_id": junk(), "type": "SetRedAlert", "on": True}},
    ),
    "order (phone, seat cookie)": lambda g: (
        "POST",
        f"/play/{g['game_id']}/pass",
        {"cookies": {f"bc_seat_{g['game_id']}": junk()}},
    ),
    "command (GM screen, GM cookie)": lambda g: (
        "POST",
        f"/gm/{g['game_id']}/command",
        {
            "data": {"type": "SetRedAlert", "on": "true"},
            "cookies": {f"bc_gm_{g['game_id']}": junk()},
        },
    ),
}


@pytest.mark.parametrize("route", ROUTES)
def test_a_fresh_made_up_credential_each_time_buys_no_fresh_allowance(
    venue: Venue, route: str
) -> None:
    """Finding 5: only a token that opens the game counts as a caller of its own; anything else
    is limited by its address, so the fourth request of a burst of three is refused."""
    game = venue.game()
    send = venue.at("203.0.113.5")
    statuses = []
    for _ in range(6):
        method, url, kwargs = ROUTES[route](game)
        cookies = kwargs.pop("cookies", {})
        headers = bearer()
        if cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        statuses.append(send(method, url, headers=headers, **kwargs).status_code)
    assert 429 not in statuses[:3], statuses
    assert statuses[3:] == [429, 429, 429], statuses


def test_made_up_tokens_do_not_grow_the_database(venue: Venue) -> None:
    """Finding 5 as reported: 120 games in a second and seats without end, one junk token each."""
    game = venue.game()
    games, seats = venue.count(Game), venue.count(Seat)
    send = venue.at("203.0.113.6")
    made = [
        send("POST", "/api/games", json={"scenario": "skirmish"}, headers=bearer()).status_code
        for _ in range(20)
    ]
    assert made.count(201) == 3 and made[3:] == [429] * 17
    stations = ["weapons", "pilot", "engineering", "comms"]
    joined = [
        send(
            "POST",
            f"/api/games/{game['game_id']}/seats",
            json={"ship": "kestrel", "station": station, "name": "Ann"},
            headers=bearer(),
        ).status_code
        for station in stations
    ]
    assert joined == [429, 429, 429, 429]  # this address spent its allowance on games
    assert (venue.count(Game), venue.count(Seat)) == (games + 3, seats)


def test_real_tokens_keep_their_own_allowance_but_cannot_mint_more(venue: Venue) -> None:
    """A seat or the GM is limited per token, whatever its address has spent; but making games
    or seats is counted against the address even with a real token, or every token made would
    bring a fresh allowance to make the next."""
    game = venue.game()
    gm = {"Authorization": f"Bearer {game['gm_token']}"}
    send = venue.at("203.0.113.7")
    seat = send(
        "POST",
        f"/api/games/{game['game_id']}/seats",
        json={"ship": "kestrel", "station": "weapons", "name": "Ann"},
    )
    assert seat.status_code == 201
    for _ in range(2):  # the address's allowance, spent with junk
        send("POST", "/api/games", json={"scenario": "skirmish"}, headers=bearer())
    assert send("POST", "/api/games", json={"scenario": "x"}, headers=gm).status_code == 429
    joined = send(
        "POST",
        f"/api/games/{game['game_id']}/seats",
        json={"ship": "kestrel", "station": "pilot", "name": "Bo"},
        headers={"Authorization": f"Bearer {seat.json()['seat_token']}"},
    )
    assert joined.status_code == 429
    command = {"command_id": "real", "type": "SetRedAlert", "on": True}
    url = f"/api/games/{game['game_id']}/commands"
    assert send("POST", url, json=command, headers=gm).status_code == 200
    cookie = {"Cookie": f"bc_seat_{game['game_id']}={seat.json()['seat_token']}"}
    phone = send("POST", f"/play/{game['game_id']}/pass", headers=cookie)
    assert phone.status_code == 403 and phone.json()["code"] == "BAD_CSRF"  # past the limiter


# --- Finding 9: guessing join codes -----------------------------------------------------------


def wrong_codes(right: str, how_many: int) -> list[str]:
    """Different codes a guesser might try, none of them the game's."""
    draw = random.Random(9)
    codes: set[str] = set()
    while len(codes) < how_many:
        codes.add("".join(draw.choice(JOIN_ALPHABET) for _ in range(len(right))))
        codes.discard(right)
    return sorted(codes)


def test_guessing_join_codes_is_refused_long_before_the_codes_run_out(
    venue_as_shipped: Venue,
) -> None:
    """Finding 9, with the limits as shipped: a burst of wrong codes from one address meets 429
    after a few dozen (of 32^6 codes); that address then learns nothing, not even from the right
    code; another address gets in at once, and a phone may scan its right code again and again."""
    venue = venue_as_shipped
    game = venue.game()
    code = game["join_code"]
    guesser = venue.at("203.0.113.9")
    # Thirty-five: past forty (app.settings, read_burst) every read of this address is paced.
    statuses = [guesser("GET", f"/join/{guess}").status_code for guess in wrong_codes(code, 35)]
    first = statuses.index(429)
    assert first <= 40 and set(statuses[:first]) == {404}
    assert set(statuses[first:]) == {429}
    refused = guesser("GET", f"/join/{code}", headers=PAGE)
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert "text/html" in refused.headers["content-type"]
    assert (
        "Too many unknown game codes" in refused.text and 'data-code="RATE_LIMITED"' in refused.text
    )
    form = {"seat": "kestrel/pilot", "name": "Eve", "csrf": venue.client.cookies["bc_csrf"]}
    posted = guesser("POST", f"/join/{code}", data=form)
    assert posted.status_code == 429 and posted.json()["code"] == "RATE_LIMITED"
    player = venue.at("198.51.100.20")
    assert all(player("GET", f"/join/{code}").status_code == 200 for _ in range(40))


def test_wrong_codes_posted_to_the_join_form_count_too(venue: Venue) -> None:
    """Three wrong codes posted and two looked up use up this address's five misses."""
    game = venue.game()
    guesser = venue.at("203.0.113.10")
    wrong = wrong_codes(game["join_code"], 5)
    assert guesser("GET", "/join").status_code == 200  # the form, and its CSRF cookie
    form = {"seat": "kestrel/pilot", "name": "Eve", "csrf": venue.client.cookies["bc_csrf"]}
    for code in wrong[:3]:
        posted = guesser("POST", f"/join/{code}", data=form, follow_redirects=False)
        assert posted.status_code == 303 and posted.headers["location"] == f"/join/{code}"
    assert [guesser("GET", f"/join/{code}").status_code for code in wrong[3:]] == [404, 404]
    assert guesser("GET", f"/join/{game['join_code']}").status_code == 429


def test_a_game_made_with_a_four_letter_code_still_opens_with_it(venue: Venue) -> None:
    """Codes are six characters now (a billion, not a million); games made before keep their
    four."""
    game = venue.game()
    assert len(game["join_code"]) == 6

    async def shorten() -> None:
        async with venue.app.state.session_factory() as session, session.begin():
            await session.execute(
                update(Game).where(Game.id == game["game_id"]).values(join_code="K7QF")
            )

    venue.run(shorten)
    page = venue.at("198.51.100.21")("GET", "/join/k7qf")
    assert page.status_code == 200 and "K7QF" in page.text


@pytest.mark.parametrize("code", ["%00", "A" * 300, "K7Q\u202eF", "%F0%9F%9A%80"])
def test_codes_that_cannot_be_codes_are_unknown_games(venue: Venue, code: str) -> None:
    """A NUL or any text that cannot be a code gets the 'no such game' page, never a 4xx from
    the database or a 500."""
    answer = venue.at("198.51.100.22")("GET", f"/join/{code}")
    assert answer.status_code == 404 and "There is no game with the code" in answer.text
