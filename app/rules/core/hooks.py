"""The points where a switchable module plugs into the core.

The core calls what is registered here and never names a module; `app/rules/modules/__init__.py`
is the one place that lists the modules, and each registers its functions once, as `app.rules` is
imported. Whether a module is switched on is each game's own business (`state["modules"]`, or a
zone map in `state["map"]`), so every registered function checks that for itself and does
nothing, or answers as the core would, for a game without it.

Each hook point declares how the answers of its functions make its own (as pluggy's hook specs
declare `firstresult`), so no caller decides it: `Every` runs them all, `First` stops at the first
answer, `AnyTrue` and `AllTrue` at the first True or False, and `Chain` hands each one's answer to
the next.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar

from ..content import MODULES, SECTIONS, Placed, Scenario, Section, ShipClass, ShipPlacement
from ..content.checks import Table
from .commands import COMMANDS, AddShip, Command, SubmitOrder
from .context import Context
from .messages import Message
from .phases import ACTIONS, Action
from .state import Ship, State, Station

Order = dict[str, Any]
View = dict[str, Any]
Weapon = dict[str, Any]
# (state, ship, station, command, value, order): refuses a bad order, or fills in the order.
OrderCheck = Callable[[State, Ship, Station, SubmitOrder, int, Order], None]
Handler = Callable[[Context, Any], None]


@dataclass(frozen=True)
class ModuleCommand:
    """A module's command: its handler, and the phases it may be given in."""

    handler: Handler
    phases: frozenset[str]


P = ParamSpec("P")
R = TypeVar("R")
F = TypeVar("F", bound=Callable[..., Any])


class Hook(Generic[F]):
    """The functions registered for one hook point, in the order they registered."""

    def __init__(self) -> None:
        self.functions: list[F] = []

    def register(self, function: F) -> None:
        self.functions.append(function)

    def unregister(self, function: F) -> None:
        self.functions.remove(function)


class Every(Hook[Callable[P, R]], Generic[P, R]):
    """Every function runs; the answer is the list of their answers."""

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> list[R]:
        return [function(*args, **kwargs) for function in self.functions]


class First(Hook[Callable[P, R | None]], Generic[P, R]):
    """The first answer that is not None; the functions after it are not asked."""

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R | None:
        for function in self.functions:
            found = function(*args, **kwargs)
            if found is not None:
                return found
        return None


class AnyTrue(Hook[Callable[P, bool]], Generic[P]):
    """True as soon as one function says so (the rest are not asked); False if none does."""

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> bool:
        return any(function(*args, **kwargs) for function in self.functions)


class AllTrue(Hook[Callable[P, bool]], Generic[P]):
    """False as soon as one function says so (the rest are not asked); True if none does."""

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> bool:
        return all(function(*args, **kwargs) for function in self.functions)


class Chain(Hook[Callable[Concatenate[R, P], R]], Generic[P, R]):
    """Each function takes, as its first argument, what the one before answered (the first takes
    the caller's value); the answer is the last one's, or the caller's value if none is
    registered."""

    def __call__(self, value: R, *args: P.args, **kwargs: P.kwargs) -> R:
        for function in self.functions:
            value = function(value, *args, **kwargs)
        return value


