"""The row is the truth, whoever else writes it; what a command reads back is canonical, and its
card catalogue comes out of every command as it went in."""

import copy
import uuid

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.rules import Actor
from app.service import canonical, create_game, load_state, run_command

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


async def test_commands_leave_the_catalogue_as_it_was_and_the_state_canonical(
    session_factory: Sessions,
) -> None:
    """The card catalogue is stored apart from the state (written once): every command must
    leave it as it was, and the state read back has its keys sorted (the engine's dice follow
    the order it iterates dicts in)."""
    first, _, _ = await create_game(session_factory, "skirmish", seed=1)
    second, _, _ = await create_game(session_factory, "skirmish", seed=2)
    _, before = await load_state(session_factory, first)
    snapshot = copy.deepcopy(before["cards"])
    await run_command(session_factory, first, {"type": "StartTurn"}, GM, command_id="t1")
    await _message(session_factory, second, "Hail", "m1")
    _, one = await load_state(session_factory, first)
    _, other = await load_state(session_factory, second)
    assert one["cards"] == other["cards"] == snapshot
    assert one == canonical(one) and list(one) == sorted(one)


async def _cards_written_elsewhere(
    sessions: Sessions, game_id: uuid.UUID, card: str, name: str, new_key: bool
) -> None:
    """Another writer renames a card in the row, and gives the game a new content key or not."""
    async with sessions() as session, session.begin():
        await session.execute(
            text(
                "UPDATE games SET cards = jsonb_set(cards::jsonb, CAST(:path AS text[]),"
                " to_jsonb(CAST(:name AS text)))::json"
                + (", content_key = 'written-elsewhere'" if new_key else "")
                + " WHERE id = :id"
            ),
            {"id": game_id, "path": [card, "name"], "name": name},
        )


async def test_cards_are_read_again_when_the_game_takes_new_content_and_only_then(
    session_factory: Sessions,
) -> None:
    """A game's cards change only with its content, which gives the game a new content key: a
    command reads them from the row when the key is new to this process, and otherwise uses the
    ones it read under that key."""
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    _, state = await load_state(session_factory, game_id)
    card = sorted(state["cards"])[0]
    await _message(session_factory, game_id, "Hail", "m1")
    await _cards_written_elsewhere(session_factory, game_id, card, "Same key", new_key=False)
    _, state = await load_state(session_factory, game_id)
    assert state["cards"][card]["name"] != "Same key"  # no new content: the cards read before
    await _cards_written_elsewhere(session_factory, game_id, card, "New content", new_key=True)
    await _message(session_factory, game_id, "Hold fire", "m2")
    _, state = await load_state(session_factory, game_id)
    assert state["cards"][card]["name"] == "New content"
