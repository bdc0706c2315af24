"""Joining from a phone: /join/{code} -> pick a free station, type a name, pick a character.

Three taps and one text field. The seat token goes into an httponly cookie for this game, so a
reload, a phone that slept or a restarted server brings the player straight back to their seat.
"""

from __future__ import annotations

import functools
import ipaddress
import math
import secrets
from typing import Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup

from app.network import lan_ip
from app.rules import display_view
from app.rules.core.messages import message
from app.service import (
    GameInfo,
    ServiceError,
    create_seat,
    game_by_join_code,
    load_state,
    phone_seat,
    phone_seat_tokens,
)
from app.service.campaign_phones import ask_for_character, join_info
from app.service.games import JOIN_ALPHABET
from app.settings import Settings, get_settings

from .deps import (
    PHONE_COOKIE,
    PHONE_COOKIE_AGE,
    CsrfChecked,
    SessionFactoryDep,
    csrf_token,
    phone_key,
    seat_cookie,
    set_cookie,
    station_seat,
)
from .errors import refusal
from .fields import checked_name
from .limits import JoinLookups, client_address
from .reading import speaking_game
from .render import render_template
from .screen import page
from .templating import qr_svg

router = APIRouter(tags=["join"])

SEAT_COOKIE_AGE = 14 * 24 * 3600  # a weekend event with a rerun the next week


def join_url(request: Request, code: str) -> str:
    """What the join QR code says."""
    return public_url(request, f"/join/{code}")


def public_url(request: Request, path: str) -> str:
    """A link to `path` as other devices reach this server: the public URL if set, else the
    address this request came in on, unless that is loopback (the GM's own laptop), when it is
    the machine's LAN address."""
    settings = get_settings()
    if settings.public_base_url:
        return f"{settings.public_base_url}{path}"
    host = request.url.hostname or "127.0.0.1"
    port = request.url.port
    if _is_loopback(host):
        host = lan_ip()
    netloc = f"{host}:{port}" if port else host
    return f"{request.url.scheme}://{netloc}{path}"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def join_qr(request: Request, code: str) -> dict[str, Any]:
    url = join_url(request, code)
    return {"join_code": code, "join_url": url, "join_qr": drawn_qr(url)}


@functools.lru_cache(maxsize=256)
def drawn_qr(url: str) -> Markup:
    """A game's join link drawn once: drawing a QR code is far more work than the page around it,
    and the projector's and the GM's pages are opened again and again."""
    return qr_svg(url)


def _choices(state: dict[str, Any]) -> dict[str, Any]:
    """Player ships with their stations, the characters nobody has taken (none dead), and whether
    every station is crewed."""
    view = display_view(state)
    ships = [s for s in view["ships"] if s["crew"] == "players" and not s["destroyed"]]
    taken = {st["character"] for s in view["ships"] for st in s["stations"] if st["character"]}
    # From the game's own copy: a game keeps the characters it began with (library ones too).
    characters = [
        {"id": ch["id"], "name": ch["name"], "blurb": ch["blurb"]}
        for _, ch in sorted(state["characters"].items())
        if ch["id"] not in taken and ch["status"] != "dead"
    ]
    # Every station taken: the page offers the projector's view to watch from instead of a form.
    full = bool(ships) and all(st["crew"] for s in ships for st in s["stations"])
    return {"view": view, "ships": ships, "characters": characters, "full": full}


class TooManyCodes(Exception):
    def __init__(self, wait: float) -> None:
        super().__init__(f"retry in {wait:.1f} s")
        self.seconds = max(1, math.ceil(wait))


async def _game(request: Request, session_factory: Any, code: str) -> GameInfo | None:
    """The game with this join code, or None. Only unknown codes count against the address (see
    JoinLookups); one that has tried too many is refused before anything is looked up."""
    lookups: JoinLookups = request.app.state.join_lookups
    wait = lookups.wait(request.scope)
    if wait:
        raise TooManyCodes(wait)
    game = await game_by_join_code(session_factory, code) if _plausible(code) else None
    if game is None:
        lookups.missed(request.scope)
    return game


def _plausible(code: str) -> bool:
    """Whether a code could be one at all (a code is typed in any case, with spaces): anything
    else is unknown without asking the database."""
    code = "".join(code.split()).upper()
    return 4 <= len(code) <= 8 and all(char in JOIN_ALPHABET for char in code)


def _too_many_codes(request: Request, refused: TooManyCodes) -> Response:
    return refusal(
        request.scope,
        429,
        "RATE_LIMITED",
        message("too_many_codes", seconds=refused.seconds),
        **{"Retry-After": str(refused.seconds)},
    )


@router.get("/join", response_class=HTMLResponse)
async def join_start(request: Request, code: str = "") -> Response:
    if code.strip():
        return RedirectResponse(f"/join/{code.strip().upper()}", status_code=303)
    token = csrf_token(request)
    html = render_template("join.html", game=None, code="", csrf=token, error=None)
    return _with_phone_key(request, page(html, token))


