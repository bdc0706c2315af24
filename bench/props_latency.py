"""What props cost a command: `run_command`'s wall time with no broker configured, with a live
Mosquitto, and with a broker that is dead (configured, but its process killed).

Starts an embedded PostgreSQL and Debian's Mosquitto (on free ports, in a temporary directory),
creates a skirmish game per setup and has the GM toggle red alert, each command a full unit of
work whose event the bridge publishes. The dead broker's bridge was connected, then its broker
was killed. The setups take turns command by command, each going first in turn, so a shared
machine's changing load falls on each alike; after each live command the bench waits until a
subscriber heard its message, so no command is timed against another's publishing. The first
50 commands of each setup are left out (connections warming up). Prints the median and the
90th percentile of each setup, and of how long after a live command's start the subscriber
heard it.

    .venv/bin/python bench/props_latency.py                 # 500 commands a setup
    .venv/bin/python bench/props_latency.py --commands 2000
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

import aiomqtt
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app import service
from app.db.embedded import start_embedded, stop_embedded
from app.db.migrate import upgrade
from app.db.session import create_engine, create_session_factory
from app.props import PropsBridge
from app.rules import Actor
from app.service.commands import on_commit
from app.settings import Settings

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
SETUPS = ("no broker", "live broker", "dead broker")
WARMUP = 50  # commands per setup left out: connections and caches warming up


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


async def measure(url: str, folder: Path, commands: int) -> dict[str, list[float]]:
    """Each setup's command times, and (as "heard") how long after a live command's start a
    subscriber heard its message."""
    live_port, dead_port = free_port(), free_port()
    live = start_mosquitto(folder, live_port)
    dead = start_mosquitto(folder / "dead", dead_port)
    engine = create_engine(url)
    heard: dict[int, float] = {}
    try:
        sessions = create_session_factory(engine)
        bridges = {
            setup: PropsBridge(
                sessions, Settings(data_dir=folder, mqtt_url=f"mqtt://127.0.0.1:{port}")
            )
            for setup, port in (("live broker", live_port), ("dead broker", dead_port))
        }
        for bridge in bridges.values():
            await bridge.start()
        await until(lambda: all(b.connected for b in bridges.values()))
        # Killed mid-game, as a venue's broker dies: every reconnection is refused from now on.
        dead.kill()
        dead.wait(10)
        await until(lambda: not bridges["dead broker"].connected)
        async with aiomqtt.Client("127.0.0.1", live_port) as prop:
            await prop.subscribe("bridgecrew/+/red-alert", qos=1)
            listening = asyncio.create_task(listen(prop, heard))
            games = {s: (await service.create_game(sessions, "skirmish", 1))[0] for s in SETUPS}
            times: dict[str, list[float]] = {setup: [] for setup in [*SETUPS, "heard"]}
            for i in range(commands + WARMUP):
                for setup in SETUPS[i % 3 :] + SETUPS[: i % 3]:  # each goes first in turn
                    bridge = bridges.get(setup)
                    on_commit(sessions, None if bridge is None else bridge.committed)
                    begun = time.perf_counter()
                    result = await service.run_command(
                        sessions,
                        games[setup],
                        {"type": "SetRedAlert", "on": i % 2 == 0},
                        Actor.gm(),
                        command_id=f"alert-{i}",
                    )
                    taken = time.perf_counter() - begun
                    if setup == "live broker":
                        # Published before the next command starts: none is timed against it.
                        version = result.version
                        await until(lambda: version in heard)  # noqa: B023 - awaited right here
                        if i >= WARMUP:
                            times["heard"].append(heard[version] - begun)
                    if i >= WARMUP:
                        times[setup].append(taken)
            listening.cancel()
        for setup, bridge in bridges.items():
            print(f"{setup}: connected {bridge.connected}, notes forgotten {bridge.forgotten}")
            await bridge.stop()
        return times
    finally:
        await engine.dispose()
        for process in (live, dead):
            process.kill()
            process.wait(10)


async def listen(prop: aiomqtt.Client, heard: dict[int, float]) -> None:
    async for message in prop.messages:
        assert isinstance(message.payload, bytes)
        heard[orjson.loads(message.payload)["version"]] = time.perf_counter()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=500, help="per setup")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bridgecrew-props-"))
    (folder / "dead").mkdir()
    try:
        url = start_embedded(folder / "pg").url()
        upgrade(url)
        times = asyncio.run(measure(url, folder, args.commands))
        for setup in [*SETUPS, "heard"]:
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
