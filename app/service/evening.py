"""One table for the evening (E-EVENING-1): the GM moves a game on to the next battle."""

from __future__ import annotations

import time
import uuid

from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession

from app.content import catalogue_with
from app.db.models import Game, stored_state
from app.rules import Actor, RulesError
from app.rules.content import Catalogue
from app.rules.core.commands import NextBattle
from app.rules.core.evening import next_battle

from .campaigns import carry_to_next_battle
from .commands import (
    SessionFactory,
    canonical,
    check_command_id,
    encode,
    game_key,
    locked,
    realign,
)
from .errors import ServiceError
from .games import scenario_in

# Commands never change the card catalogue, so their write leaves the column alone; a new battle
# brings its own ships' cards.
_CARDS = text("UPDATE games SET cards = CAST(:cards AS json) WHERE id = :id")


async def own_catalogue(session: AsyncSession, game_id: uuid.UUID) -> Catalogue:
    """What the game's battles are made of: the shipped content and the library as the game
    began (games.content), which its replay rebuilds from too. So the next battle is any
    scenario that was there when the evening began; one written since starts a new game."""
    content = await session.scalar(select(Game.content).where(Game.id == game_id))
    return catalogue_with(content)


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
    async with locked(session_factory, key) as game:
        catalogue = await own_catalogue(game.session, key)
        scenario = scenario_in(catalogue, scenario_id)
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
            await game.db.execute(_CARDS, {"id": key, "cards": encode(cards).decode()})
            await carry_to_next_battle(game, before, command_id)  # G-CAMP-1: a campaign's ships
            await realign(game)
    return game.version
