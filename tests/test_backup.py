"""`bridgecrew export` / `import`: a whole game moves between servers and plays on."""

from __future__ import annotations

import contextlib
import copy
import json
import random
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from app.backup import FORMAT, FORMAT_VERSION, BackupError, check_export, export_game, import_game
from app.content import load_catalogue
from app.db.session import create_engine, create_session_factory
from app.nesting import NESTING_MAX
from app.rules import Actor, Command, RulesError, apply, new_game, rng
from app.rules.bot import seat_table, table_command
from app.rules.content import MODULES
from app.rules.core.commands import AddShip, SetModule
from app.service import (
    canonical,
    create_game,
    create_seat,
    is_gm_token,
    load_state,
    replay_state,
    run_command,
    seat_by_token,
    seats_of,
    token_hash,
)
from app.service.commands import command_fields
from app.web.words import say
from tests.legacy import legacy_game, old_export


async def _factory(url: str):  # type: ignore[no-untyped-def]
    engine = create_engine(url)
    return engine, create_session_factory(engine)


async def test_exported_game_imports_elsewhere_and_plays_on(
    db_url: str, pg_server_url: str
) -> None:
    """G-TURN-3: the export carries the game's secret seed, so the game goes on elsewhere with
    the same dice it would have had at home."""
    engine, factory = await _factory(db_url)
    # The GM orders Rustjaw by hand below: its crew does not order by itself.
    game_id, join_code, _gm_token = await create_game(factory, "skirmish", modules_off=("npc",))
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
    moved = await import_game(factory2, exported, keep_tokens=True)  # the GM's own file
    assert moved.game_id == str(game_id)
    assert moved.join_code == join_code
    assert moved.gm_token is None and moved.freed == 0
    new_code = moved.join_code

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
        await import_game(factory2, exported, keep_tokens=True)
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


async def test_g_turn_3_an_export_with_unkeyed_dice_is_refused(db_url: str) -> None:
    """A format-1 file, or any file whose generator is splitmix64, would bring back
    dice a player can work out from a few rolls. Refused with a sentence; nothing written."""
    engine, factory = await _factory(db_url)
    with pytest.raises(BackupError) as format_1:
        await import_game(factory, old_export())
    assert format_1.value.code == "UNKEYED_DICE"
    assert "format 1" in format_1.value.message

    # A game the server kept from before (migration 0003) plays on, but its export stays here.
    kept = await legacy_game(factory)
    exported = await export_game(factory, str(kept))
    assert exported["format_version"] == FORMAT_VERSION
    assert exported["game"]["seed"] == rng.legacy(12345)
    async with engine.begin() as conn:
        await conn.execute(text("DELETE FROM games"))
    with pytest.raises(BackupError) as unkeyed:
        await import_game(factory, exported)
    assert unkeyed.value.code == "UNKEYED_DICE"
    assert "not keyed" in unkeyed.value.message

    # A keyed seed does not make up for a state whose generator is splitmix64.
    good = await _played_export(factory)
    good["game"]["state"]["rng"] = rng.legacy(5)
    with pytest.raises(BackupError) as swapped:
        await import_game(factory, good)
    assert swapped.value.code == "UNKEYED_DICE"
    assert await _games(factory) == 0
    await engine.dispose()


async def test_import_refuses_a_seed_it_cannot_use_and_a_format_it_does_not_know(
    db_url: str,
) -> None:
    engine, factory = await _factory(db_url)
    good = await _played_export(factory)
    for seed, code in BAD_SEEDS:
        data = copy.deepcopy(good)
        data["game"]["seed"] = seed
        with pytest.raises(BackupError) as refused:
            await import_game(factory, data)
        assert refused.value.code == code, (seed, refused.value.message)
    with pytest.raises(BackupError) as newer:
        await import_game(factory, {**good, "format_version": FORMAT_VERSION + 1})
    assert newer.value.code == "UNSUPPORTED_BACKUP"
    assert await _games(factory) == 0
    await engine.dispose()


