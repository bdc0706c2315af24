"""The command path against a real PostgreSQL: one transaction, one version, no lost update."""

import asyncio
import random
import uuid
from typing import Any

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app import service
from app.db.models import AppliedCommand, Event, Game
from app.rules import Actor
from app.rules.bot import propose, stations_to_order
from app.service import ServiceError, create_game, create_seat, notices, replay_state, run_command
from app.service.commands import command_fields
from tests.legacy import legacy_game

Sessions = async_sessionmaker[AsyncSession]
GM = Actor.gm()


async def stored(sessions: Sessions, game_id: uuid.UUID) -> Game:
    async with sessions() as session:
        game = await session.get(Game, game_id)
        assert game is not None
        return game


async def count(sessions: Sessions, model: Any, game_id: uuid.UUID) -> int:
    async with sessions() as session:
        return int(
            await session.scalar(
                select(func.count()).select_from(model).where(model.game_id == game_id)
            )
            or 0
        )


async def test_command_stores_state_events_and_itself_in_one_version(
    session_factory: Sessions,
) -> None:
    game_id, join_code, _ = await create_game(session_factory, "skirmish", seed=1)
    result = await run_command(
        session_factory, game_id, {"type": "SendMessage", "text": "Hail"}, GM, command_id="c1"
    )
    assert result.version == 1
    assert [e["type"] for e in result.events] == ["MessageSent"]
    game = await stored(session_factory, game_id)
    assert game.version == 1 and game.state["messages"][-1]["text"] == "Hail"
    assert len(join_code) == 6
    assert await count(session_factory, Event, game_id) == 1
    async with session_factory() as session:
        applied = await session.get(AppliedCommand, (game_id, "gm", "c1"))
    assert applied is not None and applied.result["command"]["type"] == "SendMessage"
    assert applied.result["actor"] == {"role": "gm", "seat": None}


async def test_repeated_command_id_is_applied_once(session_factory: Sessions) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    command = {"type": "SendMessage", "text": "Once"}
    first = await run_command(session_factory, game_id, command, GM, command_id="same")
    again = await run_command(
        session_factory, game_id, command, GM, command_id="same", expected_version=0
    )  # a retry may carry its original version
    assert (again.version, again.events) == (first.version, first.events)
    assert (await stored(session_factory, game_id)).version == 1
    assert await count(session_factory, Event, game_id) == 1


async def test_one_command_id_sent_many_times_at_once_is_applied_once(
    session_factory: Sessions,
) -> None:
    """A phone's retries racing each other: all but the first wait for the game's lock after
    checking for an earlier command, and must still answer as retries, not fail."""
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    command = {"type": "SendMessage", "text": "Twice?"}
    results = await asyncio.gather(
        *(run_command(session_factory, game_id, command, GM, command_id="tap") for _ in range(8))
    )
    assert {r.version for r in results} == {1}
    assert all(r.events == results[0].events for r in results)
    assert (await stored(session_factory, game_id)).version == 1
    assert await count(session_factory, Event, game_id) == 1
    assert await count(session_factory, AppliedCommand, game_id) == 1


@pytest.mark.parametrize(
    "command",
    [
        {"type": "StartTurn"},  # cannot repeat: a second one is WRONG_PHASE
        {"type": "SendMessage", "text": "Shields up"},  # can: a second one is another message
    ],
)
async def test_a_retry_waiting_for_the_lock_while_its_first_send_commits_gets_its_answer(
    session_factory: Sessions, command: dict[str, Any]
) -> None:
    """A phone whose answer was lost sends the same command again while the first send still
    waits for the game's lock (as behind a load balancer).
    The retry looked for an earlier command before the first committed; once it has the lock it
    must answer as a retry, not refuse the command it finds already applied (StartTurn again in
    the Orders phase would be WRONG_PHASE)."""
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    async with session_factory() as holder, holder.begin():
        # whatever else holds the game while both queue
        await holder.execute(
            text("SELECT 1 FROM games WHERE id = :game_id FOR UPDATE"), {"game_id": game_id}
        )
        first = asyncio.create_task(
            run_command(session_factory, game_id, command, GM, command_id="go")
        )
        await waiting_for_lock(session_factory, 1)
        retry = asyncio.create_task(
            run_command(session_factory, game_id, command, GM, command_id="go")
        )
        await waiting_for_lock(session_factory, 2)
    results = await asyncio.gather(first, retry)
    assert [r.version for r in results] == [1, 1]
    assert results[0].events == results[1].events
    assert (await stored(session_factory, game_id)).version == 1
    assert await count(session_factory, AppliedCommand, game_id) == 1


