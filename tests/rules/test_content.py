"""Scenario content: the shipped files load and make a playable game, and every kind of mistake a
GM can make in a file is refused with a message naming the file and the field."""

from __future__ import annotations

import ast
import pickle
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from app.content import SCENARIOS_DIR, load_catalogue
from app.rules.content import (
    RANGE_BANDS,
    ROLE_CARD_KIND,
    Catalogue,
    ContentError,
    band_index,
    build_catalogue,
    parse_character,
    parse_deck,
    parse_scenario,
    parse_ship_class,
    range_band_for,
)
from app.rules.core.messages import message
from app.web.words import sentence

SHIP = "scenarios/ships/test.toml"
DECK = "scenarios/decks/test.toml"
CHARACTER = "scenarios/characters/test.toml"
SCENARIO = "scenarios/test.toml"


def ship_data(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "gunboat",
        "name": "Gunboat",
        "hull_size": 10,
        "defence": 3,
        "hull": {"boxes": 10, "red": [5, 9]},
        "shields": {"boxes": 2},
        "stations": [
            {"role": "weapons", "deck": "guns", "track": {"boxes": 4, "red": [2]}},
            {"role": "engineering", "deck": "fixes", "track": {"boxes": 5, "red": [3]}},
            {"role": "pilot", "deck": "flying", "track": {"boxes": 5, "red": [3]}},
        ],
        "weapons": [{"id": "gun", "name": "Gun", "damage": 2, "max_range": "medium"}],
    }
    data.update(changes)
    return data


def deck_data(deck_id: str, role: str, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": deck_id,
        "name": deck_id.title(),
        "role": role,
        "cards": [
            {
                "name": "Try Hard",
                "value": 2,
                "kind": ROLE_CARD_KIND[role],
                "effect": "Value 2.",
                "copies": 3,
            }
        ],
    }
    data.update(changes)
    return data


def character_data(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "ada",
        "name": "Ada",
        "strength": 8,
        "dexterity": 9,
        "endurance": 10,
        "armour": 1,
        "medicine": 2,
        "blurb": "Test pilot.",
        "skill_cards": [{"name": "Knack", "value": 1, "kind": "helm", "effect": "Adds 1."}],
    }
    data.update(changes)
    return data


def scenario_data(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "duel",
        "name": "Duel",
        "description": "Two gunboats.",
        "modules": {"starmada": False, "syshit": False},
        "settings": {"map_width": 16, "map_height": 10},
        "ships": [
            {
                "id": "a",
                "name": "A",
                "ship_class": "gunboat",
                "crew": "players",
                "side": "players",
                "x": 1,
                "y": 1,
                "shields_active": True,
            },
            {
                "id": "b",
                "name": "B",
                "ship_class": "gunboat",
                "crew": "npc",
                "side": "pirates",
                "x": 8,
                "y": 1,
                "shields_active": False,
            },
        ],
    }
    data.update(changes)
    return data


def small_catalogue(
    ship: dict[str, Any] | None = None, scenario: dict[str, Any] | None = None
) -> Catalogue:
    return build_catalogue(
        [parse_ship_class(ship or ship_data(), SHIP)],
        [
            parse_deck(deck_data("guns", "weapons"), "scenarios/decks/guns.toml"),
            parse_deck(deck_data("fixes", "engineering"), "scenarios/decks/fixes.toml"),
            parse_deck(deck_data("flying", "pilot"), "scenarios/decks/flying.toml"),
        ],
        [parse_character(character_data(), CHARACTER)],
        [parse_scenario(scenario or scenario_data(), SCENARIO)],
    )


def refused(error: pytest.ExceptionInfo[ContentError], file: str, field: str) -> str:
    """Assert the error names the file and the field; hand back the message for more checks."""
    assert error.value.file == file
    assert error.value.field == field
    assert str(error.value).startswith(f"{file}: {field}: ")
    return sentence(error.value.message)


@pytest.fixture
def scenario_copy(tmp_path: Path) -> Path:
    root = tmp_path / "scenarios"
    shutil.copytree(SCENARIOS_DIR, root)
    return root


# --- The shipped content ----------------------------------------------------------------------