BAD_SEEDS: list[tuple[Any, str]] = [
    ("12345", "BAD_BACKUP"),
    (12345, "BAD_BACKUP"),
    ({"state": "0"}, "UNKEYED_DICE"),  # splitmix64's
    ({"key": "00"}, "UNKEYED_DICE"),
    ({"kind": "hmac-sha256", "key": "00", "counter": 0}, "UNKEYED_DICE"),  # a key too short
]


async def _played_export(factory: Any) -> dict[str, Any]:
    """A convoy game two turns in, with seats, as exported; then gone from the server."""
    game_id, _, _ = await create_game(factory, "convoy", modules=["weapons", "syshit"])
    for station in ("pilot", "weapons"):
        await create_seat(factory, game_id, "kestrel", station, station.title(), taken_from="x")
    table = random.Random(3)
    for step in range(60):
        _, state = await load_state(factory, game_id)
        if state["turn"] >= 2 and state["phase"] == "orders":
            break
        command = table_command(state, table, step + 1)
        await run_command(
            factory, game_id, command_fields(command), command.actor, command_id=f"bot-{step}"
        )
    data: dict[str, Any] = json.loads(json.dumps(await export_game(factory, str(game_id))))
    async with factory() as session, session.begin():
        await session.execute(text("DELETE FROM games"))
    return data


async def _games(factory: Any) -> int:
    async with factory() as session:
        return int(await session.scalar(text("SELECT count(*) FROM games")) or 0)


def _ship(data: dict[str, Any], ship: str = "kestrel") -> dict[str, Any]:
    found: dict[str, Any] = data["game"]["state"]["ships"][ship]
    return found


def _hand_card(data: dict[str, Any]) -> None:
    _ship(data)["stations"]["pilot"]["hand"].append("no-such-card")


# Each a change to a good export, the code it is refused with and words of the sentence.
BAD_FILES: list[tuple[str, Callable[[dict[str, Any]], Any], str, str]] = [
    ("not an object", lambda d: d.clear(), "NOT_A_BACKUP", "not a Bridge Crew game export"),
    ("no seats", lambda d: d.pop("seats"), "NOT_A_BACKUP", "no 'seats' section"),
    ("events not a list", lambda d: d.update(events={}), "BAD_BACKUP", "should be a list"),
    ("no version", lambda d: d["game"].pop("version"), "BAD_BACKUP", "game has no 'version'"),
    (
        "version as text",
        lambda d: d["game"].update(version="3"),
        "BAD_BACKUP",
        "game 'version' should be a whole number, not text",
    ),
    ("bad id", lambda d: d["game"].update(id="x"), "BAD_BACKUP", "'id' should be a game id"),
    (
        "a time that is not one",
        lambda d: d["game"].update(created_at="yesterday"),
        "BAD_BACKUP",
        "'created_at' should be a time",
    ),
    (
        "ship without stations",
        lambda d: _ship(d).pop("stations"),
        "BAD_BACKUP",
        "ship 'kestrel' has no stations",
    ),
    (
        "ship with no station in it",
        lambda d: _ship(d).update(stations={}),
        "BAD_BACKUP",
        "ship 'kestrel' has no stations",
    ),
    ("no phase", lambda d: d["game"]["state"].pop("phase"), "BAD_BACKUP", "has no 'phase'"),
    (
        "phase as a number",
        lambda d: d["game"]["state"].update(phase=5),
        "BAD_BACKUP",
        "'phase' should be text, not a number",
    ),
    (
        "hull as a number",
        lambda d: _ship(d).update(hull=3),
        "BAD_BACKUP",
        "ship 'kestrel' 'hull' should be an object",
    ),
    ("no ships", lambda d: d["game"]["state"].update(ships={}), "BAD_BACKUP", "'ships'"),
    ("a hand card nobody knows", _hand_card, "BAD_STATE", "does not load"),
    (
        "an event that is not one",
        lambda d: d["events"][-1].update(data="boom"),
        "BAD_BACKUP",
        "'data' should be an object",
    ),
    (
        "a command the engine does not know",
        lambda d: d["applied_commands"][-1]["result"]["command"].update(type="Nope"),
        "BAD_STATE",
        "the engine fails on its remembered commands",
    ),
    (
        "a seat without a ship",
        lambda d: d["seats"][0].pop("ship"),
        "BAD_BACKUP",
        "seats entry 1 has no 'ship'",
    ),
]


