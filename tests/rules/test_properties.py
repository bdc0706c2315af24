"""Property tests: random legal games, played to the end by the engine's own bot for both
scenarios, modules on and off, seats with and without characters. After every command the
invariants hold, no view leaks a secret, and replaying the same commands gives the same states."""

from __future__ import annotations

import hashlib
import json
import pickle
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules import Actor, apply, display_view, event_view, new_game, station_view
from app.rules import commands as c
from app.rules.bot import propose, stations_to_order
from app.rules.core.cards import SKILL_CARDS_MAX
from app.rules.core.crew import CHARACTERISTICS, status_of
from app.rules.core.state import card_of, hand_limit, health

from .builders import CAT, leaks

MODULE_SETS = ((), ("starmada",), ("syshit",), ("starmada", "syshit"))
MAX_TURNS = 25
# A convoy game (nine seats, three NPC ships, ~400 commands each checked from every seat) costs
# about ten skirmishes, so it gets fewer examples; the whole run stays well under a minute.
EXAMPLES = {"skirmish": 25, "convoy": 6}


def fingerprint(state: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


class Game:
    """One random game: applies commands, checking every invariant after each."""

    def __init__(
        self, scenario: str, seed: int, modules: tuple[str, ...], characters: list[bool]
    ) -> None:
        self.rng = random.Random(seed)
        self.now = 1000.0
        self.state = new_game(CAT.scenarios[scenario], CAT, seed=seed)
        self.initial = self.state
        self.commands: list[c.Command] = []
        self.fingerprints: list[str] = []
        self.decks = {
            f"{ship['id']}/{st_['id']}": Counter(st_["draw"])
            for ship in self.state["ships"].values()
            for st_ in ship["stations"].values()
        }
        for module in modules:
            self.do(c.SetModule(module=module, on=True))
        spare = list(CAT.characters)
        n = 0
        for ship in list(self.state["ships"].values()):
            if ship["crew"] != "players":
                continue
            for station in ship["stations"]:
                wants = characters[n % len(characters)] and spare
                self.do(
                    c.SeatCrew(
                        ship=ship["id"],
                        station=station,
                        seat=f"seat{n}",
                        name=f"P{n}",
                        character=spare.pop(0) if wants else None,
                    )
                )
                n += 1

    # --- Driving ------------------------------------------------------------------------------

    def do(self, command: c.Command) -> list[dict[str, Any]]:
        old_state = self.state
        owned = pickle.loads(pickle.dumps(old_state))  # a copy the engine may change in place
        new_state, events = apply(old_state, command)
        if self.fingerprints:
            assert fingerprint(old_state) == self.fingerprints[-1], "apply changed its input"
        assert apply(owned, command, owned=True) == (new_state, events), "owned: another result"
        text = json.dumps(new_state, sort_keys=True)
        assert json.loads(text) == new_state
        self.state = new_state
        self.commands.append(command)
        self.fingerprints.append(hashlib.sha256(text.encode()).hexdigest())
        check_state(self)
        check_views(self.state, events)
        return events

    def over(self) -> bool:
        sides: dict[str, bool] = {}
        for ship in self.state["ships"].values():
            sides[ship["side"]] = sides.get(ship["side"], False) or not ship["destroyed"]
        return not all(sides.values())

    def play(self) -> None:
        for _ in range(MAX_TURNS):
            timed = self.rng.random() < 0.3
            self.now += 100
            self.do(c.StartTurn(seconds=60 if timed else 0, now=self.now))
            for ship, station, actor in stations_to_order(self.state):
                if self.state["phase"] != "orders":
                    break
                self.do(propose(self.state, ship, station, self.rng, actor, self.now))
            if self.state["phase"] == "orders":
                self.close(timed)
            if self.state["phase"] == "turn_end" and self.rng.random() < 0.15:
                self.undo_and_redo()
            while self.state["phase"] == "allocation":
                self.answer_allocation()
            self.gm_extras()
            if self.over():
                return

    def close(self, timed: bool) -> None:
        if timed and self.state["deadline"]:
            deadline = self.state["deadline"]
            self.do(
                c.ExpireDeadline(
                    kind="orders", at=deadline["at"], now=deadline["at"], actor=Actor.system()
                )
            )
        else:
            self.do(c.CloseOrders(now=self.now))

    def undo_and_redo(self) -> None:
        resolved = self.state
        self.do(c.UndoResolution(now=self.now))
        assert self.state["phase"] == "orders"
        self.do(c.CloseOrders(now=self.now))
        if self.state["phase"] == "turn_end":
            assert self.state["ships"] == resolved["ships"]
            assert self.state["characters"] == resolved["characters"]

    def answer_allocation(self) -> None:
        choice = self.rng.random()
        prompt_ship, prompt = next(
            (s, p) for s, p in self.state["allocation"]["ships"].items() if not p["answered"]
        )
        if choice < 0.15:
            deadline = self.state["deadline"]
            self.do(
                c.ExpireDeadline(
                    kind="allocation", at=deadline["at"], now=deadline["at"], actor=Actor.system()
                )
            )
            return
        if choice < 0.25:
            self.do(c.ForceAllocation(now=self.now))
            return
        ship = self.state["ships"][prompt_ship]
        budget = prompt["hull_damage"] - 1
        allocations: dict[str, int] = {}
        for station in ship["stations"].values():
            points = self.rng.randint(0, max(0, min(budget, health(station))))
            if points:
                allocations[station["id"]] = points
                budget -= points
        engineering = next(s for s in ship["stations"].values() if s["role"] == "engineering")
        self.do(
            c.AllocateDamage(
                ship=prompt_ship,
                allocations=allocations,
                now=self.now,
                actor=Actor.for_seat(engineering["crew"]["seat"]),
            )
        )

    def gm_extras(self) -> None:
        hurt = [
            ch
            for ch in self.state["characters"].values()
            if ch["status"] not in ("healthy", "dead")
        ]
        if hurt and self.rng.random() < 0.3:
            patient = self.rng.choice(hurt)
            self.do(
                c.FirstAid(character=patient["id"], effect=self.rng.randint(0, 4), now=self.now)
            )


# --- Invariants ----------------------------------------------------------------------------------


def check_state(game: Game) -> None:
    state = game.state
    skill_seen: Counter[str] = Counter()
    for ship in state["ships"].values():
        for track in (ship["hull"], ship["shields"]):
            assert 0 <= track["damage"] <= track["boxes"]
        if ship["shields"]["active"]:
            assert health(ship["shields"]) > 0
        for station in ship["stations"].values():
            key = f"{ship['id']}/{station['id']}"
            assert 0 <= station["damage"] <= station["boxes"], key
            assert len(station["hand"]) <= hand_limit(station), key
            skills = [card for card in station["hand"] if card_of(state, card)["owner"]]
            assert len(skills) <= SKILL_CARDS_MAX, key
            skill_seen.update(skills)
            own = [
                card
                for card in station["draw"] + station["discard"] + station["hand"]
                if not card_of(state, card)["owner"]
            ]
            # A ship a cue brought in mid-game (module cues) keeps the deck it came with.
            deck = game.decks.setdefault(key, Counter(own))
            assert Counter(own) == deck, f"{key}'s Station cards were lost or copied"
    for ch in state["characters"].values():
        for name in CHARACTERISTICS:
            assert 0 <= ch[name]["value"] <= ch[name]["max"]
        assert ch["status"] == status_of(ch)
        skill_seen.update(ch["draw"] + ch["discard"])
    all_skills = Counter(c_ for c_, card in state["cards"].items() if card["owner"])
    assert skill_seen == all_skills, "a Skill card was lost or copied"
    if state["deadline"] is not None:
        assert state["deadline"]["kind"] == state["phase"]


def seats(state: dict[str, Any]) -> dict[str, str]:
    return {
        st_["crew"]["seat"]: f"{ship['id']}/{st_['id']}"
        for ship in state["ships"].values()
        for st_ in ship["stations"].values()
        if st_["crew"]
    }


def check_views(state: dict[str, Any], events: list[dict[str, Any]]) -> None:
    seated = seats(state)
    display = display_view(state)
    assert leaks(state, display, None) == []
    # The display holds no hand card and no unrevealed order at all, so a station view's public
    # part, when it equals the display's, hides everything from that seat too; what is left to
    # check per seat is its own part (and any public part that differs).
    public = [k for k in display if k not in ("viewer", "messages")]
    for seat, key in seated.items():
        view = station_view(state, seat)
        own = {k: v for k, v in view.items() if k not in public or v != display[k]}
        assert leaks(state, own, key) == [], seat
    for event in events:
        owner = event.get("secret_for")
        if owner is None:
            continue
        assert event_view(event, "gm") == event
        shown = event_view(event, "display")
        assert shown is None or "secret" not in shown
        for seat, key in seated.items():
            seen = event_view(event, ("seat", seat))
            if owner in (key, key.split("/")[0]):
                assert seen == event
            else:
                assert seen is None or ("secret" not in seen and "secret_for" not in seen)


# --- The properties ------------------------------------------------------------------------------


def replay(game: Game) -> list[str]:
    state, prints = game.initial, []
    for command in game.commands:
        state, _ = apply(state, command)
        prints.append(fingerprint(state))
    return prints


def random_games(scenario: str) -> Any:
    @pytest.mark.slow
    @settings(
        max_examples=EXAMPLES[scenario],
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(
        seed=st.integers(0, 2**63 - 1),
        modules=st.sampled_from(MODULE_SETS),
        characters=st.lists(st.booleans(), min_size=1, max_size=9),
    )
    def check(seed: int, modules: tuple[str, ...], characters: list[bool]) -> None:
        game = Game(scenario, seed, modules, characters)
        game.play()
        assert game.state["turn"] >= 1
        # rule: G-TURN-3: the same seed and the same commands give the same states
        assert replay(game) == game.fingerprints

    return check


test_random_skirmishes_keep_every_invariant_and_secret = random_games("skirmish")
test_random_convoy_battles_keep_every_invariant_and_secret = random_games("convoy")
