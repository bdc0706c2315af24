"""Command ids belong to whoever sends them: a seat cannot take an id the server will use (the
sweeper's timers, the GM freeing a seat), and one game's timers never hold up another's."""

import time
import uuid

import pytest
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import Game
from app.rules import Actor
from app.service import ServiceError, create_game, create_seat, free_seat, run_command
from app.sweeper import deadline_command_id, sweep_once

Sessions = async_sessionmaker[AsyncSession]
GM = Actor.gm()


async def game_row(sessions: Sessions, game_id: uuid.UUID) -> Game:
    async with sessions() as session:
        game = await session.get(Game, game_id)
        assert game is not None
        return game


async def start_turn(sessions: Sessions, game_id: uuid.UUID, seconds: int) -> str | None:
    """Starts a turn; returns the command id the sweeper will expire its timer under."""
    await run_command(
        sessions,
        game_id,
        {"type": "StartTurn", "seconds": seconds},
        GM,
        command_id=f"start-{uuid.uuid4()}",
    )
    game = await game_row(sessions, game_id)
    if game.deadline_kind is None:
        return None
    return deadline_command_id(
        game.deadline_kind, game.state["deadline"]["at"], game.deadline_version
    )


async def test_a_seat_sending_the_sweepers_command_id_cannot_stop_the_turn_timer(
    session_factory: Sessions,
) -> None:
    """The sweeper's ids are predictable; a seat that uses one first still only
    spends an id of its own, and the turn ends on time. The NPC crew waits for the GM, so the
    seat's pass does not close the turn before its timer does."""
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1, modules_off=["npc"])
    seat_id, _ = await create_seat(session_factory, game_id, "kestrel", "pilot", "Ada")
    squatted = await start_turn(session_factory, game_id, 5)
    assert squatted is not None
    pilot = Actor.for_seat(str(seat_id))
    passed = await run_command(
        session_factory,
        game_id,
        {"type": "PassOrder", "ship": "kestrel", "station": "pilot"},
        pilot,
        command_id=squatted,
    )
    assert await sweep_once(session_factory, now=time.time() + 10) == 1
    assert (await game_row(session_factory, game_id)).state["phase"] != "orders"
    # The seat's own retry still gets its own first answer.
    again = await run_command(
        session_factory,
        game_id,
        {"type": "PassOrder", "ship": "kestrel", "station": "pilot"},
        pilot,
        command_id=squatted,
    )
    assert (again.version, again.events) == (passed.version, passed.events)


async def test_a_seat_cannot_stop_the_gm_freeing_its_station(session_factory: Sessions) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    seat_id, _ = await create_seat(session_factory, game_id, "kestrel", "pilot", "Ada")
    await start_turn(session_factory, game_id, 0)
    version = (await game_row(session_factory, game_id)).version
    # The id the GM's "free this seat" will use once this very command is applied.
    await run_command(
        session_factory,
        game_id,
        {"type": "PassOrder", "ship": "kestrel", "station": "pilot"},
        Actor.for_seat(str(seat_id)),
        command_id=f"unseat:{seat_id}:{version + 1}",
    )
    await free_seat(session_factory, game_id, "kestrel", "pilot")
    game = await game_row(session_factory, game_id)
    assert game.state["ships"]["kestrel"]["stations"]["pilot"]["crew"] is None