@pytest.mark.parametrize(
    ("change", "code", "words"),
    [pytest.param(change, code, words, id=name) for name, change, code, words in BAD_FILES],
)
async def test_a_bad_file_gets_a_sentence_and_nothing_is_written(
    db_url: str, change: Callable[[dict[str, Any]], Any], code: str, words: str
) -> None:
    """The whole file is checked against the engine before anything is written."""
    engine, factory = await _factory(db_url)
    data = await _played_export(factory)
    await import_game(factory, copy.deepcopy(data))  # the file as exported is good
    async with factory() as session, session.begin():
        await session.execute(text("DELETE FROM games"))
    change(data)
    with pytest.raises(BackupError) as refused:
        await import_game(factory, data)
    assert refused.value.code == code
    assert words in refused.value.message
    assert "Traceback" not in refused.value.message
    assert await _games(factory) == 0
    await engine.dispose()


JUNK: list[Any] = [None, 0, -1, 2.5, True, "", "x", [], {}, ["x"], {"x": 1}]


def _somewhere(data: Any, pick: random.Random) -> tuple[Any, Any]:
    """A random container inside `data` and one of its keys (or indexes)."""
    holder, key = data, pick.choice(list(data))
    for _ in range(pick.randint(0, 6)):
        inner = holder[key]
        if not isinstance(inner, (dict, list)) or not inner:
            break
        holder, key = inner, pick.randrange(len(inner)) if isinstance(inner, list) else key
        if isinstance(holder, dict):
            key = pick.choice(list(holder))
    return holder, key


@pytest.mark.slow
async def test_whatever_a_file_holds_the_answer_is_a_sentence(db_url: str) -> None:
    """A value anywhere in the file replaced by junk, or a key dropped, is imported
    (when the engine can play it) or refused with BackupError, never an exception's traceback."""
    engine, factory = await _factory(db_url)
    good = await _played_export(factory)
    pick = random.Random(31)
    refused = 0
    for _ in range(400):
        data = copy.deepcopy(good)
        holder, key = _somewhere(data, pick)
        if isinstance(holder, dict) and pick.random() < 0.3:
            del holder[key]
        else:
            holder[key] = pick.choice(JUNK)
        try:
            await import_game(factory, data)
        except BackupError as error:
            refused += 1
            assert say(error.message).endswith("."), error.message
        else:  # junk the engine takes in its stride: the game plays on
            await run_command(
                factory,
                data["game"]["id"],
                {"type": "SendMessage", "text": "hi"},
                Actor.gm(),
                command_id="after",
            )
            async with factory() as session, session.begin():
                await session.execute(text("DELETE FROM games"))
    assert refused > 100
    await engine.dispose()


@pytest.mark.parametrize("scenario", sorted(load_catalogue().scenarios))
def test_every_state_a_game_goes_through_passes_the_check(scenario: str) -> None:
    """The check refuses no game the engine made: every module on, a ship added mid-game, three
    seats, and the states of a bot table's turns, combats and Downtimes."""
    catalogue = load_catalogue()
    start = rng.keyed(bytes(range(32)))
    state = canonical(new_game(catalogue.scenarios[scenario], catalogue, seed=start))
    gm = Actor.gm()
    setup: list[Command] = [SetModule(module=module, on=True, actor=gm) for module in MODULES]
    zone = next(iter(state["map"]["zones"])) if "map" in state else None
    wave = AddShip(ship_class="raider", name="Wave", side="pirates", x=3, y=3, zone=zone, actor=gm)
    setup.append(wave)
    for command in setup:
        state = canonical(apply(state, command)[0])
    ship = next(s["id"] for s in state["ships"].values() if s["crew"] == "players")
    state, _ = seat_table(state, ship, 3, list(state["characters"]), canonical)
    table = random.Random(scenario)
    for step in range(1, 121):
        export = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "game": {
                "id": str(uuid.uuid4()),
                "join_code": "K7QFXY",
                "scenario": scenario,
                "seed": start,
                "version": step,
                "state": state,
                "created_at": "2026-11-26T12:00:00+00:00",
            },
            "events": [],
            "seats": [],
            "applied_commands": [],
        }
        check_export(export)
        with contextlib.suppress(RulesError):  # refused, as the server would refuse it
            state = canonical(apply(state, table_command(state, table, step))[0])


