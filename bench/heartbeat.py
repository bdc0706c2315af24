"""What the websocket heartbeat costs the server: G games' six sockets each (four stations, the GM,
the projector; permessage-deflate, as browsers open them), idle, for a window, at each heartbeat
period asked for. The server's CPU time over the window is the cost; a period of an hour stands
for no heartbeat at all.

The period is a trade: the pages take their socket for dead after three heartbeats of silence
(static/js/app.js), so the period bounds how long a stalled phone shows an old turn.

Starts an embedded PostgreSQL and, per period and run, one server (`uvicorn app.main:app`, as
bench/load.py does), makes the games through the API (bench/reconnect_storm.py's tables), opens
every socket, waits for the welcomes to settle, then measures.

    .venv/bin/python bench/heartbeat.py          # 100 games (600 sockets), periods 5, 15, 3600 s
    .venv/bin/python bench/heartbeat.py --games 20 --periods 5 --window 10 --runs 1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from load import ServerProcess
from reconnect_storm import Table


async def idle(args: argparse.Namespace, url: str, workdir: Path, period: float) -> dict[str, Any]:
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "BRIDGECREW_DATA_DIR": str(workdir),
        "BRIDGECREW_HEARTBEAT_S": str(period),
    }
    server = await ServerProcess("app.main:app", env, workdir / "server.log", None).ready()
    try:
        tables = [Table(i) for i in range(args.games)]
        for start in range(0, len(tables), 10):
            await asyncio.gather(*(t.create(server.port) for t in tables[start : start + 10]))
        for start in range(0, len(tables), 10):
            await asyncio.gather(*(t.connect(server.port) for t in tables[start : start + 10]))
        await asyncio.sleep(args.settle)
        cpu, began = server.cpu(), time.perf_counter()
        await asyncio.sleep(args.window)
        cpu, took = server.cpu() - cpu, time.perf_counter() - began
        sockets = [s for t in tables for s in t.screens]
        still_open = sum(1 for s in sockets if not s.closed)
        for table in tables:
            table.cut()
        return {
            "period_s": period,
            "sockets": len(sockets),
            "still_open": still_open,
            "window_s": round(took, 1),
            "cpu_s": round(cpu, 3),
            "cpu_percent": round(100 * cpu / took, 2),
            "heartbeats_per_s": round(len(sockets) / period, 1),
            "rss_mb": round(server.rss() / 2**20, 1),
        }
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--periods", default="5,15,3600", help="heartbeat periods, seconds")
    parser.add_argument("--window", type=float, default=30.0, help="seconds measured")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds before measuring")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from app.db.embedded import start_embedded, stop_embedded
    from app.db.migrate import upgrade

    periods = [float(p) for p in args.periods.split(",")]
    results: dict[float, list[dict[str, Any]]] = {p: [] for p in periods}
    workdir = Path(tempfile.mkdtemp(prefix="bridgecrew-heartbeat-"))
    try:
        url = start_embedded(workdir / "pg").url()
        upgrade(url)
        for _ in range(args.runs):
            for period in periods:  # interleaved, so a busy spell on the machine hits all alike
                load = os.getloadavg()
                result = asyncio.run(idle(args, url, workdir, period))
                result["loadavg"] = [round(x, 2) for x in load]
                print(json.dumps(result), flush=True)
                results[period].append(result)
    finally:
        stop_embedded(workdir / "pg")
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"median of {args.runs} runs, {args.window:.0f} s idle each:")
    for period, runs in results.items():
        print(
            f"  heartbeat every {period:g} s: server CPU "
            f"{statistics.median(r['cpu_percent'] for r in runs):.2f} % of one core, "
            f"{runs[0]['sockets']} sockets ({runs[0]['heartbeats_per_s']:g} heartbeats/s)"
        )


if __name__ == "__main__":
    main()
