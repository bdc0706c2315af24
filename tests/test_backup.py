"""`bridgecrew export` / `import`: a whole game moves between servers and plays on."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from app.backup import FORMAT_VERSION, BackupError, export_game, import_game
from app.db.session import create_engine, create_session_factory
from app.rules import Actor, rng
from app.service import canonical, create_game, create_seat, load_state, replay_state, run_command
from tests.legacy import old_export


async def _factory(url: str):  # type: ignore[no-untyped-def]
    engine = create_engine(url)
    return engine, create_session_factory(engine)


async def test_exported_game_imports_elsewhere_and_plays_on(
    db_url: str, pg_server_url: str
) -> None:
    """G-TURN-3: the export carries the game's secret seed, so the game goes on elsewhere with
    the same dice it would have had at home."""
    engine, factory = await _factory(db_url)
    game_id, join_code, _gm_token = await create_game(factory, "skirmish")
    seat_id, _seat_token = await create_seat(factory, game_id, "kestrel", "pilot", "Ana", None)
    await run_command(
        factory, game_id, {"type": "StartTurn", "seconds": 0}, Actor.gm(), command_id="start-1"
    )
    data = await export_game(factory, str(game_id))
    await engine.dispose()  # the database is copied below: nobody may be using it
    exported = json.loads(json.dumps(data))  # it is plain JSON
    seed = exported["game"]["seed"]
    assert len(bytes.fromhex(seed["key"])) * 8 >= 128
    assert seed["key"] == exported["game"]["state"]["rng"]["key"]
    for command in exported["applied_commands"]:
        assert command.pop("sender")  # as in exports made before ids were kept per sender

    # A second, empty server: a fresh database cloned from the migrated template.
    source = make_url(db_url)
    other_url = source.set(database="backup_target").render_as_string(hide_password=False)
    admin = create_engine(pg_server_url, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text("DROP DATABASE IF EXISTS backup_target"))
        await conn.execute(text(f'CREATE DATABASE backup_target TEMPLATE "{source.database}"'))
    await admin.dispose()
    # The template clone carries the source game; empty it so the import is a real move.
    engine2, factory2 = await _factory(other_url)
    async with engine2.begin() as conn:
        await conn.execute(text("DELETE FROM games"))
    new_id, new_code = await import_game(factory2, exported)
    assert new_id == str(game_id)
    assert new_code == join_code

    again = await export_game(factory2, new_code)
    assert again["game"]["state"] == data["game"]["state"]
    assert again["game"]["seed"] == seed
    assert again["events"] == data["events"]
    assert again["applied_commands"] == data["applied_commands"]  # senders told from actors
    assert [s["token_hash"] for s in again["seats"]] == [s["token_hash"] for s in data["seats"]]
    assert await replay_state(factory2, game_id) == data["game"]["state"]

    # The same commands on both servers: the same dice (an attack, the next turn's draws).
    engine, factory = await _factory(db_url)
    states = []
    for where in (factory2, factory):
        result = await run_command(
            where,
            game_id,
            {"type": "PassOrder", "ship": "kestrel", "station": "pilot"},
            Actor.for_seat(str(seat_id)),
            command_id="pass-1",
        )
        assert result.version == data["game"]["version"] + 1
        states.append(await _attack_and_next_turn(where, game_id))
    assert states[0] == states[1] and states[0]["turn"] == 2
    await engine.dispose()

    with pytest.raises(BackupError) as refused:
        await import_game(factory2, exported)
    assert refused.value.code == "GAME_EXISTS"
    await engine2.dispose()


async def _attack_and_next_turn(factory: Any, game_id: Any) -> dict[str, Any]:
    """The raider shoots at the Kestrel (a die), then a new turn deals fresh cards."""
    commands: list[dict[str, Any]] = [
        {"type": "SetPosition", "ship": "rustjaw", "x": 4, "y": 5},
        {"type": "SubmitOrder", "ship": "rustjaw", "station": "weapons", "action": "attack"}
        | {"value": 4, "target": "kestrel"},
        {"type": "CloseOrders"},
    ]
    for n, command in enumerate(commands):
        await run_command(factory, game_id, command, Actor.gm(), command_id=f"attack-{n}")
    _, state = await load_state(factory, game_id)
    if state["phase"] == "allocation":
        await run_command(
            factory, game_id, {"type": "ForceAllocation"}, Actor.gm(), command_id="allocate"
        )
    await run_command(
        factory, game_id, {"type": "StartTurn", "seconds": 0}, Actor.gm(), command_id="next"
    )
    _, state = await load_state(factory, game_id)
    assert any(e["type"] == "AttackResolved" for e in state["log"])
    return state


async def test_g_turn_3_an_export_from_before_plays_on_with_its_old_generator(
    db_url: str,
) -> None:
    """Format 1: the seed a number, the dice splitmix64. The game replays and goes on as it
    would have on the old server, and its next export says which generator it has."""
    engine, factory = await _factory(db_url)
    old = old_export()
    game_id, _ = await import_game(factory, old)
    assert await replay_state(factory, game_id) == canonical(old["game"]["state"])
    await run_command(
        factory, game_id, {"type": "StartTurn", "seconds": 0}, Actor.gm(), command_id="start"
    )
    state = await _attack_and_next_turn(factory, game_id)
    assert set(state["rng"]) == {"state"}  # still splitmix64, stored as before
    assert await replay_state(factory, game_id) == state
    again = await export_game(factory, game_id)
    assert again["format_version"] == FORMAT_VERSION
    assert again["game"]["seed"] == rng.legacy(old["game"]["seed"])
    await engine.dispose()


async def test_import_refuses_a_seed_it_cannot_use_and_a_format_it_does_not_know(
    db_url: str,
) -> None:
    engine, factory = await _factory(db_url)
    for version, seed in ((1, "12345"), (1, {"state": "0"}), (2, 12345), (2, {"key": "00"})):
        data = {**old_export(), "format_version": version}
        data["game"]["seed"] = seed
        with pytest.raises(BackupError) as refused:
            await import_game(factory, data)
        assert refused.value.code == "NOT_A_BACKUP", (version, seed)
    with pytest.raises(BackupError) as newer:
        await import_game(factory, {**old_export(), "format_version": FORMAT_VERSION + 1})
    assert newer.value.code == "UNSUPPORTED_BACKUP"
    await engine.dispose()


async def test_import_refuses_a_file_that_is_not_an_export(db_url: str) -> None:
    engine, factory = await _factory(db_url)
    with pytest.raises(BackupError) as refused:
        await import_game(factory, {"format": "something-else"})
    assert refused.value.code == "NOT_A_BACKUP"
    with pytest.raises(BackupError) as unknown:
        await export_game(factory, "ZZZZ")
    assert unknown.value.code == "NO_SUCH_GAME"
    await engine.dispose()


def test_cli_export_then_import_refuses_the_duplicate(db_url: str, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    from typer.testing import CliRunner

    from app.cli import cli
    from app.settings import get_settings

    async def make() -> str:
        engine, factory = await _factory(db_url)
        _, code, _ = await create_game(factory, "convoy", seed=9)
        await engine.dispose()
        return code

    code = asyncio.run(make())
    monkeypatch.setenv("DATABASE_URL", db_url)
    get_settings.cache_clear()
    runner = CliRunner()
    out = tmp_path / "game.json"
    exported = runner.invoke(cli, ["export", code, "--out", str(out)])
    assert exported.exit_code == 0, exported.output
    assert json.loads(out.read_text())["game"]["join_code"] == code
    duplicate = runner.invoke(cli, ["import", str(out)])
    assert duplicate.exit_code == 1
    assert "already on this server" in duplicate.output
    missing = runner.invoke(cli, ["export", "NOPE"])
    assert missing.exit_code == 1
    get_settings.cache_clear()
