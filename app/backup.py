"""Moving a whole game between servers: its state, event log, seats and remembered commands.

The file is JSON. Seat and GM tokens travel only as their hashes. It carries the game's seed, the
dice generator's secret start (G-TURN-3): it is for the GM's eyes only.

An import trusts nothing in the file. The whole file is checked before anything is written: its
sections and their fields, the state against a new game's shape (every part the engine reads,
each ship with stations), every view the engine gives of it for the GM, the projector and each
seat, every event as each of them sees it, and every remembered command as the engine parses it.
The dice must be keyed (HMAC-SHA256 under a secret key): format 1, written before the generator
was keyed, and any splitmix64 state are refused, as their rolls can be worked out. Its texts and
seats are held to the rules the editor and the engine hold them to: names by the one name rule
(app/rules/core/names.py), every other text by the content's text rules, and players seated only
aboard players' ships (M-SEATS-1). A file nested deeper than any game is refused before anything
reads it. A bad file gets a sentence naming what is wrong (each text or seat that breaks a rule,
all at once), and nothing is written.

The file's token hashes were chosen by whoever wrote it, so by default they open nothing: the game
gets a fresh GM token, and the file's seats are freed (as the GM's Free does), for the players to
join again with the code. A GM moving their own game between laptops keeps them
(`keep_tokens`): the phones stay seated and the GM link works as before.
"""

from __future__ import annotations

import dataclasses
import re
import secrets
import uuid
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import asyncpg  # type: ignore[import-untyped]
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.content import catalogue_with
from app.db.models import AppliedCommand, Event, Game, Seat, stored_state
from app.nesting import NESTING_MAX, depth
from app.rules import (
    Actor,
    display_view,
    event_view,
    gm_view,
    new_game,
    parse_command,
    rng,
    shared_view,
    station_view,
)
from app.rules.content import Catalogue, ContentError, Scenario
from app.rules.core.messages import message
from app.rules.core.names import CREW_NAME_LENGTH, SHIP_NAME_LENGTH, name_problem
from app.service import ServiceError
from app.service.commands import canonical, deadline_columns, locked, sender_of
from app.service.games import JOIN_ALPHABET, new_content_key, token_hash
from app.service.library import text_problems
from app.service.seats import end_seats

FORMAT = "bridgecrew-game"
FORMAT_VERSION = 2
READS = (FORMAT_VERSION,)


# Where in the file, and what is wrong there: a sentence, or a message for the caller to word.
Problem = tuple[str, str | Mapping[str, Any]]


