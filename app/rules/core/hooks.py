"""The points where a switchable module plugs into the core.

The core calls what is registered here and never names a module; `app/rules/modules/__init__.py`
is the one place that lists the modules, and each registers its functions once, as `app.rules` is
imported. Whether a module is switched on is each game's own business (`state["modules"]`, or a
zone map in `state["map"]`), so every registered function checks that for itself and does
nothing, or answers as the core would, for a game without it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .commands import Command, SubmitOrder
from .context import Context
from .messages import Message
from .state import Ship, State, Station

Order = dict[str, Any]
View = dict[str, Any]
Weapon = dict[str, Any]
# (state, ship, station, command, value, order): refuses a bad order, or fills in the order.
OrderCheck = Callable[[State, Ship, Station, SubmitOrder, int, Order], None]


@dataclass
class Hooks:
    """Each field is one hook point; its type is the signature a module's function must have."""

    # --- Commands and the turn ---
    # A module's own commands and their handlers.
    commands: dict[type[Command], Callable[[Context, Any], None]] = field(default_factory=dict)
    # (ctx, phase before the command): after every command, to tidy what the module keeps.
    after_command: list[Callable[[Context, str], None]] = field(default_factory=list)
    # (ctx): as the Orders phase opens, after the cards are drawn.
    orders_open: list[Callable[[Context], None]] = field(default_factory=list)
    # (state): what the module keeps only for one combat (torpedoes in flight, say) is cleared,
    # as a combat ends and again as the next one starts (G-END-3).
    between_combats: list[Callable[[State], None]] = field(default_factory=list)
    # (ctx): after the GM frees a station.
    seat_freed: list[Callable[[Context], None]] = field(default_factory=list)

    # --- Orders ---
    # The checks for a module's own actions (phases.ACTIONS), by action id.
    order_checks: dict[str, OrderCheck] = field(default_factory=dict)
    # (state, ship, action): False hides the action from a station's phone.
    offers: list[Callable[[State, Ship, str], bool]] = field(default_factory=list)
    # (state, weapon): False when the weapon cannot fire now.
    can_fire: list[Callable[[State, Weapon], bool]] = field(default_factory=list)
    # (state, ship, weapon ids chosen, named by the player): the ones that fire, or a refusal.
    ready_weapons: list[Callable[[State, Ship, list[str], bool], list[str]]] = field(
        default_factory=list
    )
    # (state, ship, station, command): for an order whose value is rolled at the reveal, the
    # highest value the roll can give (for the checks) and the fields the order then carries.
    rolled_order: list[Callable[[State, Ship, Station, SubmitOrder], tuple[int, Order] | None]] = (
        field(default_factory=list)
    )
    # (ctx, ship, station, order): each order as it is revealed, before its cards are played.
    at_reveal: list[Callable[[Context, Ship, Station, Order], None]] = field(default_factory=list)
    # (state, ship, station, id of the station it orders for): that station, checked.
    override_target: list[Callable[[State, Ship, Station, str], Station]] = field(
        default_factory=list
    )
    # (state, ship, station, order): the order `station` gives for another is recorded.
    record_override: list[Callable[[State, Ship, Station, Order], None]] = field(
        default_factory=list
    )
    # (state, ship, station): `station` gives its own order again (or none).
    clear_override: list[Callable[[State, Ship, Station], None]] = field(default_factory=list)
    # (state, ship, command, value, order): True when the module judged this manoeuvre order.
    move_order: list[Callable[[State, Ship, SubmitOrder, int, Order], bool]] = field(
        default_factory=list
    )

    # --- Resolution ---
    # (ctx, the Pilots' orders): in the Manoeuvre step, before any ship moves.
    before_manoeuvre: list[Callable[[Context, list[Order]], None]] = field(default_factory=list)
    # (ctx, ship, order, value): True when the module moved the ship for this order.
    move: list[Callable[[Context, Ship, Order, int], bool]] = field(default_factory=list)
    # (ctx): in the Manoeuvre step, after every ship moved.
    after_manoeuvre: list[Callable[[Context], None]] = field(default_factory=list)
    # (ctx, the Weapons' orders): True when the module ran the Weapon attacks step itself.
    attacks: list[Callable[[Context, list[Order]], bool]] = field(default_factory=list)
    # (state, attacker, target): Defending bonuses, [reason, value] pairs, like modifiers.
    defending: list[Callable[[State, Ship, Ship], list[list[Any]]]] = field(default_factory=list)
    # (ctx, ship, points, cause): Hull damage from one hit that the module sent elsewhere.
    hull_hit: list[Callable[[Context, Ship, int, Message], int]] = field(default_factory=list)
    # (state): True when Hull damage falls where the dice say, so Engineering is not asked.
    random_allocation: list[Callable[[State], bool]] = field(default_factory=list)
    # (ctx, ship): after each Hull box fills.
    hull_box_filled: list[Callable[[Context, Ship], None]] = field(default_factory=list)

    # --- Views ---
    # (state): the map the screens draw, or None to leave it to the core (a grid).
    map_view: list[Callable[[State], View | None]] = field(default_factory=list)
    # (state, ship): more of what every screen shows of a ship.
    ship_view: list[Callable[[State, Ship], View]] = field(default_factory=list)
    # (state): a part of what every screen shows, under the key it is registered by.
    shared_views: dict[str, Callable[[State], View]] = field(default_factory=dict)
    # (state, the station's ship, that part of the shared view): the station's own part.
    station_views: dict[str, Callable[[State, Ship, View], View]] = field(default_factory=dict)
    # (state): a part of what only the GM sees.
    gm_views: dict[str, Callable[[State], View]] = field(default_factory=dict)

    # --- Players that are programs (bot.py) ---
    # (state, ship, value, rng): a destination for a manoeuvre order, or None.
    pick_zone: list[Callable[[State, Ship, int, random.Random], str | None]] = field(
        default_factory=list
    )


HOOKS = Hooks()


def can_fire(state: State, weapon: Weapon) -> bool:
    return all(check(state, weapon) for check in HOOKS.can_fire)


def defending(state: State, attacker: Ship, target: Ship) -> list[list[Any]]:
    return [bonus for hook in HOOKS.defending for bonus in hook(state, attacker, target)]