class Hooks:
    """Each attribute is one hook point; its type says the signature a module's function must have
    and the rule its answers follow."""

    def __init__(self) -> None:
        # --- What a module keeps in the game ---
        # Its keys are its own: neither the core nor the content names them (tests/test_layers.py).
        # (scenario): a new game's part under its key, or None to leave the key out.
        self.game_parts: dict[str, Callable[[Scenario], Any]] = {}
        # (the scenario's placement of the ship, or None for one the GM adds): a ship's part.
        self.ship_parts: dict[str, Callable[[ShipPlacement | None], Any]] = {}
        # (the weapon as its sheet has it): a weapon's part.
        self.weapon_parts: dict[str, Callable[[Weapon], Any]] = {}
        # Keys a module adds to the state as the game goes on, beyond its parts.
        self.state_keys: set[str] = set()
        # (ctx, the state the undo took back): what the module keeps of the table as it is now.
        self.undone: Every[[Context, State], None] = Every()

        # --- Commands and the turn ---
        # A module's own commands (registered by `command`).
        self.commands: dict[type[Command], ModuleCommand] = {}
        # (ctx, phase before the command): after every command, to tidy what the module keeps.
        self.after_command: Every[[Context, str], None] = Every()
        # (ctx): as the Orders phase opens, after the cards are drawn.
        self.orders_open: Every[[Context], None] = Every()
        # (ctx, ship): a ship comes into a turn whose Orders are open (the GM or a cue adds it,
        # restores it, puts it back into the fight): its crew may order at once.
        self.joins_orders: Every[[Context, Ship], None] = Every()
        # (state): what the module keeps only for one combat (torpedoes in flight, say) is
        # cleared, as a combat ends and again as the next one starts (G-END-3).
        self.between_combats: Every[[State], None] = Every()
        # (ctx): after the GM frees a station.
        self.seat_freed: Every[[Context], None] = Every()

        # --- The GM's corrections ---
        # A module's settings the GM may change mid-game (SetSetting), with their bounds.
        self.settings: dict[str, tuple[int, int]] = {}
        # (state, ship): before the GM stands a ship on a square; a map without squares refuses.
        self.placing: Every[[State, Ship], None] = Every()
        # (state, command): where a ship the GM adds arrives on a module's map, checked: the
        # place for the log, and where it stands; None on the grid.
        self.arrival: First[[State, AddShip], tuple[str | Message, Any]] = First()
        # (state, ship, where it stands): the ship the GM added takes its place there.
        self.arrived: Every[[State, Ship, Any], None] = Every()

        # --- Orders ---
        # The checks of a module's own actions, by action id (registered by `action`).
        self.order_checks: dict[str, OrderCheck] = {}
        # (state, ship, action): False hides the action from a station's phone.
        self.offers: AllTrue[[State, Ship, str]] = AllTrue()
        # (state, weapon): False when the weapon cannot fire now.
        self.can_fire: AllTrue[[State, Weapon]] = AllTrue()
        # (weapon ids chosen, state, ship, named by the player): the ones that fire, or a refusal.
        self.ready_weapons: Chain[[State, Ship, bool], list[str]] = Chain()
        # (state, ship, station, command): for an order whose value is rolled at the reveal, the
        # highest value the roll can give (for the checks) and the fields the order then carries.
        self.rolled_order: First[[State, Ship, Station, SubmitOrder], tuple[int, Order]] = First()
        # (ctx, ship, station, order): each order as it is revealed, before its cards are played.
        self.at_reveal: Every[[Context, Ship, Station, Order], None] = Every()
        # (state, ship, station, id of the station it orders for): that station, checked.
        self.override_target: First[[State, Ship, Station, str], Station] = First()
        # (state, ship, station, order): the order `station` gives for another is recorded.
        self.record_override: Every[[State, Ship, Station, Order], None] = Every()
        # (state, ship, station): `station` gives its own order again (or none).
        self.clear_override: Every[[State, Ship, Station], None] = Every()
        # (state, ship, command, value, order): True when the module judged this manoeuvre order.
        self.move_order: AnyTrue[[State, Ship, SubmitOrder, int, Order]] = AnyTrue()

        # --- Resolution ---
        # (ctx, the Pilots' orders): in the Manoeuvre step, before any ship moves.
        self.before_manoeuvre: Every[[Context, list[Order]], None] = Every()
        # (ctx, ship, order, value): True when the module moved the ship for this order.
        self.move: AnyTrue[[Context, Ship, Order, int]] = AnyTrue()
        # (ctx): in the Manoeuvre step, after every ship moved.
        self.after_manoeuvre: Every[[Context], None] = Every()
        # (ctx, the Weapons' orders): True when the module ran the Weapon attacks step itself.
        self.attacks: AnyTrue[[Context, list[Order]]] = AnyTrue()
        # (state, attacker, target): Defending bonuses, [reason, value] pairs, like modifiers.
        self.defending: Every[[State, Ship, Ship], list[list[Any]]] = Every()
        # (points, ctx, ship, cause): of one hit's Hull damage, what the module leaves on the Hull.
        self.hull_hit: Chain[[Context, Ship, Message], int] = Chain()
        # (state): True when Hull damage falls where the dice say, so Engineering is not asked.
        self.random_allocation: AnyTrue[[State]] = AnyTrue()
        # (ctx, ship): after each Hull box fills.
        self.hull_box_filled: Every[[Context, Ship], None] = Every()

        # --- Views ---
        # (state, order): where a manoeuvre order goes on a module's map, for people; None for a
        # square.
        self.destination: First[[State, Order], str | Message] = First()
        # (state): the map the screens draw, or None to leave it to the core (a grid).
        self.map_view: First[[State], View] = First()
        # (state, ship): more of what every screen shows of a ship.
        self.ship_view: Every[[State, Ship], View] = Every()
        # (state): a part of what every screen shows, under the key it is registered by.
        self.shared_views: dict[str, Callable[[State], View]] = {}
        # (state, the station's ship, its seat, the shared view): a part of the station's own.
        self.station_views: dict[str, Callable[[State, Ship, str, View], Any]] = {}
        # (state): True when another of the crew may take the station of one who fell.
        self.others_may_take: AnyTrue[[State]] = AnyTrue()
        # (state): a part of what only the GM sees.
        self.gm_views: dict[str, Callable[[State], View]] = {}

        # --- The after-action report (report.py) ---
        # A module's events that each add 1 to a count on the line of the event's `ship`: the
        # count's name, by event type. Every ship's line starts each count at 0.
        self.report_counts: dict[str, str] = {}
        # A module's events that are one ship's attack on another, as the core's AttackResolved.
        self.report_attacks: set[str] = set()

        # --- Players that are programs (bot.py) ---
        # (state, ship, value, rng): a destination for a manoeuvre order, or None.
        self.pick_zone: First[[State, Ship, int, random.Random], str] = First()

    def own_keys(self) -> set[str]:
        """Every key a module keeps in the state, on a ship or on a weapon."""
        return {*self.game_parts, *self.ship_parts, *self.weapon_parts, *self.state_keys}

    def switch(self, name: str) -> None:
        """A module a scenario's [modules] table, and the GM, switch on and off by `name`."""
        MODULES.append(name)

    def scenario_table(
        self,
        key: str,
        read: Callable[[Table, Placed], Any],
        check: Callable[[str, Any, Mapping[str, ShipClass], Mapping[str, ShipPlacement]], None],
    ) -> None:
        """A table a module reads from scenario files (content.Section): the scenario's `key`,
        read as it is loaded, checked against the other files, and kept in
        `Scenario.sections[key]`."""
        SECTIONS[key] = Section(read, check)

    def command(self, cls: type[Command], handler: Handler, phases: frozenset[str]) -> None:
        """A module's own command: `parse_command` knows it by its class's name, and `apply`
        runs `handler` for it in `phases` (phases.ALL_PHASES: whatever the phase)."""
        self.commands[cls] = ModuleCommand(handler, phases)
        COMMANDS[cls.__name__] = cls

    def action(self, action_id: str, action: Action, check: OrderCheck) -> None:
        """A module's own action: a station of its role may order it (phases.ACTIONS), and
        `check` judges each such order as it is given."""
        ACTIONS[action_id] = action
        self.order_checks[action_id] = check


HOOKS = Hooks()


def defending(state: State, attacker: Ship, target: Ship) -> list[list[Any]]:
    """Every module's Defending bonuses for the target against this attacker, in one list."""
    return [bonus for bonuses in HOOKS.defending(state, attacker, target) for bonus in bonuses]
