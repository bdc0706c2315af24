"""Property games with the npc and seats modules on (M-NPC-*, M-SEATS-*): the same random legal
games as test_properties.py, with NPC crews choosing their own orders, players changing position
as turns open and overriding stations nobody works. Every invariant and secret still holds after
each command, and replaying the commands gives the same states."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules import RulesError
from app.rules import commands as c
from app.rules.content import QUALITIES
from app.rules.core.phases import ACTIONS
from app.rules.core.state import manned, operational

from .test_properties import Game, replay

MODULES = ("npc", "seats")
OVERRIDABLE = ("evasive", "lock")  # orders without a target, so any fitting card will do


class CrewGame(Game):
    def do(self, command: c.Command) -> list[dict[str, Any]]:
        events = super().do(command)
        if isinstance(command, c.StartTurn):
            self.shuffle_crews()
        return events

    def attempt(self, command: c.Command) -> None:
        """A command a player might try: refused ones change nothing and are not recorded."""
        with contextlib.suppress(RulesError):
            self.do(command)

    def shuffle_crews(self) -> None:
        state = self.state
        npcs = [s["id"] for s in state["ships"].values() if s["crew"] == "npc"]
        if npcs and self.rng.random() < 0.2:
            self.do(c.SetNpc(ship=self.rng.choice(npcs), quality=self.rng.choice(QUALITIES)))
        seated = [
            (ship, station)
            for ship in state["ships"].values()
            for station in ship["stations"].values()
            if station["crew"] is not None
        ]
        if seated and self.rng.random() < 0.5:
            ship, station = self.rng.choice(seated)
            there = self.rng.choice(sorted(ship["stations"]))
            self.attempt(
                c.ChangePosition(
                    ship=ship["id"],
                    station=there,
                    actor=c.Actor.for_seat(station["crew"]["seat"]),
                    now=self.now,
                )
            )
        if seated and self.rng.random() < 0.4:
            self.try_override()

    def try_override(self) -> None:
        state = self.state
        for ship in state["ships"].values():
            for here in ship["stations"].values():
                if not manned(state, here) or not operational(here):
                    continue
                for there in ship["stations"].values():
                    if there is here or (manned(state, there) and operational(there)):
                        continue
                    for action in OVERRIDABLE:
                        spec = ACTIONS[action]
                        cards = [
                            x for x in here["hand"] if state["cards"][x]["kind"] in spec["kinds"]
                        ]
                        if spec["role"] == there["role"] and cards:
                            self.attempt(
                                c.SubmitOrder(
                                    ship=ship["id"],
                                    station=here["id"],
                                    action=action,
                                    cards=tuple(cards[:2]),
                                    override=there["id"],
                                    actor=c.Actor.for_seat(here["crew"]["seat"]),
                                    now=self.now,
                                )
                            )
                            return


def crew_games(scenario: str, examples: int) -> Any:
    @pytest.mark.slow
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(
        seed=st.integers(0, 2**63 - 1),
        characters=st.lists(st.booleans(), min_size=1, max_size=9),
        starmada=st.booleans(),
    )
    def check(seed: int, characters: list[bool], starmada: bool) -> None:
        game = CrewGame(scenario, seed, MODULES + (("starmada",) if starmada else ()), characters)
        game.play()
        assert game.state["turn"] >= 1
        # rule: G-TURN-3: the same seed and the same commands give the same states
        assert replay(game) == game.fingerprints

    return check


test_random_skirmishes_with_npc_crews_and_seat_changes_keep_every_invariant = crew_games(
    "skirmish", 12
)
test_random_convoys_with_npc_crews_and_seat_changes_keep_every_invariant = crew_games("convoy", 4)
