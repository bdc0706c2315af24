"""This process's copy of each game's newest state: used only for the very version (and write)
the row holds, never older than what it has, bounded in size; each card catalogue kept once."""

import asyncio
import dataclasses
import random
import uuid
import zlib
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import orjson
import pytest
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import AppliedCommand, Game, whole_state
from app.rules import Actor
from app.rules.bot import table_command
from app.service import create_game, load_state, notices, run_command
from app.service.commands import command_fields, follow
from app.service.hot import HOT, CardSets, HotStates, canonical, encode, pack
from app.service.notices import ORIGIN

Sessions = async_sessionmaker[AsyncSession]
T0 = datetime(2026, 1, 1, tzinfo=UTC)
CARDS = {"c2": {"value": 2, "kind": "fire"}, "c1": {"value": 1, "kind": "move"}}


def test_a_copy_is_given_only_for_its_own_version_and_write_stamp() -> None:
    hot, game = HotStates(), uuid.uuid4()
    hot.remember(game, 3, T0, pack({"b": 1, "a": [1, 2]}))
    assert hot.recall(game, 3, T0) == {"a": [1, 2], "b": 1}
    assert hot.recall(game, 4, T0) is None  # another process moved it on
    assert hot.recall(game, 3, T0 + timedelta(microseconds=1)) is None  # rewritten (an import)
    hot.remember(game, 2, T0, pack({"old": True}))  # late: never replaces a newer version
    latest = hot.latest(game)
    assert latest is not None and latest.version == 3


def test_copies_are_canonical_and_every_reader_gets_its_own() -> None:
    data: dict[Any, Any] = {"z": {"y": 1, "x": 2}, 3: "three", "cards": CARDS, "a": None}
    assert list(canonical(data)) == ["3", "a", "cards", "z"]
    assert list(canonical(data)["z"]) == ["x", "y"]
    hot, game = HotStates(), uuid.uuid4()
    hot.remember(game, 1, T0, pack(data))
    first = hot.recall(game, 1, T0)
    assert first is not None
    assert list(first) == ["3", "a", "cards", "z"] and list(first["cards"]) == ["c1", "c2"]
    first["z"]["y"] = 99
    again = hot.recall(game, 1, T0)
    assert again is not None and again["z"]["y"] == 1 and again == canonical(data)


def test_a_card_catalogue_is_kept_once_and_shared_by_every_state_using_it() -> None:
    sets = CardSets()
    one = pack({"turn": 1, "cards": orjson.loads(orjson.dumps(CARDS))}, sets)
    two = pack({"turn": 2, "cards": dict(reversed(list(CARDS.items())))}, sets)
    assert one.cards is not None and one.cards is two.cards and len(sets) == 1
    assert b"c1" not in one.rest  # a command's own bytes leave the catalogue out
    state = one.state()
    assert state["cards"] is one.cards.cards  # the very dict: the engine hands it back ...
    assert pack({**state, "turn": 3}, sets).cards is one.cards  # ... and it is found by identity
    # The state column gets the rest (the catalogue has a column of its own, written once); a
    # state without a catalogue goes whole; a different catalogue is another set.
    assert orjson.loads(one.column()) == {"turn": 1}
    assert orjson.loads(pack({"turn": 1}, sets).column()) == {"turn": 1}
    other = pack({"cards": {"c1": {"value": 9, "kind": "move"}}}, sets)
    assert other.cards is not one.cards and len(sets) == 2


def test_the_oldest_games_are_dropped_past_the_size_limit() -> None:
    hot = HotStates(max_bytes=20_000)
    games = [uuid.uuid4() for _ in range(6)]
    noise = [str(uuid.uuid4()) for _ in range(400)]  # ~15 KB of JSON, ~8 KB compressed
    for game in games:
        hot.remember(game, 1, T0, pack({"noise": noise, "game": str(game), "cards": CARDS}))
    kept = [game for game in games if hot.latest(game) is not None]
    assert kept and kept == games[-len(kept) :] and len(kept) < len(games)


