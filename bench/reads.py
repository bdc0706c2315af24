"""Strangers read what costs the server most while other games go on, and the
other games' /healthz is timed meanwhile.

Starts its own embedded PostgreSQL in a temporary directory and one server process, as
bench/attack.py does. Before the server starts, the bench writes to the database as the
organisers' editor and a long evening would: a library of `--decks` decks of 100 cards (what a
game used to copy whole: about 3 MB), and a game of `--commands` commands (a skirmish the GM
plays, ships restored when lost) whose after-action report runs to megabytes. Then, for
`--duration` seconds, each from a loopback address of its own (127.0.0.10 and up; with
`--one-address` all from 127.0.0.2, as one stranger):

- `--readers` clients read that game's report back to back: its page, its CSV, its JSON;
- `--readers` clients read the lobby (`/gm`), which lists the library's scenarios;
- `--readers` clients read `/api/scenarios`;
- one client makes games as fast as the server lets it.

A client told 429 waits 0.1 s, as bench/attack.py's attacker does. Five other games keep their
projectors open, and a probe in a process of its own asks /healthz every 50 ms on a fresh
connection (bench/attack.py's). Reported: the probe's p50, p99 and worst; for each kind of read
the answers (200, 429) and the median time of a 200; the games made; the report page's size;
the server's memory.

    .venv/bin/python bench/reads.py
    .venv/bin/python bench/reads.py --one-address --duration 30 --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import random
import statistics
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.attack import (  # noqa: E402
    MB,
    PROBE_GAP_S,
    Server,
    figures_of,
    on_server,
    percentile,
    probe,
    victims,
)

ONE_ADDRESS = "127.0.0.2"
CARDS = 20  # entries of a bench deck, five copies each: 100 cards, the editor's cap
EFFECT = "A long effect text, as an organiser might write one. " * 8  # ~430 characters


def bench_decks(count: int) -> list[Any]:
    """`count` decks, each its own copy of a built-in one with 100 cards of long effects."""
    from app.content import builtin_files
    from app.service.library import Change, copy_of

    decks = []
    shipped = builtin_files()["deck"]
    for n in range(count):
        deck = copy_of("deck", shipped[sorted(shipped)[n % len(shipped)]][0], set())
        card = deck["cards"][0]
        deck.update(id=f"bench-deck-{n}", prefix=f"bd{n}", name=f"Bench Deck {n}")
        deck["cards"] = [
            {**card, "name": f"{card['name']} {i}", "effect": EFFECT, "copies": 5}
            for i in range(CARDS)
        ]
        decks.append(Change("deck", deck, 0))
    return decks


async def long_game(session_factory: Any, commands: int) -> uuid.UUID:
    """A skirmish the GM plays for `commands` commands, then ends: every NPC crew orders by
    itself, the players' ship is left to take it, and a lost ship is restored for the next
    combat."""
    from app.rules import Actor
    from app.rules.bot import propose, stations_to_order
    from app.service import create_game, load_state, run_command
    from app.service.commands import command_fields

    game_id, _, _ = await create_game(session_factory, "skirmish", seed=11)
    gm = Actor.gm()
    rng = random.Random(11)
    for n in range(commands):
        _, state = await load_state(session_factory, game_id)
        ships = state["ships"]
        lost = [ship["id"] for ship in ships.values() if ship["destroyed"]]
        phase = state["phase"]
        if phase != "downtime" and lost:
            data: dict[str, Any] = {"type": "EndCombat"}
        elif phase == "downtime" and lost:
            data = {"type": "RestoreShip", "ship": lost[0]}
        elif phase == "orders" and stations_to_order(state):
            ship, station, actor = stations_to_order(state)[0]
            data = command_fields(propose(state, ship, station, rng, actor))
        elif phase == "orders":
            data = {"type": "CloseOrders"}
        elif phase == "allocation":
            waiting = state["allocation"]["ships"].items()
            ship = next(k for k, p in waiting if not p["answered"])
            data = {"type": "AllocateDamage", "ship": ship, "allocations": {}}
        else:
            data = {"type": "StartTurn", "seconds": 0}
        await run_command(session_factory, game_id, data, gm, command_id=f"bench-{n}")
    if (await load_state(session_factory, game_id))[1]["phase"] != "downtime":
        # Ended, so that anyone may read its report (G-END-2).
        ended = {"type": "EndCombat"}
        await run_command(session_factory, game_id, ended, gm, command_id="bench-end")
    return game_id


async def prepare(url: str, args: argparse.Namespace) -> uuid.UUID:
    from app.db.session import create_engine, create_session_factory
    from app.service.library import save_items

    engine = create_engine(url)
    try:
        session_factory = create_session_factory(engine)
        await save_items(session_factory, bench_decks(args.decks), "bench")
        return await long_game(session_factory, args.commands)
    finally:
        await engine.dispose()


def waited_for_cpu(pid: int) -> float:
    """Seconds the process's main thread has spent ready to run, waiting for a core (Linux)."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return float("nan")


