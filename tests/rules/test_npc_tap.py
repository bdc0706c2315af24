"""The GM's one tap for the NPC stations still waiting (GiveNpcOrders, module npc): every such
station gets its order, or passes, in one command, chosen the same way whenever it is replayed
(G-TURN-3), by the crew's tactic with the module on (M-NPC-2)."""

from __future__ import annotations

from app.rules import commands as c
from app.rules import parse_command
from app.rules.modules.npc.tactic import npc_order
from app.rules.modules.npc.waiting import GiveNpcOrders, waiting_npc_stations

from .builders import GM, NOW, dump, game, of_type, one, refused, run, run_events, seat, started


def _orders(state: dict, ship: str) -> dict:  # type: ignore[type-arg]
    return {k.split("/")[1]: o for k, o in state["orders"].items() if k.startswith(f"{ship}/")}


def test_m_npc_2_the_tap_gives_every_waiting_npc_station_its_tactic_order_in_one_command() -> None:
    state = game("skirmish", modules=("npc",))
    state = run(state, c.SetNpc(ship="rustjaw", auto=False))  # the GM gives their orders
    state = started(state)
    assert _orders(state, "rustjaw") == {}
    expected = {
        station: npc_order(state, "rustjaw", station)
        for station in state["ships"]["rustjaw"]["stations"]
    }
    after, events = run_events(state, GiveNpcOrders(seed=5, now=NOW))
    given = _orders(after, "rustjaw")
    assert set(given) == set(expected)
    for station, order in expected.items():
        assert order is not None
        wanted = "pass" if isinstance(order, c.PassOrder) else order.action
        assert given[station]["action"] == wanted
    assert {e["station"] for e in of_type(events, "OrderGiven")} == set(expected)
    assert _orders(after, "kestrel") == {}  # a player's station is never ordered for them


def test_g_turn_3_the_same_seed_chooses_the_same_orders_so_a_replay_does() -> None:
    state = started(game("skirmish"))  # module npc off: a program player's legal orders
    first = run(state, GiveNpcOrders(seed=42, now=NOW))
    again = run(state, GiveNpcOrders(seed=42, now=NOW))
    assert dump(first) == dump(again)
    assert set(_orders(first, "rustjaw")) == set(state["ships"]["rustjaw"]["stations"])
    # The command is data like any other: what the service stores parses back to the same one.
    stored = {"type": "GiveNpcOrders", "pass_all": False, "seed": 42}
    assert parse_command(stored, GM, NOW) == GiveNpcOrders(seed=42, now=NOW)


def test_pass_all_passes_every_waiting_npc_station_and_only_those() -> None:
    state = started(game("skirmish"))
    state = run(state, c.PassOrder(ship="kestrel", station="pilot", actor=seat("kestrel", "pilot")))
    after = run(state, GiveNpcOrders(pass_all=True, now=NOW))
    assert {o["action"] for o in _orders(after, "rustjaw").values()} == {"pass"}
    assert set(_orders(after, "kestrel")) == {"pilot"}


def test_nothing_waiting_is_refused_and_so_is_a_tap_outside_orders() -> None:
    state = started(game("skirmish"))
    done = run(state, GiveNpcOrders(pass_all=True, now=NOW))
    refused(done, GiveNpcOrders(now=NOW), "NO_NPC_WAITING")
    refused(game("skirmish"), GiveNpcOrders(now=NOW), "WRONG_PHASE")
    refused(state, GiveNpcOrders(now=NOW, actor=seat("kestrel", "pilot")), "GM_ONLY")


def test_the_tap_that_completes_the_orders_reveals_and_is_undone_as_one() -> None:
    state = started(game("skirmish", auto_close=True))
    for station in state["ships"]["kestrel"]["stations"]:
        state = run(
            state, c.PassOrder(ship="kestrel", station=station, actor=seat("kestrel", station))
        )
    assert state["phase"] == "orders"  # the turn waits for the NPC ship
    resolved, events = run_events(state, GiveNpcOrders(pass_all=True, now=NOW))
    assert one(events, "AllOrdersIn") and resolved["phase"] != "orders"
    # Undone, the turn is back in Orders with the players' orders and every one the tap gave.
    undone = run(resolved, c.UndoResolution(now=NOW))
    tapped = {f"{ship}/{station}" for ship, station in waiting_npc_stations(state)}
    assert undone["phase"] == "orders" and tapped
    assert set(undone["orders"]) == set(state["orders"]) | tapped
