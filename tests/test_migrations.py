"""The Alembic migrations build exactly the tables app.db.models describes, and undo cleanly."""

import asyncio
import json
import re
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, inspect, pool, text
from sqlalchemy.ext.asyncio import create_async_engine

from app.db.migrate import current_head, downgrade, upgrade
from app.db.models import Base
from app.rules import rng

TABLES = {
    "games",
    "events",
    "seats",
    "applied_commands",
    "content_items",
    "content_versions",
    "campaigns",
    "campaign_events",
    "campaign_commands",
    "campaign_evenings",
    "campaign_phones",
}


async def _inspect(url: str, look: Any) -> Any:
    engine = create_async_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(look)
    finally:
        await engine.dispose()


def _diff(conn: Connection) -> list[Any]:
    context = MigrationContext.configure(conn, opts={"compare_server_default": True})
    return list(compare_metadata(context, Base.metadata))


def _tables(conn: Connection) -> set[str]:
    return set(inspect(conn).get_table_names())


def _revision(conn: Connection) -> str | None:
    return MigrationContext.configure(conn).get_current_revision()


async def test_models_and_migrations_agree(db_url: str) -> None:
    # Any difference means a model changed without a migration (or the reverse).
    assert await _inspect(db_url, _diff) == []


async def test_migrated_database_is_at_head_with_the_game_tables(db_url: str) -> None:
    assert await _inspect(db_url, _revision) == current_head()
    assert await _inspect(db_url, _tables) == TABLES | {"alembic_version"}


async def test_upgrade_downgrade_upgrade_round_trip(empty_db_url: str) -> None:
    # upgrade/downgrade are sync and run asyncio.run inside; called here, within a running loop,
    # they move to a worker thread on their own.
    await asyncio.to_thread(upgrade, empty_db_url)
    assert await _inspect(empty_db_url, _tables) >= TABLES

    await asyncio.to_thread(downgrade, empty_db_url, "base")
    assert await _inspect(empty_db_url, _tables) == {"alembic_version"}

    upgrade(empty_db_url)  # from inside the running loop: must not raise
    assert await _inspect(empty_db_url, _diff) == []
    assert await _inspect(empty_db_url, _revision) == current_head()


async def _sql(url: str, statement: str, **params: Any) -> Any:
    engine = create_async_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.begin() as conn:
            result = await conn.execute(text(statement), params)
            return result.all() if result.returns_rows else None
    finally:
        await engine.dispose()


async def test_the_card_catalogue_moves_to_its_own_column_and_back(empty_db_url: str) -> None:
    """0002 takes each game's catalogue out of its state into `cards`; undone, it goes back."""
    await asyncio.to_thread(upgrade, empty_db_url, "0001")
    whole = {"turn": 3, "cards": {"c1": {"value": 1}}, "ships": {"kestrel": {"x": 2}}}
    bare = {"turn": 1}  # a state without a catalogue stays as it is
    for join_code, state in (("AAAA", whole), ("BBBB", bare)):
        await _sql(
            empty_db_url,
            "INSERT INTO games (id, join_code, scenario, seed, state, gm_token_hash)"
            " VALUES (gen_random_uuid(), :code, 'skirmish', 1, CAST(:state AS jsonb), 'h')",
            code=join_code,
            state=json.dumps(state),
        )
    read = "SELECT join_code, state, cards FROM games ORDER BY join_code"

    await asyncio.to_thread(upgrade, empty_db_url)
    assert await _sql(empty_db_url, read) == [
        ("AAAA", {"turn": 3, "ships": {"kestrel": {"x": 2}}}, {"c1": {"value": 1}}),
        ("BBBB", bare, None),
    ]
    await asyncio.to_thread(downgrade, empty_db_url, "0001")
    read = "SELECT join_code, state FROM games ORDER BY join_code"
    assert await _sql(empty_db_url, read) == [("AAAA", whole), ("BBBB", bare)]


async def test_0003_keeps_each_stored_game_on_its_splitmix64_generator(empty_db_url: str) -> None:
    """G-TURN-3: a game's number becomes the generator state its game state began with, so it
    continues and replays as before; undone, the number comes back."""
    await asyncio.to_thread(upgrade, empty_db_url, "0002")
    for join_code, seed in (("AAAA", 12345), ("BBBB", 2**63 - 1), ("CCCC", 0)):
        await _sql(
            empty_db_url,
            "INSERT INTO games (id, join_code, scenario, seed, state, gm_token_hash)"
            " VALUES (gen_random_uuid(), :code, 'skirmish', :seed, '{}', 'h')",
            code=join_code,
            seed=seed,
        )
    await asyncio.to_thread(upgrade, empty_db_url, "0003")
    read = "SELECT join_code, seed FROM games ORDER BY join_code"
    assert await _sql(empty_db_url, read) == [
        ("AAAA", rng.legacy(12345)),
        ("BBBB", rng.legacy(2**63 - 1)),
        ("CCCC", rng.legacy(0)),
    ]
    await asyncio.to_thread(downgrade, empty_db_url, "0002")
    assert await _sql(empty_db_url, read) == [("AAAA", 12345), ("BBBB", 2**63 - 1), ("CCCC", 0)]


async def test_0003_is_not_undone_while_a_game_has_a_keyed_generator(empty_db_url: str) -> None:
    """The old column cannot hold a secret key, and the old code could not play such a game."""
    await asyncio.to_thread(upgrade, empty_db_url, "0003")
    await _sql(
        empty_db_url,
        "INSERT INTO games (id, join_code, scenario, seed, state, gm_token_hash)"
        " VALUES (gen_random_uuid(), 'AAAA', 'skirmish', CAST(:seed AS jsonb), '{}', 'h')",
        seed=json.dumps(rng.chosen(7)),
    )
    with pytest.raises(RuntimeError, match="keyed dice generator"):
        await asyncio.to_thread(downgrade, empty_db_url, "0002")
    assert await _inspect(empty_db_url, _revision) == "0003"
    assert await _sql(empty_db_url, "SELECT seed FROM games") == [(rng.chosen(7),)]


