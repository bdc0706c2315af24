"""Median time for the engine to play one full turn of the two-ship skirmish.

A turn here is everything `apply` does between two StartTurns: the draw, every station's order,
the reveal and the resolution (Engineering answering any allocation prompt). Orders are chosen
by the bot before the clock starts, so only the engine is timed.

    .venv/bin/python bench/rules_bench.py [--turns 3000] [--scenario skirmish]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from app.content import load_catalogue
from app.rules import apply, new_game
from app.rules import commands as c
from app.rules.bot import propose, stations_to_order


def seated_game(scenario: str, seed: int) -> dict:
    catalogue = load_catalogue()
    state = new_game(catalogue.scenarios[scenario], catalogue, seed=seed)
    characters = list(catalogue.characters)
    seat = 0
    for ship in list(state["ships"].values()):
        if ship["crew"] != "players":
            continue
        for station in ship["stations"]:
            state, _ = apply(
                state,
                c.SeatCrew(
                    ship=ship["id"],
                    station=station,
                    seat=f"s{seat}",
                    name=f"Player {seat}",
                    character=characters[seat % len(characters)],
                ),
            )
            seat += 1
    return state


def timed_turn(state: dict, rng: random.Random) -> tuple[dict, float]:
    """One turn; returns the new state and the seconds spent inside `apply` only."""
    spent = 0.0
    started = time.perf_counter()
    state, _ = apply(state, c.StartTurn(seconds=0))
    spent += time.perf_counter() - started
    for ship, station, actor in stations_to_order(state):
        if state["phase"] != "orders":
            break
        command = propose(state, ship, station, rng, actor)
        started = time.perf_counter()
        state, _ = apply(state, command)
        spent += time.perf_counter() - started
    commands: list[c.Command] = [c.CloseOrders()] if state["phase"] == "orders" else []
    for command in commands:
        started = time.perf_counter()
        state, _ = apply(state, command)
        spent += time.perf_counter() - started
    while state["phase"] == "allocation":
        ship_id = next(k for k, p in state["allocation"]["ships"].items() if not p["answered"])
        started = time.perf_counter()
        state, _ = apply(state, c.AllocateDamage(ship=ship_id, allocations={}))
        spent += time.perf_counter() - started
    return state, spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=3000)
    parser.add_argument("--scenario", default="skirmish")
    args = parser.parse_args()
    rng = random.Random(7)
    times: list[float] = []
    games = 0
    while len(times) < args.turns:
        state = seated_game(args.scenario, seed=games)
        games += 1
        for _ in range(40):
            state, spent = timed_turn(state, rng)
            times.append(spent)
            if any(ship["destroyed"] for ship in state["ships"].values()):
                break
            if len(times) >= args.turns:
                break
        state, _ = apply(state, c.EndCombat())
    times.sort()
    median = statistics.median(times)
    p95 = times[int(len(times) * 0.95)]
    print(f"{len(times)} turns of {args.scenario} over {games} games")
    print(f"median {median * 1000:.3f} ms per turn, p95 {p95 * 1000:.3f} ms")


if __name__ == "__main__":
    main()
