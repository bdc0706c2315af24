"""A stranger on the venue Wi-Fi tries to stall every game, and other games'
/healthz is timed while it runs.

Starts its own embedded PostgreSQL in a temporary directory and one server process as `bridgecrew
serve` runs it (tests/processes.py: app.web.serving's options, settings from the environment).
A few victim games are made, each with its projector socket open and read. Then the attacker,
from another loopback address (127.0.0.2, so the caps per address fall on it and not on the
probe), creates a game, which makes it that game's GM, and:

1. adds ships to it until the server refuses one (the cap on ships per game) or `--max-ships`;
2. opens `--sockets` projector sockets on it that never read a byte (a tiny receive window);
3. for `--duration` seconds sends GM commands that change every screen (red alert on and off)
   as fast as its rate limit lets it, while `--readers` anonymous clients read the game's view
   (`GET /api/games/{id}/view`) and the projector page back to back.

Meanwhile a probe at 127.0.0.1, a process of its own, asks /healthz every 50 ms on a fresh
connection. Reported: the ships the attacker got and how long adding them took, the size of one
view of its game, the probe's p50/p99/max, the server's memory before, at its peak and 5 s
after the attacker left.

    .venv/bin/python bench/attack.py
    .venv/bin/python bench/attack.py --duration 30 --sockets 20 --max-ships 2000 --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import multiprocessing
import os
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.processes import Server, unread_websocket  # noqa: E402

ATTACKER = "127.0.0.2"
MAP_WIDTH, MAP_HEIGHT = 16, 10  # the skirmish's map
PROBE_GAP_S = 0.05
MB = 1024 * 1024


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def rss(server: Server) -> int:
    return int(psutil.Process(server.process.pid).memory_info().rss)


async def add_ships(http: httpx.AsyncClient, game: str, gm: dict[str, str], most: int) -> str:
    """Ships until the server refuses one; what it said (or that `most` were added)."""
    for n in range(most):
        command = {
            "command_id": f"ship-{n}",
            "type": "AddShip",
            "ship_class": "raider",
            "name": f"Raider {n}",
            "side": "enemy",
            "x": n % MAP_WIDTH,
            "y": n // MAP_WIDTH % MAP_HEIGHT,
        }
        while True:
            answer = await http.post(f"/api/games/{game}/commands", json=command, headers=gm)
            if answer.status_code != 429:
                break
            await asyncio.sleep(float(answer.headers.get("Retry-After", "1")))
        if answer.status_code != 200:
            return f"refused ship {n + 1}: {answer.json().get('code')}"
    return f"{most} added, none refused"


def probe(port: int, stop: Any, results: Any) -> None:
    """/healthz on a fresh connection every PROBE_GAP_S until `stop` is set; puts the seconds
    each answer took (inf for one that was not 200) on `results`. It runs in a process of its
    own, as another device would: in the attacker's process it would time the attacker's own
    event loop (its readers parse megabytes of pages) and httpx building a client."""
    took: list[float] = []
    while not stop.is_set():
        started = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            connection.request("GET", "/healthz")
            answer = connection.getresponse()
            answer.read()
            ok = answer.status == 200
        except OSError:
            ok = False
        finally:
            connection.close()
        took.append(time.perf_counter() - started if ok else float("inf"))
        time.sleep(PROBE_GAP_S)
    results.put(took)


async def attack(http: httpx.AsyncClient, game: str, gm: dict[str, str], until: float) -> int:
    sent = 0
    while time.monotonic() < until:
        command = {"command_id": f"alert-{sent}", "type": "SetRedAlert", "on": sent % 2 == 0}
        answer = await http.post(f"/api/games/{game}/commands", json=command, headers=gm)
        if answer.status_code == 429:
            await asyncio.sleep(0.1)
            continue
        sent += 1
    return sent


async def read_views(http: httpx.AsyncClient, game: str, until: float) -> int:
    reads = 0
    while time.monotonic() < until:
        await http.get(f"/api/games/{game}/view")
        await http.get(f"/display/{game}")
        reads += 2
    return reads


async def victims(base: str, count: int) -> list[asyncio.Task[int]]:
    """Games with their projector open and read: each counts the pushes it gets."""
    from websockets.asyncio.client import connect

    async def watch(game: str) -> int:
        pushes = 0
        async with connect(f"ws://{base.removeprefix('http://')}/ws/display/{game}") as display:
            with contextlib.suppress(asyncio.CancelledError):
                async for _ in display:
                    pushes += 1
        return pushes

    tasks = []
    async with httpx.AsyncClient(base_url=base) as http:
        for seed in range(count):
            made = await http.post("/api/games", json={"scenario": "skirmish", "seed": seed})
            tasks.append(asyncio.create_task(watch(made.json()["game_id"])))
    return tasks


async def run(args: argparse.Namespace, server: Server) -> dict[str, Any]:
    watchers = await victims(server.base, args.victims)
    attacker = httpx.AsyncClient(
        base_url=server.base,
        transport=httpx.AsyncHTTPTransport(local_address=ATTACKER),
        timeout=120,
        limits=httpx.Limits(max_connections=args.readers + 2),
    )
    sockets: list[socket.socket] = []
    try:
        made = await attacker.post("/api/games", json={"scenario": "skirmish", "seed": 1})
        game, token = made.json()["game_id"], made.json()["gm_token"]
        gm = {"Authorization": f"Bearer {token}"}
        started = time.monotonic()
        ships = await add_ships(attacker, game, gm, args.max_ships)
        adding_s = time.monotonic() - started
        view = await attacker.get(f"/api/games/{game}/view")
        before = rss(server)
        for _ in range(args.sockets):
            sockets.append(
                (
                    await asyncio.to_thread(
                        unread_websocket, server.port, f"/ws/display/{game}", ATTACKER
                    )
                )[0]
            )
        processes = multiprocessing.get_context("spawn")
        stop, results = processes.Event(), processes.Queue()
        prober = processes.Process(target=probe, args=(server.port, stop, results))
        prober.start()
        peak = rss(server)
        until = time.monotonic() + args.duration
        work = asyncio.gather(
            attack(attacker, game, gm, until),
            *(read_views(attacker, game, until) for _ in range(args.readers)),
        )
        while not work.done():
            peak = max(peak, rss(server))
            await asyncio.sleep(0.2)
        commands, *reads = await work
        stop.set()
        took = await asyncio.to_thread(results.get, True, 60)
        prober.join(10)
    finally:
        for sock in sockets:
            sock.close()
        await attacker.aclose()
    await asyncio.sleep(5)
    after = rss(server)
    for task in watchers:
        task.cancel()
    pushes = [await task for task in watchers]
    return {
        "ships": ships,
        "adding_ships_s": round(adding_s, 1),
        "view_bytes": len(view.content),
        "attacker_commands": commands,
        "attacker_reads": sum(reads),
        "healthz_probes": len(took),
        "healthz_p50_ms": round(percentile(took, 0.5) * 1000, 1),
        "healthz_p99_ms": round(percentile(took, 0.99) * 1000, 1),
        "healthz_max_ms": round(max(took) * 1000, 1),
        "rss_before_mb": round(before / MB),
        "rss_peak_mb": round(peak / MB),
        "rss_after_mb": round(after / MB),
        "victim_pushes": pushes,
    }


async def on_server(
    run: Callable[[Server, Any], Awaitable[dict[str, Any]]],
    prepare: Callable[[str], Awaitable[Any]] | None = None,
) -> dict[str, Any]:
    """`run(server, prepared)` against one server process on an embedded PostgreSQL of its own
    in a temporary directory, migrated, and given what `prepare(database url)` wrote first."""
    from app.db.embedded import start_embedded, stop_embedded
    from app.db.migrate import upgrade

    workdir = Path(tempfile.mkdtemp(prefix="bridgecrew-bench-"))
    os.chmod(workdir, 0o755)  # noqa: S103 - as root, pgserver runs postgres as its own user
    try:
        pg = await asyncio.to_thread(start_embedded, workdir / "pg", "bridgecrew")
        url = pg.url("bridgecrew")
        await asyncio.to_thread(upgrade, url)
        prepared = None if prepare is None else await prepare(url)
        server = Server(url, workdir, "server")
        try:
            await server.ready()
            return await run(server, prepared)
        finally:
            server.stop()
            await asyncio.to_thread(stop_embedded, workdir / "pg")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def figures_of(
    parser: argparse.ArgumentParser,
    measure: Callable[[argparse.Namespace], Awaitable[dict[str, Any]]],
) -> None:
    """Parse the arguments, measure, and print the figures with the start and the load average
    before it (and write them as JSON with `--json`)."""
    parser.add_argument("--json", default=None, help="also write the figures here")
    args = parser.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load = os.getloadavg()
    figures = asyncio.run(measure(args))
    figures["started"] = started
    figures["load_average"] = f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    for name, value in figures.items():
        print(f"{name:>20}: {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of attack")
    parser.add_argument("--sockets", type=int, default=20, help="projector sockets never read")
    parser.add_argument("--readers", type=int, default=4, help="anonymous view readers")
    parser.add_argument("--victims", type=int, default=5, help="other games, projector open")
    parser.add_argument("--max-ships", type=int, default=700, help="stop adding ships here")
    figures_of(parser, lambda args: on_server(lambda server, _: run(args, server)))


if __name__ == "__main__":
    main()
