"""A whole evening at one table, for each shipped scenario, and every word a person reads of it.

Each evening starts with one scenario, with every module it can use switched on, a crew with
real names on the players' ships, the GM's usual business (the projector's language, a setting,
a module off and on again, a bonus with a typed reason, each cue fired by hand, a message to a
ship, a ship marked fled), bot crews playing the turns, the end of the combat, and the table
moved on to the next shipped scenario for two more turns. The screens are rendered as the
server renders them: the projector at every step, the GM and every phone whenever the phase
changes, the GM's seat list and Evening panel, and the after-action report (page and projector)
at the end.

What people typed (their names, the GM's messages and reasons) is theirs and shows as typed;
`TYPED` lists it, so that a test can take it out before looking for words that were left out of
the translations.
"""

from __future__ import annotations

import collections
import functools
import html
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from app.content import load_catalogue
from app.i18n import requested, translations
from app.rules import RulesError, apply, display_view, gm_view, new_game, station_view
from app.rules import commands as c
from app.rules.bot import table_command
from app.rules.content import MODULES
from app.rules.core.evening import next_battle
from app.rules.core.report import build_report
from app.web.render import render_page, render_template
from app.web.report import chart_lines
from app.web.words import say
from tests.web.test_render import PAGE

State = dict[str, Any]
CATALOGUE = load_catalogue()
SCENARIOS = sorted(CATALOGUE.scenarios)
NOW = 1_000.0

# Players' names, as long and as German as a table's (the worst first).
PEOPLE = (
    "Friedrich-Wilhelm von Hohenzollern-Sigma",
    "Anna-Lena Wöhrmann",
    "Jürgen Kluge",
    "Sabine Okonkwo",
    "Ole Brandt",
    "Mira Schäfer",
)
HAIL = "Achtung, an alle Schiffe!"  # the GM's own words
REASON = "Trümmerfeld laut SL"
SHIP_MESSAGE = "Nur für eure Brücke: haltet durch."
TYPED = (*PEOPLE, HAIL, REASON, SHIP_MESSAGE)
# The bot table hails everyone now and then ("Hail 7"): the GM's typing too.
TYPED_PATTERN = re.compile(r"Hail \d+")
# Modules each evening switches on beside the scenario's own (zones and cues come with the
# scenario's map and cues); starmada and syshit both roll for systems, so each evening has one.
EXTRA_MODULES = {
    "skirmish": ("starmada", "weapons", "npc", "seats"),
    "boarding-party": ("weapons", "syshit"),
    "convoy": ("weapons", "npc", "seats", "syshit"),
    "nebula-ambush": ("weapons", "npc", "seats", "starmada"),
    "torpedo-run": ("weapons", "npc", "seats", "syshit"),
}
STEPS = 90  # the bot table's commands in the first battle: a handful of turns and a combat end
STEPS_AFTER = 25  # in the next battle


@dataclass
class Screen:
    name: str
    html: str


@dataclass
class Evening:
    scenario: str
    locale: str
    screens: list[Screen] = field(default_factory=list)
    states: list[State] = field(default_factory=list)  # the last of each battle

    def ids(self) -> set[str]:
        """Every id the evening's games hold: ships, sides, stations, weapons, zones, cues,
        classes, scenarios, modules, settings. None of them is a word for a person."""
        found = set(MODULES) | set(CATALOGUE.scenarios) | set(CATALOGUE.ships)
        for state in self.states:
            found |= set(state["settings"])
            for ship in state["ships"].values():
                found |= {ship["id"], ship["side"], *ship["stations"]}
                found |= {w["id"] for w in ship["weapons"]}
            found |= {cue["id"] for cue in state.get("cues") or ()}
            found |= set((state.get("map") or {}).get("zones", ()))
        return found


def _seat_crews(state: State) -> tuple[State, list[str]]:
    seats: list[str] = []
    characters = list(CATALOGUE.characters)
    for ship in list(state["ships"].values()):
        if ship["crew"] != "players":
            continue
        for station in ship["stations"]:
            seat = f"seat-{len(seats)}"
            state, _ = apply(
                state,
                c.SeatCrew(
                    ship=ship["id"],
                    station=station,
                    seat=seat,
                    name=PEOPLE[len(seats) % len(PEOPLE)],
                    character=characters[len(seats)] if len(seats) < len(characters) else None,
                ),
            )
            seats.append(seat)
    return state, seats


def _gm_business(state: State, locale: str) -> list[c.Command]:
    """What a GM does before and during the first turn."""
    ships = [s for s in state["ships"].values()]
    ours = next(s for s in ships if s["crew"] == "players")
    theirs = next(s for s in ships if s["side"] != ours["side"])
    module = sorted(state["modules"])[0]
    commands: list[c.Command] = [
        c.SetDisplayLanguage(language=locale),
        c.SetSetting(name="orders_seconds", value=75),
        c.SetModule(module=module, on=False),
        c.SetModule(module=module, on=True),
        c.SendMessage(text=HAIL),
        c.SendMessage(text=SHIP_MESSAGE, to=ours["id"]),
        c.ImposeModifier(ship=theirs["id"], applies="defence", value=2, reason=REASON),
    ]
    commands += [c.FireCue(cue=cue["id"]) for cue in state.get("cues") or ()]
    return commands


