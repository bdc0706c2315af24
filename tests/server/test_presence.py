"""Which phones are connected: each process stamps the seats it holds station sockets for, so the
GM's seat list, answered by any process, can tell (app/service/seats.py, SeatWatch)."""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime

from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import Seat
from app.service import create_game, create_seat, free_seat
from app.service.seats import ONLINE_SECONDS, mark_gone, mark_seen, seen_recently
from app.web.ws import SeatWatch
from tests.conftest import until

Sessions = async_sessionmaker[AsyncSession]


async def crew(session_factory: Sessions) -> tuple[uuid.UUID, uuid.UUID, uuid.UUID]:
    """A game with two seats: (game, pilot's seat, comms's seat)."""
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=3)
    pilot, _ = await create_seat(session_factory, game_id, "kestrel", "pilot", "Ann")
    comms, _ = await create_seat(session_factory, game_id, "kestrel", "comms", "Cy")
    return game_id, pilot, comms


async def test_a_seat_stamped_lately_by_any_process_is_online(session_factory: Sessions) -> None:
    game_id, pilot, comms = await crew(session_factory)
    assert await seen_recently(session_factory, game_id) == set()
    await mark_seen(session_factory, [pilot, comms])
    assert await seen_recently(session_factory, game_id) == {str(pilot), str(comms)}
    await mark_gone(session_factory, [comms])  # its last socket closed
    assert await seen_recently(session_factory, game_id) == {str(pilot)}
    async with session_factory() as session, session.begin():  # a process killed long ago
        await session.execute(
            text("UPDATE seats SET last_seen_at = now() - make_interval(secs => :ago)"),
            {"ago": ONLINE_SECONDS + 1},
        )
    assert await seen_recently(session_factory, game_id) == set()
    await mark_seen(session_factory, [pilot])
    await free_seat(session_factory, game_id, "kestrel", "pilot")
    assert await seen_recently(session_factory, game_id) == set()  # a freed seat is nobody's


async def test_the_seat_watch_stamps_its_seats_and_clears_those_that_leave(
    session_factory: Sessions,
) -> None:
    game_id, pilot, comms = await crew(session_factory)
    watch = SeatWatch(session_factory, poll_seconds=0.05, presence_seconds=0.3)

    async def stamp(seat: uuid.UUID) -> datetime | None:
        async with session_factory() as session:
            return await session.scalar(select(Seat.last_seen_at).where(Seat.id == seat))

    async def online() -> set[str]:
        return await seen_recently(session_factory, game_id)

    await watch.start()
    try:
        first, second = object(), object()  # the watch only holds on to its sockets
        async with watch.watching(pilot, first):  # type: ignore[arg-type]
            assert watch.connected() == {pilot}

            async def pilot_online() -> bool:
                return await online() == {str(pilot)}

            await until(pilot_online)  # stamped as soon as it connects
            stamped = await stamp(pilot)

            async def stamped_again() -> bool:
                return await stamp(pilot) != stamped

            await until(stamped_again)  # and again every presence_seconds
            async with watch.watching(pilot, second):  # type: ignore[arg-type]
                pass  # a second tab closing leaves the seat online
            await asyncio.sleep(0.3)
            assert await online() == {str(pilot)}

        async def nobody_online() -> bool:
            return await online() == set()

        await until(nobody_online)  # its last socket here closed: offline at once
        assert watch.connected() == set()
        assert await stamp(pilot) is None and await stamp(comms) is None
    finally:
        await watch.stop()
