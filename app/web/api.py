"""The JSON API (OpenAPI at /docs): games, seats, views, commands and events, for scripts, props
and tests. Seats and the GM authenticate with `Authorization: Bearer <token>`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import typing
import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from sqlalchemy import text

from app import service
from app.i18n import requested
from app.rules import COMMANDS
from app.rules.content import MODULES, Catalogue
from app.rules.core.messages import message
from app.service.kept import Kept
from app.service.library import library
from app.web.errors import NestingRoute
from app.web.fields import NAME_LENGTH, name_problem, plain_text
from app.web.join import seat_address
from app.web.reading import off_loop, read_view
from app.web.security import check_command_scope
from app.web.words import request_words, say, with_text

from .deps import ApiCaller, GameId, Nobody, Seated, SessionFactoryDep, unauthenticated

MAX_VERSION = 2**31 - 1  # the events table's version column is a 32-bit integer


class ErrorBody(BaseModel):
    code: str = Field(examples=["WRONG_PHASE"])
    message: str = Field(examples=["That cannot be done during Downtime."])


ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": description}
    for status, description in (
        (400, "Refused by the rules or ill-formed"),
        (401, "Missing or unknown token"),
        (403, "Not yours to do"),
        (404, "No such game, seat, ship, ..."),
        (409, "Conflicts with the game as it is now (e.g. STALE_VERSION)"),
        (413, "The body is too large (TOO_LARGE)"),
        (422, "The body or a parameter has the wrong shape (BAD_REQUEST)"),
        (429, "Too many requests from this token or address (RATE_LIMITED)"),
    )
}


class PlainText(BaseModel):
    """A request body whose every string, extra fields included, is plain text."""

    @model_validator(mode="after")
    def _plain(self) -> PlainText:
        plain_text(self.model_dump())
        return self


router = APIRouter(prefix="/api", tags=["api"], responses=ERRORS, route_class=NestingRoute)
health = APIRouter(tags=["health"])


def command_reference() -> str:
    """Every command the engine knows, with its fields and docstring, for the OpenAPI docs."""
    lines = []
    for name, cls in COMMANDS.items():
        hints = typing.get_type_hints(cls)
        who = "GM" if cls.gm_only else "station or GM"
        doc = " ".join((cls.__doc__ or "").split())
        if doc.startswith(f"{name}("):  # dataclass's generated signature, not a description
            doc = ""
        lines.append(f"* **{name}** ({who}){': ' + doc if doc else ''}")
        for f in dataclasses.fields(cls):
            if f.name in ("actor", "now"):
                continue
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            default = "" if required else f" = {_default(f)}"
            lines.append(
                f"    * `{f.name}`: {_type_name(hints[f.name])}"
                f"{' (required)' if required else default}"
            )
    return "\n".join(lines)


def _default(f: dataclasses.Field[Any]) -> str:
    value = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
    return json.dumps(list(value) if isinstance(value, tuple) else value)


def _type_name(hint: Any) -> str:
    name = str(hint).replace("typing.", "").replace("<class '", "").replace("'>", "")
    return name.replace("tuple[str, ...]", "list[str]")  # what it is in JSON


class NewGame(PlainText):
    scenario: str = Field(examples=["skirmish"])
    seed: int | None = Field(
        default=None,
        ge=0,
        description="A number for a repeatable game (the dice key is made from it); left out, "
        "the dice get a secret key. Never shown again.",
    )
    modules: list[str] = Field(default=[], max_length=10, description=f"Any of {MODULES}.")


class GameCreated(BaseModel):
    game_id: uuid.UUID
    join_code: str
    gm_token: str = Field(description="Shown once: the GM's bearer token for this game.")


class GameSummary(BaseModel):
    game_id: uuid.UUID
    join_code: str
    scenario: str = Field(
        description="The scenario the game began with. After a move to the next battle "
        "(NextBattle) the battle being played is the view's game.scenario."
    )
    version: int


class NewSeat(PlainText):
    ship: str
    station: str
    name: str = Field(min_length=1, max_length=NAME_LENGTH)
    character: str | None = None

    @field_validator("name")
    @classmethod
    def _visible(cls, name: str) -> str:
        problem = name_problem(name)  # the join form's rule too
        if problem:
            raise ValueError(say(problem))  # pydantic's refusals are English (readable())
        return name


class SeatCreated(BaseModel):
    seat_id: uuid.UUID
    seat_token: str = Field(description="Shown once: this seat's bearer token.")


class CommandRequest(PlainText):
    """A command: its `type`, its fields (see the list above) and an id chosen by the client."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "command_id": "9b2c7e0e-1",
                    "expected_version": 3,
                    "type": "SendMessage",
                    "text": "Shields up!",
                    "to": "all",
                }
            ]
        },
    )
    command_id: str = Field(
        min_length=1,
        max_length=200,
        description="Unique per command: a retry with the same id is "
        "applied once and gets the same answer.",
    )
    expected_version: int | None = Field(
        default=None,
        ge=0,
        le=MAX_VERSION,
        description="Refuse with 409 STALE_VERSION unless the game is at this version.",
    )
    type: str


