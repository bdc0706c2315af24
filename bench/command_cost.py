"""One command at rest: how long `run_command` takes, from the call to the commit, with nothing
else running.

Starts an embedded PostgreSQL in a temporary directory, creates a skirmish game and has the GM
send messages one after another. Each is a full command: the rules applied, state + event +
command + NOTIFY written and committed (app/service/commands.py). Prints the median and the 90th
percentile of the wall time, leaving out the first 100 (connections and prepared statements
warming up), and the CPU per command of this process and of the PostgreSQL backends (read from
/proc over the measured commands; a shared machine's load shows in the wall time, far less here).

    .venv/bin/python bench/command_cost.py             # 600 commands
    .venv/bin/python bench/command_cost.py --commands 2000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app import service
from app.db.embedded import start_embedded, stop_embedded
from app.db.migrate import upgrade
from app.db.session import create_engine, create_session_factory
from app.rules import Actor

WARMUP = 100
TICKS = os.sysconf("SC_CLK_TCK")


def postgres_cpu() -> float:
    """Seconds of CPU used so far by every postgres process of this machine (the embedded
    server's: keep other PostgreSQL servers idle meanwhile)."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)
            if "postgres" not in fields[0]:
                continue
            values = fields[1].split()
            total += int(values[11]) + int(values[12])  # utime, stime
        except (OSError, IndexError):
            continue
    return total / TICKS


async def measure(url: str, commands: int) -> list[float]:
    engine = create_engine(url)
    try:
        sessions = create_session_factory(engine)
        game_id, _, _ = await service.create_game(sessions, "skirmish", 1)
        times = []
        for i in range(commands + WARMUP):
            if i == WARMUP:
                cpu = time.process_time(), postgres_cpu()
            start = time.perf_counter()
            await service.run_command(
                sessions,
                game_id,
                {"type": "SendMessage", "text": f"message {i % 7}"},
                Actor.gm(),
                command_id=str(uuid.uuid4()),
            )
            times.append(time.perf_counter() - start)
        own, pg = time.process_time() - cpu[0], postgres_cpu() - cpu[1]

        print(
            f"CPU per command: this process {own / commands * 1000:.2f} ms,"
            f" PostgreSQL {pg / commands * 1000:.2f} ms"
        )
        return times[WARMUP:]
    finally:
        await engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=600)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bridgecrew-command-"))
    try:
        url = start_embedded(workdir / "pg").url()
        upgrade(url)
        times = sorted(asyncio.run(measure(url, args.commands)))
        print(
            f"run_command, {len(times)} commands:"
            f" median {statistics.median(times) * 1000:.2f} ms,"
            f" p90 {times[int(len(times) * 0.9)] * 1000:.2f} ms"
        )
    finally:
        stop_embedded(workdir / "pg")
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
