"""G-SHIP-1: which side the players crew is the scenario's to say, whatever the side is called;
a scenario that does not say has the side called `players`, else the side its players crew."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from app.rules import display_view, gm_view, new_game, players_side
from app.rules.content import ContentError, Scenario, parse_scenario
from tests.rules.builders import CAT
from tests.rules.test_content import SCENARIO, scenario_data


def renamed(sides: dict[str, str], *, named: str | None = None, **placed: str) -> Scenario:
    """The skirmish with its sides renamed (and any ship moved to another side), naming
    `named` as the players' side or none."""
    skirmish = CAT.scenarios["skirmish"]
    ships = tuple(
        dataclasses.replace(s, side=placed.get(s.id, sides.get(s.side, s.side)))
        for s in skirmish.ships
    )
    scenario = dataclasses.replace(skirmish, ships=ships)
    return scenario if named is None else dataclasses.replace(scenario, players_side=named)


def ours(view: dict[str, Any]) -> dict[str, bool]:
    return {ship["id"]: ship["players_side"] for ship in view["ships"]}


def test_g_ship_1_the_players_crewed_side_is_theirs_whatever_it_is_called() -> None:
    state = new_game(renamed({"players": "allianz", "raiders": "piraten"}), CAT, seed=1)
    assert players_side(state) == "allianz"
    assert ours(display_view(state)) == {"kestrel": True, "rustjaw": False}


def test_g_ship_1_a_scenario_names_the_players_side_and_its_npc_ships_are_on_it() -> None:
    """An escort the players do not crew stands on their side: every screen draws it as theirs,
    and the tables carry its distances to the enemy."""
    scenario = renamed(
        {"players": "allianz", "raiders": "piraten"}, named="allianz", rustjaw="allianz"
    )
    scenario = dataclasses.replace(
        scenario,
        ships=(
            *scenario.ships,
            dataclasses.replace(scenario.ships[1], id="hound", name="Hound", side="piraten", x=15),
        ),
    )
    state = new_game(scenario, CAT, seed=1)
    assert ours(gm_view(state)) == {"kestrel": True, "rustjaw": True, "hound": False}
    pairs = {(d["a"], d["b"]) for d in display_view(state)["distances"]}
    assert ("hound", "rustjaw") in pairs or ("rustjaw", "hound") in pairs


def test_g_ship_1_a_game_stored_before_the_players_side_was_kept_finds_it() -> None:
    state = new_game(renamed({"players": "allianz", "raiders": "piraten"}), CAT, seed=1)
    del state["scenario"]["players_side"]
    assert ours(display_view(state)) == {"kestrel": True, "rustjaw": False}
    classic = new_game(CAT.scenarios["skirmish"], CAT, seed=1)
    del classic["scenario"]["players_side"]
    assert players_side(classic) == "players"


def test_g_ship_1_a_players_side_no_ship_stands_on_is_refused_naming_the_field() -> None:
    with pytest.raises(ContentError) as refused:
        parse_scenario(scenario_data(players_side="allianz"), SCENARIO)
    assert refused.value.field == "players_side"
    assert "allianz" in str(refused.value)
    named = parse_scenario(scenario_data(players_side="pirates"), SCENARIO)
    assert named.players_side == "pirates"