class BackupError(Exception):
    """A file refused whole. `message` is a sentence, or a refusal's message (an id and its
    parameters) when the engine or the service refused: the caller words it. `problems` names
    each text or seat that breaks a rule, when those are what is wrong."""

    def __init__(
        self, code: str, message: str | Mapping[str, Any], problems: tuple[Problem, ...] = ()
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.problems = problems


def _row(obj: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    out = {}
    for column in obj.__table__.columns:
        if column.key in skip:
            continue
        value = getattr(obj, column.key)
        if isinstance(value, uuid.UUID):
            value = str(value)
        elif isinstance(value, datetime):
            value = value.isoformat()
        out[column.key] = value
    return out


async def export_game(
    session_factory: async_sessionmaker[AsyncSession], game_ref: str
) -> dict[str, Any]:
    """Everything needed to play a game on elsewhere; `game_ref` is its id or join code."""
    async with session_factory() as session:
        return await export_of(session, await _find(session, game_ref))


async def export_of(session: AsyncSession, game: Game) -> dict[str, Any]:
    """A game's export, read in the caller's session (and transaction)."""
    events = (
        await session.scalars(
            select(Event).where(Event.game_id == game.id).order_by(Event.version, Event.seq)
        )
    ).all()
    seats = (
        await session.scalars(select(Seat).where(Seat.game_id == game.id).order_by(Seat.created_at))
    ).all()
    commands = (
        await session.scalars(
            select(AppliedCommand)
            .where(AppliedCommand.game_id == game.id)
            .order_by(AppliedCommand.version)
        )
    ).all()
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        # The whole state, catalogue included, as every format has carried it.
        "game": {**_row(game, skip=("cards",)), "state": game.whole_state},
        "events": [_row(e, skip=("id", "game_id")) for e in events],
        "seats": [_row(s, skip=("game_id",)) for s in seats],
        "applied_commands": [_row(c, skip=("game_id",)) for c in commands],
    }


async def _find(session: AsyncSession, game_ref: str) -> Game:
    try:
        query = select(Game).where(Game.id == uuid.UUID(game_ref))
    except ValueError:
        query = select(Game).where(Game.join_code == game_ref.upper())
    game = await session.scalar(query)
    if game is None:
        raise BackupError("NO_SUCH_GAME", f"There is no game {game_ref!r} on this server.")
    return game


Json = dict[str, Any]
_HASH = re.compile(r"[0-9a-f]{64}")


@dataclasses.dataclass(frozen=True)
class Imported:
    game_id: str
    join_code: str
    gm_token: str | None  # a fresh one, shown once; None when the file's were kept
    freed: int  # the file's seats freed, their players to join again with the code


def _bad(where: str, problem: str) -> BackupError:
    return BackupError("BAD_BACKUP", f"The export's {where} {problem}; nothing was imported.")


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    kinds = {int: "a number", float: "a number", str: "text", list: "a list", dict: "an object"}
    return kinds.get(type(value), "empty (null)" if value is None else type(value).__name__)


def _field(section: Json, where: str, key: str, check: Callable[[Any], bool], wanted: str) -> Any:
    """section[key], if it is there and passes `check` (left out: null, if `check` takes it);
    else a sentence naming it."""
    if key not in section:
        if check(None):
            return None
        raise _bad(where, f"has no {key!r}")
    value = section[key]
    if not check(value):
        raise _bad(f"{where} {key!r}", f"should be {wanted}, not {_describe(value)}")
    return value


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _whole(value: Any) -> bool:
    return type(value) is int and 0 <= value < 2**62


def _object(value: Any) -> bool:
    return isinstance(value, dict)


def _uuid(value: Any) -> bool:
    try:
        uuid.UUID(value)
    except (TypeError, ValueError, AttributeError):
        return False
    return True


def _time(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def _maybe(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: value is None or check(value)


def _hash(value: Any) -> bool:
    return isinstance(value, str) and _HASH.fullmatch(value) is not None


def _check(data: Any) -> None:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BackupError("NOT_A_BACKUP", "This file is not a Bridge Crew game export.")
    if data.get("format_version") == 1:
        raise BackupError(
            "UNKEYED_DICE",
            "This export is format 1, from before the dice were keyed: whoever has seen a few "
            "rolls of its game can work out the rest (G-TURN-3), so it is not imported.",
        )
    if data.get("format_version") not in READS:
        raise BackupError(
            "UNSUPPORTED_BACKUP",
            f"This export has format version "
            f"{data.get('format_version')!r}; this server reads {' and '.join(map(str, READS))}.",
        )
    for key in ("game", "events", "seats", "applied_commands"):
        if key not in data:
            raise BackupError("NOT_A_BACKUP", f"The export has no {key!r} section.")
    _field(data, "file", "game", _object, "an object")
    for key in ("events", "seats", "applied_commands"):
        _field(data, "file", key, lambda value: isinstance(value, list), "a list")


def _seed(game: Json) -> Json:
    """The game's generator start, which must be keyed, as must the state's generator."""
    seed = game["seed"]
    try:
        start = rng.start(seed) if isinstance(seed, dict) else None
    except (KeyError, TypeError, ValueError):
        start = None
    state_rng = game["state"].get("rng")
    keyed = isinstance(state_rng, dict) and state_rng.get("kind") == rng.KEYED
    if start is None or start.get("kind") != rng.KEYED or not keyed:
        raise BackupError(
            "UNKEYED_DICE",
            "The export's dice generator is not keyed (HMAC-SHA256 under a secret key, "
            "G-TURN-3): its rolls could be worked out, so it is not imported.",
        )
    if start["key"] != state_rng.get("key"):
        raise _bad("game", "has a state whose dice are not the game's (two different keys)")
    return start


def _game(data: Json, keep_tokens: bool) -> Json:
    game: Json = data["game"]
    _field(game, "game", "id", _uuid, "a game id")
    _field(game, "game", "join_code", _text, "text")
    _field(game, "game", "scenario", _text, "text")
    _field(game, "game", "version", _whole, "a whole number")
    _field(game, "game", "state", _object, "an object")
    _field(game, "game", "seed", _object, "an object (the dice generator's start)")
    _field(game, "game", "created_at", _time, "a time")
    if keep_tokens:
        _field(game, "game", "gm_token_hash", _hash, "a token's SHA-256 (64 hex digits)")
    for key, (check, wanted) in OPTIONAL_GAME_FIELDS.items():
        _field(game, "game", key, check, wanted)
    return game


OPTIONAL_GAME_FIELDS: Mapping[str, tuple[Callable[[Any], bool], str]] = {
    "deadline_at": (_maybe(_time), "a time or null"),
    "deadline_kind": (_maybe(_text), "text or null"),
    "deadline_version": (_maybe(_whole), "a whole number or null"),
    # The organisers' content as the game began (games.content): its replay is built from it.
    "content": (_maybe(_object), "an object or null"),
}


Fields = Mapping[str, tuple[Callable[[Any], bool], str]]


def _rows(data: Json, section: str, fields: Fields) -> None:
    for n, row in enumerate(data[section]):
        where = f"{section} entry {n + 1}"
        if not isinstance(row, dict):
            raise _bad(where, f"should be an object, not {_describe(row)}")
        for key, (check, wanted) in fields.items():
            _field(row, where, key, check, wanted)


EVENT_FIELDS: Fields = {
    "version": (_whole, "a whole number"),
    "seq": (_whole, "a whole number"),
    "type": (_text, "text"),
    "data": (_object, "an object"),
    "created_at": (_time, "a time"),
}
SEAT_FIELDS: Fields = {
    "id": (_uuid, "a seat id"),
    "ship": (_text, "text"),
    "station": (_text, "text"),
    "name": (_text, "text"),
    "created_at": (_time, "a time"),
    "revoked_at": (_maybe(_time), "a time or null"),
    "character": (_maybe(_text), "text or null"),
    "taken_from": (_maybe(_text), "text or null"),
}
COMMAND_FIELDS: Fields = {
    "command_id": (_text, "text"),
    "version": (_whole, "a whole number"),
    "result": (_object, "an object"),
    "created_at": (_time, "a time"),
}


def _shape(reference: Json, value: Json, where: str) -> None:
    """`value` has every part `reference` (the same record of a new game) has, each of its kind:
    an object, a list, text, a number or true/false. Parts a new game leaves empty (null) may hold
    anything; what is inside each part is for the views to read (`_views`)."""
    for key, part in reference.items():
        if key not in value:
            raise _bad(where, f"has no {key!r}")
        if part is not None and _describe(value[key]) != _describe(part):
            raise _bad(
                f"{where} {key!r}", f"should be {_describe(part)}, not {_describe(value[key])}"
            )


def _battles(data: Json, game: Json) -> list[tuple[str, Any, str]]:
    """Each battle the game played, in order: (its scenario, the content it was built from, what
    to call it in a refusal). The first is the game's own; each move to another battle took its
    copy with its command (a move without one was built from the game's)."""
    battles = [(game["scenario"], game.get("content"), "game")]
    rows = sorted(data["applied_commands"], key=lambda row: row["version"])
    for row in rows:
        entry = row["result"]
        command = entry.get("command")
        if isinstance(command, dict) and command.get("type") == "NextBattle":
            content = entry["content"] if "content" in entry else game.get("content")
            where = f"move to another battle (version {row['version']})"
            battles.append((command.get("scenario"), content, where))
    return battles


def _loaded(scenario_id: Any, content: Any, where: str) -> tuple[Scenario, Catalogue]:
    """A battle's scenario and the catalogue it was built from, or why they do not load."""
    try:
        catalogue = catalogue_with(content)
    except (ContentError, ValueError, TypeError, AttributeError) as error:
        raise _bad(where, f"has content that does not load ({error})") from None
    scenario = catalogue.scenarios.get(scenario_id) if isinstance(scenario_id, str) else None
    if scenario is None:
        raise _bad(where, f"is of a scenario this server does not have ({scenario_id!r})")
    return scenario, catalogue


def _check_state(data: Json, game: Json) -> Json:
    """The state as the engine would hold it, once it has a new game's shape (a new game of the
    battle being played): every ship with stations, each ship and station with a new ship's and
    station's parts. Every battle's content must load and hold its scenario."""
    scenario, catalogue = [_loaded(*battle) for battle in _battles(data, game)][-1]
    fresh = new_game(scenario, catalogue, seed=rng.keyed(bytes(rng.KEY_BYTES)))
    state: Json = canonical(game["state"])
    top = {key: part for key, part in fresh.items() if key not in ("ships", "map")}
    _shape(top, state, "game state")
    _field(state, "game state", "ships", lambda ships: bool(_object(ships) and ships), "ships")
    ship_ref = next(iter(fresh["ships"].values()))
    station_ref = next(iter(ship_ref["stations"].values()))
    plain_ship = {key: part for key, part in ship_ref.items() if key != "stations"}
    for ship_id, ship in state["ships"].items():
        where = f"ship {ship_id!r}"
        _shape(plain_ship, _record(ship, where), where)
        stations = ship.get("stations")
        if not isinstance(stations, dict) or not stations:
            raise _bad(where, "has no stations")
        for station_id, station in stations.items():
            at = f"{where} station {station_id!r}"
            _shape(station_ref, _record(station, at), at)
    return state


def _record(value: Any, where: str) -> Json:
    if not isinstance(value, dict):
        raise _bad(where, f"should be an object, not {_describe(value)}")
    return value


def _views(data: Json, state: Json) -> None:
    """Every view the engine gives of the state, every event as each viewer sees it, and every
    remembered command as the engine parses it: what the server will do with the game."""
    step = "its views"
    try:
        seats = {
            str(station["crew"]["seat"])
            for ship in state["ships"].values()
            for station in ship["stations"].values()
            if station["crew"] is not None
        } | {row["id"] for row in data["seats"]}
        shared = shared_view(state)
        gm_view(state, shared)
        display_view(state, shared)
        for seat in sorted(seats):
            station_view(state, seat, shared)
        deadline_columns(state, 0, (None, None, None))  # as every write works them out
        step = "its event log"
        for event in data["events"]:
            for viewer in ("gm", "display", *(("seat", seat) for seat in sorted(seats))):
                event_view(event["data"], viewer)
        step = "its remembered commands"
        for row in data["applied_commands"]:
            entry = row["result"]
            actor = Actor(**entry["actor"])
            if actor.role not in ("gm", "seat", "system", "prop") or not _maybe(_text)(actor.seat):
                raise ValueError(f"{entry['actor']} is not the GM, a seat, a prop or the server")
            parse_command(entry["command"], actor, entry["now"])
    except Exception as error:  # whatever the file holds, the answer is a sentence
        raise BackupError(
            "BAD_STATE",
            f"The game in this export does not load: the engine fails on {step} "
            f"({type(error).__name__}: {error}); nothing was imported.",
        ) from error


def check_export(data: Any, *, keep_tokens: bool = False) -> tuple[Json, Json]:
    """The file checked whole, as `import_game` does before writing: (its game, the state as
    the engine holds it). Raises BackupError naming the first thing that is wrong, or every
    text and seat that breaks a rule."""
    if depth(data) > NESTING_MAX:
        raise BackupError(
            "TOO_DEEP",
            f"The export nests more than {NESTING_MAX} levels deep; nothing was imported.",
        )
    _check(data)
    game = _game(data, keep_tokens)
    _rows(data, "events", EVENT_FIELDS)
    _rows(
        data,
        "seats",
        {**SEAT_FIELDS, "token_hash": (_hash, "a token's SHA-256")} if keep_tokens else SEAT_FIELDS,
    )
    _rows(data, "applied_commands", COMMAND_FIELDS)
    state = _check_state(data, game)
    game["seed"] = _seed(game)
    _fits(data, game, state)
    _texts_and_seats(data, game, state)
    _views(data, state)
    return game, state


def _fits(data: Json, game: Json, state: Json) -> None:
    """The log and the seats belong to this state: nothing after the game's version, and every
    seat at one of its stations."""
    for section in ("events", "applied_commands"):
        for n, row in enumerate(data[section]):
            if row["version"] > game["version"]:
                raise _bad(
                    f"{section} entry {n + 1}",
                    f"is from version {row['version']}, after the game's {game['version']}",
                )
    for n, seat in enumerate(data["seats"]):
        ship = state["ships"].get(seat["ship"])
        if ship is None or seat["station"] not in ship["stations"]:
            where = f"{seat['ship']}/{seat['station']}"
            raise _bad(f"seats entry {n + 1}", f"is at {where}, which the game does not have")


def _texts_and_seats(data: Json, game: Json, state: Json) -> None:
    """Names people typed by the one name rule (a crew member's, a ship's), every other text
    by the content's text rules, and every crew and live seat aboard a players' ship
    (M-SEATS-1): the engine's seating refuses an NPC ship whoever asks. A crew on a ship since
    destroyed, fled or surrendered stays, as the engine leaves it. Every problem is named."""
    problems: list[Problem] = []
    named: set[str] = set()  # the places the name rule read: the text rules' looser cap is moot

    def name(where: str, value: Any, most: int) -> None:
        named.add(where)
        problem = name_problem(value, most) if isinstance(value, str) else "should be text"
        if problem is not None:
            problems.append((where, problem))

    for n, seat in enumerate(data["seats"]):
        name(f"seats [{n}].name", seat["name"], CREW_NAME_LENGTH)
        ship = state["ships"][seat["ship"]]
        if seat.get("revoked_at") is None and ship.get("crew") != "players":
            problems.append((f"seats [{n}]", _not_players(ship)))
    for ship_id, ship in state["ships"].items():
        name(f"game state ships.{ship_id}.name", ship.get("name"), SHIP_NAME_LENGTH)
        for station_id, station in ship["stations"].items():
            crew = station.get("crew")
            if isinstance(crew, dict):
                at = f"game state ships.{ship_id}.stations.{station_id}.crew"
                name(f"{at}.name", crew.get("name"), CREW_NAME_LENGTH)
                if ship.get("crew") != "players":
                    problems.append((at, _not_players(ship)))
    for source, part in (
        ("game content", game.get("content")),
        ("game state", state),
        ("events", data["events"]),
        ("seats", data["seats"]),
        ("applied_commands", data["applied_commands"]),
    ):
        for error in text_problems(part, source):
            where = f"{error.file} {error.field}"
            if where not in named:
                problems.append((where, error.message))
    if problems:
        count = f"{len(problems)} {'problem' if len(problems) == 1 else 'problems'}"
        raise BackupError(
            "RULES_BROKEN",
            f"The export breaks the rules for texts or seats ({count}); nothing was imported.",
            tuple(problems),
        )


def _not_players(ship: Json) -> Mapping[str, Any]:
    return message("not_a_players_ship", ship=str(ship.get("name")))


def _parse_time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


async def import_game(
    session_factory: async_sessionmaker[AsyncSession],
    data: Any,
    *,
    keep_tokens: bool = False,
) -> Imported:
    """Check the whole export, then insert it in one transaction.

    The game keeps its id (a second import is refused); a join code already used here is
    replaced by a fresh one. Unless `keep_tokens`, the game gets a fresh GM token and the file's
    live seats are freed in the same transaction, as the GM's Free frees one."""
    game, state = check_export(data, keep_tokens=keep_tokens)
    game_id = uuid.UUID(game["id"])
    gm_token = None if keep_tokens else secrets.token_urlsafe(32)
    async with session_factory() as session:
        if await session.get(Game, game_id) is not None:
            raise BackupError("GAME_EXISTS", "That game is already on this server.")
        join_code = await _free_join_code(session, game["join_code"])
    rest, cards = stored_state(state)
    version = game["version"]
    at, kind, set_at = deadline_columns(
        state,
        version,
        (
            _parse_time(game.get("deadline_at")),
            game.get("deadline_kind"),
            game.get("deadline_version"),
        ),
    )
    row = Game(
        id=game_id,
        join_code=join_code,
        scenario=game["scenario"],
        seed=game["seed"],
        content=game.get("content"),
        content_key=new_content_key(),  # its words are read afresh, whatever this id was before
        version=version,
        state=rest,
        cards=cards,
        gm_token_hash=game["gm_token_hash"] if gm_token is None else token_hash(gm_token),
        deadline_at=at,
        deadline_kind=kind,
        deadline_version=set_at,
        created_at=_parse_time(game["created_at"]),
    )
    try:
        async with locked(session_factory, game_id, new=row) as written:
            seats = _add_rows(written.session, game_id, data, keep_tokens)
            await written.session.flush()
            freed = [seat for seat in seats if seat.revoked_at is None and not keep_tokens]
            if freed:
                await end_seats(written, freed)
    except (IntegrityError, asyncpg.IntegrityConstraintViolationError) as error:
        raise BackupError(
            "CONFLICT",
            "The export clashes with what this server holds (a seat token, a join code or an "
            "event given twice); nothing was imported.",
        ) from error
    except ServiceError as error:  # the engine refused to free a seat: the file is at fault
        raise BackupError(error.code, error.message) from error
    return Imported(str(game_id), join_code, gm_token, len(freed))


async def _free_join_code(session: AsyncSession, wanted: str) -> str:
    code = wanted if 4 <= len(wanted) <= 8 and set(wanted) <= set(JOIN_ALPHABET) else ""
    while not code or await session.scalar(select(Game.id).where(Game.join_code == code)):
        code = "".join(secrets.choice(JOIN_ALPHABET) for _ in range(6))
    return code


def _add_rows(
    session: AsyncSession, game_id: uuid.UUID, data: Json, keep_tokens: bool
) -> list[Seat]:
    for e in data["events"]:
        session.add(
            Event(
                game_id=game_id,
                version=e["version"],
                seq=e["seq"],
                type=e["type"],
                data=e["data"],
                created_at=_parse_time(e["created_at"]),
            )
        )
    seats = []
    for s in data["seats"]:
        # Without keep_tokens a seat's token is one nobody was given: the seat is freed below.
        hashed = s["token_hash"] if keep_tokens else token_hash(secrets.token_urlsafe(32))
        seat = Seat(
            id=uuid.UUID(s["id"]),
            game_id=game_id,
            token_hash=hashed,
            ship=s["ship"],
            station=s["station"],
            name=s["name"],
            character=s.get("character"),
            taken_from=s.get("taken_from"),
            revoked_at=_parse_time(s.get("revoked_at")),
            created_at=_parse_time(s["created_at"]),
        )
        session.add(seat)
        seats.append(seat)
    for c in data["applied_commands"]:
        session.add(
            AppliedCommand(
                game_id=game_id,
                # The actor's: a sender the file names could take ids the server will use.
                sender=sender_of(Actor(**c["result"]["actor"])),
                command_id=c["command_id"],
                version=c["version"],
                result=c["result"],
                created_at=_parse_time(c["created_at"]),
            )
        )
    return seats