async def test_whole_games_keep_the_row_the_copy_and_the_shared_catalogue_alike(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=11)
    rng = random.Random(11)
    for step in range(60):  # turns with every station's orders, hits, allocations, undo points
        _, state = await load_state(session_factory, game_id)
        command = table_command(state, rng, step)
        await run_command(
            session_factory,
            game_id,
            command_fields(command),
            command.actor,
            command_id=f"step-{step}",
        )
    latest = HOT.latest(game_id)
    assert latest is not None and latest.cards is not None
    async with session_factory() as session:
        row = whole_state(
            *(await session.execute(select(Game.state, Game.cards).where(Game.id == game_id))).one()
        )
    assert row["turn"] >= 2 and latest.state() == canonical(row)
    assert encode(latest.cards.cards) == latest.cards.blob  # nothing changed the shared catalogue
    assert encode(latest.cards.cards) == encode(row["cards"])


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


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What asyncpg sends PostgreSQL from now on, in order: BEGIN, COMMIT and ROLLBACK, and the
    first word of each statement (SQLAlchemy runs them all as prepared statements)."""
    sent: list[str] = []
    for method, word in (("start", "BEGIN"), ("commit", "COMMIT"), ("rollback", "ROLLBACK")):
        original = getattr(asyncpg.transaction.Transaction, method)

        async def logged(self: Any, *args: Any, _run: Any = original, _word: str = word) -> Any:
            sent.append(_word)
            return await _run(self, *args)

        monkeypatch.setattr(asyncpg.transaction.Transaction, method, logged)
    fetch = asyncpg.prepared_stmt.PreparedStatement.fetch

    async def fetched(self: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(self.get_query().split()[0].upper())
        return await fetch(self, *args, **kwargs)

    monkeypatch.setattr(asyncpg.prepared_stmt.PreparedStatement, "fetch", fetched)
    return sent


async def red_alert_game(session_factory: Sessions, seed: int) -> uuid.UUID:
    """A new skirmish after one GM command (red alert on): at version 1."""
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=seed)
    await run_command(
        session_factory, game_id, {"type": "SetRedAlert", "on": True}, Actor.gm(), command_id="a"
    )
    return game_id


async def test_reading_a_state_is_one_statement_and_no_transaction(
    session_factory: Sessions, wire: list[str]
) -> None:
    game_id = await red_alert_game(session_factory, seed=4)
    wire.clear()
    version, state = await load_state(session_factory, game_id)  # held here: no state sent
    assert (version, state["red_alert"]) == (1, True)
    HOT.forget(game_id)
    assert (await load_state(session_factory, game_id))[1] == state  # not held: read from the row
    assert wire == ["SELECT", "SELECT"]


async def stored(session_factory: Sessions, game_id: uuid.UUID) -> tuple[int, Any, list[int]]:
    """The row's version and state, and the versions of its stored commands."""
    async with session_factory() as session:
        game = await session.get(Game, game_id)
        assert game is not None
        versions = await session.scalars(
            select(AppliedCommand.version).where(AppliedCommand.game_id == game_id)
        )
        return game.version, canonical(game.whole_state), sorted(versions)


async def test_a_command_on_the_copy_held_here_is_one_statement(
    session_factory: Sessions, wire: list[str]
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=6)
    wire.clear()
    await run_command(
        session_factory, game_id, {"type": "SetRedAlert", "on": True}, Actor.gm(), command_id="a"
    )
    assert wire[0] == "BEGIN" and wire[-1] == "COMMIT"  # not held yet: the row is locked
    wire.clear()
    result = await run_command(
        session_factory, game_id, {"type": "SendMessage", "text": "hi"}, Actor.gm(), command_id="b"
    )
    assert wire == ["WITH"]  # state, events, command and NOTIFY, committed on their own
    assert await stored(session_factory, game_id) == (2, result.state, [1, 2])
    assert [e["type"] for e in result.events] == ["MessageSent"]
    again = await run_command(  # a retry: the one statement is refused, the lock answers it
        session_factory, game_id, {"type": "SendMessage", "text": "hi"}, Actor.gm(), command_id="b"
    )
    assert (again.version, again.events) == (2, result.events)
    assert (await stored(session_factory, game_id))[0] == 2


def set_back(game_id: uuid.UUID, entry: Any) -> None:
    """Make this process's copy of the game an older version, as if another process had moved
    the row on since."""
    HOT.forget(game_id)
    HOT.remember(game_id, entry.version, entry.stamp, pack(entry.state()), entry.deadline)


