"""This process's copy of each game's newest state: used only for the very version (and write)
the row holds, never older than what it has, bounded in size."""

import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.rules import Actor
from app.service import create_game, load_state, run_command
from app.service.hot import HOT, HotStates, canonical, decode, encode

Sessions = async_sessionmaker[AsyncSession]
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_a_copy_is_given_only_for_its_own_version_and_write_stamp() -> None:
    hot, game = HotStates(), uuid.uuid4()
    hot.remember(game, 3, T0, encode({"b": 1, "a": [1, 2]}))
    assert decode(hot.recall(game, 3, T0) or b"") == {"a": [1, 2], "b": 1}
    assert hot.recall(game, 4, T0) is None  # another process moved it on
    assert hot.recall(game, 3, T0 + timedelta(microseconds=1)) is None  # rewritten (an import)
    hot.remember(game, 2, T0, encode({"old": True}))  # late: never replaces a newer version
    latest = hot.latest(game)
    assert latest is not None and latest.version == 3


def test_copies_are_canonical_and_every_reader_gets_its_own() -> None:
    data = {"z": {"y": 1, "x": 2}, 3: "three", "a": None}
    assert list(canonical(data)) == ["3", "a", "z"] and list(canonical(data)["z"]) == ["x", "y"]
    hot, game = HotStates(), uuid.uuid4()
    hot.remember(game, 1, T0, encode(data))
    first = decode(hot.recall(game, 1, T0) or b"")
    first["z"]["y"] = 99
    assert decode(hot.recall(game, 1, T0) or b"")["z"]["y"] == 1


def test_the_oldest_games_are_dropped_past_the_size_limit() -> None:
    hot = HotStates(max_bytes=20_000)
    games = [uuid.uuid4() for _ in range(6)]
    noise = [str(uuid.uuid4()) for _ in range(400)]  # ~15 KB of JSON, ~8 KB compressed
    for game in games:
        hot.remember(game, 1, T0, encode({"noise": noise, "game": str(game)}))
    kept = [game for game in games if hot.latest(game) is not None]
    assert kept and kept == games[-len(kept) :] and len(kept) < len(games)


async def test_a_row_changed_behind_this_process_is_read_again(session_factory: Sessions) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=3)
    result = await run_command(
        session_factory, game_id, {"type": "SetRedAlert", "on": True}, Actor.gm(), command_id="a"
    )
    assert HOT.latest(game_id) is not None
    # Someone else rewrites the row at the same version (as an import would), red alert off.
    async with session_factory() as session, session.begin():
        await session.execute(
            text(
                "UPDATE games SET state = jsonb_set(state, '{red_alert}', 'false'),"
                " updated_at = now() WHERE id = :id"
            ),
            {"id": game_id},
        )
    version, state = await load_state(session_factory, game_id)
    assert version == result.version and state["red_alert"] is False
    again = await run_command(
        session_factory, game_id, {"type": "SendMessage", "text": "hi"}, Actor.gm(), command_id="b"
    )
    assert again.state["red_alert"] is False  # applied to the row's state, not the stale copy
