"""A process keeps the states it committed or read, so it need not read them back from the
database (app/service/recent.py); the row stays the truth, whoever else writes it."""

import copy
import uuid

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.rules import Actor
from app.service import create_game, load_state, run_command

Sessions = async_sessionmaker[AsyncSession]
GM = Actor.gm()


async def _message(sessions: Sessions, game_id: uuid.UUID, words: str, command_id: str) -> int:
    command = {"type": "SendMessage", "text": words}
    return (await run_command(sessions, game_id, command, GM, command_id=command_id)).version


async def _written_elsewhere(sessions: Sessions, game_id: uuid.UUID, words: str) -> None:
    """Another server process (or a game deleted and imported again from an older export, then
    played on) leaves the row at the same version with another state."""
    async with sessions() as session, session.begin():
        await session.execute(
            text(
                "UPDATE games SET updated_at = clock_timestamp(),"
                " state = jsonb_set(state::jsonb, '{messages,-1,text}',"
                "  to_jsonb(CAST(:words AS text)))::json"
                " WHERE id = :id"
            ),
            {"id": game_id, "words": words},
        )


async def test_a_state_written_elsewhere_at_the_same_version_is_read_from_the_row(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    await _message(session_factory, game_id, "Hail", "m1")
    version = await _message(session_factory, game_id, "Hold fire", "m2")  # kept here now
    await _written_elsewhere(session_factory, game_id, "Full retreat")

    read_version, state = await load_state(session_factory, game_id)
    assert read_version == version and state["messages"][-1]["text"] == "Full retreat"
    # The next command is applied to the row's state, not to this process's older copy.
    after = await _message(session_factory, game_id, "Aye", "m3")
    _, state = await load_state(session_factory, game_id)
    assert after == version + 1
    assert [m["text"] for m in state["messages"][-2:]] == ["Full retreat", "Aye"]


async def test_the_live_hub_is_shown_the_newest_committed_state(
    session_factory: Sessions,
) -> None:
    """Asked for at least the version it was told of, a copy this process committed serves; a
    version it never had comes from the row."""
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    version = await _message(session_factory, game_id, "Hail", "m1")
    shown, state = await load_state(session_factory, game_id, at_least=version)
    assert shown == version and state["messages"][-1]["text"] == "Hail"
    async with session_factory() as session, session.begin():  # another process commits
        await session.execute(
            text("UPDATE games SET version = version + 1, updated_at = now() WHERE id = :id"),
            {"id": game_id},
        )
    shown, _ = await load_state(session_factory, game_id, at_least=version + 1)
    assert shown == version + 1


async def test_games_share_one_catalogue_and_commands_leave_it_as_it_was(
    session_factory: Sessions,
) -> None:
    """The card catalogue is over half a state: a process decodes it once for every game with the
    same one, so it must come out of every command as it went in."""
    first, _, _ = await create_game(session_factory, "skirmish", seed=1)
    second, _, _ = await create_game(session_factory, "skirmish", seed=2)
    _, before = await load_state(session_factory, first)
    snapshot = copy.deepcopy(before["cards"])
    await run_command(session_factory, first, {"type": "StartTurn"}, GM, command_id="t1")
    await _message(session_factory, second, "Hail", "m1")
    _, one = await load_state(session_factory, first, at_least=1)
    _, other = await load_state(session_factory, second, at_least=1)
    assert one["cards"] is other["cards"]
    assert one["cards"] == snapshot
    assert list(one) == sorted(one)  # canonical: the catalogue's key where sorting puts it
