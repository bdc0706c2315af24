"""The GM's one tap for the NPC stations still waiting in Orders: each gets an order, or passes,
in one command, so the tap is one version of the game: recorded, replayed and undone whole."""

from __future__ import annotations

import random
from dataclasses import dataclass

from ...bot import propose
from ...core.commands import Actor, Command, PassOrder, SubmitOrder
from ...core.context import Context
from ...core.errors import RulesError, refuse
from ...core.orders import pass_order, stations_expected, submit_order
from ...core.state import State
from .tactic import npc_order


@dataclass(frozen=True)
class GiveNpcOrders(Command):
    """Every station of an NPC ship that nobody crews and the turn still waits for gets an order:
    with `pass_all` a pass; else the crew's tactic with module npc on (M-NPC-2), or a legal order
    a program player would give. The choice is the GM's, not the game's dice, so `seed` (its
    sender's) drives it: a replay chooses the same."""

    pass_all: bool = False
    seed: int = 0


def waiting_npc_stations(state: State) -> list[tuple[str, str]]:
    """(ship, station) of each NPC station without a crew that the turn still waits for."""
    waiting = []
    for key in stations_expected(state):
        ship_id, station_id = key.split("/", 1)
        ship = state["ships"][ship_id]
        unmanned = ship["crew"] == "npc" and ship["stations"][station_id]["crew"] is None
        if unmanned and key not in state["orders"]:
            waiting.append((ship_id, station_id))
    return waiting


def give_npc_orders(ctx: Context, cmd: GiveNpcOrders) -> None:
    waiting = waiting_npc_stations(ctx.state)
    if not waiting:
        raise refuse("NO_NPC_WAITING")
    rng = random.Random(cmd.seed)
    for ship_id, station_id in waiting:
        order = (
            PassOrder(ship=ship_id, station=station_id, now=ctx.now)
            if cmd.pass_all
            else _chosen(ctx.state, ship_id, station_id, rng, ctx.now)
        )
        if isinstance(order, SubmitOrder):
            try:
                submit_order(ctx, order)
                continue
            except RulesError:  # a choice the rules refuse (it should not happen) passes instead
                order = PassOrder(ship=ship_id, station=station_id, now=ctx.now)
        pass_order(ctx, order)


def _chosen(
    state: State, ship_id: str, station_id: str, rng: random.Random, now: float
) -> SubmitOrder | PassOrder:
    """The crew's tactic (module npc on), else a program player's legal order."""
    if "npc" in state["modules"]:
        order = npc_order(state, ship_id, station_id)
        if order is not None:
            return order
    proposed = propose(state, ship_id, station_id, rng, Actor.gm(), now)
    assert isinstance(proposed, SubmitOrder | PassOrder)
    return proposed