class CommandApplied(BaseModel):
    version: int
    events: list[dict[str, Any]]


class ViewOut(BaseModel):
    version: int
    view: dict[str, Any]


class EventsOut(BaseModel):
    version: int
    events: list[dict[str, Any]]


class VersionOut(BaseModel):
    version: int


@router.get(
    "/scenarios",
    response_class=JSONResponse,
    responses={200: {"content": {"application/json": {}}}},
)
async def list_scenarios(session_factory: SessionFactoryDep) -> Response:
    """The scenarios a game can start from (built-in and the content library's), with each
    ship's stations (what a seat can man), the characters players may take, and the optional
    rules modules."""
    found = await library(session_factory)
    if found.problem is not None:
        raise found.problem
    # The same answer until the library changes: made once per library, in the reads' thread.
    body = await _listings.get(found.key, lambda: off_loop(scenario_listing, found.catalogue))
    return Response(body, media_type="application/json")


_listings: Kept[tuple[Any, ...], bytes] = Kept(1)


def scenario_listing(catalogue: Catalogue) -> bytes:
    scenarios = []
    for scenario in catalogue.scenarios.values():
        ships = [
            {
                "id": p.id,
                "name": p.name,
                "crew": p.crew,
                "side": p.side,
                "class": p.ship_class,
                "stations": [
                    {"id": s.id, "role": s.role} for s in catalogue.ships[p.ship_class].stations
                ],
            }
            for p in scenario.ships
        ]
        scenarios.append(
            {
                "id": scenario.id,
                "name": scenario.name,
                "description": scenario.description,
                "modules": sorted(scenario.modules),
                "ships": ships,
            }
        )
    characters = [
        {"id": c.id, "name": c.name, "blurb": c.blurb} for c in catalogue.characters.values()
    ]
    listing = {"scenarios": scenarios, "characters": characters, "modules": list(MODULES)}
    return bytes(JSONResponse(listing).body)


@router.post("/games", status_code=201)
async def create_game(body: NewGame, session_factory: SessionFactoryDep) -> GameCreated:
    game_id, join_code, gm_token = await service.create_game(
        session_factory, body.scenario, body.seed, body.modules, language=requested.get()
    )
    return GameCreated(game_id=game_id, join_code=join_code, gm_token=gm_token)


@router.get("/games/{game_id}")
async def get_game(game_id: GameId, session_factory: SessionFactoryDep) -> GameSummary:
    game = await service.game_info(session_factory, game_id)
    return GameSummary(
        game_id=game.id, join_code=game.join_code, scenario=game.scenario, version=game.version
    )