async def test_a_command_on_a_copy_behind_the_row_is_applied_to_the_row(
    session_factory: Sessions, wire: list[str]
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=7)
    seat = {"type": "SeatCrew", "ship": "kestrel", "station": "pilot", "name": "Ayo"}
    system = Actor.system()
    await run_command(session_factory, game_id, {**seat, "seat": "s1"}, system, command_id="a")
    behind = HOT.latest(game_id)
    unseat = {"type": "UnseatCrew", "ship": "kestrel", "station": "pilot"}
    await run_command(session_factory, game_id, unseat, system, command_id="b")
    set_back(game_id, behind)  # pilot manned here, free in the row
    wire.clear()
    # Refused on the copy (the station is manned there), applied on the row.
    result = await run_command(
        session_factory, game_id, {**seat, "seat": "s2"}, system, command_id="c"
    )
    assert result.state["ships"]["kestrel"]["stations"]["pilot"]["crew"]["seat"] == "s2"
    assert wire[0] == "BEGIN"  # nothing was tried without the lock
    assert await stored(session_factory, game_id) == (3, result.state, [1, 2, 3])
    # Accepted on the copy, but the row moved on: the one statement changes nothing, then the
    # lock applies it to the row.
    set_back(game_id, behind)
    wire.clear()
    message = {"type": "SendMessage", "text": "hi"}
    result = await run_command(session_factory, game_id, message, Actor.gm(), command_id="d")
    assert wire[:2] == ["WITH", "BEGIN"]
    assert result.state["ships"]["kestrel"]["stations"]["pilot"]["crew"]["seat"] == "s2"
    assert await stored(session_factory, game_id) == (4, result.state, [1, 2, 3, 4])
    # A version the caller expects that only the row has.
    set_back(game_id, behind)
    result = await run_command(
        session_factory, game_id, message, Actor.gm(), command_id="e", expected_version=4
    )
    assert result.version == 5


async def test_commands_at_once_on_one_copy_all_land_in_order(session_factory: Sessions) -> None:
    game_id = await red_alert_game(session_factory, seed=8)
    results = await asyncio.gather(
        *(
            run_command(
                session_factory,
                game_id,
                {"type": "SendMessage", "text": f"m{i}"},
                Actor.gm(),
                command_id=f"m{i}",
            )
            for i in range(8)
        )
    )
    assert sorted(r.version for r in results) == list(range(2, 10))
    version, state, versions = await stored(session_factory, game_id)
    assert (version, versions) == (9, list(range(1, 10)))
    assert state == max(results, key=lambda r: r.version).state
    assert (await load_state(session_factory, game_id)) == (9, state)