def test_shipped_catalogue_loads_ships_decks_characters_and_scenarios() -> None:
    catalogue = load_catalogue()
    assert {"frigate", "cruiser", "raider"} <= set(catalogue.ships)
    assert set(catalogue.decks) >= set(ROLE_CARD_KIND)
    assert len(catalogue.characters) >= 4
    assert {"skirmish", "convoy"} <= set(catalogue.scenarios)


def test_default_catalogue_is_read_once() -> None:
    assert load_catalogue() is load_catalogue()


def test_g_ship_1_shipped_ship_sheets_have_red_boxes_on_hull_and_every_station() -> None:
    for ship in load_catalogue().ships.values():
        assert ship.hull.red, ship.id
        assert any(s.role == "engineering" for s in ship.stations), ship.id
        for station in ship.stations:
            assert station.track.red, (ship.id, station.id)
            assert 4 <= station.track.boxes <= 6, (ship.id, station.id)
        assert all(1 <= w.damage <= 4 for w in ship.weapons), ship.id


def test_g_ship_1_shipped_classes_include_one_without_shields() -> None:
    ships = load_catalogue().ships
    assert ships["raider"].shields.boxes == 0
    assert ships["raider"].systems == "fragile"
    assert ships["frigate"].shields.boxes == 4
    assert [s.role for s in ships["frigate"].stations] == [
        "weapons",
        "engineering",
        "pilot",
        "comms",
    ]
    assert "captain" in {s.role for s in ships["cruiser"].stations}
    assert ships["cruiser"].hull.boxes > ships["frigate"].hull.boxes
    assert ships["cruiser"].shields.boxes > ships["frigate"].shields.boxes


def test_g_card_1_every_station_deck_has_twelve_cards_playable_for_its_role() -> None:
    for deck in load_catalogue().decks.values():
        assert len(deck.cards) >= 12, deck.id
        own_kind = [c for c in deck.cards if c.kind == ROLE_CARD_KIND[deck.role]]
        assert len(own_kind) > len(deck.cards) // 2, deck.id
        assert all(c.source == "station" for c in deck.cards)
        assert all(0 <= c.value <= 5 for c in deck.cards)


def test_g_card_1_every_character_has_a_skill_deck_and_medics_carry_medicine() -> None:
    for character in load_catalogue().characters.values():
        assert 6 <= len(character.skill_cards) <= 8, character.id
        assert all(1 <= c.value <= 3 for c in character.skill_cards), character.id
        assert all(character.id in c.id for c in character.skill_cards), character.id
        assert all(c.source == "skill" for c in character.skill_cards)
        assert character.blurb
        if character.medicine >= 2:
            assert any(c.kind == "medicine" for c in character.skill_cards), character.id


def test_card_ids_are_unique_across_all_decks_and_skill_decks() -> None:
    catalogue = load_catalogue()
    ids = [c.id for d in catalogue.decks.values() for c in d.cards]
    ids += [c.id for ch in catalogue.characters.values() for c in ch.skill_cards]
    assert len(ids) == len(set(ids)) == len(catalogue.cards())


def test_shipped_scenarios_set_players_against_npc_ships() -> None:
    catalogue = load_catalogue()
    skirmish, convoy = catalogue.scenarios["skirmish"], catalogue.scenarios["convoy"]
    players, enemy = skirmish.ships
    assert (players.ship_class, players.crew) == ("frigate", "players")
    assert enemy.crew == "npc" and enemy.ship_class in {"cruiser", "raider"}
    assert max(abs(players.x - enemy.x), abs(players.y - enemy.y)) == 7
    assert (skirmish.settings.map_width, skirmish.settings.map_height) == (16, 10)
    assert sorted(s.ship_class for s in convoy.ships if s.crew == "players") == [
        "cruiser",
        "frigate",
    ]
    assert [s.ship_class for s in convoy.ships if s.crew == "npc"] == ["raider"] * 3
    assert skirmish.modules == convoy.modules == frozenset({"npc"})


