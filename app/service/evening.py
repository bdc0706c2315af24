"""One table for the evening (E-EVENING-1): the GM moves a game on to the next battle.

The next battle is any scenario of the library as it is at the move (built-in or the
organisers'), in its newest version: the game takes a copy of what that scenario uses then, as a
new game would, and keeps it with the stored command (`applied_commands.result.content`), so
`replay_state` and an export build the move from the game's own copy."""

from __future__ import annotations

import asyncio
import time
import uuid

from sqlalchemy import text

from app.content import catalogue_with
from app.db.models import stored_state
from app.rules import Actor, RulesError
from app.rules.core.commands import NextBattle
from app.rules.core.evening import next_battle

from .campaigns import carry_to_next_battle
from .commands import (
    SessionFactory,
    canonical,
    check_command_id,
    encode,
    forget_content,
    game_key,
    locked,
    realign,
    sender_of,
)
from .errors import ServiceError
from .games import game_copies, new_content_key, scenario_in
from .library import items, library

# Commands never change the card catalogue, so their write leaves the column alone; a new battle
# brings its own ships' cards, and its copy of the library's content a new key for its words.
_CARDS = text("UPDATE games SET cards = CAST(:cards AS json), content_key = :key WHERE id = :id")
# The copy the move took, kept with it for replay_state and exports.
_COPY = text(
    "UPDATE applied_commands"
    " SET result = result || jsonb_build_object('content', CAST(:content AS jsonb))"
    " WHERE game_id = :id AND sender = :sender AND command_id = :command_id"
)


async def move_table_on(
    session_factory: SessionFactory,
    game_id: uuid.UUID | str,
    scenario_id: str,
    command_id: str,
    now: float | None = None,
) -> int:
    """The game (its row, join code, seats and projector) moves on to the opening of
    `scenario_id`, its crew carried over, in one unit of work; the seat rows follow their crews,
    and a seat left without a station ends. Returns the game's version afterwards. A retry with
    the same command id finds it done and changes nothing.

    The row keeps the scenario it began with: replay_state starts there and meets each stored
    NextBattle in turn."""
    check_command_id(command_id)
    now = time.time() if now is None else now
    key = game_key(game_id)
    found = await library(session_factory)
    if found.problem is not None:
        raise found.problem
    content = found.used_by(scenario_in(found.catalogue, scenario_id))
    catalogue = await asyncio.to_thread(catalogue_with, content)
    scenario = catalogue.scenarios[scenario_id]
    async with locked(session_factory, key) as game:
        command = NextBattle(scenario=scenario_id, actor=Actor.gm(), now=now)
        before = game.state
        try:
            state, events = next_battle(before, scenario, catalogue)
        except RulesError as error:
            raise ServiceError.from_rules(error) from error
        state = canonical(state)
        written = await game.write(state, events, command, Actor.gm(), command_id, now)
        if written is not None:
            _, cards = stored_state(state)
            await game.db.execute(
                _CARDS, {"id": key, "cards": encode(cards).decode(), "key": new_content_key()}
            )
            forget_content(key)  # new cards, under a new key
            where = {"id": key, "sender": sender_of(Actor.gm()), "command_id": command_id}
            await game.db.execute(_COPY, {**where, "content": encode(content).decode()})
            await carry_to_next_battle(game, before, command_id)  # G-CAMP-1: a campaign's ships
            await realign(game)
    return game.version


async def scenario_versions(
    session_factory: SessionFactory, game_id: uuid.UUID | str, scenario_id: str
) -> tuple[int, bool]:
    """(the library's newest version of the scenario, 0 for a built-in one; whether the game's
    last copy of it is that version): what the Evening panel tells the GM."""
    newest = next(
        (i.version for i in (await items(session_factory))["scenario"] if i.id == scenario_id), 0
    )
    if not newest:
        return 0, True
    now = (await library(session_factory)).items.get("scenario", {}).get(scenario_id)
    copies = await game_copies(session_factory, game_key(game_id))
    taken = [
        c["scenario"][scenario_id] for c in copies if c and scenario_id in c.get("scenario", {})
    ]
    return newest, bool(taken) and taken[-1] == now
