"""A reconnect storm, as when the venue's Wi-Fi comes back: every screen of every game reconnects
at once while the GM keeps sending commands.

Starts an embedded PostgreSQL and one server (`uvicorn app.main:app`, as bench/load.py does),
makes G games through the API, each with four seats, and opens each game's six HTML sockets (four
stations, GM, projector) with permessage-deflate, as browsers do. Commands (the GM's messages to
all) go out at --rate per second over all games from then on. Then every socket is cut at once
and all of them reconnect at once, each saying what its screen shows (`?shown=`, as
static/js/app.js does; not with --whole). Reported:

- how long from the cut until every screen showed a version at least as new as its game's newest
  committed before the cut (each reconnected screen gets its whole screen first, or only its
  version when its game has not moved on since, then pushes);
- whether any screen missed a change: once commands stop, every screen must show its game's last
  version;
- the server's memory per socket: its RSS with every socket open after the storm, less its RSS
  before any socket was open, over the number of sockets.

    .venv/bin/python bench/reconnect_storm.py                   # 100 games, 30 commands/s
    .venv/bin/python bench/reconnect_storm.py --games 20 --json /tmp/storm.json
    .venv/bin/python bench/reconnect_storm.py --whole           # screens say nothing: all whole
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from load import HttpPool, ServerProcess, Socket

VERSION = re.compile(rb'id="bc-version"[^>]*data-version="(\d+)"(?: data-shown="([^"]*)")?')
STATIONS = ("weapons", "engineering", "pilot", "comms")


class Screen(Socket):
    """A socket that remembers the newest version its screen shows."""

    version = -1
    shown = ""  # what the screen shows, as the server names it: said again on reconnect

    def _message(self, message: bytes, arrived: float) -> None:
        found = VERSION.search(message[:400])
        if found and int(found.group(1)) >= self.version:
            self.version = int(found.group(1))
            self.shown = (found.group(2) or b"").decode()
        super()._message(message, arrived)

    def _fail(self, error: BaseException) -> None:
        super()._fail(error)
        for future in (self.opened, self.welcomed):  # a socket this bench cut: nobody waits
            if future.done() and not future.cancelled():
                future.exception()


class Table:
    def __init__(self, index: int) -> None:
        self.index = index
        self.source = f"127.0.{1 + index // 250}.{2 + index % 250}"  # a phone's own address
        self.game_id = ""
        self.gm_token = ""
        self.paths: list[str] = []
        self.screens: list[Screen] = []
        self.version = 0  # the newest version a command here was answered with
        self.sent = 0

    async def create(self, port: int) -> None:
        pool = HttpPool(port, 1, source=self.source)
        try:
            status, body = await pool.request("POST", "/api/games", {"scenario": "skirmish"})
            assert status == 201, body
            self.game_id, self.gm_token = body["game_id"], body["gm_token"]
            self.paths = [f"/ws/gm/{self.game_id}?token={self.gm_token}"]
            self.paths.append(f"/ws/display/{self.game_id}")
            for station in STATIONS:
                status, body = await pool.request(
                    "POST",
                    f"/api/games/{self.game_id}/seats",
                    {"ship": "kestrel", "station": station, "name": station},
                )
                assert status == 201, body
                self.paths.append(f"/ws/station/{self.game_id}?token={body['seat_token']}")
        finally:
            pool.close()

    async def connect(self, port: int, say_shown: bool = True) -> int:
        """Open every screen's socket; answers how many tries failed (each is tried again after
        a pause, as htmx-ext-ws does)."""
        loop = asyncio.get_running_loop()
        failed = 0

        async def one(path: str) -> Screen:
            nonlocal failed
            while True:
                screen = Screen(f"ws://127.0.0.1:{port}{path}", None, 0, True)
                try:
                    await loop.create_connection(
                        lambda s=screen: s, "127.0.0.1", port, local_addr=(self.source, 0)
                    )
                    await asyncio.wait_for(screen.opened, 10)
                    return screen
                except (OSError, TimeoutError) as error:  # ConnectionError is an OSError
                    failed += 1
                    screen.close()
                    print(f"retrying {path.split('?')[0]}: {error!r}", file=sys.stderr)
                    await asyncio.sleep(0.5)

        # A screen that comes back says what it shows, as static/js/app.js does.
        shown = [screen.shown if say_shown else "" for screen in self.screens]
        shown = shown or [""] * len(self.paths)
        paths = [
            f"{path}{'&' if '?' in path else '?'}shown={said}" if said else path
            for path, said in zip(self.paths, shown, strict=True)
        ]
        self.screens = list(await asyncio.gather(*(one(path) for path in paths)))
        return failed

    def cut(self) -> None:
        for screen in self.screens:
            screen.close()

    def current(self, version: int) -> bool:
        return all(screen.version >= version for screen in self.screens)


async def commands(tables: list[Table], port: int, rate: float, stop: asyncio.Event) -> int:
    """The GM of each game in turn sends a message to all, `rate` a second, one in flight per
    game; answers the number of errors."""
    pools = {t.index: HttpPool(port, 1, source=t.source) for t in tables}
    errors = 0
    in_flight: set[asyncio.Task[None]] = set()
    busy: set[int] = set()

    async def send(table: Table) -> None:
        nonlocal errors
        table.sent += 1
        body = {
            "type": "SendMessage",
            "text": f"storm {table.sent}",
            "command_id": os.urandom(8).hex(),
        }
        try:
            status, answer = await pools[table.index].request(
                "POST", f"/api/games/{table.game_id}/commands", body, table.gm_token
            )
            if status == 200:
                table.version = max(table.version, answer["version"])
            else:
                errors += 1
        except (OSError, TimeoutError, asyncio.IncompleteReadError):
            errors += 1
        finally:
            busy.discard(table.index)

    turn, start = 0, time.perf_counter()
    while not stop.is_set():
        table = tables[turn % len(tables)]
        turn += 1
        if table.index not in busy:
            busy.add(table.index)
            task = asyncio.create_task(send(table))
            in_flight.add(task)
            task.add_done_callback(in_flight.discard)
        await asyncio.sleep(max(0.0, start + turn / rate - time.perf_counter()))
    await asyncio.gather(*in_flight)
    for pool in pools.values():
        pool.close()
    return errors


async def storm(args: argparse.Namespace, url: str, workdir: Path) -> dict[str, Any]:
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "BRIDGECREW_DATA_DIR": str(workdir),
    }
    profile = args.profile
    server = await ServerProcess("app.main:app", env, workdir / "server.log", profile).ready()
    try:
        tables = [Table(i) for i in range(args.games)]
        for start in range(0, len(tables), 10):
            await asyncio.gather(*(t.create(server.port) for t in tables[start : start + 10]))
        await asyncio.sleep(1.0)
        before = server.rss()
        for start in range(0, len(tables), 10):
            await asyncio.gather(*(t.connect(server.port) for t in tables[start : start + 10]))
        stop = asyncio.Event()
        sender = asyncio.create_task(commands(tables, server.port, args.rate, stop))
        await asyncio.sleep(args.settle)

        targets = [t.version for t in tables]  # committed (answered) before the cut
        server.start_profile("storm", 15)
        for table in tables:
            table.cut()
        cut = time.perf_counter()
        retried = sum(
            await asyncio.gather(*(t.connect(server.port, not args.whole) for t in tables))
        )
        while not all(t.current(v) for t, v in zip(tables, targets, strict=True)):
            if time.perf_counter() - cut > args.give_up:
                break
            await asyncio.sleep(0.01)
        current_after = time.perf_counter() - cut

        await asyncio.sleep(args.settle)  # commands go on after the storm, too
        stop.set()
        errors = await sender
        await asyncio.sleep(2.0)  # the last pushes arrive
        behind = sum(1 for t in tables for screen in t.screens if screen.version < t.version)
        sockets = sum(len(t.screens) for t in tables)
        after = server.rss()
        for table in tables:
            table.cut()
        return {
            "games": args.games,
            "sockets": sockets,
            "rate": args.rate,
            "current_after_s": round(current_after, 3),
            "all_current": current_after <= args.give_up,
            "screens_behind_at_end": behind,
            "connects_retried": retried,
            "command_errors": errors,
            "commands": sum(t.sent for t in tables),
            "kb_per_socket": round((after - before) / sockets / 1024, 1),
            "rss_mb_before": round(before / 2**20, 1),
            "rss_mb_after": round(after / 2**20, 1),
        }
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--rate", type=float, default=30.0, help="commands per second, overall")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds before and after")
    parser.add_argument("--give-up", type=float, default=60.0, help="seconds to wait at most")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--json", default=None, help="also write the figures here")
    parser.add_argument("--whole", action="store_true", help="reconnect without ?shown=")
    parser.add_argument("--profile", type=Path, default=None, help="py-spy raw stacks to this dir")
    args = parser.parse_args()
    from app.db.embedded import start_embedded, stop_embedded
    from app.db.migrate import upgrade

    results = []
    workdir = Path(tempfile.mkdtemp(prefix="bridgecrew-storm-"))
    try:
        url = start_embedded(workdir / "pg").url()
        upgrade(url)
        for _ in range(args.runs):
            load = os.getloadavg()
            result = asyncio.run(storm(args, url, workdir))
            result["loadavg"] = [round(x, 2) for x in load]
            print(json.dumps(result), flush=True)
            results.append(result)
    finally:
        stop_embedded(workdir / "pg")
        shutil.rmtree(workdir, ignore_errors=True)
    if len(results) > 1:
        print(
            "median: current after",
            statistics.median(r["current_after_s"] for r in results),
            "s, KB per socket",
            statistics.median(r["kb_per_socket"] for r in results),
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