# rule: M-NPC-2
def test_m_npc_2_every_shipped_scenario_with_npc_ships_has_them_fight_on_their_own() -> None:
    """Enemy ships that wait for the GM's click every turn pass when the GM forgets."""
    with_npcs = [
        s for s in load_catalogue().scenarios.values() if any(sh.crew == "npc" for sh in s.ships)
    ]
    assert len(with_npcs) >= 5
    assert [s.id for s in with_npcs if "npc" not in s.modules] == []


@pytest.mark.parametrize(
    ("distance", "band", "to_hit"),
    [
        (0, "point_blank", 1),
        (2, "point_blank", 1),
        (3, "close", 2),
        (4, "close", 2),
        (5, "medium", 3),
        (6, "long", 5),
        (8, "long", 5),
        (9, "very_long", 7),
    ],
)
def test_g_hit_2_range_band_for_distance(distance: int, band: str, to_hit: int) -> None:
    found = range_band_for(distance)
    assert found is not None and (found.id, found.to_hit) == (band, to_hit)
    assert RANGE_BANDS[band_index(band)] == found


def test_g_hit_2_beyond_nine_squares_is_out_of_range() -> None:
    assert range_band_for(10) is None
    with pytest.raises(ValueError):
        band_index("extreme")


# --- Ship sheets --------------------------------------------------------------------------------


def test_g_ship_1_ship_sheet_parses_tracks_stations_and_weapons() -> None:
    ship = parse_ship_class(ship_data(shields={"boxes": 0}), SHIP)
    assert ship.hull.red == (5, 9) and ship.shields.boxes == 0
    assert [s.id for s in ship.stations] == ["weapons", "engineering", "pilot"]
    assert ship.systems == "normal" and ship.weapons[0].kind is None


def test_g_ship_1_ship_sheet_rejects_unknown_fields_naming_them() -> None:
    with pytest.raises(ContentError) as error:
        parse_ship_class(ship_data(colour="red"), SHIP)
    assert "'colour'" in refused(error, SHIP, "colour")


def test_g_ship_1_ship_sheet_requires_integers_and_a_boolean_is_not_one() -> None:
    with pytest.raises(ContentError) as error:
        parse_ship_class(ship_data(defence=True), SHIP)
    assert "whole number is needed here, not true" in refused(error, SHIP, "defence")
    with pytest.raises(ContentError) as error:
        parse_ship_class(ship_data(hull_size="12"), SHIP)
    assert 'not "12"' in refused(error, SHIP, "hull_size")


def test_g_ship_1_ship_sheet_rejects_red_box_beyond_the_track() -> None:
    data = ship_data()
    data["stations"].append({"role": "comms", "deck": "talk", "track": {"boxes": 5, "red": [9]}})
    with pytest.raises(ContentError) as error:
        parse_ship_class(data, SHIP)
    assert refused(error, SHIP, "stations[3].track.red[0]") == (
        "Box 9 is beyond the track's 5 boxes."
    )


def test_g_ship_1_ship_sheet_requires_an_engineering_station() -> None:
    data = ship_data()
    del data["stations"][1]
    with pytest.raises(ContentError) as error:
        parse_ship_class(data, SHIP)
    assert "Engineering station" in refused(error, SHIP, "stations")


def test_g_ship_1_station_deck_must_exist() -> None:
    data = ship_data()
    data["stations"][2]["deck"] = "missing"
    with pytest.raises(ContentError) as error:
        small_catalogue(ship=data)
    assert "missing" in refused(error, SHIP, "stations[2].deck")


def test_g_ship_1_station_deck_must_have_the_station_role() -> None:
    data = ship_data()
    data["stations"][2]["deck"] = "guns"
    with pytest.raises(ContentError) as error:
        small_catalogue(ship=data)
    assert "deck for Weapons, but this station is Pilot" in refused(error, SHIP, "stations[2].deck")


def test_ship_class_ids_are_unique_across_files() -> None:
    first = parse_ship_class(ship_data(), "scenarios/ships/a.toml")
    second = parse_ship_class(ship_data(), "scenarios/ships/b.toml")
    with pytest.raises(ContentError) as error:
        build_catalogue([first, second], [], [], [])
    assert "scenarios/ships/a.toml" in refused(error, "scenarios/ships/b.toml", "id")