async def reader(
    base: str, address: str, paths: list[str], until: float, kind: str, seen: list[Any]
) -> None:
    """GETs `paths` in turn until `until`: (kind, status, seconds) of each answer on `seen`.
    Each answer is read whole as it comes, gzipped: unpacking megabytes would take the cores
    this bench shares with the server."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=120) as http:
        n = 0
        while time.monotonic() < until:
            started = time.perf_counter()
            path = paths[n % len(paths)]
            async with http.stream("GET", path, headers={"Accept": "text/html"}) as answer:
                async for _ in answer.aiter_raw():
                    pass
            seen.append((kind, answer.status_code, time.perf_counter() - started))
            n += 1
            if answer.status_code == 429:
                await asyncio.sleep(0.1)


async def maker(base: str, address: str, until: float, seen: list[Any]) -> None:
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=120) as http:
        while time.monotonic() < until:
            started = time.perf_counter()
            answer = await http.post("/api/games", json={"scenario": "skirmish"})
            seen.append(("new game", answer.status_code, time.perf_counter() - started))
            if answer.status_code == 429:
                await asyncio.sleep(0.1)


async def run(args: argparse.Namespace, server: Server, game: uuid.UUID) -> dict[str, Any]:
    watchers = await victims(server.base, args.victims)
    async with httpx.AsyncClient(base_url=server.base, timeout=120) as http:
        page = await http.get(f"/report/{game}", headers={"Accept-Encoding": "identity"})
    before = peak = server.rss()
    processes = multiprocessing.get_context("spawn")
    stop, results = processes.Event(), processes.Queue()
    prober = processes.Process(target=probe, args=(server.port, stop, results))
    prober.start()
    addresses = iter(f"127.0.0.{10 + n}" for n in range(200))

    def address() -> str:
        return ONE_ADDRESS if args.one_address else next(addresses)

    report = [f"/report/{game}", f"/report/{game}.csv", f"/api/games/{game}/report"]
    seen: list[Any] = []
    cpu_before, waited_before = sum(server.ps.cpu_times()[:2]), waited_for_cpu(server.ps.pid)
    until = time.monotonic() + args.duration
    work = asyncio.gather(
        *(
            reader(server.base, address(), report, until, "report", seen)
            for _ in range(args.readers)
        ),
        *(
            reader(server.base, address(), ["/gm"], until, "lobby", seen)
            for _ in range(args.readers)
        ),
        *(
            reader(server.base, address(), ["/api/scenarios"], until, "scenarios", seen)
            for _ in range(args.readers)
        ),
        maker(server.base, address(), until, seen),
    )
    while not work.done():
        peak = max(peak, server.rss())
        await asyncio.sleep(0.2)
    await work
    cpu = sum(server.ps.cpu_times()[:2]) - cpu_before
    waited = waited_for_cpu(server.ps.pid) - waited_before
    stop.set()
    took = await asyncio.to_thread(results.get, True, 60)
    prober.join(10)
    await asyncio.sleep(5)
    after = server.rss()
    for task in watchers:
        task.cancel()
    pushes = [await task for task in watchers]
    answers = Counter((kind, status) for kind, status, _ in seen)
    figures: dict[str, Any] = {
        "report_page_kb": round(len(page.content) / 1024),
        "healthz_probes": len(took),
        "healthz_p50_ms": round(percentile(took, 0.5) * 1000, 1),
        "healthz_p99_ms": round(percentile(took, 0.99) * 1000, 1),
        "healthz_max_ms": round(max(took) * 1000, 1),
        # When the slow answers came: each probe is about PROBE_GAP_S plus its answer after the
        # one before it.
        "healthz_over_100ms_at_s": [
            round(sum(took[:i]) + i * PROBE_GAP_S, 1) for i, t in enumerate(took) if t > 0.1
        ],
    }
    for kind in ("report", "lobby", "scenarios", "new game"):
        ok = [s for k, status, s in seen if k == kind and status in (200, 201)]
        figures[f"{kind}_answers"] = {
            str(s): n for (k, s), n in sorted(answers.items()) if k == kind
        }
        figures[f"{kind}_median_ms"] = round(statistics.median(ok) * 1000, 1) if ok else None
    figures |= {
        "server_cpu_percent": round(100 * cpu / args.duration),  # of one core
        # How long its event loop's thread was ready to run but waited for a core: the other
        # processes on the machine (PostgreSQL, this bench's clients, anything else).
        "server_waited_for_cpu_s": round(waited, 1),
        "rss_before_mb": round(before / MB),
        "rss_peak_mb": round(peak / MB),
        "rss_after_mb": round(after / MB),
        "victim_pushes": pushes,
    }
    return figures


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    prepared: dict[str, Any] = {}

    async def prepare_timed(url: str) -> uuid.UUID:
        started = time.monotonic()
        game = await prepare(url, args)
        prepared["prepared_s"] = round(time.monotonic() - started, 1)
        return game

    figures = await on_server(lambda server, game: run(args, server, game), prepare_timed)
    return {**prepared, **figures}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of reading")
    parser.add_argument("--readers", type=int, default=4, help="clients per kind of read")
    parser.add_argument("--victims", type=int, default=5, help="other games, projector open")
    parser.add_argument("--decks", type=int, default=60, help="decks in the library")
    parser.add_argument("--commands", type=int, default=3000, help="commands of the long game")
    parser.add_argument("--one-address", action="store_true", help="every client at one address")
    figures_of(parser, measure)


if __name__ == "__main__":
    main()