async def test_an_import_issues_a_fresh_gm_token_and_frees_the_files_seats(db_url: str) -> None:
    """Token hashes chosen by the file's maker open nothing here. The GM gets a new
    token; the file's seats are freed as the GM's Free frees one, for their players to join
    again with the code. Only the GM's own file, on request, keeps them."""
    engine, factory = await _factory(db_url)
    data = await _played_export(factory)
    planted = "a token the file's maker knows"
    data["game"]["gm_token_hash"] = token_hash(planted)
    for seat in data["seats"]:
        seat["token_hash"] = token_hash(planted + seat["id"])
    live = [seat for seat in data["seats"] if seat["revoked_at"] is None]
    assert len(live) == 2

    imported = await import_game(factory, data)
    game_id = imported.game_id
    assert imported.gm_token is not None and imported.freed == 2
    assert await is_gm_token(factory, game_id, imported.gm_token)
    assert not await is_gm_token(factory, game_id, planted)
    for seat in data["seats"]:
        assert await seat_by_token(factory, game_id, planted + seat["id"]) is None
    assert await seats_of(factory, game_id) == []
    _, state = await load_state(factory, game_id)
    for seat in live:
        assert state["ships"][seat["ship"]]["stations"][seat["station"]]["crew"] is None
    assert state["turn"] == data["game"]["state"]["turn"]  # the game itself is as it was
    assert await replay_state(factory, game_id) == state  # and still replays
    seated = await create_seat(factory, game_id, "kestrel", "pilot", "Back again")
    assert await seat_by_token(factory, game_id, seated[1]) is not None
    await engine.dispose()


async def _seated_export(factory: Any) -> tuple[uuid.UUID, str, str, dict[str, Any]]:
    """A skirmish with Ana at the Kestrel's pilot station, as exported, then gone from the
    server: (its id, the GM's token, Ana's token, the export)."""
    game_id, _, gm_token = await create_game(factory, "skirmish")
    _, seat_token = await create_seat(factory, game_id, "kestrel", "pilot", "Ana")
    data = json.loads(json.dumps(await export_game(factory, str(game_id))))
    async with factory() as session, session.begin():
        await session.execute(text("DELETE FROM games"))
    return game_id, gm_token, seat_token, data


async def test_keep_tokens_keeps_the_gm_link_and_the_phones_seated(db_url: str) -> None:
    engine, factory = await _factory(db_url)
    game_id, gm_token, seat_token, data = await _seated_export(factory)
    imported = await import_game(factory, data, keep_tokens=True)
    assert imported.gm_token is None and imported.freed == 0
    assert await is_gm_token(factory, game_id, gm_token)
    seat = await seat_by_token(factory, game_id, seat_token)
    assert seat is not None and (seat.ship, seat.station) == ("kestrel", "pilot")
    await engine.dispose()