# --- Decks and characters -----------------------------------------------------------------------


def test_g_card_1_every_card_copy_gets_its_own_id() -> None:
    deck = parse_deck(deck_data("guns", "weapons", prefix="gun"), DECK)
    assert [c.id for c in deck.cards] == ["gun-01", "gun-02", "gun-03"]
    assert {c.source for c in deck.cards} == {"station"}
    character = parse_character(character_data(), CHARACTER)
    assert [(c.id, c.source) for c in character.skill_cards] == [("skill-ada-01", "skill")]


def test_card_ids_that_clash_between_decks_are_refused() -> None:
    first = parse_deck(deck_data("guns", "weapons", prefix="x"), "scenarios/decks/guns.toml")
    second = parse_deck(deck_data("fixes", "engineering", prefix="x"), "scenarios/decks/fixes.toml")
    with pytest.raises(ContentError) as error:
        build_catalogue([], [first, second], [], [])
    assert "x-01" in refused(error, "scenarios/decks/fixes.toml", "prefix")


# --- Scenarios ----------------------------------------------------------------------------------


def test_scenario_parses_ships_modules_and_settings() -> None:
    scenario = small_catalogue().scenarios["duel"]
    assert scenario.modules == frozenset()
    assert scenario.settings.orders_seconds == 60 and scenario.settings.bonus_table == ()
    on = parse_scenario(scenario_data(modules={"syshit": True}), SCENARIO)
    assert on.modules == frozenset({"syshit"})


def test_scenario_with_unknown_ship_class_is_refused() -> None:
    data = scenario_data()
    data["ships"][1]["ship_class"] = "dreadnought"
    with pytest.raises(ContentError) as error:
        small_catalogue(scenario=data)
    assert "dreadnought" in refused(error, SCENARIO, "ships[1].ship_class")


def test_g_map_1_ship_outside_the_map_is_refused() -> None:
    data = scenario_data()
    data["ships"][1]["x"] = 16
    with pytest.raises(ContentError) as error:
        parse_scenario(data, SCENARIO)
    assert "off the map" in refused(error, SCENARIO, "ships[1].x")


# rule: G-SHIP-1 (a game holds at most SHIPS_MAX ships, the projector's count)
def test_g_ship_1_a_scenario_places_at_most_eight_ships() -> None:
    data = scenario_data()
    extra = [{**data["ships"][1], "id": f"n{i}", "name": f"N{i}", "x": i} for i in range(6)]
    data["ships"] = [*data["ships"], *extra]
    assert len(parse_scenario(data, SCENARIO).ships) == 8
    data["ships"].append({**data["ships"][1], "id": "one-more", "name": "One more"})
    with pytest.raises(ContentError) as error:
        parse_scenario(data, SCENARIO)
    assert "at most 8 ships; this one has 9" in refused(error, SCENARIO, "ships")


def test_g_shd_2_shields_cannot_start_active_on_a_ship_without_shields() -> None:
    with pytest.raises(ContentError) as error:
        small_catalogue(ship=ship_data(shields={"boxes": 0}))
    refused(error, SCENARIO, "ships[0].shields_active")


def test_m_syshit_hit_table_must_cover_the_d20_once() -> None:
    table = [[1, 5, "comms"], [7, 20, "hull"]]
    with pytest.raises(ContentError) as error:
        parse_scenario(scenario_data(settings={"hit_table": table}), SCENARIO)
    refused(error, SCENARIO, "settings.hit_table[1][0]")
    table = [[1, 10, "pilot"], [11, 20, "hull"]]
    parsed = parse_scenario(scenario_data(settings={"hit_table": table}), SCENARIO)
    assert parsed.settings.hit_table == ((1, 10, "pilot"), (11, 20, "hull"))


# --- Every other mistake, one line each -----------------------------------------------------------


def changed(data: dict[str, Any], key: str, index: int, **changes: Any) -> dict[str, Any]:
    """`data` with `changes` applied to item `index` of its array `key`."""
    data[key][index].update(changes)
    return data


