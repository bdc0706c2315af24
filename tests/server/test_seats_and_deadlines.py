"""Seats (rows and the engine's crew move together) and the deadline sweeper (exactly once)."""

import asyncio
import time
import uuid
from typing import Any

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import AppliedCommand, Event, Game, Seat
from app.rules import Actor
from app.service import (
    ServiceError,
    create_game,
    create_seat,
    free_seat,
    is_gm_token,
    phone_seat,
    phone_seat_tokens,
    revoke_seat,
    run_command,
    seat_by_token,
    seats_of,
)
from app.sweeper import sweep_once

Sessions = async_sessionmaker[AsyncSession]
GM = Actor.gm()


async def crew_of(sessions: Sessions, game_id: uuid.UUID, station: str) -> Any:
    async with sessions() as session:
        game = await session.get(Game, game_id)
        assert game is not None
        return game.state["ships"]["kestrel"]["stations"][station]["crew"]


async def test_seat_mans_the_station_and_its_token_opens_only_that_game(
    session_factory: Sessions,
) -> None:
    game_id, _, gm_token = await create_game(session_factory, "skirmish", seed=1)
    other_game, _, _ = await create_game(session_factory, "skirmish", seed=2)
    seat_id, token = await create_seat(
        session_factory, game_id, "kestrel", "pilot", " Ada ", "amara-lind"
    )
    crew = await crew_of(session_factory, game_id, "pilot")
    assert crew == {"seat": str(seat_id), "name": "Ada", "character": "amara-lind"}
    seat = await seat_by_token(session_factory, game_id, token)
    assert seat is not None and (seat.id, seat.station, seat.name) == (seat_id, "pilot", "Ada")
    assert await seat_by_token(session_factory, other_game, token) is None
    assert await seat_by_token(session_factory, game_id, "guess") is None
    assert await is_gm_token(session_factory, game_id, gm_token)
    assert not await is_gm_token(session_factory, other_game, gm_token)
    async with session_factory() as session:
        row = await session.get(Seat, seat_id)
    assert row is not None and token not in row.token_hash and len(row.token_hash) == 64


async def version_of(sessions: Sessions, game_id: uuid.UUID) -> int:
    async with sessions() as session:
        game = await session.get(Game, game_id)
        assert game is not None
        return game.version


