"""A whole campaign as one file, to move it to another laptop: its state, commands, events,
evenings (with the reports kept) and the phones it knows.

An import trusts nothing in the file and checks it whole before anything is written, as a game's
(app/backup.py): the format and its version (a newer one is refused by name), no nesting past
NESTING_MAX, each section's fields, keyed dice, the name by the one name rule, and then the
campaign itself: its commands are replayed from its dice's start through the engine, and every
version's events and the last state must be the file's. So a file says nothing the engine did not
say, and a replay of it gives the campaign it holds. A running evening's game must be on this
server (import its game first). The campaign gets a fresh GM token; a phone is known again only
on a server with the same secret key, since its tokens are derived from it.
"""

from __future__ import annotations

import dataclasses
import secrets
import uuid
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import select

from app.db.models import (
    Campaign,
    CampaignCommand,
    CampaignEvening,
    CampaignEvent,
    CampaignPhone,
    Game,
)
from app.nesting import NESTING_MAX, TooDeep, loads_json
from app.rules import Actor, RulesError, rng
from app.rules import campaign as camp
from app.rules.core.messages import message
from app.rules.core.names import name_problem

from .campaigns import CAMPAIGN_NAME_LENGTH, campaign_key, no_such_campaign
from .commands import SessionFactory, canonical
from .errors import ServiceError
from .games import token_hash

FORMAT = "bridgecrew-campaign"
FORMAT_VERSION = 1
READS = (FORMAT_VERSION,)
Json = dict[str, Any]


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


async def export_campaign(session_factory: SessionFactory, campaign_id: uuid.UUID | str) -> Json:
    key = campaign_key(campaign_id)
    async with session_factory() as session:
        campaign = await session.get(Campaign, key)
        if campaign is None:
            raise no_such_campaign()

        async def rows(model: Any, *order: Any) -> list[Any]:
            found = await session.scalars(
                select(model).where(model.campaign_id == key).order_by(*order)
            )
            return list(found)

        commands = await rows(CampaignCommand, CampaignCommand.version)
        events = await rows(CampaignEvent, CampaignEvent.version, CampaignEvent.seq)
        evenings = await rows(CampaignEvening, CampaignEvening.number)
        phones = await rows(CampaignPhone, CampaignPhone.id)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "campaign": {
            "id": str(campaign.id),
            "name": campaign.name,
            "seed": campaign.seed,  # the dice's key: this file is for the GM's eyes
            "version": campaign.version,
            "state": campaign.state,
            "created_at": _time(campaign.created_at),
        },
        "commands": [
            {
                "sender": c.sender,
                "command_id": c.command_id,
                "version": c.version,
                "result": c.result,
            }
            for c in commands
        ],
        "events": [{"version": e.version, "seq": e.seq, "data": e.data} for e in events],
        "evenings": [
            {
                "number": e.number,
                "game_id": str(e.game_id),
                "report": e.report,
                "began_at": _time(e.began_at),
                "ended_at": _time(e.ended_at),
            }
            for e in evenings
        ],
        "phones": [
            {
                "character": p.character,
                "kind": p.kind,
                "phone_hash": p.phone_hash,
                "game_id": None if p.game_id is None else str(p.game_id),
                "seat": p.seat,
                "name": p.name,
                "approved": p.approved,
            }
            for p in phones
        ],
    }


def _bad(what: str, version: int | None = None) -> ServiceError:
    if version is None:
        return ServiceError("BAD_CAMPAIGN_FILE", message("bad_campaign_file", part=what))
    said = message("bad_campaign_file_at", part=what, version=version)
    return ServiceError("BAD_CAMPAIGN_FILE", said)


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= 500


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_uuid(value: Any) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return isinstance(value, str)


def _is_time(value: Any) -> bool:
    if value is None:
        return True
    try:
        datetime.fromisoformat(str(value))
    except ValueError:
        return False
    return isinstance(value, str)


def _rows(data: Json, section: str, fields: Mapping[str, Callable[[Any], bool]]) -> list[Json]:
    found = data.get(section)
    if not isinstance(found, list):
        raise _bad(section)
    for n, row in enumerate(found):
        if not isinstance(row, dict) or not all(
            check(row.get(name)) for name, check in fields.items()
        ):
            raise _bad(f"{section} {n + 1}")
    return found