async def test_command_ids_are_kept_per_sender_and_told_apart_again_when_undone(
    empty_db_url: str,
) -> None:
    """0004 keys applied_commands by (game, sender, id), the sender read from each command's
    actor; undone, an id two senders used stays the server's and the other one is prefixed."""
    await asyncio.to_thread(upgrade, empty_db_url, "0002")
    game = "00000000-0000-4000-8000-000000000001"
    await _sql(
        empty_db_url,
        "INSERT INTO games (id, join_code, scenario, seed, state, gm_token_hash)"
        " VALUES (:game, 'AAAA', 'skirmish', 1, '{}', 'h')",
        game=game,
    )
    insert = (
        "INSERT INTO applied_commands (game_id, command_id, version, result)"
        " VALUES (:game, :id, :version, CAST(:result AS jsonb))"
    )
    actors = [
        ("deadline:orders:1.000:2", {"role": "system", "seat": None}),
        ("g1", {"role": "gm", "seat": None}),
        ("s1", {"role": "seat", "seat": "seat-a"}),
    ]
    for version, (command_id, actor) in enumerate(actors, start=1):
        result = json.dumps({"command": {}, "actor": actor, "now": 0})
        await _sql(empty_db_url, insert, game=game, id=command_id, version=version, result=result)
    read = "SELECT sender, command_id FROM applied_commands ORDER BY version"

    await asyncio.to_thread(upgrade, empty_db_url)
    assert await _sql(empty_db_url, read) == [
        ("system", "deadline:orders:1.000:2"),
        ("gm", "g1"),
        ("seat:seat-a", "s1"),
    ]
    # Now a seat may use the server's id, and the GM one of the seat's.
    taken = (
        "INSERT INTO applied_commands (game_id, sender, command_id, version, result)"
        " VALUES (:game, :sender, :id, :version, '{}')"
    )
    await _sql(empty_db_url, taken, game=game, sender="seat:seat-b", id=actors[0][0], version=4)
    await _sql(empty_db_url, taken, game=game, sender="gm", id="s1", version=5)

    await asyncio.to_thread(downgrade, empty_db_url, "0003")
    read = "SELECT command_id FROM applied_commands ORDER BY version"
    assert [row[0] for row in await _sql(empty_db_url, read)] == [
        "deadline:orders:1.000:2",
        "g1",
        "s1",
        "seat:seat-b:deadline:orders:1.000:2",
        "gm:s1",
    ]


async def test_0007_stores_each_catalogue_as_json_with_its_keys_sorted(empty_db_url: str) -> None:
    """The command path reads the catalogue as written and decodes it straight to the canonical
    one; undone, it is jsonb again."""
    await asyncio.to_thread(upgrade, empty_db_url, "0006")
    await _sql(
        empty_db_url,
        "INSERT INTO games (id, join_code, scenario, seed, state, cards, gm_token_hash) VALUES"
        " (gen_random_uuid(), 'AAAA', 'skirmish', '{}', '{}', CAST(:cards AS jsonb), 'h'),"
        " (gen_random_uuid(), 'BBBB', 'skirmish', '{}', '{}', NULL, 'h')",
        cards=json.dumps({"zulu": {"b": 1, "a": 2}, "alpha": {"long_name": 1, "c": 3}}),
    )
    await asyncio.to_thread(upgrade, empty_db_url, "0007")
    read = "SELECT join_code, cards::text FROM games ORDER BY join_code"
    assert await _sql(empty_db_url, read) == [
        ("AAAA", '{"alpha":{"c":3,"long_name":1},"zulu":{"a":2,"b":1}}'),
        ("BBBB", None),
    ]
    await asyncio.to_thread(downgrade, empty_db_url, "0006")
    read = "SELECT join_code, pg_typeof(cards)::text, cards FROM games ORDER BY join_code"
    assert (await _sql(empty_db_url, read))[0][1:] == (
        "jsonb",
        {"zulu": {"b": 1, "a": 2}, "alpha": {"long_name": 1, "c": 3}},
    )


async def test_0009_gives_each_game_a_props_code_of_its_own(empty_db_url: str) -> None:
    """Props' topics are named by a random code the GM alone sees, not the join code: the
    database draws one for each game, those made before and any row written later."""
    await asyncio.to_thread(upgrade, empty_db_url, "0008")
    await _sql(
        empty_db_url,
        "INSERT INTO games (id, join_code, scenario, seed, state, gm_token_hash) VALUES"
        " (gen_random_uuid(), 'AAAA', 'skirmish', '{}', '{}', 'h'),"
        " (gen_random_uuid(), 'BBBB', 'skirmish', '{}', '{}', 'h')",
    )
    await asyncio.to_thread(upgrade, empty_db_url, "0009")
    await _sql(  # a game written by hand gets one too
        empty_db_url,
        "INSERT INTO games (id, join_code, scenario, seed, state, gm_token_hash)"
        " VALUES (gen_random_uuid(), 'CCCC', 'skirmish', '{}', '{}', 'h')",
    )
    codes = [row[0] for row in await _sql(empty_db_url, "SELECT props_code FROM games")]
    assert len(set(codes)) == 3 and all(re.fullmatch("[0-9a-f]{32}", code) for code in codes)
    await asyncio.to_thread(downgrade, empty_db_url, "0008")
    assert await _sql(empty_db_url, "SELECT join_code FROM games ORDER BY 1") == [
        ("AAAA",),
        ("BBBB",),
        ("CCCC",),
    ]