class _Table:
    def __init__(self, evening: Evening, seed: int) -> None:
        self.evening = evening
        self.rng = random.Random(seed)
        self.events: list[dict[str, Any]] = []
        self.seats: list[str] = []
        self.state: State = {}
        self.phase = ""

    def do(self, command: c.Command) -> None:
        try:
            self.state, events = apply(self.state, command)
        except RulesError:
            return  # a cue that cannot fire now, a module the map does not allow
        self.events += events
        if self.state["phase"] != self.phase:
            self.look()
        self.phase = self.state["phase"]

    def play(self, steps: int) -> None:
        """The bot table's turns, until its combat ends or the steps run out."""
        for step in range(steps):
            command = table_command(self.state, self.rng, step + 1)
            self.do(command)
            if isinstance(command, c.EndCombat):
                return

    def look(self) -> None:
        name = f"{self.state['scenario']['id']} turn {self.state['turn']} {self.state['phase']}"
        shots = self.evening.screens
        view = display_view(self.state)
        shots.append(Screen(f"{name}: projector", render_page("display", view, **PAGE)))
        gm = gm_view(self.state)
        shots.append(Screen(f"{name}: GM", render_page("gm", gm, **PAGE)))
        shots.append(Screen(f"{name}: GM seats", _seats_panel(gm)))
        # Each phone in every phase of the first turns, and whenever Engineering must answer.
        if self.state["turn"] > 2 and self.state["phase"] != "allocation":
            return
        for seat in self.seats:
            view = station_view(self.state, seat)
            if view.get("me"):
                shots.append(Screen(f"{name}: phone {seat}", render_page("station", view, **PAGE)))


def _seats_panel(view: State) -> str:
    """The GM's seat list (app/web/gm.py): each crewed station's seat, as the database keeps it."""
    seats = {
        (ship["id"], station["id"]): SimpleNamespace(
            id=f"{ship['id']}/{station['id']}",
            name=station["crew"],
            character=station["character"],
            taken_from="10.0.0.7",
        )
        for ship in view["ships"]
        for station in ship["stations"]
        if station["crew"]
    }
    return render_template(
        "_gm_seats.html",
        view=view,
        seats=seats,
        connected=set(),
        characters={ch["id"]: ch["name"] for ch in view["characters"]},
        held_from=collections.Counter(["10.0.0.7"]),
    )


def play_evening(scenario: str, locale: str, seed: int = 7) -> Evening:
    evening = Evening(scenario, locale)
    table = _Table(evening, seed)
    token = requested.set(locale)
    try:
        state = new_game(CATALOGUE.scenarios[scenario], CATALOGUE, seed=seed)
        for module in EXTRA_MODULES.get(scenario, ()):
            state, _ = apply(state, c.SetModule(module=module, on=True))
        table.state, table.seats = _seat_crews(state)
        for command in _gm_business(table.state, locale):
            table.do(command)
        table.do(c.StartTurn(now=NOW))
        theirs = [s for s in table.state["ships"].values() if s["crew"] == "npc"]
        if theirs:
            table.do(c.SetShipOut(ship=theirs[-1]["id"], out="fled"))
        table.play(STEPS)
        if table.state["phase"] != "downtime":
            table.do(c.EndCombat())
        evening.states.append(table.state)
        _report(evening, table)
        # The table moves on to the next shipped scenario (E-EVENING-1).
        after = SCENARIOS[(SCENARIOS.index(scenario) + 1) % len(SCENARIOS)]
        _evening_panel(evening, table, after)
        table.state, events = next_battle(table.state, CATALOGUE.scenarios[after], CATALOGUE)
        table.events += events
        table.look()
        table.play(STEPS_AFTER)
        evening.states.append(table.state)
        _report(evening, table)
    finally:
        requested.reset(token)
    return evening


def _report(evening: Evening, table: _Table) -> None:
    """The after-action report of the evening so far, and every event's words as a log says
    them (the GM's log shows the last few; the report every combat's)."""
    words = translations(evening.locale)
    lines = [say(event["words"], words) for event in table.events if event.get("words")]
    scenario = table.state["scenario"]["id"]
    evening.screens.append(Screen(f"{scenario} log", html.escape("\n".join(lines))))
    report = build_report(table.state, table.events)
    for projector in (False, True):
        page = render_template(
            "report.html",
            report=report,
            game_id=PAGE["game_id"],
            csrf="",
            projector=projector,
            chart_lines=chart_lines,
        )
        where = "projector" if projector else "page"
        evening.screens.append(Screen(f"{table.state['scenario']['id']} report ({where})", page))


def _evening_panel(evening: Evening, table: _Table, after: str) -> None:
    scenarios = [{"id": s.id, "name": s.name} for s in CATALOGUE.scenarios.values()]
    panel = render_template(
        "_gm_evening.html",
        scenarios=scenarios,
        current=table.state["scenario"],
        phase=table.state["phase"],
        bench=table.state.get("bench") or [],
        newest=0,  # built-in scenarios: no library version to name
        uses_newest=True,
        versions={},
        command_id="x",
        csrf="",
    )
    evening.screens.append(Screen(f"{evening.scenario} evening panel, next {after}", panel))


@functools.cache
def evenings(locale: str) -> tuple[Evening, ...]:
    return tuple(play_evening(scenario, locale) for scenario in SCENARIOS)


def all_screens(locale: str) -> Iterator[tuple[str, Evening, Screen]]:
    for evening in evenings(locale):
        for screen in evening.screens:
            yield evening.scenario, evening, screen
