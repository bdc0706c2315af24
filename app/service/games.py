"""Games: creating one, finding one by its join code, reading its views and events, GM tokens,
and the words of its own content."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import secrets
import uuid
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from sqlalchemy import ColumnElement, func, select, text
from sqlalchemy.exc import IntegrityError

from app.content import catalogue_with
from app.db.models import Event, Game, stored_state
from app.db.session import autocommit
from app.i18n_content import Words, words_of
from app.rules import Actor, event_view, new_game, rng
from app.rules.content import Catalogue, Scenario
from app.rules.core.messages import message

from .commands import (
    LockedGame,
    SessionFactory,
    State,
    Viewer,
    canonical,
    game_key,
    known_content,
    locked,
)
from .errors import ServiceError, no_such_game
from .kept import Kept
from .library import Content, library

SEED_MAX = 2**63 - 1  # a GM's chosen seed: what a key is made from (rng.chosen)
JOIN_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I: it is read aloud and typed


@dataclasses.dataclass(frozen=True)
class GameInfo:
    id: uuid.UUID
    join_code: str
    scenario: str
    version: int
    props_code: str  # the GM's alone, like the GM token: props' topics are named by it


async def create_game(
    session_factory: SessionFactory,
    scenario_id: str,
    seed: int | None = None,
    modules: Iterable[str] = (),
    *,
    modules_off: Iterable[str] = (),
    game_id: uuid.UUID | None = None,
    gm_token: str | None = None,
    inside: Callable[[LockedGame], Awaitable[None]] | None = None,
    classes: Iterable[str] = (),
    language: str | None = None,
) -> tuple[uuid.UUID, str, str]:
    """A new game in Downtime: (game_id, join_code, gm_token). Extra modules are switched on (and
    `modules_off`, of the scenario's own, off) by SetModule commands in the same transaction, so
    replay_state sees them like any command.

    Without a `seed` the dice get a fresh 256-bit secret key; a GM's chosen number gives a key
    made from it instead, so that game can be played again (G-TURN-3). Either way the start is
    kept in `games.seed`, which leaves the server only in a GM's export.

    `inside` does more in the game's first transaction (a campaign's roster comes aboard), and
    the game holds the ship `classes` it may bring (the roster's).

    The projector speaks `language` (the table's: the lobby's or the GM's) from the start, so the
    room never sees a screen in another language before the GM finds its control."""
    # The game copies what its scenario uses from the library as it stands (games.content):
    # editing never changes it, and a large library does not make every game large.
    found = await library(session_factory)
    if found.problem is not None:
        raise found.problem
    scenario = scenario_in(found.catalogue, scenario_id)
    if seed is not None and not 0 <= seed <= SEED_MAX:
        raise ServiceError("BAD_VALUE", message("bad_seed", most="2^63 - 1"))
    start = rng.keyed(secrets.token_bytes(rng.KEY_BYTES)) if seed is None else rng.chosen(seed)
    game_id = game_id or uuid.uuid4()
    gm_token = gm_token or secrets.token_urlsafe(32)
    content = found.used_by(scenario, classes)
    state = await asyncio.to_thread(opening, scenario_id, content, start)
    columns, cards = stored_state(state)
    switches = [(m, True) for m in sorted(set(modules) - set(state["modules"]))]
    switches += [(m, False) for m in sorted(set(modules_off) & set(state["modules"]))]
    for attempt in range(20):
        # Six characters: still quick to type off the projector, and with lookups of unknown
        # codes limited per address (app/web/limits.py), far too many to guess. A crowded server
        # falls back to eight. Games made with four keep them: codes are looked up as stored.
        join_code = "".join(secrets.choice(JOIN_ALPHABET) for _ in range(6 if attempt < 10 else 8))
        game = Game(
            id=game_id,
            join_code=join_code,
            scenario=scenario_id,
            seed=start,
            version=0,
            state=columns,
            cards=cards,
            gm_token_hash=token_hash(gm_token),
            content=content,
            content_key=new_content_key(),
        )
        try:
            async with locked(session_factory, game_id, new=game) as created:
                for module, on in switches:
                    command = {"type": "SetModule", "module": module, "on": on}
                    command_id = f"create:module:{module}" if on else f"create:module-off:{module}"
                    await created.apply(command, Actor.gm(), command_id)
                if language and language != state["settings"].get("display_language", "en"):
                    command = {"type": "SetDisplayLanguage", "language": language}
                    await created.apply(command, Actor.gm(), "create:language")
                if inside is not None:
                    await inside(created)
            return game_id, join_code, gm_token
        except IntegrityError as error:
            if "join_code" not in str(error.orig):
                raise
    raise ServiceError("NO_JOIN_CODE", message("no_free_join_code"), 503)


def opening(scenario_id: str, content: Content | None, start: rng.Seed) -> State:
    """A new game of the scenario, made of the shipped content and the game's own copy: what
    `replay_state` makes of the same copy and start."""
    catalogue = catalogue_with(content)
    state: State = canonical(new_game(catalogue.scenarios[scenario_id], catalogue, seed=start))
    return state


def new_content_key() -> str:
    return secrets.token_hex(8)


def scenario_in(catalogue: Catalogue, scenario_id: str) -> Scenario:
    """A scenario by its id, or a refusal naming the ones there are."""
    scenario = catalogue.scenarios.get(scenario_id)
    if scenario is None:
        raise ServiceError(
            "NO_SUCH_SCENARIO",
            message("no_such_scenario", scenario=scenario_id, known=sorted(catalogue.scenarios)),
        )
    return scenario


async def game_info(session_factory: SessionFactory, game_id: uuid.UUID | str) -> GameInfo:
    info = await _game_where(session_factory, Game.id == game_key(game_id))
    if info is None:
        raise no_such_game()
    return info


async def game_by_join_code(session_factory: SessionFactory, join_code: str) -> GameInfo | None:
    """The game a phone joins by its code (typed in any case, spaces ignored)."""
    return await _game_where(session_factory, Game.join_code == "".join(join_code.split()).upper())


async def _game_where(
    session_factory: SessionFactory, condition: ColumnElement[bool]
) -> GameInfo | None:
    columns = select(Game.id, Game.join_code, Game.scenario, Game.version, Game.props_code)
    async with autocommit(session_factory) as session:
        row = (await session.execute(columns.where(condition))).one_or_none()
    return GameInfo(*row) if row else None


async def events_after(
    session_factory: SessionFactory,
    game_id: uuid.UUID | str,
    after: int,
    viewer: Viewer,
    limit: int = 1000,
) -> tuple[int, list[dict[str, Any]]]:
    """(current version, events after version `after` as this viewer may see them), each with its
    version and seq so a client can resume from the last one it saw."""
    key = game_key(game_id)
    async with autocommit(session_factory) as session:
        version = await session.scalar(select(Game.version).where(Game.id == key))
        if version is None:
            raise no_such_game()
        rows = await session.scalars(
            select(Event)
            .where(Event.game_id == key, Event.version > after)
            .order_by(Event.version, Event.seq)
            .limit(limit)
        )
        shown = []
        for row in rows:
            event = event_view(row.data, viewer)
            if event is not None:
                shown.append({"version": row.version, "seq": row.seq, **event})
    return version, shown


async def games_held(session_factory: SessionFactory) -> int:
    """How many games this server holds (every game not yet expired, app/sweeper.py)."""
    async with autocommit(session_factory) as session:
        return int(await session.scalar(select(func.count()).select_from(Game)) or 0)


def token_hash(token: str) -> str:
    """Tokens are stored as their SHA-256: a leaked database does not hand out seats or games."""
    return hashlib.sha256(token.encode()).hexdigest()


# --- A game's words ----------------------------------------------------------------------------

_KEY = select(Game.content_key).where
# The copy each move to another battle took (app/service/evening.py), in the order taken.
_MOVES = text(
    "SELECT result -> 'content' FROM applied_commands"
    " WHERE game_id = :id AND result ? 'content' ORDER BY version"
)
# A few KB each: enough for every game a server plays at once, so a push never rebuilds them.
_words: Kept[tuple[uuid.UUID, str | None], Words] = Kept(2048)


async def game_copies(session_factory: SessionFactory, key: uuid.UUID) -> list[Any]:
    """Each copy of the library's content the game took: at its start, then at each move to
    another battle, in that order (None where it took nothing)."""
    async with autocommit(session_factory) as session:
        began = await session.scalar(select(Game.content).where(Game.id == key))
        moves = list(await session.scalars(_MOVES, {"id": key}))
    return [began, *moves]


async def game_words(session_factory: SessionFactory, game_id: uuid.UUID | str) -> Words:
    """The translations of the game's own copy of the library's content (every battle's, the
    latest over earlier ones), never of the library as it is now. Kept per game until the game
    takes new content (its `content_key`: as this process last read the game's row, when it
    holds the words of that key; else asked). None for a game that is gone."""
    key = game_key(game_id)

    async def build() -> Words:
        return await asyncio.to_thread(words_of, *await game_copies(session_factory, key))

    known = known_content(key)  # each command reads it, with the game's row
    if known is not None and _words.holds((key, known)):
        return await _words.get((key, known), build)
    async with autocommit(session_factory) as session:
        row = (await session.execute(_KEY(Game.id == key))).one_or_none()
    if row is None:
        return {}
    return await _words.get((key, row.content_key), build)