async def test_every_text_is_held_to_the_name_and_text_rules_and_every_problem_is_named(
    db_url: str,
) -> None:
    """The file's names meet the one name rule (a crew member's at most 40 characters,
    a ship's 60, no control or bidi characters) and its other texts the content's text rules,
    as the editor and the engine hold them; a file that breaks any is refused whole, naming
    each place."""
    engine, factory = await _factory(db_url)
    good = await _played_export(factory)
    await import_game(factory, copy.deepcopy(good))  # as exported, it imports
    async with factory() as session, session.begin():
        await session.execute(text("DELETE FROM games"))
    data = copy.deepcopy(good)
    data["seats"][0]["name"] = "\u202e" + "A" * 5_000  # the right-to-left override, and long
    data["seats"][1]["name"] = "Pilot\x07"
    _ship(data)["name"] = "Kestrel \u200b"  # a zero-width space: two names that look alike
    crew = _ship(data)["stations"]["weapons"]["crew"]
    crew["name"] = "\u202eEvil"
    data["events"][-1]["data"]["planted"] = "\x1b[2J" + "x" * 600  # a terminal escape, too long
    with pytest.raises(BackupError) as refused:
        await import_game(factory, data, keep_tokens=True)
    assert refused.value.code == "RULES_BROKEN"
    assert refused.value.message == (
        "The export breaks the rules for texts or seats (6 problems); nothing was imported."
    )
    event = f"events [{len(data['events']) - 1}].data.planted"
    assert [(where, say(problem)) for where, problem in refused.value.problems] == [
        ("seats [0].name", "A name is 1 to 40 characters."),
        ("seats [1].name", f"{INVISIBLE} (this one has U+0007); type it again."),
        ("game state ships.kestrel.name", f"{INVISIBLE} (this one has U+200B); type it again."),
        (
            "game state ships.kestrel.stations.weapons.crew.name",
            f"{INVISIBLE} (this one has U+202E); type it again.",
        ),
        (event, "This text has 604 characters; at most 500."),
        (event, "This text holds the control character U+001B."),
    ]
    assert await _games(factory) == 0
    await engine.dispose()


INVISIBLE = "A name may not contain invisible or control characters"


async def test_m_seats_1_a_file_that_seats_a_player_aboard_an_npc_ship_is_refused(
    db_url: str,
) -> None:
    """Players sit only on players' ships, whoever asks; a file's seat aboard the
    enemy's ship would open its station and order for it with --keep-tokens."""
    engine, factory = await _factory(db_url)
    *_, data = await _seated_export(factory)
    stations = data["game"]["state"]["ships"]["rustjaw"]["stations"]
    stations["weapons"]["crew"] = _ship(data)["stations"]["pilot"]["crew"]
    _ship(data)["stations"]["pilot"]["crew"] = None
    data["seats"][0].update(ship="rustjaw", station="weapons")
    for keep_tokens in (True, False):
        with pytest.raises(BackupError) as refused:
            await import_game(factory, copy.deepcopy(data), keep_tokens=keep_tokens)
        assert refused.value.code == "RULES_BROKEN"
        said = {where: say(problem) for where, problem in refused.value.problems}
        assert said == {
            "seats [0]": "Rustjaw is crewed by the GM: players sit only on their own ships.",
            "game state ships.rustjaw.stations.weapons.crew": (
                "Rustjaw is crewed by the GM: players sit only on their own ships."
            ),
        }
    assert await _games(factory) == 0
    await engine.dispose()


async def test_a_file_nested_deeper_than_any_game_is_refused_before_it_is_read(
    db_url: str,
) -> None:
    """The engine, the checks and the database's JSON all recurse; a file is refused
    past NESTING_MAX levels (a game nests about a dozen) before any of them reads it."""
    engine, factory = await _factory(db_url)
    good = await _played_export(factory)
    for levels in (NESTING_MAX, 5_000):
        data = copy.deepcopy(good)
        planted: list[Any] = []
        data["events"][-1]["data"]["planted"] = planted
        for _ in range(levels):
            planted.append([])
            planted = planted[0]
        with pytest.raises(BackupError) as refused:
            await import_game(factory, data, keep_tokens=True)
        assert refused.value.code == "TOO_DEEP"
        assert refused.value.message == (
            f"The export nests more than {NESTING_MAX} levels deep; nothing was imported."
        )
    assert await _games(factory) == 0
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
