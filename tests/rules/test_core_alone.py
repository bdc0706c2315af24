"""The rules core runs with no switchable module at all (core/hooks.py): a module brings its own
commands, actions, state, views and report lines, so a game without any still plays.

The game is played in a fresh interpreter that loads the engine's core and content without
`app/rules/__init__.py`, the one import that plugs the modules in, so no module is registered
or even imported there.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from app.rules.core.hooks import HOOKS

ROOT = Path(__file__).resolve().parents[2]

PLAY = """
import json, sys, tomllib, types
from pathlib import Path

# The engine's package, without its __init__ (which plugs the switchable modules in).
rules = types.ModuleType("app.rules")
rules.__path__ = [str(Path("app/rules").resolve())]
sys.modules["app.rules"] = rules

from app.rules.content import (
    build_catalogue, parse_character, parse_deck, parse_scenario, parse_ship_class,
)
from app.rules.core.commands import (
    Actor, CloseOrders, SeatCrew, SetModule, StartTurn, SubmitOrder, parse_command,
)
from app.rules.core.engine import apply
from app.rules.core.errors import RulesError
from app.rules.core.opening import new_game
from app.rules.core.report import build_report
from app.rules.core.views import display_view, gm_view, station_view


def read(path):
    data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    for table in ("translations", "modules", "cues"):  # a plain scenario: no module named
        data.pop(table, None)
    return data


def every(folder, parse):
    return [parse(read(p), str(p)) for p in sorted(Path(folder).glob("*.toml"))]


catalogue = build_catalogue(
    every("scenarios/ships", parse_ship_class),
    every("scenarios/decks", parse_deck),
    every("scenarios/characters", parse_character),
    [parse_scenario(read("scenarios/skirmish.toml"), "scenarios/skirmish.toml")],
)
state = new_game(catalogue.scenarios["skirmish"], catalogue, seed=1)
gm = Actor.gm()
refused = []
try:
    parse_command({"type": "SetNpc", "ship": "rustjaw", "quality": "basic"}, gm)
except RulesError as error:
    refused.append(error.code)
try:
    apply(state, SetModule(module="npc", on=True))
except RulesError as error:
    refused.append(error.code)

events = []
commands = [
    SeatCrew(ship="kestrel", station="pilot", seat="pilot-seat", name="Ilse"),
    SeatCrew(ship="kestrel", station="weapons", seat="weapons-seat", name="Kofi"),
    StartTurn(seconds=0),
    SubmitOrder(ship="kestrel", station="pilot", action="manoeuvre", x=6, y=5, value=3),
    SubmitOrder(ship="kestrel", station="weapons", action="attack", target="rustjaw", value=6),
    CloseOrders(),
]
for command in commands:
    state, happened = apply(state, command)
    events += happened

print(json.dumps({
    "modules_imported": sorted(m for m in sys.modules if m.startswith("app.rules.modules")),
    "events": [event["type"] for event in events],
    "phase": state["phase"],
    "turn": state["turn"],
    "kestrel": [state["ships"]["kestrel"]["x"], state["ships"]["kestrel"]["y"]],
    "state_keys": sorted(state),
    "ship_keys": sorted({key for ship in state["ships"].values() for key in ship}),
    "weapon_keys": sorted(
        {key for ship in state["ships"].values() for w in ship["weapons"] for key in w}
    ),
    "actions": [a["id"] for a in station_view(state, "weapons-seat")["me"]["actions"]],
    "views": [sorted(gm_view(state)), sorted(display_view(state))],
    "report_ships": sorted(build_report(state, events)["combats"][0]["ships"][0]),
    "refused": refused,
}))
"""


def play_without_modules() -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", PLAY], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    return found


# rule: G-TURN-1
def test_g_turn_1_the_core_plays_a_turn_with_no_module_registered() -> None:
    played = play_without_modules()
    assert played["modules_imported"] == []
    kinds = played["events"]
    assert kinds.index("OrdersRevealed") < kinds.index("ShipMoved") < kinds.index("AttackResolved")
    assert kinds[-1] == "TurnResolved"
    assert (played["phase"], played["turn"], played["kestrel"]) == ("turn_end", 1, [6, 5])
    # Nothing a module keeps, shows or counts is there; its commands are unknown.
    own = HOOKS.own_keys()
    assert own and not own & {*played["state_keys"], *played["ship_keys"], *played["weapon_keys"]}
    assert played["actions"] == ["attack"]
    gm, display = played["views"]
    assert not set(HOOKS.gm_views) & set(gm) and not set(HOOKS.shared_views) & set(display)
    assert not set(HOOKS.report_counts.values()) & set(played["report_ships"])
    assert played["refused"] == ["UNKNOWN_COMMAND", "UNKNOWN_MODULE"]