@router.post("/games/{game_id}/seats", status_code=201)
async def create_seat(
    request: Request, game_id: GameId, body: NewSeat, session_factory: SessionFactoryDep
) -> SeatCreated:
    """Man a free station, as the join page does. Anyone who knows the game may join; one client
    address holds a limited number of a game's seats (409 SEATS_PER_ADDRESS past it)."""
    seat_id, token = await service.create_seat(
        session_factory,
        game_id,
        body.ship,
        body.station,
        body.name,
        body.character,
        taken_from=seat_address(request.scope),
        per_address=request.app.state.settings.seats_per_address,
    )
    return SeatCreated(seat_id=seat_id, seat_token=token)


@router.delete("/games/{game_id}/seats/{seat_id}")
async def free_seat(
    game_id: GameId, seat_id: str, caller: ApiCaller, session_factory: SessionFactoryDep
) -> VersionOut:
    """Free a seat: the GM for any seat, a seat for itself. Its token stops working."""
    if isinstance(caller, Nobody):
        raise unauthenticated()
    if isinstance(caller, Seated) and str(caller.seat.id) != seat_id:
        raise service.ServiceError("NOT_YOUR_SEAT", message("not_your_seat"))
    version = await service.revoke_seat(session_factory, game_id, seat_id)
    return VersionOut(version=version)


@router.get("/games/{game_id}/view", response_model=ViewOut)
async def get_view(
    game_id: GameId, caller: ApiCaller, session_factory: SessionFactoryDep
) -> Response:
    """The caller's view: a seat's station view, the GM's view, or (no token) the projector's."""
    version, view = await read_view(session_factory, game_id, caller.viewer)
    return await off_loop(view_answer, version, view)


def view_answer(version: int, view: dict[str, Any]) -> Response:
    """ViewOut as JSON, encoded here rather than by FastAPI: it is as large as the view."""
    return JSONResponse({"version": version, "view": view})


@router.post(
    "/games/{game_id}/commands",
    description="Apply one command. The kinds:\n\n" + command_reference(),
)
async def post_command(
    request: Request,
    game_id: GameId,
    body: CommandRequest,
    caller: ApiCaller,
    session_factory: SessionFactoryDep,
) -> CommandApplied:
    data = body.model_dump(exclude={"command_id", "expected_version"})
    if isinstance(caller, Seated):
        check_command_scope(data, game_id, caller.seat.ship, caller.seat.station)
    result = await service.run_command(
        session_factory,
        game_id,
        data,
        caller.actor,
        command_id=body.command_id,
        expected_version=body.expected_version,
    )
    events = with_text(result.visible_events(caller.viewer), request_words(request.scope))
    return CommandApplied(version=result.version, events=events)


@router.get("/games/{game_id}/events")
async def get_events(
    request: Request,
    game_id: GameId,
    caller: ApiCaller,
    session_factory: SessionFactoryDep,
    after: Annotated[int, Query(ge=0, le=MAX_VERSION)] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 500,
) -> EventsOut:
    """Events after version `after`, oldest first, as the caller may see them; each carries its
    `version` and `seq`, its message (`words`: an id and parameters) and its sentence in the
    request's language (`text`). Resume with after=<the last version seen>."""
    version, events = await service.events_after(
        session_factory, game_id, after, caller.viewer, limit
    )
    return EventsOut(version=version, events=with_text(events, request_words(request.scope)))


@health.get("/healthz", responses={503: {"description": "The database does not answer"}})
async def healthz(request: Request) -> JSONResponse:
    """`ok` when the database answers and this process hears its notifications."""
    database = "ok"
    try:
        async with request.app.state.session_factory() as session:
            await asyncio.wait_for(session.execute(text("SELECT 1")), 3)
    except Exception:  # any failure to answer is what this endpoint reports
        database = "down"
    listener = "ok" if request.app.state.hub.listening else "down"
    body = {"status": "ok", "database": database, "listener": listener}
    if database == "ok" and listener == "ok":
        return JSONResponse(body)
    return JSONResponse(
        {
            "code": "DEGRADED",
            "message": f"database {database}, notifications {listener}",
            **body,
            "status": "degraded",
        },
        503,
    )