async def test_a_phone_that_asks_again_for_a_seat_gets_the_one_it_was_given(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    phone = "key-of-one-phone"
    tokens = phone_seat_tokens("server key", game_id, phone)
    # A double tap: both tries at once. One seat, and both answers are it.
    first, second = await asyncio.gather(
        create_seat(session_factory, game_id, "kestrel", "pilot", "Ada", phone_tokens=tokens),
        create_seat(session_factory, game_id, "kestrel", "pilot", "Ada", phone_tokens=tokens),
    )
    assert first == second and first[1] == tokens[0]
    assert await seat_by_token(session_factory, game_id, tokens[0]) is not None
    # The answer was lost and the phone asks again, even for another station: it is seated.
    version = await version_of(session_factory, game_id)
    again = await create_seat(
        session_factory, game_id, "kestrel", "weapons", "Ada", phone_tokens=tokens
    )
    assert again == first
    assert await version_of(session_factory, game_id) == version
    assert await crew_of(session_factory, game_id, "weapons") is None
    assert await phone_seat(session_factory, game_id, tokens) == tokens[0]
    async with session_factory() as session:
        assert await session.scalar(select(func.count()).select_from(Seat)) == 1
    # Another phone is another seat.
    other = phone_seat_tokens("server key", game_id, "key-of-another-phone")
    with pytest.raises(ServiceError) as taken:
        await create_seat(session_factory, game_id, "kestrel", "pilot", "Bob", phone_tokens=other)
    assert taken.value.code == "STATION_TAKEN"
    # Once its seat ends, the phone's next join is a new seat with its next token.
    await revoke_seat(session_factory, game_id, first[0])
    assert await phone_seat(session_factory, game_id, tokens) is None
    rejoined = await create_seat(
        session_factory, game_id, "kestrel", "pilot", "Ada", phone_tokens=tokens
    )
    assert rejoined[0] != first[0] and rejoined[1] == tokens[1]


async def test_phone_tokens_depend_on_the_game_the_phone_and_the_key(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    other_game, _, _ = await create_game(session_factory, "skirmish", seed=2)
    tokens = phone_seat_tokens("server key", game_id, "phone")
    assert tokens == phone_seat_tokens("server key", str(game_id), "phone")
    assert len(set(tokens)) == len(tokens) and all(len(t) >= 40 for t in tokens)
    for different in (
        phone_seat_tokens("server key", other_game, "phone"),
        phone_seat_tokens("server key", game_id, "another phone"),
        phone_seat_tokens("another key", game_id, "phone"),
    ):
        assert not set(tokens) & set(different)
    # Its seat in one game is not a seat in another.
    await create_seat(session_factory, game_id, "kestrel", "pilot", "Ada", phone_tokens=tokens)
    assert await phone_seat(session_factory, other_game, tokens) is None
    assert await phone_seat(session_factory, game_id, tokens) == tokens[0]
    # A phone that has used all its tokens in a game (every seat ended) still gets a seat.
    await revoke_seat(session_factory, game_id, (await seats_of(session_factory, game_id))[0].id)
    for _ in range(len(tokens)):
        seat_id, token = await create_seat(
            session_factory, game_id, "kestrel", "pilot", "Ada", phone_tokens=tokens
        )
        await revoke_seat(session_factory, game_id, seat_id)
    assert token not in tokens


async def test_a_manned_station_cannot_be_taken_and_nothing_is_stored(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    await create_seat(session_factory, game_id, "kestrel", "pilot", "Ada")
    with pytest.raises(ServiceError) as taken:
        await create_seat(session_factory, game_id, "kestrel", "pilot", "Bob")
    assert (taken.value.code, taken.value.status) == ("STATION_TAKEN", 409)
    with pytest.raises(ServiceError) as missing:
        await create_seat(session_factory, game_id, "kestrel", "galley", "Bob")
    assert missing.value.status == 404
    async with session_factory() as session:
        seats = await session.scalar(select(func.count()).select_from(Seat))
    assert seats == 1


async def test_revoking_a_seat_frees_its_station_and_kills_its_token(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    seat_id, token = await create_seat(session_factory, game_id, "kestrel", "comms", "Ada")
    await revoke_seat(session_factory, game_id, seat_id)
    assert await crew_of(session_factory, game_id, "comms") is None
    assert await seat_by_token(session_factory, game_id, token) is None
    with pytest.raises(ServiceError) as again:
        await revoke_seat(session_factory, game_id, seat_id)
    assert again.value.code == "NO_SUCH_SEAT"
    await create_seat(session_factory, game_id, "kestrel", "comms", "Bob")  # free again


async def test_a_seat_ended_behind_this_process_s_back_opens_nothing(
    session_factory: Sessions,
) -> None:
    """Another process (or an operator) ends a seat and this one hears nothing of it: the token,
    known a moment before, opens nothing from the next request on."""
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    seat_id, token = await create_seat(session_factory, game_id, "kestrel", "comms", "Ada")
    assert await seat_by_token(session_factory, game_id, token) is not None
    async with session_factory() as session, session.begin():
        await session.execute(update(Seat).where(Seat.id == seat_id).values(revoked_at=func.now()))
    assert await seat_by_token(session_factory, game_id, token) is None


async def test_gm_frees_a_station_even_after_unseating_its_crew_directly(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    _, token = await create_seat(session_factory, game_id, "kestrel", "weapons", "Ada")
    await run_command(
        session_factory,
        game_id,
        {"type": "UnseatCrew", "ship": "kestrel", "station": "weapons"},
        GM,
        command_id="u",
    )
    # The seat row outlived the crew; a new player can still take the station.
    _, second = await create_seat(session_factory, game_id, "kestrel", "weapons", "Bob")
    assert await seat_by_token(session_factory, game_id, token) is None
    await free_seat(session_factory, game_id, "kestrel", "weapons")
    assert await seat_by_token(session_factory, game_id, second) is None
    assert await crew_of(session_factory, game_id, "weapons") is None
    with pytest.raises(ServiceError) as empty:
        await free_seat(session_factory, game_id, "kestrel", "weapons")
    assert empty.value.code == "STATION_EMPTY"


async def test_deadline_is_stored_with_the_state(session_factory: Sessions) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    before = time.time()
    await run_command(
        session_factory, game_id, {"type": "StartTurn", "seconds": 30}, GM, command_id="t1"
    )
    async with session_factory() as session:
        game = await session.get(Game, game_id)
    assert game is not None and game.deadline_kind == "orders"
    assert game.deadline_at is not None
    assert before + 29 < game.deadline_at.timestamp() < time.time() + 31
    assert abs(game.deadline_at.timestamp() - game.state["deadline"]["at"]) < 0.001
    await run_command(session_factory, game_id, {"type": "PauseTimer"}, GM, command_id="p")
    async with session_factory() as session:
        paused = await session.get(Game, game_id)
    assert paused is not None and paused.deadline_at is None and paused.deadline_kind is None


async def test_sweepers_racing_expire_a_deadline_exactly_once(session_factory: Sessions) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    await run_command(
        session_factory, game_id, {"type": "StartTurn", "seconds": 5}, GM, command_id="t1"
    )
    assert await sweep_once(session_factory) == 0  # not due yet
    later = time.time() + 10
    # Five processes' sweepers finding the same due deadline at once.
    await asyncio.gather(*(sweep_once(session_factory, now=later) for _ in range(5)))
    await sweep_once(session_factory, now=later + 1)
    async with session_factory() as session:
        game = await session.get(Game, game_id)
        expiries = (
            await session.scalars(
                select(AppliedCommand.command_id).where(
                    AppliedCommand.command_id.like("deadline:%")
                )
            )
        ).all()
        timeouts = await session.scalar(
            select(func.count()).select_from(Event).where(Event.type == "TimerExpired")
        )
    assert len(expiries) == 1 and expiries[0].startswith("deadline:orders:")
    assert timeouts == 1
    assert game is not None and game.state["phase"] != "orders"
