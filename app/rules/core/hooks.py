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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar

from .commands import COMMANDS, Command, SubmitOrder
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
        # --- Commands and the turn ---
        # A module's own commands (registered by `command`).
        self.commands: dict[type[Command], ModuleCommand] = {}
        # (ctx, phase before the command): after every command, to tidy what the module keeps.
        self.after_command: Every[[Context, str], None] = Every()
        # (ctx): as the Orders phase opens, after the cards are drawn.
        self.orders_open: Every[[Context], None] = Every()
        # (state): what the module keeps only for one combat (torpedoes in flight, say) is
        # cleared, as a combat ends and again as the next one starts (G-END-3).
        self.between_combats: Every[[State], None] = Every()
        # (ctx): after the GM frees a station.
        self.seat_freed: Every[[Context], None] = Every()

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
        # (state): the map the screens draw, or None to leave it to the core (a grid).
        self.map_view: First[[State], View] = First()
        # (state, ship): more of what every screen shows of a ship.
        self.ship_view: Every[[State, Ship], View] = Every()
        # (state): a part of what every screen shows, under the key it is registered by.
        self.shared_views: dict[str, Callable[[State], View]] = {}
        # (state, the station's ship, that part of the shared view): the station's own part.
        self.station_views: dict[str, Callable[[State, Ship, View], View]] = {}
        # (state): a part of what only the GM sees.
        self.gm_views: dict[str, Callable[[State], View]] = {}

        # --- Players that are programs (bot.py) ---
        # (state, ship, value, rng): a destination for a manoeuvre order, or None.
        self.pick_zone: First[[State, Ship, int, random.Random], str] = First()

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
