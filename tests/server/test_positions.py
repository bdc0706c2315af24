"""M-SEATS-1 on the server: a change of position moves the seat row with the crew, in the same
transaction, so the phone's orders follow it and a new player can take the station it left."""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import Game, Seat
from app.rules import Actor
from app.service import ServiceError, create_game, create_seat, revoke_seat, run_command
from app.service.seats import change_position

Sessions = async_sessionmaker[AsyncSession]
GM = Actor.gm()


async def rows(sessions: Sessions, game_id: uuid.UUID) -> dict[str, str | None]:
    """Live seat rows: seat id -> station."""
    async with sessions() as session:
        found = await session.scalars(
            select(Seat).where(Seat.game_id == game_id, Seat.revoked_at.is_(None))
        )
        return {str(s.id): s.station for s in found}


async def crew(sessions: Sessions, game_id: uuid.UUID) -> dict[str, str | None]:
    async with sessions() as session:
        game = await session.get(Game, game_id)
        assert game is not None
        stations = game.state["ships"]["kestrel"]["stations"]
        return {sid: (st["crew"] or {}).get("seat") for sid, st in stations.items()}


async def seats_game(sessions: Sessions) -> uuid.UUID:
    game_id, _, _ = await create_game(sessions, "skirmish", seed=3)
    await run_command(
        sessions, game_id, {"type": "SetModule", "module": "seats", "on": True}, GM, command_id="m"
    )
    return game_id


async def test_m_seats_1_a_move_takes_the_seat_row_along_and_frees_the_old_station(
    session_factory: Sessions,
) -> None:
    game_id = await seats_game(session_factory)
    ada, _ = await create_seat(session_factory, game_id, "kestrel", "weapons", "Ada", "amara-lind")
    await change_position(session_factory, game_id, ada, "comms", "c1")
    assert (await crew(session_factory, game_id))["comms"] == str(ada)
    assert (await rows(session_factory, game_id))[str(ada)] == "comms"
    # The old station is free for a newcomer, and Ada's seat lives on.
    bo, _ = await create_seat(session_factory, game_id, "kestrel", "weapons", "Bo")
    assert await rows(session_factory, game_id) == {str(ada): "comms", str(bo): "weapons"}
    # Orders follow the seat to its new station.
    await run_command(session_factory, game_id, {"type": "StartTurn"}, GM, command_id="t1")
    await run_command(
        session_factory,
        game_id,
        {"type": "PassOrder", "ship": "kestrel", "station": "comms"},
        Actor.for_seat(str(ada)),
        command_id="p1",
    )


async def test_m_seats_1_a_queued_move_happens_when_the_occupant_s_seat_ends(
    session_factory: Sessions,
) -> None:
    game_id = await seats_game(session_factory)
    ada, _ = await create_seat(session_factory, game_id, "kestrel", "weapons", "Ada")
    bo, _ = await create_seat(session_factory, game_id, "kestrel", "pilot", "Bo")
    await change_position(session_factory, game_id, ada, "pilot", "c1")  # taken: Ada waits
    assert (await rows(session_factory, game_id))[str(ada)] == "weapons"
    await revoke_seat(session_factory, game_id, bo)  # Bo goes home
    assert await rows(session_factory, game_id) == {str(ada): "pilot"}
    assert (await crew(session_factory, game_id))["pilot"] == str(ada)


async def test_m_seats_1_a_refused_move_changes_nothing(session_factory: Sessions) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=3)  # module off
    ada, _ = await create_seat(session_factory, game_id, "kestrel", "weapons", "Ada")
    try:
        await change_position(session_factory, game_id, ada, "comms", "c1")
    except ServiceError as error:
        assert error.code == "MODULE_OFF"
    else:
        raise AssertionError("a move without the seats module was accepted")
    assert await rows(session_factory, game_id) == {str(ada): "weapons"}