async def waiting_for_lock(sessions: Sessions, how_many: int) -> None:
    """Until `how_many` backends of this database wait for a lock (asked from a session of its
    own: within a transaction, pg_stat_activity does not change)."""
    for _ in range(500):
        async with sessions() as session:
            waiting = await session.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE wait_event_type = 'Lock' AND datname = current_database()"
                )
            )
        if waiting == how_many:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never {how_many} waiting for the lock")


async def test_a_command_id_reused_for_another_command_is_refused(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    await run_command(
        session_factory, game_id, {"type": "SendMessage", "text": "A"}, GM, command_id="id"
    )
    with pytest.raises(ServiceError) as refused:
        await run_command(
            session_factory, game_id, {"type": "SendMessage", "text": "B"}, GM, command_id="id"
        )
    assert (refused.value.code, refused.value.status) == ("COMMAND_ID_REUSED", 409)


async def test_expected_version_mismatch_is_stale_and_changes_nothing(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    await run_command(
        session_factory,
        game_id,
        {"type": "SetRedAlert", "on": True},
        GM,
        command_id="a",
        expected_version=0,
    )
    with pytest.raises(ServiceError) as refused:
        await run_command(
            session_factory,
            game_id,
            {"type": "SetRedAlert", "on": False},
            GM,
            command_id="b",
            expected_version=0,
        )
    assert (refused.value.code, refused.value.status) == ("STALE_VERSION", 409)
    game = await stored(session_factory, game_id)
    assert game.version == 1 and game.state["red_alert"] is True


async def test_refused_command_changes_nothing_and_maps_to_a_status(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    cases: list[tuple[dict[str, Any], Actor, str, int]] = [
        ({"type": "CloseOrders"}, GM, "WRONG_PHASE", 409),
        ({"type": "SetRedAlert", "on": True}, Actor.for_seat("nobody"), "GM_ONLY", 403),
        ({"type": "DestroyShip", "ship": "ghost"}, GM, "NO_SUCH_SHIP", 404),
        ({"type": "Teleport"}, GM, "UNKNOWN_COMMAND", 400),
    ]
    for data, actor, code, status in cases:
        with pytest.raises(ServiceError) as refused:
            await run_command(session_factory, game_id, data, actor, command_id=uuid.uuid4().hex)
        assert (refused.value.code, refused.value.status) == (code, status)
    assert (await stored(session_factory, game_id)).version == 0
    assert await count(session_factory, AppliedCommand, game_id) == 0


async def test_unknown_game_is_404(session_factory: Sessions) -> None:
    for game_id in (uuid.uuid4(), "not-a-uuid"):
        with pytest.raises(ServiceError) as refused:
            await run_command(session_factory, game_id, {"type": "EndCombat"}, GM, command_id="x")
        assert refused.value.status == 404


async def test_fifty_concurrent_commands_are_serialised_without_lost_updates(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)

    async def one(i: int) -> int:
        data: dict[str, Any] = (
            {
                "type": "ImposeModifier",
                "ship": "kestrel",
                "applies": "attack",
                "value": 1,
                "reason": f"drill {i}",
                "lasting": "combat",
            }
            if i % 2
            else {"type": "SendMessage", "text": f"message {i}"}
        )
        return (await run_command(session_factory, game_id, data, GM, command_id=f"c{i}")).version

    versions = await asyncio.gather(*(one(i) for i in range(50)))
    assert sorted(versions) == list(range(1, 51))  # each its own version: none overwrote another
    game = await stored(session_factory, game_id)
    assert game.version == 50
    assert sorted(m["reason"] for m in game.state["modifiers"]) == sorted(
        f"drill {i}" for i in range(1, 50, 2)
    )
    texts = {m["text"] for m in game.state["messages"]}
    assert len(game.state["messages"]) == 20  # the engine keeps the last 20 messages
    assert texts <= {f"message {i}" for i in range(0, 50, 2)}
    assert await count(session_factory, Event, game_id) == 50
    assert await count(session_factory, AppliedCommand, game_id) == 50


async def test_each_commit_notifies_with_the_game_version_and_never_the_state(
    session_factory: Sessions, heard: asyncio.Queue[str]
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    await run_command(
        session_factory, game_id, {"type": "SendMessage", "text": "x"}, GM, command_id="n1"
    )
    with pytest.raises(ServiceError):
        await run_command(session_factory, game_id, {"type": "CloseOrders"}, GM, command_id="n2")
    payload = await asyncio.wait_for(heard.get(), 5)
    assert payload == f"{game_id}:1:{notices.WRITER}"
    assert notices.parse(payload) == notices.Notice(game_id, 1, notices.WRITER)
    await asyncio.sleep(0.2)
    assert heard.empty()  # a refused command was rolled back, its NOTIFY with it


async def made_with(sessions: Sessions, start: str) -> uuid.UUID:
    """A skirmish with the syshit module whose dice start from a secret key, a chosen number,
    or (a game from before, G-TURN-3) splitmix64."""
    if start == "legacy":
        game_id = await legacy_game(sessions)
        command = {"type": "SetModule", "module": "syshit", "on": True}
        await run_command(sessions, game_id, command, GM, command_id="module")
        return game_id
    seed = {"secret": None, "chosen": 42}[start]
    game_id, _, _ = await create_game(sessions, "skirmish", seed=seed, modules=["syshit"])
    return game_id


@pytest.mark.parametrize("start", ["secret", "chosen", "legacy"])
async def test_g_turn_3_replaying_the_stored_commands_gives_the_stored_state(
    session_factory: Sessions, start: str
) -> None:
    """Three turns played by the engine's bot through the service, seats, timers and all."""
    game_id = await made_with(session_factory, start)
    for station in ("weapons", "engineering", "pilot", "comms"):
        await create_seat(session_factory, game_id, "kestrel", station, station.title())
    rng = random.Random(42)
    for _ in range(3):
        await run_command(
            session_factory,
            game_id,
            {"type": "StartTurn", "seconds": 60},
            GM,
            command_id=uuid.uuid4().hex,
        )
        for _attempt in range(20):
            state = (await stored(session_factory, game_id)).whole_state
            if state["phase"] != "orders" or not stations_to_order(state):
                break
            ship, station, actor = stations_to_order(state)[0]
            order = command_fields(propose(state, ship, station, rng, actor))
            await run_command(session_factory, game_id, order, actor, command_id=uuid.uuid4().hex)
        state = (await stored(session_factory, game_id)).whole_state
        if state["phase"] == "orders":
            await run_command(
                session_factory, game_id, {"type": "CloseOrders"}, GM, command_id=uuid.uuid4().hex
            )
        while (state := (await stored(session_factory, game_id)).state)["phase"] == "allocation":
            await run_command(
                session_factory,
                game_id,
                {"type": "ForceAllocation"},
                GM,
                command_id=uuid.uuid4().hex,
            )
    game = await stored(session_factory, game_id)
    assert game.state["turn"] == 3 and "syshit" in game.state["modules"]
    assert any(e["type"] == "AttackResolved" for e in game.state["log"])  # dice were rolled
    assert ("kind" in game.state["rng"]) is (start != "legacy")  # each kept its generator
    assert await replay_state(session_factory, game_id) == game.whole_state


async def test_g_turn_3_a_game_made_without_a_seed_has_a_secret_of_at_least_128_bits(
    session_factory: Sessions,
) -> None:
    games = [await create_game(session_factory, "skirmish") for _ in range(2)]
    seeds = []
    for game_id, _, _ in games:
        game = await stored(session_factory, game_id)
        seed = game.seed
        assert len(bytes.fromhex(seed["key"])) * 8 >= 128
        assert game.state["rng"]["key"] == seed["key"]  # the game's dice use that secret
        seeds.append(seed["key"])
    assert seeds[0] != seeds[1]
    # A number the GM chose still gives the same game each time (a demo, a test).
    chosen = [await create_game(session_factory, "skirmish", seed=42) for _ in range(2)]
    states = [(await stored(session_factory, game_id)).state for game_id, _, _ in chosen]
    assert states[0] == states[1] and states[0]["rng"]["key"] not in seeds


async def test_modules_chosen_at_creation_are_commands_too(session_factory: Sessions) -> None:
    game_id, _, _ = await create_game(
        session_factory, "skirmish", seed=3, modules=["starmada", "syshit"]
    )
    game = await stored(session_factory, game_id)
    # npc is the scenario's own; the two chosen at creation join it.
    assert game.version == 2 and game.state["modules"] == ["npc", "starmada", "syshit"]
    with pytest.raises(ServiceError) as refused:
        await create_game(session_factory, "skirmish", modules=["warp"])
    assert refused.value.code == "UNKNOWN_MODULE"
    with pytest.raises(ServiceError) as missing:
        await create_game(session_factory, "no-such-scenario")
    assert (missing.value.code, missing.value.status) == ("NO_SUCH_SCENARIO", 404)


async def test_service_exports_what_the_screens_use() -> None:
    for name in (
        "run_command",
        "create_game",
        "create_seat",
        "free_seat",
        "revoke_seat",
        "seat_by_token",
        "is_gm_token",
        "events_after",
        "game_by_join_code",
        "ensure_demo_game",
        "replay_state",
    ):
        assert callable(getattr(service, name)), name