def _parsed(raw: bytes) -> Json:
    try:
        data = loads_json(raw, NESTING_MAX)
    except TooDeep:
        raise ServiceError(
            "TOO_DEEP", message("campaign_file_too_deep", most=NESTING_MAX)
        ) from None
    except ValueError:
        raise _bad("JSON") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ServiceError("NOT_A_CAMPAIGN_FILE", message("not_a_campaign_file"))
    version = data.get("format_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > FORMAT_VERSION:
        raise ServiceError(
            "CAMPAIGN_FILE_NEWER",
            message("campaign_file_newer", version=version, reads=FORMAT_VERSION),
        )
    if version not in READS:
        raise _bad("format_version")
    return data


@dataclasses.dataclass(frozen=True)
class Checked:
    campaign: Json
    state: Json
    commands: list[Json]
    events: list[Json]
    evenings: list[Json]
    phones: list[Json]


def check_campaign_file(raw: bytes) -> Checked:
    """The file, checked whole (see the module's docstring); ServiceError naming what is wrong."""
    data = _parsed(raw)
    campaign = data.get("campaign")
    if not isinstance(campaign, dict) or not _is_uuid(campaign.get("id")):
        raise _bad("campaign")
    name = campaign.get("name")
    if not isinstance(name, str) or name_problem(name, CAMPAIGN_NAME_LENGTH) is not None:
        raise _bad("name")
    seed = campaign.get("seed")
    if not isinstance(seed, dict) or seed.get("kind") != rng.KEYED:
        raise _bad("seed")  # unkeyed dice could be worked out (G-TURN-3)
    commands = _rows(
        data,
        "commands",
        {"sender": _is_text, "command_id": _is_text, "version": _is_whole, "result": _is_dict},
    )
    events = _rows(data, "events", {"version": _is_whole, "seq": _is_whole, "data": _is_dict})
    evenings = _rows(
        data,
        "evenings",
        {"number": _is_whole, "game_id": _is_uuid, "began_at": _is_time, "ended_at": _is_time},
    )
    phones = _rows(
        data,
        "phones",
        {
            "character": _is_text,
            "kind": lambda k: k in ("played", "asked"),
            "phone_hash": lambda h: isinstance(h, str) and 32 <= len(h) <= 128,
            "game_id": lambda g: g is None or _is_uuid(g),
            "seat": lambda s: s is None or _is_text(s),
            "name": lambda n: n is None or _is_text(n),
            "approved": lambda a: a is None or isinstance(a, bool),
        },
    )
    state = _replayed(name, seed, commands, events)
    if canonical(campaign.get("state")) != state:
        raise _bad("state")
    numbers = [e["number"] for e in state["evenings"]]
    if state["evening"] is not None:
        numbers.append(state["evening"]["number"])
    if sorted(e["number"] for e in evenings) != numbers:
        raise _bad("evenings")
    return Checked(campaign, state, commands, events, evenings, phones)


def _is_dict(value: Any) -> bool:
    return isinstance(value, dict)


def _replayed(name: str, seed: Json, commands: list[Json], events: list[Json]) -> Json:
    """The campaign as its commands make it from its dice's start, each version's events the
    file's own."""
    try:
        state: Json = canonical(camp.new_campaign(name, seed))
    except ValueError:
        raise _bad("seed") from None
    said: dict[int, list[Json]] = {}
    for event in sorted(events, key=lambda e: (e["version"], e["seq"])):
        said.setdefault(event["version"], []).append(event["data"])
    for n, entry in enumerate(sorted(commands, key=lambda c: c["version"]), start=1):
        if entry["version"] != n:
            raise _bad("commands")
        result = entry["result"]
        try:
            actor = Actor(**result["actor"])
            command = camp.parse_campaign_command(result["command"], actor, float(result["now"]))
            state, made = camp.apply(state, command)
        except (RulesError, KeyError, TypeError, ValueError):
            raise _bad("commands", version=n) from None
        state = canonical(state)
        if canonical(made) != canonical(said.get(n, [])):
            raise _bad("events", version=n)
    if set(said) - set(range(1, len(commands) + 1)):
        raise _bad("events")
    return state


async def replay_campaign(session_factory: SessionFactory, campaign_id: uuid.UUID | str) -> Json:
    """The campaign rebuilt from its dice's start by applying every stored command again (and
    checked against its stored events on the way): G-CAMP-8, a campaign replays."""
    data = await export_campaign(session_factory, campaign_id)
    return _replayed(
        data["campaign"]["name"], data["campaign"]["seed"], data["commands"], data["events"]
    )


async def import_campaign(session_factory: SessionFactory, raw: bytes) -> tuple[uuid.UUID, str]:
    """The file's campaign on this server, written in one transaction once it is checked whole:
    (its id, a fresh GM token)."""
    checked = check_campaign_file(raw)
    key = uuid.UUID(checked.campaign["id"])
    gm_token = secrets.token_urlsafe(32)
    async with session_factory() as session, session.begin():
        if await session.get(Campaign, key) is not None:
            raise ServiceError("CAMPAIGN_EXISTS", message("campaign_exists"), 409)
        running = checked.state["evening"]
        if running is not None:
            game = uuid.UUID(str(running["game"]))
            if await session.get(Game, game) is None:
                raise ServiceError(
                    "EVENING_GAME_MISSING",
                    message("campaign_evening_game_missing", number=running["number"]),
                )
        taken = await session.scalars(
            select(CampaignEvening.game_id).where(
                CampaignEvening.game_id.in_([uuid.UUID(e["game_id"]) for e in checked.evenings])
            )
        )
        if list(taken):
            raise ServiceError("CAMPAIGN_EXISTS", message("campaign_exists"), 409)
        session.add(
            Campaign(
                id=key,
                name=checked.state["name"],
                seed=checked.campaign["seed"],
                version=len(checked.commands),
                state=checked.state,
                gm_token_hash=token_hash(gm_token),
            )
        )
        await session.flush()
        for c in checked.commands:
            session.add(
                CampaignCommand(
                    campaign_id=key,
                    sender=c["sender"],
                    command_id=c["command_id"],
                    version=c["version"],
                    result=c["result"],
                )
            )
        for e in checked.events:
            data = e["data"]
            session.add(
                CampaignEvent(
                    campaign_id=key,
                    version=e["version"],
                    seq=e["seq"],
                    type=str(data.get("type", "")),
                    data=data,
                )
            )
        for e in checked.evenings:
            session.add(
                CampaignEvening(
                    campaign_id=key,
                    number=e["number"],
                    game_id=uuid.UUID(e["game_id"]),
                    report=e.get("report") if isinstance(e.get("report"), dict) else None,
                    ended_at=None
                    if e["ended_at"] is None
                    else datetime.fromisoformat(e["ended_at"]),
                )
            )
        for p in checked.phones:
            session.add(
                CampaignPhone(
                    campaign_id=key,
                    character=p["character"],
                    kind=p["kind"],
                    phone_hash=p["phone_hash"],
                    game_id=None if p["game_id"] is None else uuid.UUID(p["game_id"]),
                    seat=p["seat"],
                    name=p["name"],
                    approved=p["approved"],
                )
            )
    return key, gm_token


def campaign_file_bytes(data: Json) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2)