MISTAKES = [
    # (parser, data, field the error must name)
    (parse_ship_class, {k: v for k, v in ship_data().items() if k != "hull"}, "hull"),
    (parse_ship_class, ship_data(hull={"boxes": 0}), "hull.boxes"),
    (parse_ship_class, ship_data(shields={"boxes": -1}), "shields.boxes"),
    (parse_ship_class, ship_data(shields={"boxes": 0, "red": [1]}), "shields.red[0]"),
    (parse_ship_class, ship_data(hull={"boxes": 10, "red": [5, 5]}), "hull.red[1]"),
    (parse_ship_class, ship_data(systems="flimsy"), "systems"),
    (parse_ship_class, ship_data(id="Big Ship"), "id"),
    (parse_ship_class, changed(ship_data(), "stations", 0, role="gunner"), "stations[0].role"),
    (parse_ship_class, changed(ship_data(), "stations", 1, crew=2), "stations[1].crew"),
    (
        parse_ship_class,
        changed(ship_data(), "stations", 2, role="weapons", deck="guns"),
        "stations[2].id",
    ),
    (
        parse_ship_class,
        changed(ship_data(), "stations", 2, track={"boxes": 0}),
        "stations[2].track.boxes",
    ),
    (
        parse_ship_class,
        changed(ship_data(), "weapons", 0, max_range="extreme"),
        "weapons[0].max_range",
    ),
    (parse_ship_class, changed(ship_data(), "weapons", 0, damage=0), "weapons[0].damage"),
    (
        parse_ship_class,
        ship_data(weapons=[{"id": "gun", "name": "G", "damage": 1, "max_range": "close"}] * 2),
        "weapons[1].id",
    ),
    (parse_deck, changed(deck_data("guns", "weapons"), "cards", 0, value=10), "cards[0].value"),
    (parse_deck, changed(deck_data("guns", "weapons"), "cards", 0, value=2.5), "cards[0].value"),
    (parse_deck, changed(deck_data("guns", "weapons"), "cards", 0, kind="laser"), "cards[0].kind"),
    (
        parse_deck,
        changed(deck_data("guns", "weapons"), "cards", 0, kind="medicine"),
        "cards[0].kind",
    ),
    (parse_deck, changed(deck_data("guns", "weapons"), "cards", 0, copies=0), "cards[0].copies"),
    (parse_deck, deck_data("guns", "weapons", cards=[]), "cards"),
    (parse_deck, {**deck_data("guns", "weapons"), "role": "gunner"}, "role"),
    (parse_character, character_data(strength=16), "strength"),
    (parse_character, character_data(endurance=1), "endurance"),
    (parse_character, character_data(armour=-1), "armour"),
    (parse_character, character_data(name=""), "name"),
    (
        parse_character,
        changed(character_data(), "skill_cards", 0, effect=7),
        "skill_cards[0].effect",
    ),
    (parse_scenario, scenario_data(modules={"warp": True}), "modules.warp"),
    (parse_scenario, scenario_data(modules={"syshit": "yes"}), "modules.syshit"),
    (parse_scenario, changed(scenario_data(), "ships", 0, crew="robots"), "ships[0].crew"),
    (parse_scenario, changed(scenario_data(), "ships", 1, y=-1), "ships[1].y"),
    (parse_scenario, changed(scenario_data(), "ships", 1, id="a"), "ships[1].id"),
    (parse_scenario, changed(scenario_data(), "ships", 1, side="players"), "ships"),
    (
        parse_scenario,
        changed(scenario_data(), "ships", 1, shields_active=1),
        "ships[1].shields_active",
    ),
    (parse_scenario, scenario_data(ships=scenario_data()["ships"][:1]), "ships"),
    (parse_scenario, scenario_data(settings={"orders_seconds": 0}), "settings.orders_seconds"),
    (
        parse_scenario,
        scenario_data(settings={"bonus_table": [0, 1, "2"]}),
        "settings.bonus_table[2]",
    ),
    (parse_scenario, scenario_data(settings={"map_size": 10}), "settings.map_size"),
]
FILES = {
    parse_ship_class: SHIP,
    parse_deck: DECK,
    parse_character: CHARACTER,
    parse_scenario: SCENARIO,
}


