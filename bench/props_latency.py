"""What props cost a command: `run_command`'s wall time with no broker configured, with a live
Mosquitto, and with a broker that is dead (configured, but its process killed).

Starts an embedded PostgreSQL and Debian's Mosquitto (on free ports, in a temporary directory),
creates a skirmish game per setup and has the GM toggle red alert, each command a full unit of
work whose event the bridge publishes. The dead broker's bridge was connected, then its broker
was killed. The setups take turns in blocks, each going first in turn, so the machine's load
falls on each alike; the first round is left out (connections warming up). Prints the median
and the 90th percentile of each setup, and whether each bridge was connected at the end.

    .venv/bin/python bench/props_latency.py                 # 3 rounds of 200 commands a setup
    .venv/bin/python bench/props_latency.py --rounds 5 --commands 400
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app import service
from app.db.embedded import start_embedded, stop_embedded
from app.db.migrate import upgrade
from app.db.session import create_engine, create_session_factory
from app.props import PropsBridge
from app.rules import Actor
from app.service.commands import SessionFactory, on_commit

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
SETUPS = ("no broker", "live broker", "dead broker")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_mosquitto(folder: Path, port: int) -> subprocess.Popen[bytes]:
    config = folder / "mosquitto.conf"
    config.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    command = [MOSQUITTO, "-c", str(config)]  # Debian's broker, with the file written here
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL)  # noqa: S603
    for _ in range(500):
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return process
        except OSError:
            time.sleep(0.02)
    raise RuntimeError("mosquitto did not start")


async def until(check: Callable[[], bool], seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if check():
            return
        await asyncio.sleep(0.02)
    raise RuntimeError("the bridges did not connect, notice the broker's death, or catch up")


async def block(sessions: SessionFactory, game_id: object, count: int, start: int) -> list[float]:
    times = []
    for i in range(start, start + count):
        begun = time.perf_counter()
        await service.run_command(
            sessions,
            str(game_id),
            {"type": "SetRedAlert", "on": i % 2 == 0},
            Actor.gm(),
            command_id=f"alert-{i}",
        )
        times.append(time.perf_counter() - begun)
    return times


async def measure(url: str, folder: Path, rounds: int, commands: int) -> dict[str, list[float]]:
    live_port, dead_port = free_port(), free_port()
    live = start_mosquitto(folder, live_port)
    dead = start_mosquitto(folder / "dead", dead_port)
    engine = create_engine(url)
    try:
        sessions = create_session_factory(engine)
        bridges = {
            "live broker": PropsBridge(sessions, f"mqtt://127.0.0.1:{live_port}"),
            "dead broker": PropsBridge(sessions, f"mqtt://127.0.0.1:{dead_port}"),
        }
        for bridge in bridges.values():
            await bridge.start()
        await until(lambda: all(b.connected for b in bridges.values()))
        # Killed mid-game, as a venue's broker dies: every reconnection is refused from now on.
        dead.kill()
        dead.wait(10)
        await until(lambda: not bridges["dead broker"].connected)
        games = {setup: (await service.create_game(sessions, "skirmish", 1))[0] for setup in SETUPS}
        times: dict[str, list[float]] = {setup: [] for setup in SETUPS}
        sent = 0
        for round_ in range(rounds + 1):
            for setup in SETUPS[round_ % 3 :] + SETUPS[: round_ % 3]:  # each goes first in turn
                bridge = bridges.get(setup)
                on_commit(sessions, None if bridge is None else bridge.committed)
                taken = await block(sessions, games[setup], commands, sent)
                sent += commands
                if round_:  # the first round warms up
                    times[setup] += taken
                # The live bridge publishes its block's events as the block goes on and after it:
                # let it finish, so the next setup's block is not timed against that work.
                await until(lambda: bridges["live broker"].pending == 0, seconds=120)
                await asyncio.sleep(0.5)
        for setup, bridge in bridges.items():
            print(f"{setup}: connected {bridge.connected}, notes forgotten {bridge.forgotten}")
            await bridge.stop()
        return times
    finally:
        await engine.dispose()
        for process in (live, dead):
            process.kill()
            process.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--commands", type=int, default=200)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bridgecrew-props-"))
    (folder / "dead").mkdir()
    try:
        url = start_embedded(folder / "pg").url()
        upgrade(url)
        times = asyncio.run(measure(url, folder, args.rounds, args.commands))
        for setup in SETUPS:
            ordered = sorted(times[setup])
            print(
                f"{setup}: {len(ordered)} commands, median"
                f" {statistics.median(ordered) * 1000:.2f} ms,"
                f" p90 {ordered[int(len(ordered) * 0.9)] * 1000:.2f} ms"
            )
    finally:
        stop_embedded(folder / "pg")
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
