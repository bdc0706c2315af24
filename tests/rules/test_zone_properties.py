"""Property games on a zone map (G-ZONE-*): `nebula-ambush` played to the end by the engine's own
bot, with the invariants, secrecy and replay checks of test_properties.py, and the zone map's own:
every ship stands in a zone of the map, its steps are the map's, and moves go one or two zones."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules.core.state import distance

from .test_properties import MODULE_SETS, Game, replay


class ZoneGame(Game):
    def do(self, command: Any) -> list[dict[str, Any]]:
        before = {s["id"]: s["zone"] for s in self.state["ships"].values()}
        events = super().do(command)
        zones = self.state["map"]
        for ship in self.state["ships"].values():
            assert ship["zone"] in zones["zones"]
            assert ship["zone_steps"] == zones["steps"][ship["zone"]]
        for event in events:
            if event["type"] == "ShipMoved":
                ship = self.state["ships"][event["ship"]]
                # rule: G-ZONE-3: a manoeuvre goes one or two zones on
                assert 1 <= zones["steps"][before[ship["id"]]][ship["zone"]] <= 2
        ships = list(self.state["ships"].values())
        for a in ships:
            for b in ships:
                assert distance(a, b) == distance(b, a)
        return events


@pytest.mark.slow
@settings(
    max_examples=5, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    seed=st.integers(0, 2**63 - 1),
    modules=st.sampled_from(MODULE_SETS),
    characters=st.lists(st.booleans(), min_size=1, max_size=9),
)
def test_random_nebula_ambushes_keep_every_invariant_and_secret(
    seed: int, modules: tuple[str, ...], characters: list[bool]
) -> None:
    game = ZoneGame("nebula-ambush", seed, modules, characters)
    game.play()
    assert game.state["turn"] >= 1
    # rule: G-TURN-3: the same seed and the same commands give the same states
    assert replay(game) == game.fingerprints