@router.get("/join/{code}", response_class=HTMLResponse)
async def join_page(
    request: Request, code: str, session_factory: SessionFactoryDep, error: str | None = None
) -> Response:
    token = csrf_token(request)
    try:
        game = await _game(request, session_factory, code)
    except TooManyCodes as refused:
        return _too_many_codes(request, refused)
    if game is None:
        html = render_template(
            "join.html",
            game=None,
            code=code,
            csrf=token,
            error=message("no_game_with_code", code=code.upper()),
        )
        return _with_phone_key(request, page(html, token, 404))
    if await station_seat(request, game.id) is not None:
        return RedirectResponse(f"/play/{game.id}", status_code=303)  # already seated here
    # Seated, but the answer that carried the seat's cookie never arrived: back to that seat.
    held = await phone_seat(session_factory, game.id, _phone_tokens(request, game.id))
    if held is not None:
        return _seated(game.id, held)
    _, state = await load_state(session_factory, game.id)
    choices = await _campaign_choices(request, session_factory, game, _choices(state))
    async with speaking_game(session_factory, game.id):
        html = render_template(
            "join.html", game=game, code=game.join_code, csrf=token, error=error, **choices
        )
    return _with_phone_key(request, page(html, token))


@router.post("/join/{code}")
async def join(
    request: Request,
    code: str,
    session_factory: SessionFactoryDep,
    csrf: CsrfChecked,
    seat: str = Form(""),
    name: str = Form(""),
    character: str = Form(""),
) -> Response:
    try:
        game = await _game(request, session_factory, code)
    except TooManyCodes as refused:
        return _too_many_codes(request, refused)
    if game is None:
        return RedirectResponse(f"/join/{code}", status_code=303)
    ship, _, station = seat.partition("/")
    try:
        if not ship or not station:
            raise ServiceError("NO_STATION", message("tap_your_station"))
        name = checked_name(name)  # the JSON API's rule too
        # A phone crews one station of a game: one seated here goes back to its station. Its
        # own tokens make asking twice (a lost answer, a double tap, the browser sending the
        # form again) find the seat the first try made.
        if await station_seat(request, game.id) is not None:
            return RedirectResponse(f"/play/{game.id}", status_code=303)
        campaign = await join_info(session_factory, game.id, _secret(request), phone_key(request))
        _seat_id, seat_token = await create_seat(
            session_factory,
            game.id,
            ship,
            station,
            name,
            character or None,
            phone_tokens=_phone_tokens(request, game.id),
            taken_from=seat_address(request.scope),
            per_address=_settings(request).seats_per_address,
            known_characters=campaign.yours if campaign else (),
        )
    except ServiceError as error:
        error = await _ask_gm(request, session_factory, game, error, character, name)
        return await _again(request, session_factory, game, error, seat, name, character)
    return _seated(game.id, seat_token)


def _seated(game_id: Any, seat_token: str) -> Response:
    response = RedirectResponse(f"/play/{game_id}", status_code=303)
    set_cookie(response, seat_cookie(game_id), seat_token, SEAT_COOKIE_AGE)
    return response


def _with_phone_key(request: Request, response: Response) -> Response:
    """The join page gives a phone its key the first time, for the form it sends next, and keeps
    it for another PHONE_COOKIE_AGE each time: a campaign knows its phones by it next month."""
    phone = phone_key(request) or secrets.token_urlsafe(32)
    set_cookie(response, PHONE_COOKIE, phone, PHONE_COOKIE_AGE)
    return response


def _phone_tokens(request: Request, game_id: Any) -> list[str]:
    """The seat tokens of this phone in this game, from its key (none before it has one: the
    join page sets it)."""
    phone = phone_key(request)
    if phone is None:
        return []
    return phone_seat_tokens(_settings(request).secret_key, game_id, phone)


def _secret(request: Request) -> str:
    return _settings(request).secret_key


async def _campaign_choices(
    request: Request, session_factory: Any, game: GameInfo, choices: dict[str, Any]
) -> dict[str, Any]:
    """In a campaign's evening (G-CAMP-1) the phone's own characters come first and are chosen,
    and those other phones play are marked: taking one asks the GM."""
    campaign = await join_info(session_factory, game.id, _secret(request), phone_key(request))
    if campaign is None:
        return choices
    characters = sorted(
        choices["characters"],
        key=lambda ch: (ch["id"] not in campaign.yours, ch["id"] in campaign.claimed),
    )
    # A returning phone's form comes filled in: its station (if free), its name.
    chosen = {"seat": campaign.seat or "", "name": campaign.player or ""}
    return {**choices, "characters": characters, "campaign": campaign, "chosen": chosen}


async def _ask_gm(
    request: Request,
    session_factory: Any,
    game: GameInfo,
    error: ServiceError,
    character: str,
    name: str,
) -> ServiceError:
    """A phone that chose a character another phone plays asks the GM for them."""
    phone = phone_key(request)
    if error.code != "CHARACTER_CLAIMED" or phone is None or not character:
        return error
    await ask_for_character(session_factory, game.id, character, _secret(request), phone, name)
    return ServiceError("CHARACTER_ASKED", message("character_asked"), 409)


def _settings(request: Request) -> Settings:
    return getattr(request.app.state, "settings", None) or get_settings()


def seat_address(scope: Any) -> str:
    """The address a seat is taken from, as it is kept and counted (an IPv6 address by its /64,
    as the rate limits count it)."""
    return client_address(scope).removeprefix("address:")


async def _again(
    request: Request,
    session_factory: Any,
    game: GameInfo,
    error: ServiceError,
    seat: str,
    name: str,
    character: str,
) -> Response:
    """The form again with what was typed and why it failed (a station taken meanwhile, say)."""
    token = csrf_token(request)
    _, state = await load_state(session_factory, game.id)
    choices = await _campaign_choices(request, session_factory, game, _choices(state))
    async with speaking_game(session_factory, game.id):
        html = render_template(
            "join.html",
            game=game,
            code=game.join_code,
            csrf=token,
            error=error.message,
            error_code=error.code,
            **{**choices, "chosen": {"seat": seat, "name": name, "character": character}},
        )
    return _with_phone_key(request, page(html, token, error.status))