async def test_the_gm_and_a_seat_each_have_their_own_command_ids(
    session_factory: Sessions,
) -> None:
    """The same id from two senders is two commands; from one sender twice, one command whose
    retry is answered as the first time, and another command under it is refused."""
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    seat_id, _ = await create_seat(session_factory, game_id, "kestrel", "pilot", "Ada")
    await start_turn(session_factory, game_id, 0)
    pilot = Actor.for_seat(str(seat_id))
    order = {"type": "PassOrder", "ship": "kestrel", "station": "pilot"}
    message = {"type": "SendMessage", "text": "Hold", "to": "kestrel/pilot"}
    by_seat = await run_command(session_factory, game_id, order, pilot, command_id="x")
    by_gm = await run_command(session_factory, game_id, message, GM, command_id="x")
    assert by_gm.version == by_seat.version + 1
    retried = await run_command(session_factory, game_id, order, pilot, command_id="x")
    assert (retried.version, retried.events) == (by_seat.version, by_seat.events)
    with pytest.raises(ServiceError) as reused:
        await run_command(session_factory, game_id, message, pilot, command_id="x")
    assert reused.value.code == "COMMAND_ID_REUSED"
    assert (await game_row(session_factory, game_id)).version == by_gm.version


async def edit_row(sessions: Sessions, game_id: uuid.UUID, changes: str) -> None:
    """Change a game's row behind the server's back, as a new write (so no process goes on with
    its copy of the game)."""
    async with sessions() as session, session.begin():
        await session.execute(
            text(f"UPDATE games SET {changes}, updated_at = now() WHERE id = :id"), {"id": game_id}
        )


async def game_due(sessions: Sessions, seed: int) -> tuple[uuid.UUID, float]:
    """A game whose 5 s turn timer has run out by the time returned."""
    game_id, _, _ = await create_game(sessions, "skirmish", seed=seed)
    await start_turn(sessions, game_id, 5)
    return game_id, time.time() + 10


async def test_deadlines_that_keep_failing_do_not_hold_up_another_games_timer(
    session_factory: Sessions,
) -> None:
    """101 games whose timers are due by their row but refused by the engine every time (here:
    the row says due, the state says not yet), ahead of one game whose timer really is due."""
    stuck, _, _ = await create_game(session_factory, "skirmish", seed=1)
    await start_turn(session_factory, stuck, 600)
    await edit_row(session_factory, stuck, "deadline_at = now() - interval '1 hour'")
    async with session_factory() as session, session.begin():
        await session.execute(
            text(
                "INSERT INTO games (id, join_code, scenario, seed, version, state, cards,"
                " gm_token_hash, deadline_at, deadline_kind, deadline_version)"
                " SELECT gen_random_uuid(), 'STUCK' || n, scenario, seed, version, state, cards,"
                " gm_token_hash, deadline_at, deadline_kind, deadline_version"
                " FROM games, generate_series(1, 100) AS n WHERE id = :id"
            ),
            {"id": stuck},
        )
    game_id, later = await game_due(session_factory, seed=2)
    for sweep in range(3):
        await sweep_once(session_factory, now=later + sweep)
    assert (await game_row(session_factory, game_id)).state["phase"] != "orders"
    # The stuck ones are tried again, less often, and expire once they really are due.
    await sweep_once(session_factory, now=later + 3600)
    async with session_factory() as session:
        phases = (
            await session.scalars(select(Game.state["phase"]).where(Game.id != game_id))
        ).all()
    assert len(phases) == 101 and "orders" not in phases


async def test_a_game_whose_expiry_crashes_does_not_stop_the_sweep(
    session_factory: Sessions, caplog: pytest.LogCaptureFixture
) -> None:
    """A state the engine cannot handle (here: orders that are not a table) is that game's problem:
    the sweep goes on to the next game, and says once what went wrong."""
    broken, _ = await game_due(session_factory, seed=1)
    await edit_row(
        session_factory,
        broken,
        "state = jsonb_set(state::jsonb, '{orders}', '5')::json,"
        " deadline_at = deadline_at - interval '1 min'",
    )
    game_id, later = await game_due(session_factory, seed=2)
    assert await sweep_once(session_factory, now=later) == 1
    assert (await game_row(session_factory, game_id)).state["phase"] != "orders"
    await sweep_once(session_factory, now=later + 5)
    failures = [r for r in caplog.records if str(broken) in r.getMessage()]
    assert len(failures) == 1 and failures[0].exc_info is not None
