"""The content library: items saved whole and valid or not at all, with versions
(who, when, what changed) and restores; a game keeps the library it began with."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.backup import BackupError, check_export, export_game, import_game
from app.service import ServiceError, create_game, load_state, replay_state
from app.service.library import (
    CARDS_MAX,
    NAME_MAX,
    TEXT_MAX,
    ContentProblems,
    copy_of,
    history,
    item_data,
    items,
    restore,
    save_item,
)
from app.web.words import sentence

from .content import builtin, ship_copy, zone_scenario

Factory = async_sessionmaker[AsyncSession]


async def _refused(session_factory: Factory, kind: str, data: dict[str, Any], field: str) -> str:
    """The problem saving `data` meets at `field`; and nothing of it was saved."""
    before = await items(session_factory)
    with pytest.raises(ContentProblems) as refused:
        await save_item(session_factory, kind, data, "Ada", expected_version=0)
    found = {p.field: sentence(p.message) for p in refused.value.problems}
    assert field in found, found
    assert await items(session_factory) == before
    return found[field]


async def test_versions_say_who_saved_what_and_a_restore_saves_the_old_data_again(
    session_factory: Factory,
) -> None:
    ship = ship_copy()
    assert await save_item(session_factory, "ship", ship, "Ada", expected_version=0) == 1
    changed = {**ship, "defence": 6, "hull": {"boxes": 14, "red": [4, 8]}}
    assert await save_item(session_factory, "ship", changed, "Bo", expected_version=1) == 2

    newest, first = await history(session_factory, "ship", "gunboat")
    assert (newest.version, newest.author) == (2, "Bo")
    assert newest.changes == ["defence", "hull.boxes", "hull.red"]
    assert (first.version, first.author, first.changes) == (1, "Ada", ["(new)"])

    assert await restore(session_factory, "ship", "gunboat", 1, "Cy") == 3
    data, version = await item_data(session_factory, "ship", "gunboat")
    assert (data, version) == (ship, 3)
    assert (await history(session_factory, "ship", "gunboat"))[0].author == "Cy"
    # An earlier version stays as it was saved.
    assert (await item_data(session_factory, "ship", "gunboat", 2))[0] == changed


async def test_a_save_over_someone_elses_newer_version_is_refused(
    session_factory: Factory,
) -> None:
    await save_item(session_factory, "ship", ship_copy(), "Ada", expected_version=0)
    await save_item(
        session_factory, "ship", {**ship_copy(), "defence": 5}, "Bo", expected_version=1
    )
    with pytest.raises(ServiceError) as stale:
        await save_item(
            session_factory, "ship", {**ship_copy(), "defence": 7}, "Ada", expected_version=1
        )
    assert stale.value.code == "STALE_CONTENT"
    assert (await item_data(session_factory, "ship", "gunboat"))[0]["defence"] == 5


async def test_a_copy_has_an_id_of_its_own_and_the_built_in_id_is_refused(
    session_factory: Factory,
) -> None:
    message = await _refused(session_factory, "ship", builtin("ship", "frigate"), "id")
    assert "built-in" in message
    copied = copy_of("deck", builtin("deck", "pilot"), {"pilot", "pilot-copy"})
    assert copied["id"] == "pilot-copy-2" and "prefix" not in copied
    # Its cards take ids of their own, so it sits beside the original.
    assert await save_item(session_factory, "deck", copied, "Ada", expected_version=0) == 1


@pytest.mark.parametrize(
    ("kind", "change", "field", "words"),
    [
        ("ship", lambda s: s["stations"][1].update(deck="nowhere"), "stations[1].deck", "no deck"),
        (
            "ship",
            lambda s: s["stations"][0].update(deck="pilot"),
            "stations[0].deck",
            "deck for Pilot",
        ),
        ("ship", lambda s: s.update(name="Evil\u202eName"), "name", "U+202E"),
        ("ship", lambda s: s.update(name="Bell\x07"), "name", "U+0007"),
        ("ship", lambda s: s.update(name="\u200d \u200c"), "name", "visible character"),
        ("ship", lambda s: s.update(name="x" * (NAME_MAX + 1)), "name", "1 to 60"),
        ("ship", lambda s: s["weapons"][0].update(name="<b>" * 30), "weapons[0].name", "1 to 60"),
        ("ship", lambda s: s["weapons"].append(dict(s["weapons"][0])), "weapons[3].id", "used"),
        ("ship", lambda s: s.update(hull_size="big"), "hull_size", "whole number"),
        ("ship", lambda s: s["hull"].update(red=[13]), "hull.red[0]", "beyond"),
    ],
)
async def test_a_ship_class_that_does_not_check_is_refused_naming_its_field(
    session_factory: Factory,
    kind: str,
    change: Callable[[dict[str, Any]], None],
    field: str,
    words: str,
) -> None:
    ship = ship_copy()
    change(ship)
    assert words in await _refused(session_factory, kind, ship, field)


async def test_every_text_problem_is_named_at_once(session_factory: Factory) -> None:
    ship = ship_copy()
    ship["name"] = "Null\x00ship"
    ship["weapons"][1]["name"] = "Tab\u200bbed"
    with pytest.raises(ContentProblems) as refused:
        await save_item(session_factory, "ship", ship, "Ada", expected_version=0)
    assert {p.field for p in refused.value.problems} >= {"name", "weapons[1].name"}


async def test_decks_are_capped_and_must_fill_a_stations_hand(session_factory: Factory) -> None:
    deck = copy_of("deck", builtin("deck", "comms"), set())
    del deck["translations"]  # they name the cards this test replaces
    deck["cards"] = [{**deck["cards"][0], "copies": 20} for _ in range(CARDS_MAX // 20 + 1)]
    assert "at most" in await _refused(session_factory, "deck", deck, "cards")
    deck["cards"] = [{**deck["cards"][0], "copies": 1, "effect": "e" * (TEXT_MAX + 1)}]
    assert "at most" in await _refused(session_factory, "deck", deck, "cards[0].effect")

    thin = {**deck, "cards": [{**deck["cards"][0], "effect": "One card.", "copies": 2}]}
    assert await save_item(session_factory, "deck", thin, "Ada", expected_version=0) == 1
    ship = ship_copy()
    ship["stations"][3]["deck"] = thin["id"]  # comms, four boxes
    assert "fewer than" in await _refused(session_factory, "ship", ship, "stations[3].deck")


async def test_a_zone_map_must_be_connected_and_link_both_ways(session_factory: Factory) -> None:
    await save_item(session_factory, "ship", ship_copy(), "Ada", expected_version=0)
    scenario = zone_scenario()
    scenario["map"]["zones"][0]["touches"].append("belt")  # which does not touch the dock
    assert "both ways" in await _refused(
        session_factory, "scenario", scenario, "map.zones[0].touches[2]"
    )
    scenario = zone_scenario()
    for zone in scenario["map"]["zones"]:
        zone["touches"] = {"dock": ["lane"], "lane": ["dock"]}.get(zone["id"], [])
    scenario["map"]["zones"][2]["touches"] = ["rift"]
    scenario["map"]["zones"][3]["touches"] = ["belt"]
    assert "not connected" in await _refused(session_factory, "scenario", scenario, "map.zones")
    many = zone_scenario()
    many["map"]["zones"] = [
        {**many["map"]["zones"][0], "id": f"z{i}", "touches": []} for i in range(2000)
    ]
    assert "at most" in await _refused(session_factory, "scenario", many, "(whole)")


async def test_a_game_keeps_the_library_it_began_with(session_factory: Factory) -> None:
    await save_item(session_factory, "ship", ship_copy(), "Ada", expected_version=0)
    await save_item(session_factory, "scenario", zone_scenario(), "Ada", expected_version=0)
    game_id, _, _ = await create_game(session_factory, "ring-fight", seed=3)
    _, state = await load_state(session_factory, game_id)
    assert state["ships"]["hawk"]["defence"] == 4

    changed = copy.deepcopy(ship_copy())
    changed["defence"] = 9
    await save_item(session_factory, "ship", changed, "Bo", expected_version=1)
    _, still = await load_state(session_factory, game_id)
    assert still == state
    # A replay builds the game from its own copy, not from the library as it is now.
    assert await replay_state(session_factory, game_id) == state
    new_id, _, _ = await create_game(session_factory, "ring-fight", seed=3)
    assert (await load_state(session_factory, new_id))[1]["ships"]["hawk"]["defence"] == 9


async def test_a_custom_game_moves_by_export_with_its_own_content(session_factory: Factory) -> None:
    """An export carries the game's copy of the library, so a game of a custom scenario imports
    on a server whose library never held it (or no longer does) and replays as before."""
    await save_item(session_factory, "ship", ship_copy(), "Ada", expected_version=0)
    await save_item(session_factory, "scenario", zone_scenario(), "Ada", expected_version=0)
    game_id, _, _ = await create_game(session_factory, "ring-fight", seed=3)
    _, state = await load_state(session_factory, game_id)
    data = json.loads(json.dumps(await export_game(session_factory, str(game_id))))
    async with session_factory() as session, session.begin():
        await session.execute(text("DELETE FROM games WHERE id = :id"), {"id": game_id})
        await session.execute(text("DELETE FROM content_versions"))
        await session.execute(text("DELETE FROM content_items"))

    await import_game(session_factory, data, keep_tokens=True)
    assert (await load_state(session_factory, game_id))[1] == state
    assert await replay_state(session_factory, game_id) == state

    data["game"]["content"]["ship"]["gunboat"]["defence"] = "high"
    with pytest.raises(BackupError) as refused:
        check_export(data)
    assert refused.value.code == "BAD_BACKUP"


async def _content_of(session_factory: Factory, game_id: object) -> Any:
    """What the game copied from the library (games.content)."""
    async with session_factory() as session:
        return await session.scalar(
            text("SELECT content FROM games WHERE id = :id"), {"id": game_id}
        )


async def test_a_game_copies_only_what_its_scenario_uses(session_factory: Factory) -> None:
    """However large the library, a game takes its scenario, the ship classes it places, their
    decks and the characters players may pick; not every deck and class the organisers wrote."""
    for n in range(6):  # decks and classes no scenario here uses
        deck = copy_of("deck", builtin("deck", "comms"), set())
        deck.update(id=f"spare-{n}", prefix=f"sp{n}", name=f"Spare Deck {n}")
        await save_item(session_factory, "deck", deck, "Ada", expected_version=0)
        spare = ship_copy(f"spare-ship-{n}")
        await save_item(session_factory, "ship", spare, "Ada", expected_version=0)
    character = {**copy_of("character", builtin("character", "juno-pike"), set()), "id": "nell-ash"}
    await save_item(session_factory, "character", character, "Ada", expected_version=0)
    await save_item(session_factory, "ship", ship_copy(), "Ada", expected_version=0)
    await save_item(session_factory, "scenario", zone_scenario(), "Ada", expected_version=0)

    custom, _, _ = await create_game(session_factory, "ring-fight", seed=3)
    assert await _content_of(session_factory, custom) == {
        "scenario": {"ring-fight": zone_scenario()},
        "ship": {"gunboat": ship_copy()},  # the raider and every deck it uses are built in
        "character": {"nell-ash": character},
    }
    built_in, _, _ = await create_game(session_factory, "skirmish", seed=3)
    assert await _content_of(session_factory, built_in) == {"character": {"nell-ash": character}}
    for game_id in (custom, built_in):
        _, state = await load_state(session_factory, game_id)
        assert "nell-ash" in state["characters"]  # players may still pick her
        assert not {f"spare-ship-{n}" for n in range(6)} & set(state["sheets"]["classes"])
        assert await replay_state(session_factory, game_id) == state
