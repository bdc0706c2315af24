"""Property games with module `weapons` on (M-WEAPONS-1..6): the random games of
test_properties.py, played on `torpedo-run` and on the skirmish with the module switched on, with
the GM now and then changing a magazine. After every command the usual invariants hold and no
view leaks a secret; besides, no torpedo is in flight against a destroyed ship, no grapple holds
one, no torpedo is left over from a Weapon attacks step it should have struck in, and every
magazine count is within bounds. Replaying the commands gives the same states."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules import commands as c
from app.rules.modules.weapons.weapons import MAGAZINE_LIMIT, is_launcher

from .test_properties import Game, replay

EXAMPLES = {"torpedo-run": 10, "skirmish": 5}


class WeaponsGame(Game):
    def do(self, command: c.Command) -> list[dict[str, Any]]:
        events = super().do(command)
        check_weapons(self.state)
        return events

    def gm_extras(self) -> None:
        super().gm_extras()
        launchers = [
            (ship["id"], w["id"])
            for ship in self.state["ships"].values()
            for w in ship["weapons"]
            if is_launcher(w)
        ]
        if launchers and self.rng.random() < 0.2:
            ship, weapon = self.rng.choice(launchers)
            self.do(c.SetMagazine(ship=ship, weapon=weapon, count=self.rng.randint(0, 2)))


def check_weapons(state: dict[str, Any]) -> None:
    ships = state["ships"]
    for torpedo in state["torpedoes"]:
        assert not ships[torpedo["target"]]["destroyed"], "a torpedo flies at a destroyed ship"
        # rule: M-WEAPONS-3: once the Weapon attacks step is past, what was due has struck
        if state["phase"] != "orders":
            assert torpedo["strikes"] > state["turn"], torpedo
        assert torpedo["strikes"] - torpedo["launched"] in (0, 1, 2, 3)
    for hold in state["grapples"]:
        assert not ships[hold["holder"]]["destroyed"] and not ships[hold["target"]]["destroyed"]
    if state["phase"] == "downtime":
        assert state["torpedoes"] == [] and state["grapples"] == []
    for ship in ships.values():
        for weapon in ship["weapons"]:
            if is_launcher(weapon):
                assert 0 <= weapon["loaded"] <= MAGAZINE_LIMIT


def weapons_games(scenario: str) -> Any:
    @pytest.mark.slow
    @settings(
        max_examples=EXAMPLES[scenario],
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(
        seed=st.integers(0, 2**63 - 1),
        characters=st.lists(st.booleans(), min_size=1, max_size=9),
    )
    def check(seed: int, characters: list[bool]) -> None:
        modules = () if scenario == "torpedo-run" else ("weapons",)
        game = WeaponsGame(scenario, seed, modules, characters)
        game.play()
        assert "weapons" in game.state["modules"]
        # rule: G-TURN-3: torpedoes in flight replay like everything else
        assert replay(game) == game.fingerprints

    return check


test_m_weapons_random_torpedo_runs_keep_every_invariant_and_secret = weapons_games("torpedo-run")
test_m_weapons_random_skirmishes_with_the_module_keep_every_invariant = weapons_games("skirmish")