async def test_a_copy_replaced_while_the_row_was_read_is_not_lost(
    session_factory: Sessions, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = await red_alert_game(session_factory, seed=5)
    real_recall = HOT.recall
    misses: list[tuple[Any, ...]] = []

    def replaced_once(*args: Any) -> Any:
        if not misses:  # as if a newer command of this process had just replaced the copy
            misses.append(args)
            return None
        return real_recall(*args)

    monkeypatch.setattr(HOT, "recall", replaced_once)
    version, state = await load_state(session_factory, game_id)
    assert misses and (version, state["red_alert"]) == (1, True)


# --- Following another process's commands ----------------------------------------------------


async def written_by_another_process(
    session_factory: Sessions,
    heard: asyncio.Queue[str],
    monkeypatch: pytest.MonkeyPatch,
    game_id: uuid.UUID,
    command: dict[str, Any],
    actor: Actor,
    command_id: str,
) -> tuple[Any, notices.Notice]:
    """Run a command, then put this process's copy back where it was, as if another process had
    written it: (the copy that command left, its notice as another process would hear it)."""
    before = HOT.latest(game_id)
    assert before is not None
    monkeypatch.setattr(notices, "_others_listen", True)  # the long form: another process listens
    await run_command(session_factory, game_id, command, actor, command_id=command_id)
    written = HOT.latest(game_id)
    payload = await asyncio.wait_for(heard.get(), 5)
    assert not notices.parse(payload).followable()  # this process's own echo
    monkeypatch.setattr(notices, "ORIGIN", "another")
    set_back(game_id, before)
    return written, notices.parse(payload)


async def test_a_command_written_elsewhere_is_followed_on_the_copy_here(
    session_factory: Sessions,
    heard: asyncio.Queue[str],
    monkeypatch: pytest.MonkeyPatch,
    wire: list[str],
) -> None:
    game_id = await red_alert_game(session_factory, seed=12)
    await heard.get()
    message = {"type": "SendMessage", "text": "Brace"}
    written, notice = await written_by_another_process(
        session_factory, heard, monkeypatch, game_id, message, Actor.gm(), "b"
    )
    wire.clear()
    assert follow(notice)
    followed = HOT.latest(game_id)
    assert followed is not None and written is not None
    assert (followed.version, followed.stamp, followed.deadline) == (
        2,
        written.stamp,
        written.deadline,
    )
    assert zlib.decompress(followed.packed) == zlib.decompress(written.packed)
    row_state = (await stored(session_factory, game_id))[1]
    wire.clear()
    assert (await load_state(session_factory, game_id))[1] == row_state
    assert wire == ["SELECT"]  # the read found this version held here: no state came back
    wire.clear()
    await run_command(  # and a command here takes the copy: one statement, no lock
        session_factory, game_id, {"type": "SetRedAlert", "on": False}, Actor.gm(), command_id="c"
    )
    assert wire == ["WITH"]


async def test_a_notice_is_followed_only_from_the_very_row_it_was_written_over(
    session_factory: Sessions,
    heard: asyncio.Queue[str],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    game_id = await red_alert_game(session_factory, seed=13)
    await heard.get()
    base = HOT.latest(game_id)
    assert base is not None and base.stamp is not None
    _, notice = await written_by_another_process(
        session_factory,
        heard,
        monkeypatch,
        game_id,
        {"type": "SendMessage", "text": "x"},
        Actor.gm(),
        "b",
    )
    unfollowable = [
        notices.Notice(notice.game_id, notice.version),  # the short form
        dataclasses.replace(notice, base_stamp=base.stamp + timedelta(microseconds=1)),
        dataclasses.replace(notice, version=notice.version + 1),  # a copy two versions behind
        dataclasses.replace(notice, digest="0" * 24),  # the writer got another state
        dataclasses.replace(notice, record='{"command": {"type": "Nonsense"}}'),
        dataclasses.replace(notice, record="not json"),
    ]
    for odd in unfollowable:
        assert not follow(odd), odd
        kept = HOT.latest(game_id)
        assert kept is not None and (kept.version, kept.stamp) == (base.version, base.stamp)
    assert "gave another state than its writer's" in caplog.text
    assert follow(notice)  # and the copy left as it was still follows the real one


async def test_a_whole_game_written_elsewhere_is_followed_command_by_command(
    session_factory: Sessions, heard: asyncio.Queue[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=14)
    rng = random.Random(14)
    for step in range(60):  # turns: every station's orders, hits, allocations, deadlines
        monkeypatch.setattr(notices, "ORIGIN", ORIGIN)
        _, state = await load_state(session_factory, game_id)
        command = table_command(state, rng, step)
        written, notice = await written_by_another_process(
            session_factory,
            heard,
            monkeypatch,
            game_id,
            command_fields(command),
            command.actor,
            f"step-{step}",
        )
        assert follow(notice), f"step {step}: {command}"
        followed = HOT.latest(game_id)
        assert followed is not None and written is not None
        assert (followed.stamp, followed.deadline) == (written.stamp, written.deadline)
        assert followed.state() == written.state()
    version, state, _ = await stored(session_factory, game_id)
    assert (await load_state(session_factory, game_id)) == (version, state)


def test_notices_read_back_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    game_id, stamp = uuid.uuid4(), datetime(2026, 11, 21, 14, 5, 6, 123456, tzinfo=UTC)
    payload = notices.full(game_id, 8, stamp, stamp + timedelta(seconds=1), "ab12", '{"a": ":"}')
    assert notices.parse(payload) == notices.Notice(game_id, 8, ORIGIN)  # our own: not read on
    monkeypatch.setattr(notices, "ORIGIN", "another")  # as another process hears it
    assert notices.parse(payload) == notices.Notice(
        game_id, 8, ORIGIN, stamp, stamp + timedelta(seconds=1), "ab12", '{"a": ":"}'
    )
    assert notices.parse(notices.short(game_id, 9)) == notices.Notice(game_id, 9)
    huge = notices.full(game_id, 8, stamp, stamp, "ab12", "é" * 4000)  # 8000 bytes in UTF-8
    assert huge == notices.short(game_id, 8)  # PostgreSQL would refuse it: the short form
    for odd in ("", "x:1", f"{game_id}", f"{game_id}:x", f"{game_id}:1:2", "seats:x"):
        with pytest.raises(ValueError):
            notices.parse(odd)