@pytest.mark.parametrize(("parse", "data", "field"), MISTAKES, ids=[m[2] for m in MISTAKES])
def test_content_mistake_is_refused_naming_the_file_and_field(
    parse: Any, data: dict[str, Any], field: str
) -> None:
    file = FILES[parse]
    with pytest.raises(ContentError) as error:
        parse(data, file)
    assert refused(error, file, field)


# --- Files on disk ------------------------------------------------------------------------------


def test_bad_toml_syntax_names_the_file(scenario_copy: Path) -> None:
    (scenario_copy / "ships" / "broken.toml").write_text('id = "broken\nname = 3\n')
    with pytest.raises(ContentError) as error:
        load_catalogue(scenario_copy)
    refused(error, "scenarios/ships/broken.toml", "(syntax)")


def test_file_errors_name_the_file_relative_to_the_repo(scenario_copy: Path) -> None:
    frigate = scenario_copy / "ships" / "frigate.toml"
    frigate.write_text(frigate.read_text().replace('deck = "comms"', 'deck = "radio"'))
    with pytest.raises(ContentError) as error:
        load_catalogue(scenario_copy)
    assert "radio" in refused(error, "scenarios/ships/frigate.toml", "stations[3].deck")


def test_ship_placed_off_the_map_in_a_file_is_refused(scenario_copy: Path) -> None:
    skirmish = scenario_copy / "skirmish.toml"
    skirmish.write_text(skirmish.read_text().replace("x = 10", "x = 40"))
    with pytest.raises(ContentError) as error:
        load_catalogue(scenario_copy)
    refused(error, "scenarios/skirmish.toml", "ships[1].x")


def test_copied_catalogue_loads_the_same_content(scenario_copy: Path) -> None:
    copy = load_catalogue(scenario_copy)
    assert copy.ships == load_catalogue().ships
    assert copy.cards() == load_catalogue().cards()


# --- The error type and purity ------------------------------------------------------------------


def test_content_error_keeps_its_parts_and_pickles() -> None:
    error = ContentError(
        "scenarios/x.toml", "ships[0].x", message("content_off_the_map", value=16, most=15)
    )
    assert str(error) == "scenarios/x.toml: ships[0].x: content_off_the_map(value=16, most=15)"
    assert isinstance(error, ValueError)
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.file, copy.field, copy.message) == (error.file, error.field, error.message)


@pytest.mark.parametrize("module", ["content/__init__.py", "content/checks.py"])
def test_content_rules_import_only_the_standard_library(module: str) -> None:
    source = Path(__file__).resolve().parents[2] / "app" / "rules" / module
    tree = ast.parse(source.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            assert name.split(".")[0] in sys.stdlib_module_names, f"{module} imports {name}"


def test_g_card_5_a_deck_card_no_order_of_its_role_plays_is_a_warning_at_its_kind() -> None:
    """A captain's deck with repair cards reads (a deck may hold any kind) but those cards are
    dead in the hand: a warning names each card's kind field; the shipped decks have none."""
    import copy

    from app.content import builtin_files
    from app.rules.content.advice import deck_warnings
    from app.rules.core.phases import kinds_played_by

    assert kinds_played_by("captain") == ["any", "command"]
    for deck_id, (data, *_) in builtin_files()["deck"].items():
        assert deck_warnings(data, deck_id, kinds_played_by) == [], deck_id
    deck = copy.deepcopy(builtin_files()["deck"]["captain"][0])
    deck["cards"][1]["kind"] = "repair"
    deck["cards"][3]["kind"] = "any"
    found = deck_warnings(deck, "captain.toml", kinds_played_by)
    assert [(w.file, w.field) for w in found] == [("captain.toml", "cards[1].kind")]
    assert found[0].message == {
        "msg": "content_card_never_played",
        "station": "captain",
        "kind": "repair",
        "kinds": ["command"],
    }
    assert deck_warnings({"role": "nobody", "cards": deck["cards"]}, "x", kinds_played_by) == []
    assert deck_warnings({"role": "captain", "cards": "none"}, "x", kinds_played_by) == []
