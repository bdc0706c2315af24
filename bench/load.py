"""Convention-scale load: many bridges on one laptop, every screen connected, real orders.

Starts its own embedded PostgreSQL in a temporary directory and the server as `uvicorn app.main:app`
process(es) on loopback, creates G games through the API (four seats each, as phones join), opens
each game's four station sockets, the GM's and the projector's (the HTML push the phones get;
they offer permessage-deflate as browsers do, and the server takes it only if its settings say),
then plays: GM StartTurn, the bot's orders from each seat's token, Engineering's damage
allocation, EndCombat / RestoreShip / SetTrack when a ship is lost. Commands go out on an
open-loop schedule (default 200/s over all games, round robin); each game's next command waits
for its previous one, and a late start shows as schedule lag.

For each command it measures the time from sending the POST to the moment every socket of that
game whose screen changes has received its push. Which screens change is known exactly: the
generator keeps a mirror of every game (same scenario, seed, seat ids and commands through the same
pure engine), plans the commands before the clock starts and compares each viewer's view before and
after. A push to a socket whose view did not change counts as `unexpected`, an expected push that
never comes as `missed`; at the end the server's projector view must equal the mirror's.

Push sizes, counted before deflate: the mean bytes of one push message to one screen, by audience
and over all screens ("Mean push size"); and for the orders (SubmitOrder, PassOrder), the bytes
each one sent to every screen but the one that gave it (the seat's phone, or the GM's for an NPC
crew's order), the most and the mean by audience: "Orders" for those that leave the turn open,
"Orders that reveal" for each turn's last, which reveals the orders and resolves the turn. Each
push starts with the game version it shows, and the server answers each command with the
version it made: a push counts for the command whose version it shows.

A quiet game (--quiet-game [RATE]): one game more, same table, on a schedule of its own (1
command/s unless RATE says) beside the load on the others; its latencies are reported apart
("Quiet game", and `quiet` in --json). At 1 command/s a run of 30 s gives it 30 commands, so its
p99 is its slowest: measure for longer to read a p99.

Runs: `one` server process; `two` processes sharing the database, each game's sockets split between
them (stations 1-2 + GM on one, stations 3-4 + projector on the other, alternating by game) and
every command sent to the first, so half the pushes cross processes by LISTEN/NOTIFY; `baseline`,
bench/baseline.py, a bare FastAPI broadcaster of fragments of the same sizes to the same sockets.

The generator is one process, one event loop, callback-driven sockets (websockets' sans-I/O client)
and one task per command in flight: it still competes with the server for the same cores, and
its CPU is reported.

    .venv/bin/python bench/load.py                      # 100 games, 200 commands/s, 30 s each
    .venv/bin/python bench/load.py --games 20 --rate 50 --duration 10 --runs one,baseline
    .venv/bin/python bench/load.py --rate 200 --runs one --quiet-game  # 100 games + 1 at 1/s
    .venv/bin/python bench/load.py --profile /tmp/prof  # py-spy records each server process
    BENCH_SPY_RATE=400 .venv/bin/python bench/load.py --profile /tmp/prof  # 400 samples/s, not 100
    BENCH_PHASES=1 .venv/bin/python bench/load.py --rate 30 --runs two  # where a POST's time goes
    BENCH_GC_LOG=1 [BENCH_GC_DEFAULT=1] .venv/bin/python bench/load.py --rate 30 --runs one
        # the server's full collections, with the hub's collector thresholds or Python's own
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import dataclasses
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import psutil
from websockets.client import ClientProtocol
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.frames import Frame, Opcode
from websockets.uri import parse_uri

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.content import load_catalogue  # noqa: E402
from app.rules import Actor, RulesError, apply, new_game, parse_command  # noqa: E402
from app.rules import commands as c  # noqa: E402
from app.rules.bot import propose, stations_to_order  # noqa: E402
from app.service import view_for  # noqa: E402
from app.service.commands import canonical, command_fields  # noqa: E402
from app.settings import get_settings  # noqa: E402
from app.web.protocols import WS_PROTOCOL  # noqa: E402

GM = -1  # the actor index of the GM; 0..3 are the seats
SYSTEM = -2  # the server's own sweeper: a timer that expired between two of a game's commands
AUDIENCES = ("station", "station", "station", "station", "gm", "display")  # a game's six sockets
SCREENS = ("station", "gm", "display")
GM_SOCKET = AUDIENCES.index("gm")
ORDERS = ("SubmitOrder", "PassOrder")  # a station's order: its push sizes are reported apart
# Every push starts with the game version its panels show (app/web/render.py, version_marker).
VERSION_MARK = re.compile(rb'id="bc-version"[^>]*?\sdata-version="(\d+)"')
HEARTBEAT = b"<!-- heartbeat -->"
PUSH_TIMEOUT = 5.0  # an expected push not there by then is missed
HARD_GRACE = 30.0  # the run stops this long after its schedule ends, whatever is in flight
RESEND_PAUSE = 0.5  # before a command whose answer was lost (or was 429/5xx) goes again


# --- Processes -----------------------------------------------------------------------------------

# `python -m uvicorn ...`, with a garbage collection log if asked for.
LAUNCH = """
import os, sys
if os.environ.get("BENCH_GC_DEFAULT"):  # Python's own collector thresholds, not the hub's tune_gc
    import gc
    gc.set_threshold = lambda *args: None
if os.environ.get("BENCH_GC_LOG"):  # to the log: each collection of 5 ms or more, or of gen 2
    import gc, time
    started = {}
    def watch(phase, info):
        if phase == "start":
            started[0] = time.perf_counter()
            return
        took = (time.perf_counter() - started.get(0, time.perf_counter())) * 1000
        if took >= float(os.environ.get("BENCH_GC_MIN_MS", "5")) or info["generation"] == 2:
            print(f"gc{info['generation']} {time.time():.3f} {took:.1f} ms "
                  f"{info['collected']} collected", file=sys.stderr, flush=True)
    gc.callbacks.append(watch)
if os.environ.get("BENCH_TRACEMALLOC"):  # SIGUSR1: what was allocated since the last SIGUSR1
    import os, signal, tracemalloc
    tracemalloc.start(int(os.environ["BENCH_TRACEMALLOC"]))
    last = [tracemalloc.take_snapshot()]
    def dump(*_):
        now = tracemalloc.take_snapshot()
        # BENCH_TRACEMALLOC=1: by line; deeper: by where the allocation came from
        group = "lineno" if os.environ["BENCH_TRACEMALLOC"] == "1" else "traceback"
        stats = now.compare_to(last[0], group)
        last[0] = now
        total = sum(s.size_diff for s in stats)
        print(f"tracemalloc: {total / 1024:.0f} KB more", file=sys.stderr)
        for stat in stats[:25]:
            where = " <- ".join(
                f"{f.filename.split('site-packages/')[-1]}:{f.lineno}" for f in stat.traceback[:4]
            )
            print(f"  {stat.size_diff / 1024:8.0f} KB {stat.count_diff:7d}  {where}",
                  file=sys.stderr)
        sys.stderr.flush()
    signal.signal(signal.SIGUSR1, dump)
if os.environ.get("BENCH_PHASES"):  # per POST .../commands: in, run_command, its apply, answered
    import contextvars, time, uvicorn.config, uvicorn.importer
    load_app, now = uvicorn.importer.import_from_string, time.perf_counter
    marks_of = contextvars.ContextVar("bench_phases")
    def timed(fn, key):
        async def run(*args, **kwargs):
            start = now()
            try:
                return await fn(*args, **kwargs)
            finally:
                marks = marks_of.get(None)
                if marks is not None:
                    marks[key] = (start, now())
        return run
    def with_phases(target):
        inner = load_app(target)
        if target != "app.main:app":
            return inner
        import app.service as service, app.service.commands as commands
        service.run_command = timed(service.run_command, "command")
        commands.LockedGame.apply = timed(commands.LockedGame.apply, "write")
        async def app(scope, receive, send):
            if scope["type"] != "http" or not scope["path"].endswith("/commands"):
                return await inner(scope, receive, send)
            marks = {"in": now()}
            marks_of.set(marks)
            async def answer(message):
                if message["type"] == "http.response.body" and not message.get("more_body"):
                    if "command" in marks and "write" in marks:
                        print("bench-phases", marks["in"], *marks["command"], *marks["write"],
                              now(), file=sys.stderr, flush=True)
                await send(message)
            await inner(scope, receive, answer)
        return app
    uvicorn.importer.import_from_string = uvicorn.config.import_from_string = with_phases
from uvicorn.main import main
sys.argv[0] = "uvicorn"
main()
"""


def full_collections(log: Path) -> str:
    """BENCH_GC_LOG=1: the first server's full (generation 2) collections over its whole life,
    start-up included; each one stops every screen for as long as it takes."""
    took = sorted(
        float(line.split()[2])
        for line in log.read_text(errors="replace").splitlines()
        if line.startswith("gc2 ")
    )
    if not took:
        return "no full collection in the server's life"
    return (
        f"full collections in the server's life: {len(took)}, median"
        f" {took[len(took) // 2]:.0f} ms, longest {took[-1]:.0f} ms"
    )


def phases(log: Path) -> str:
    """BENCH_PHASES=1: where the first server's POST /commands spent its time, p50 of each part
    (warm-up included; commands refused or answered as retries are left out)."""
    rows = [
        [float(x) for x in line.split()[1:]]
        for line in log.read_text(errors="replace").splitlines()
        if line.startswith("bench-phases ")
    ]
    if not rows:
        return "no POST phases in the server log"

    def p50(values: list[float]) -> str:
        return f"{sorted(values)[len(values) // 2] * 1000:.2f}"

    # arrived, run_command started and ended, LockedGame.apply started and ended, answered
    return (
        f"server side of POST /commands, p50 ms over {len(rows)}: before run_command"
        f" {p50([r[1] - r[0] for r in rows])}, run_command {p50([r[2] - r[1] for r in rows])}"
        f" (BEGIN and the lock {p50([r[3] - r[1] for r in rows])}, applying and writing"
        f" {p50([r[4] - r[3] for r in rows])}, COMMIT {p50([r[2] - r[4] for r in rows])}),"
        f" answering {p50([r[5] - r[2] for r in rows])}, in all {p50([r[5] - r[0] for r in rows])}"
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ServerProcess:
    """One uvicorn process on loopback (uvloop, httptools, websockets-sansio with
    permessage-deflate as the settings say), access log off. `bridgecrew serve` parses HTTP with
    h11 under a header cap and deadline (app/web/serving.py); this keeps httptools, and the
    baseline gets the same stack."""

    def __init__(self, target: str, env: dict[str, str], log: Path, profile: Path | None) -> None:
        self.port = free_port()
        self.log = log
        self.profile = profile
        self.profiler: subprocess.Popen[bytes] | None = None
        argv = [
            sys.executable, "-c", LAUNCH, target, "--host", "127.0.0.1",
            "--port", str(self.port), "--log-level", "warning", "--no-access-log",
            "--ws-max-size", "65536", "--timeout-graceful-shutdown", "2",
            "--ws", WS_PROTOCOL,  # as `bridgecrew serve`; the baseline gets the same stack
            # Compression as the app ships it (uvicorn's default would turn it on).
            "--ws-per-message-deflate", str(get_settings().ws_deflate).lower(),
        ]  # fmt: skip
        with log.open("ab") as out:
            self.process = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
                argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        self.ps = psutil.Process(self.process.pid)

    async def ready(self, within: float = 60.0) -> ServerProcess:
        deadline = time.monotonic() + within
        pool = HttpPool(self.port, 1)
        try:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(f"server exited:\n{self.log.read_text()[-3000:]}")
                with contextlib.suppress(OSError, asyncio.IncompleteReadError, ValueError):
                    status, _ = await pool.request("GET", "/healthz")
                    if status == 200:
                        return self
                await asyncio.sleep(0.2)
        finally:
            pool.close()
        raise RuntimeError(f"server not ready in {within} s:\n{self.log.read_text()[-3000:]}")

    def start_profile(self, name: str, seconds: float) -> None:
        if self.profile is None:
            return
        self.profile.mkdir(parents=True, exist_ok=True)
        py_spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
        self.profiler = subprocess.Popen(  # noqa: S603
            [py_spy, "record", "--pid", str(self.process.pid), "--duration", str(int(seconds)),
             "--rate", os.environ.get("BENCH_SPY_RATE", "100"), "--format", "raw", "--nonblocking",
             "--output", str(self.profile / f"{name}.txt")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip

    def rss(self) -> int:
        return int(self.ps.memory_info().rss)

    def cpu(self) -> float:
        times = self.ps.cpu_times()
        return float(times.user + times.system)

    def stop(self) -> None:
        if self.profiler is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.profiler.wait(30)
            if self.profiler.poll() is None:
                self.profiler.kill()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


class PostgresCpu:
    """CPU of the embedded PostgreSQL (postmaster and its backends) over a window, including
    backends that exit inside it (the pool closes connections; a backend lives as long as its
    connection). Each process's CPU is in its own times while it lives and, once it has exited and
    its parent (the postmaster) has reaped it, in the parent's `children_user`/`children_system`
    (the kernel's cutime/cstime). So the sum over the live tree of both is cumulative: a backend
    that exits mid-window moves from one term to the other without loss, and one that lived only
    inside the window is counted whole. Summing live backends alone missed every exited one."""

    def __init__(self, postmaster_pid: int | None) -> None:
        self.root = psutil.Process(postmaster_pid) if postmaster_pid else None
        self.start = 0.0

    def _total(self) -> float:
        if self.root is None:
            return 0.0
        total = 0.0
        for process in [self.root, *self.root.children(recursive=True)]:
            with contextlib.suppress(psutil.Error):  # it exited meanwhile: its parent has it
                t = process.cpu_times()
                total += t.user + t.system + t.children_user + t.children_system
        return total

    def begin(self) -> None:
        self.start = self._total()

    def seconds(self) -> float:
        return self._total() - self.start


# --- Clients -------------------------------------------------------------------------------------


class HttpPool:
    """HTTP/1.1 keep-alive connections to one server: small, and cheap for the generator. Every
    request has a time limit; a connection that failed or was cancelled mid-way is dropped."""

    def __init__(
        self, port: int, size: int, source: str | None = None, timeout: float = 30.0
    ) -> None:
        self.port = port
        self.slots = asyncio.Semaphore(size)
        self.source = source  # a loopback address of its own, as each phone at a venue has
        self.timeout = timeout
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        payload = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(payload)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        if token:
            head.append(f"Authorization: Bearer {token}")
        raw = ("\r\n".join(head) + "\r\n\r\n").encode() + payload
        async with self.slots:
            conn = self.idle.pop() if self.idle else None
            keep = False
            try:
                for attempt in (1, 2):  # a kept-alive connection the server closed: a new one
                    reused = conn is not None
                    try:
                        if conn is None:
                            conn = await asyncio.wait_for(self._open(), 10)
                        conn[1].write(raw)
                        status, keep, data = await asyncio.wait_for(
                            _read_response(conn[0]), self.timeout
                        )
                        return status, json.loads(data) if data else None
                    except (OSError, asyncio.IncompleteReadError):
                        if conn is not None:
                            conn[1].close()
                        conn = None
                        if not (reused and attempt == 1):
                            raise
                raise AssertionError("unreachable")
            finally:
                if conn is not None:
                    if keep:
                        self.idle.append(conn)
                    else:  # failed, timed out, cancelled or closing: never reuse it
                        conn[1].close()

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection(
            "127.0.0.1", self.port, local_addr=(self.source, 0) if self.source else None
        )

    def close(self) -> None:
        for _, writer in self.idle:
            writer.close()
        self.idle.clear()


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, bool, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    keep = headers.get("connection", "").lower() != "close"
    if headers.get("transfer-encoding", "").lower() == "chunked":
        chunks = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                break
            chunks.append(chunk[:-2])
        return status, keep, b"".join(chunks)
    length = int(headers.get("content-length", "0"))
    return status, keep, await reader.readexactly(length) if length else b""


class Socket(asyncio.Protocol):
    """One websocket as a phone holds it, driven by callbacks (no task per socket): each complete
    text message is timestamped the moment its last bytes are read."""

    def __init__(self, url: str, game: Game | None, index: int, compress: bool) -> None:
        self.proto = ClientProtocol(
            parse_uri(url),
            extensions=[ClientPerMessageDeflateFactory(compress_settings={"memLevel": 5})]
            if compress
            else None,
            max_size=2**22,
        )
        self.game = game
        self.index = index
        self.loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = self.loop.create_future()
        self.welcomed: asyncio.Future[bytes] = self.loop.create_future()
        self.transport: asyncio.Transport | None = None
        self.parts: list[bytes] = []
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is no asyncio.Transport
        self.proto.send_request(self.proto.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        arrived = time.perf_counter()
        self.proto.receive_data(data)
        for event in self.proto.events_received():
            if not isinstance(event, Frame):  # the handshake's response
                if self.proto.handshake_exc is not None:
                    self._fail(self.proto.handshake_exc)
                elif not self.opened.done():
                    self.opened.set_result(None)
                continue
            if event.opcode in (Opcode.TEXT, Opcode.CONT, Opcode.BINARY):
                self.parts.append(event.data)
                if event.fin:
                    message = b"".join(self.parts)
                    self.parts = []
                    self._message(message, arrived)
            elif event.opcode == Opcode.CLOSE:
                self._fail(ConnectionError(f"closed by the server: {event.data[:120]!r}"))
        self._flush()

    def _message(self, message: bytes, arrived: float) -> None:
        if not self.welcomed.done():
            self.welcomed.set_result(message)
        elif message != HEARTBEAT and self.game is not None:
            self.game.arrived(self.index, arrived, message)

    def _flush(self) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        for data in self.proto.data_to_send():
            if data:
                self.transport.write(data)
            elif self.transport.can_write_eof():
                self.transport.write_eof()

    def _fail(self, error: BaseException) -> None:
        self.closed = True
        for future in (self.opened, self.welcomed):
            if not future.done():
                future.set_exception(error)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._fail(exc or ConnectionError("connection lost"))
        if self.game is not None and not getattr(self.game, "closing", False):
            self.game.lost += 1

    def close(self) -> None:
        if self.transport is not None:
            self.transport.abort()


async def open_socket(
    port: int, path: str, game: Game | None, index: int, compress: bool
) -> Socket:
    sock = Socket(f"ws://127.0.0.1:{port}{path}", game, index, compress)
    loop = asyncio.get_running_loop()
    await loop.create_connection(lambda: sock, "127.0.0.1", port)
    try:
        await asyncio.wait_for(sock.opened, 30)
        await asyncio.wait_for(sock.welcomed, 30)
    except (TimeoutError, ConnectionError) as error:
        sock.close()
        raise ConnectionError(f"socket {path.split('?')[0]} did not open: {error!r}") from error
    return sock


# --- The mirror: what each game will be sent, planned before the clock starts -------------------


@dataclasses.dataclass(frozen=True)
class Planned:
    actor: int  # GM or a seat index
    data: dict[str, Any]  # the command as JSON: its type and fields
    expect: tuple[int, ...]  # the sockets whose view changes
    reveals: bool = False  # an order that was the turn's last: it reveals and resolves the turn


class Mirror:
    """One game as the engine plays it from the same scenario, seed, seats and commands."""

    def __init__(
        self,
        scenario: str,
        seed: int,
        rng_seed: int,
        expect: str = "html",
        turn_seconds: int | None = None,
    ) -> None:
        catalogue = load_catalogue()
        self.turn_seconds = turn_seconds  # StartTurn's timer; None: the scenario's
        # "html": a screen gets a push when its HTML changes (the hub skips a view change that
        # shows nothing new); "view": when its view changes (the hub before panel caching).
        self.expect = expect
        self.state = canonical(new_game(catalogue.scenarios[scenario], catalogue, seed=seed))
        self.rng = random.Random(rng_seed)
        self.version = 0
        players = next(s for s in self.state["ships"].values() if s["crew"] == "players")
        self.ship = players["id"]
        self.stations = list(players["stations"])[:4]
        self.characters = list(catalogue.characters)
        self.seats: list[str] = []
        self.views: list[Any] = []  # what each screen shows (a view, or app.web.render.Shown)

    def seat_request(self, index: int) -> dict[str, Any]:
        return {
            "ship": self.ship,
            "station": self.stations[index],
            "name": f"Crew {index + 1}",
            "character": self.characters[index % len(self.characters)],
        }

    def seated(self, seat_ids: list[str]) -> None:
        """The seats the server made, in order: applied as create_seat applies them."""
        for index, seat_id in enumerate(seat_ids):
            asked = self.seat_request(index)
            self._apply(
                parse_command({"type": "SeatCrew", "seat": seat_id, **asked}, Actor.system())
            )
        self.seats = seat_ids
        self.views = self._shown()

    def _viewers(self) -> list[Any]:
        return [*(("seat", s) for s in self.seats), "gm", "display"]

    def _views(self) -> list[Any]:
        # canonical, as the server holds it (keys sorted) since _apply canonicalises
        return [view_for(self.state, viewer) for viewer in self._viewers()]

    def _changed(self) -> tuple[int, ...]:
        """The screens the last command changes, and each screen brought up to date: a screen is
        pushed when something of it changed (app/web/render.py, Screen.changes)."""
        views = self._views()
        if self.expect == "view":
            pairs = zip(self.views, views, strict=True)
            expect = tuple(i for i, (a, b) in enumerate(pairs) if a != b)
            self.views = views
            return expect
        from app.web.render import Screen

        expect = []
        for i, (audience, view) in enumerate(zip(AUDIENCES, views, strict=True)):
            send, self.views[i] = Screen(audience, view).changes(self.views[i])
            if send:
                expect.append(i)
        return tuple(expect)

    def _shown(self) -> list[Any]:
        views = self._views()
        if self.expect == "view":
            return views
        from app.web.render import Screen

        return [
            Screen(audience, view).everything()[1]
            for audience, view in zip(AUDIENCES, views, strict=True)
        ]

    def _apply(self, command: c.Command) -> None:
        state, _ = apply(self.state, command)
        self.state = canonical(state)
        self.version += 1

    def replay(self, steps: list[Planned]) -> None:
        """Apply what the server applied, in its order (views are left for `look`)."""
        for step in steps:
            if step.actor == SYSTEM:
                self.expire()
            else:
                who = Actor.gm() if step.actor == GM else Actor.for_seat(self.seats[step.actor])
                self._apply(parse_command(step.data, who, time.time()))

    def expire(self) -> None:
        """The sweeper's ExpireDeadline for the timer that is running, as the server applies it."""
        deadline = self.state["deadline"]
        data = {"type": "ExpireDeadline", "kind": deadline["kind"], "at": deadline["at"]}
        self._apply(parse_command(data, Actor.system(), deadline["at"]))

    def expiries(self, count: int) -> bool:
        """Expire `count` timers in a row, as the sweeper does while nobody sends a command (an
        expired turn can open Engineering's allocation window, which expires in turn); False if
        no timer was left to expire."""
        for _ in range(count):
            if self.state["deadline"] is None:
                return False
            self.expire()
        return True

    def look(self) -> None:
        """Each viewer's screen now: what `plan` compares the next command's result with."""
        self.views = self._shown()

    def plan(self, count: int) -> list[Planned]:
        out = []
        for _ in range(count):
            actor, data = self.step()
            expect = self._changed()
            reveals = data["type"] in ORDERS and self.state["phase"] != "orders"
            out.append(Planned(actor, data, expect, reveals))
        return out

    def step(self) -> tuple[int, dict[str, Any]]:
        """Play the table's next command on the mirror (views are left for `look` or `plan`):
        who gave it and the command as JSON."""
        actor, command = self._next()
        data = json.loads(json.dumps(command_fields(command)))
        who = Actor.gm() if actor == GM else Actor.for_seat(self.seats[actor])
        self._apply(parse_command(data, who, time.time()))
        return actor, data

    def _next(self) -> tuple[int, c.Command]:
        """What the table does next: the GM runs turns and cleans up after a lost ship, each seat
        gives the bot's order, Engineering (or the GM for an NPC) allocates damage."""
        state = self.state
        ships = state["ships"]
        seat_of = {seat: i for i, seat in enumerate(self.seats)}
        destroyed = [s["id"] for s in ships.values() if s["destroyed"]]
        phase = state["phase"]
        if phase != "downtime" and destroyed:
            return GM, c.EndCombat()
        if phase == "downtime":
            if destroyed:
                return GM, c.RestoreShip(ship=destroyed[0])
            for ship in ships.values():
                tracks = [("hull", ship["hull"]), ("shields", ship["shields"])]
                tracks += list(ship["stations"].items())
                for track, item in tracks:
                    if item["damage"] > 0:
                        return GM, c.SetTrack(ship=ship["id"], track=track, damage=0)
            return GM, c.StartTurn(seconds=self.turn_seconds)
        if phase == "orders":
            todo = stations_to_order(state)
            if not todo:
                return GM, c.CloseOrders()
            ship_id, station_id, actor = todo[0]
            command = propose(state, ship_id, station_id, self.rng, actor)
            return (seat_of[actor.seat] if actor.role == "seat" else GM), command
        if phase == "allocation":
            ship_id = next(k for k, p in state["allocation"]["ships"].items() if not p["answered"])
            engineering = ships[ship_id]["stations"].get("engineering")
            crew = engineering["crew"] if engineering else None
            if crew and crew["seat"] in seat_of:
                command = c.AllocateDamage(
                    ship=ship_id, allocations={}, actor=Actor.for_seat(crew["seat"])
                )
                with contextlib.suppress(RulesError):
                    apply(state, command)
                    return seat_of[crew["seat"]], command
            return GM, c.AllocateDamage(ship=ship_id, allocations={})
        return GM, c.StartTurn(seconds=self.turn_seconds)  # turn_end


def expected_display(view: dict[str, Any]) -> Any:
    """A view without its clock times: the server stamps deadlines with its own `now`."""
    if isinstance(view, dict):
        return {
            k: expected_display(v)
            for k, v in view.items()
            if k not in ("deadline", "at", "remaining", "seconds")
        }
    if isinstance(view, list):
        return [expected_display(v) for v in view]
    return view


# --- One game on the client side -----------------------------------------------------------------


@dataclasses.dataclass
class Sample:
    game: int
    scheduled: float
    sent: float
    answered: float
    arrivals: dict[int, float]
    expect: tuple[int, ...]
    remote: frozenset[int]  # sockets on another process than the one that took the command
    status: int
    missed: int
    kind: str = ""  # the command's type
    wall: float = 0.0  # time.time() when it was sent, to line up with the server's log
    actor: int = GM  # who gave it: GM or a seat index (the seat's socket has the same index)
    version: int = 0  # the game's version it made, as the server answered (0: not applied)
    reveals: bool = False  # see Planned


class Game:
    def __init__(self, index: int, mirror: Mirror) -> None:
        self.index = index
        self.mirror = mirror
        self.game_id = ""
        self.gm_token = ""
        self.seat_tokens: list[str] = []
        self.plan: list[Planned] = []
        self.next = 0
        self.sockets: list[Socket] = []
        self.socket_port: list[int] = []  # which server each socket is on
        self.command_port = 0  # where this game's next command goes
        self.command_ports: list[int] = []  # in turn, one command each
        self.busy = False
        self.backlog: collections.deque[float] = collections.deque()
        self.expect: frozenset[int] = frozenset()
        self.arrivals: dict[int, float] = {}
        self.all_in: asyncio.Future[None] | None = None
        self.unexpected = 0
        self.lost = 0
        self.closing = False
        self.bytes: list[int] = [0] * len(AUDIENCES)
        self.messages: list[int] = [0] * len(AUDIENCES)
        # Bytes each socket was pushed, by the version the push shows: a command's are those of
        # the version the server answered it with. A push without the marker is counted apart.
        self.pushed: dict[int, list[int]] = {}
        self.unversioned = 0
        self.sample_text: dict[str, bytes] = {}
        # What the server has applied, as far as its answers tell: every command answered 200
        # and every expiry of a timer found between two of them, in order. The command whose
        # answer never came (the run stopped first) may or may not be applied: `unsure`.
        self.history: list[Planned] = []
        self.unsure: Planned | None = None
        self.resent = 0  # sends of a command again, with its command_id, after a lost answer
        self.replanned = 0  # times a timer expired under the plan, which was made again
        # Why no more commands go to this game: "refused" (a refusal no timer explains) or
        # "unanswered" (the run ended with its last command's answer still lost).
        self.stopped = ""

    def arrived(self, index: int, at: float, message: bytes) -> None:
        self.bytes[index] += len(message)
        self.messages[index] += 1
        self.sample_text[AUDIENCES[index]] = message
        found = VERSION_MARK.search(message)
        if found is None:
            self.unversioned += 1
        else:
            version = int(found.group(1))
            self.pushed.setdefault(version, [0] * len(AUDIENCES))[index] += len(message)
        if index in self.expect and index not in self.arrivals:
            self.arrivals[index] = at
            if len(self.arrivals) == len(self.expect) and self.all_in and not self.all_in.done():
                self.all_in.set_result(None)
        else:
            self.unexpected += 1

    def token_for(self, actor: int) -> str:
        return self.gm_token if actor == GM else self.seat_tokens[actor]


# --- One run -------------------------------------------------------------------------------------


@dataclasses.dataclass
class Result:
    name: str
    processes: int
    sockets: int
    target_rate: float
    samples: list[Sample]
    duration: float
    server_cpu: float  # seconds over the window, all server processes
    pg_cpu: float
    gen_cpu: float
    rss_before: int
    rss_connected: int
    rss_after: int
    measured_sockets: int
    unexpected: int
    lost: int
    errors: collections.Counter[str]
    check: str
    bytes_by_audience: dict[str, float]  # mean bytes of one push message to one screen
    bytes_per_push: float  # the same over every screen
    late: int
    window: tuple[float, float] = (0.0, 0.0)  # loop time
    completions: int = 0  # commands whose last push landed inside the window
    resent: int = 0
    replanned: int = 0
    stopped: int = 0
    # SubmitOrder and PassOrder applied inside the window, apart from the turn's last (which
    # reveals), and the bytes they pushed: see order_push_bytes
    orders: int = 0
    order_bytes: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict)
    reveals: int = 0
    reveal_bytes: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict)
    unversioned: int = 0  # push messages without a version marker, so with no command
    quiet_rate: float = 0.0  # --quiet-game: its commands per second, and its commands' samples
    quiet_samples: list[Sample] = dataclasses.field(default_factory=list)
    quiet_errors: int = 0


class Run:
    def __init__(self, args: argparse.Namespace, workdir: Path, pg: Any) -> None:
        self.args = args
        self.workdir = workdir
        self.pg = pg

    async def real(self, name: str, processes: int) -> tuple[Result, dict[str, bytes]]:
        args = self.args
        database = f"load_{name}_{os.getpid()}"
        url = await asyncio.to_thread(self._database, database)
        env = {**os.environ, "DATABASE_URL": url, "BRIDGECREW_DATA_DIR": str(self.workdir)}
        servers = [
            ServerProcess("app.main:app", env, self.workdir / f"{name}-{i}.log", args.profile)
            for i in range(processes)
        ]
        try:
            for server in servers:
                await server.ready()
            return await self._play(name, servers, real=True)
        finally:
            for server in servers:
                server.stop()
            if os.environ.get("BENCH_PHASES"):
                print(f"[{name}] {phases(servers[0].log)}", flush=True)
            if os.environ.get("BENCH_GC_LOG"):
                print(f"[{name}] {full_collections(servers[0].log)}", flush=True)

    def _database(self, database: str) -> str:
        from app.db.embedded import start_embedded
        from app.db.migrate import upgrade

        url: str = start_embedded(self.pg.pgdata, database).url(database)
        upgrade(url)
        return url

    async def baseline(self, fragments: dict[str, bytes]) -> Result:
        env = dict(os.environ)
        server = ServerProcess(
            "bench.baseline:app", env, self.workdir / "baseline.log", self.args.profile
        )
        try:
            await server.ready()
            pool = HttpPool(server.port, 2)
            body = {"fragments": {k: v.decode() for k, v in fragments.items()}}
            status, _ = await pool.request("POST", "/setup", body)
            assert status == 200
            pool.close()
            return await self._play("baseline", [server], real=False)
        finally:
            server.stop()

    async def _play(
        self, name: str, servers: list[ServerProcess], *, real: bool
    ) -> tuple[Result, dict[str, bytes]] | Result:
        args = self.args
        connections = args.connections or min(256, args.games)  # a phone never waits for a socket
        pools = {s.port: HttpPool(s.port, connections, timeout=args.post_timeout) for s in servers}
        first = servers[0]
        # --quiet-game: one game more, the last, on a schedule of its own beside the others', its
        # commands on connections of its own (its phones share none with the other tables)
        quiet_rate = args.quiet_game if real and args.quiet_game else 0.0
        quiet_pools = {s.port: HttpPool(s.port, 1, timeout=args.post_timeout) for s in servers}
        games = [
            Game(g, Mirror(args.scenario, 1000 + g, g, args.expect, args.turn_seconds))
            for g in range(args.games + (1 if quiet_rate else 0))
        ]
        loaded, quiet = games[: args.games], games[args.games :]
        total = int(args.rate * (args.warmup + args.duration))
        quiet_total = int(quiet_rate * (args.warmup + args.duration))
        ahead = args.stagger if real and args.stagger > 1 else 1  # game i first plays i mod it
        per_game = math.ceil(total / len(loaded)) + ahead
        print(f"[{name}] creating {len(games)} games", flush=True)
        await _gather_limited([self._create(g, first.port, real) for g in games], 8)
        if real:
            print(f"[{name}] planning {per_game} commands per game", flush=True)
            for g in loaded:
                g.plan = g.mirror.plan(per_game)
            for g in quiet:
                g.plan = g.mirror.plan(quiet_total + ahead)
            changed = sum(len(p.expect) for g in loaded for p in g.plan) / (per_game * len(loaded))
            print(f"[{name}]   {changed:.2f} of {len(AUDIENCES)} screens change per command")
        else:
            for g in games:
                g.plan = [
                    Planned(GM, {"type": "Broadcast"}, tuple(range(len(AUDIENCES))))
                ] * per_game
        # Where each socket lives: with two processes, half of each game's screens on each.
        for g in games:
            # Every command to the first process, or (--spread) each game's to "its" process, or
            # (--alternate) each game's to every process in turn.
            if args.alternate:
                g.command_ports = [servers[(g.index + k) % len(servers)].port for k in range(2)]
            elif args.spread:
                g.command_ports = [servers[g.index % len(servers)].port]
            else:
                g.command_ports = [first.port]
            for i in range(len(AUDIENCES)):
                if len(servers) == 1:
                    g.socket_port.append(first.port)
                else:
                    side = (i in (0, 1, 4)) == (g.index % 2 == 0)
                    g.socket_port.append(servers[0 if side else 1].port)

        # Memory: first one game's sockets (templates compiled, buffers warm), then all.
        await self._connect(games[:1], real)
        await asyncio.sleep(1.0)
        rss_before = sum(s.rss() for s in servers)
        if os.environ.get("BENCH_TRACEMALLOC"):
            for server in servers:
                server.process.send_signal(signal.SIGUSR1)
        print(f"[{name}] opening {len(AUDIENCES) * len(games)} sockets", flush=True)
        await self._connect(games[1:], real)
        await asyncio.sleep(2.0)
        rss_connected = sum(s.rss() for s in servers)
        if os.environ.get("BENCH_TRACEMALLOC"):
            for server in servers:
                server.process.send_signal(signal.SIGUSR1)

        loop = asyncio.get_running_loop()
        self.hard_stop = math.inf  # a command whose answer is lost is sent again until then
        if ahead > 1:
            await self._stagger(name, games, ahead, pools, real)
        samples: list[Sample] = []
        start = loop.time() + 0.5
        window = (start + args.warmup, start + args.warmup + args.duration)
        pg_cpu = PostgresCpu(self.pg.postmaster_pid if real else None)
        cpu_marks: dict[str, float] = {}
        me = psutil.Process()

        def mark(which: str) -> None:
            cpu_marks[f"server_{which}"] = sum(s.cpu() for s in servers)
            cpu_marks[f"gen_{which}"] = sum(me.cpu_times()[:2])
            if which == "begin":
                pg_cpu.begin()
                for i, server in enumerate(servers):
                    server.start_profile(f"{name}-{i}", args.duration)
            else:
                cpu_marks["pg"] = pg_cpu.seconds()

        loop.call_at(window[0], mark, "begin")
        loop.call_at(window[1], mark, "end")
        errors: collections.Counter[str] = collections.Counter()
        quiet_samples: list[Sample] = []
        quiet_errors: collections.Counter[str] = collections.Counter()
        in_flight: set[asyncio.Task[None]] = set()

        def launch(game: Game, scheduled: float) -> None:
            game.busy = True
            own, into, count = (
                (quiet_pools, quiet_samples, quiet_errors)
                if game in quiet
                else (pools, samples, errors)
            )
            task = loop.create_task(self._command(game, scheduled, own, into, count, real))
            in_flight.add(task)
            task.add_done_callback(in_flight.discard)

        def finished(game: Game) -> None:
            game.busy = False
            # past the hard stop a new command would only be cut off: not one more unsure
            if game.backlog and game.next < len(game.plan) and loop.time() < self.hard_stop:
                launch(game, game.backlog.popleft())

        async def schedule(players: list[Game], rate: float, count: int) -> None:
            """`count` commands at `rate` per second, round robin over `players`."""
            for k in range(count):
                scheduled = start + k / rate
                delay = scheduled - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
                game = players[k % len(players)]
                if game.next + len(game.backlog) >= len(game.plan):
                    continue
                if game.busy:
                    game.backlog.append(scheduled)
                else:
                    launch(game, scheduled)

        self._finished = finished
        print(f"[{name}] {total} commands at {args.rate}/s over {len(loaded)} games", flush=True)
        if quiet:
            print(f"[{name}] and {quiet_total} at {quiet_rate:g}/s to one quiet game", flush=True)
        hard_stop = self.hard_stop = start + args.warmup + args.duration + HARD_GRACE
        schedules = [schedule(loaded, args.rate, total)]
        if quiet:
            schedules.append(schedule(quiet, quiet_rate, quiet_total))
        await asyncio.gather(*schedules)
        while (in_flight or any(g.busy for g in games)) and loop.time() < hard_stop:  # noqa: ASYNC110
            await asyncio.sleep(0.05)
        for task in list(in_flight):
            task.cancel()
        if loop.time() < window[1]:  # all done early: the window's CPU is still taken in full
            await asyncio.sleep(window[1] - loop.time() + 0.01)
        rss_after = sum(s.rss() for s in servers)
        if os.environ.get("BENCH_TRACEMALLOC"):  # and what the load left behind
            for server in servers:
                server.process.send_signal(signal.SIGUSR1)
            await asyncio.sleep(3)
        check = await self._check(games, pools[first.port]) if real else "n/a"
        for g in games:
            g.closing = True
            for sock in g.sockets:
                sock.close()
        for pool in [*pools.values(), *quiet_pools.values()]:
            pool.close()

        in_window = [s for s in samples if window[0] <= s.scheduled < window[1]]
        sockets = sum(len(g.sockets) for g in games)
        messages = collections.Counter[str]()
        volume = collections.Counter[str]()
        for g in loaded:
            for i, aud in enumerate(AUDIENCES):
                messages[aud] += g.messages[i]
                volume[aud] += g.bytes[i]
        orders, order_bytes = order_push_bytes(in_window, loaded, reveals=False)
        reveals, reveal_bytes = order_push_bytes(in_window, loaded, reveals=True)
        result = Result(
            name=name,
            processes=len(servers),
            sockets=sockets,
            target_rate=args.rate,
            samples=in_window,
            duration=args.duration,
            server_cpu=cpu_marks["server_end"] - cpu_marks["server_begin"],
            pg_cpu=cpu_marks.get("pg", 0.0),
            gen_cpu=cpu_marks["gen_end"] - cpu_marks["gen_begin"],
            rss_before=rss_before,
            rss_connected=rss_connected,
            rss_after=rss_after,
            measured_sockets=sockets - len(AUDIENCES),
            unexpected=sum(g.unexpected for g in games),
            lost=sum(g.lost for g in games),
            errors=errors,
            check=check,
            bytes_by_audience={a: volume[a] / messages[a] for a in messages if messages[a]},
            bytes_per_push=sum(volume.values()) / max(1, sum(messages.values())),
            late=sum(1 for s in in_window if s.sent - s.scheduled > 0.010),
            window=window,
            completions=sum(
                1
                for s in samples
                if s.status == 200
                and window[0] <= s.sent + max(s.arrivals.values(), default=s.answered) < window[1]
            ),
            resent=sum(g.resent for g in games),
            replanned=sum(g.replanned for g in games),
            stopped=sum(1 for g in games if g.stopped == "refused"),
            orders=orders,
            order_bytes=order_bytes,
            reveals=reveals,
            reveal_bytes=reveal_bytes,
            unversioned=sum(g.unversioned for g in loaded) if real else 0,
            quiet_rate=quiet_rate,
            quiet_samples=[s for s in quiet_samples if window[0] <= s.scheduled < window[1]],
            quiet_errors=sum(quiet_errors.values()),
        )
        if not real:
            return result
        fragments: dict[str, bytes] = {}
        for aud, size in result.bytes_by_audience.items():
            text = next(g.sample_text[aud] for g in games if aud in g.sample_text)
            fragments[aud] = (text * (int(size) // max(1, len(text)) + 1))[: int(size)]
        return result, fragments

    async def _create(self, game: Game, port: int, real: bool) -> None:
        """A GM makes the game and four phones join, each from its own address (the server's
        limit for callers without a token is per address)."""
        if not real:
            game.game_id = f"room{game.index}"
            return
        pool = HttpPool(port, 1, source=f"127.0.{1 + game.index // 250}.{2 + game.index % 250}")
        try:
            await self._create_on(game, pool)
        finally:
            pool.close()

    async def _create_on(self, game: Game, pool: HttpPool) -> None:
        status, body = await pool.request(
            "POST", "/api/games", {"scenario": self.args.scenario, "seed": 1000 + game.index}
        )
        assert status == 201, body
        game.game_id, game.gm_token = body["game_id"], body["gm_token"]
        seat_ids = []
        for i in range(4):
            status, body = await pool.request(
                "POST", f"/api/games/{game.game_id}/seats", game.mirror.seat_request(i)
            )
            assert status == 201, body
            seat_ids.append(body["seat_id"])
            game.seat_tokens.append(body["seat_token"])
        game.mirror.seated(seat_ids)

    async def _connect(self, games: list[Game], real: bool) -> None:
        async def one(game: Game) -> None:
            socks = []
            for i, audience in enumerate(AUDIENCES):
                if not real:
                    path = f"/ws/{game.game_id}/{audience}"
                elif audience == "station":
                    path = f"/ws/station/{game.game_id}?token={game.seat_tokens[i]}"
                elif audience == "gm":
                    path = f"/ws/gm/{game.game_id}?token={game.gm_token}"
                else:
                    path = f"/ws/display/{game.game_id}"
                port = game.socket_port[i]
                socks.append(await open_socket(port, path, game, i, not self.args.no_deflate))
            game.sockets = socks

        await _gather_limited([one(g) for g in games], 10)

    async def _stagger(
        self, name: str, games: list[Game], ahead: int, pools: dict[int, HttpPool], real: bool
    ) -> None:
        """Before the clock starts, game i plays its first i mod `ahead` commands (not
        measured), so that the games are spread over the steps of a turn, as independent bridges
        at a convention are, rather than all ordering, revealing and starting turns together."""
        print(f"[{name}] staggering: game i first plays i mod {ahead} commands", flush=True)
        loop = asyncio.get_running_loop()
        scratch: list[Sample] = []
        errors: collections.Counter[str] = collections.Counter()
        self._finished = lambda game: None

        async def one(game: Game) -> None:
            for _ in range(game.index % ahead):
                await self._command(game, loop.time(), pools, scratch, errors, real)

        await _gather_limited([one(g) for g in games], 10)
        lost = sum(s.missed for s in scratch)
        if errors or lost:
            raise SystemExit(f"staggering failed: {dict(errors)}, {lost} pushes missed")

    async def _command(
        self,
        game: Game,
        scheduled: float,
        pools: dict[int, HttpPool],
        samples: list[Sample],
        errors: collections.Counter[str],
        real: bool,
    ) -> None:
        loop = asyncio.get_running_loop()
        planned = game.plan[game.next]
        game.command_port = game.command_ports[game.next % len(game.command_ports)]
        game.next += 1
        game.expect = frozenset(planned.expect)
        game.arrivals = {}
        game.all_in = loop.create_future()
        if real:
            path = f"/api/games/{game.game_id}/commands"
            body: dict[str, Any] = {"command_id": uuid.uuid4().hex, **planned.data}
        else:
            path, body = f"/rooms/{game.game_id}/broadcast", planned.data
        sent = time.perf_counter()
        sent_loop = loop.time()
        sent_wall = time.time()
        status, answer = 0, None
        game.unsure = planned if real else None
        while True:
            try:
                status, answer = await pools[game.command_port].request(
                    "POST", path, body, game.token_for(planned.actor) if real else None
                )
                if status != 200:
                    errors[f"{status} {(answer or {}).get('code')}"] += 1
            except Exception as error:  # a broken connection is a result too
                errors[type(error).__name__] += 1
                status = 0
            # No answer (a time-out, a broken connection): the server may have applied the
            # command or not, and may still be about to. Sending the next one now could overtake
            # it, and the mirror could not know which happened. So the same body goes again,
            # with its command_id, until an answer comes: the server applies an id once and
            # answers a repeat with its first answer. 429 and 5xx say "not now": the same.
            if not real or (status != 0 and status != 429 and status < 500):
                break
            if loop.time() + RESEND_PAUSE >= self.hard_stop:
                break  # the run is over: `unsure` stays, and the check allows either outcome
            game.resent += 1
            await asyncio.sleep(RESEND_PAUSE)
        answered = time.perf_counter()
        if real and status == 200:
            game.unsure = None
            # Its version tells how many timers the server's sweeper expired before it (each is
            # a version of its own): the mirror must expire them before it too, not after.
            expired = answer["version"] - 4 - len(game.history) - 1
            if expired == 0:
                game.history.append(planned)
            elif not self._expired(game, expired, [planned], game.next):
                game.history.append(planned)
                self._stop(game, "unexplained version")
        elif real and 400 <= status < 500 and status != 429:
            game.unsure = None  # refused, so not applied; why is read back from the server
            await self._resync(game, pools[game.command_port])
        elif real:  # no answer by the end of the run: nothing may follow it (it could overtake)
            self._stop(game, "unanswered")
        if status == 200 and game.expect and len(game.arrivals) < len(game.expect):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(game.all_in), PUSH_TIMEOUT)
        missed = len(game.expect) - len(game.arrivals) if status == 200 else 0
        remote = frozenset(
            i for i, port in enumerate(game.socket_port) if port != game.command_port
        )
        samples.append(
            Sample(
                game=game.index,
                scheduled=scheduled,
                sent=sent_loop,
                answered=answered - sent,
                arrivals={i: t - sent for i, t in game.arrivals.items()},
                expect=planned.expect,
                remote=remote,
                status=status,
                missed=missed,
                kind=str(planned.data.get("type", "")),
                wall=sent_wall,
                actor=planned.actor,
                reveals=planned.reveals,
                version=int(answer["version"]) if real and status == 200 else 0,
            )
        )
        game.expect = frozenset()
        self._finished(game)

    def _mirror(self, game: Game, steps: list[Planned], expect: str = "view") -> Mirror:
        """A new mirror of `game` after `steps` (its history, perhaps with more)."""
        mirror = Mirror(
            self.args.scenario,
            seed=1000 + game.index,
            rng_seed=game.index + 1000 * game.replanned,  # a new plan draws new bot orders
            expect=expect,
            turn_seconds=self.args.turn_seconds,
        )
        mirror.seated(game.mirror.seats)
        mirror.replay(steps)
        return mirror

    async def _resync(self, game: Game, pool: HttpPool) -> None:
        """A command refused: the plan assumed the game's state after `history`, and the server's
        differs. The one way it can without an error on either side is a timer: the turn's
        (StartTurn sets one) or Engineering's allocation window, which the server's sweeper
        expires by itself when a command comes late (the run is past its capacity). The game's
        version then counts one command more than `history` for each expiry (two when an expired
        turn opened an allocation window that expired too). Any other difference stops the game
        (the check then tells whether the server kept what it acknowledged)."""
        with contextlib.suppress(Exception):
            status, body = await _read_view(pool, game)
            expired = body["version"] - 4 - len(game.history) if status == 200 else 0
            if self._expired(game, expired, [], game.next - 1):
                return
        self._stop(game, "refused")

    def _expired(self, game: Game, expired: int, then: list[Planned], resume: int) -> bool:
        """The server expired `expired` timers after the game's `history`, then applied `then`
        (an acknowledged command, or nothing): the mirror expires the same timers in the same
        place, and the plan is made again from step `resume`. False when the mirror has no such
        timers running, or `then` does not apply after them."""
        mirror = self._mirror(game, game.history, self.args.expect)
        try:
            if expired <= 0 or not mirror.expiries(expired):
                return False
            mirror.replay(then)
        except RulesError:
            return False
        game.history += [Planned(SYSTEM, {"type": "ExpireDeadline"}, ())] * expired + then
        game.replanned += 1
        mirror.look()
        game.plan = game.plan[:resume] + mirror.plan(len(game.plan) - resume)
        game.next = resume
        return True

    def _stop(self, game: Game, why: str) -> None:
        game.stopped = why
        game.next = len(game.plan)
        game.backlog.clear()

    async def _check(self, games: list[Game], pool: HttpPool) -> str:
        """Every game's projector view on the server equals the mirror's after the same commands:
        those the server acknowledged (and timers it expired between them), then perhaps the one
        cut off when the run stopped, and the timers that expired after the last one (the server
        keeps sweeping while the run drains and this check reads)."""
        bad = 0
        for g in games:
            status, body = await _read_view(pool, g)
            seen = expected_display(body["view"]) if status == 200 else None
            applied = body["version"] - 4 if status == 200 else -1
            tails = [[], [g.unsure]] if g.unsure is not None else [[]]
            mine: Any = None
            for tail in tails:
                expired = applied - len(g.history) - len(tail)  # timers expired since the last
                if expired < 0:
                    continue
                try:  # the one cut off may not apply (a timer expired before it)
                    mirror = self._mirror(g, [*g.history, *tail])
                except RulesError:
                    continue
                if not mirror.expiries(expired):
                    continue
                mine = expected_display(view_for(mirror.state, "display"))
                if seen == mine:
                    break
            else:
                bad += 1
                if os.environ.get("LOAD_DEBUG"):
                    print(
                        f"  game {g.index}: server version {applied} + 4, history {len(g.history)}"
                    )
                    if mine is not None:
                        _diff(seen, mine)
        return "ok" if bad == 0 else f"{bad} games differ"


async def _read_view(pool: HttpPool, game: Game) -> tuple[int, Any]:
    """A game's view as the server keeps it. Reads are paced per address, and the checks read
    every game from one: a 429 is waited out, as a phone's next ask would be."""
    for _ in range(120):
        status, body = await pool.request("GET", f"/api/games/{game.game_id}/view")
        if status != 429:
            break
        await asyncio.sleep(0.5)
    return status, body


def _diff(a: Any, b: Any, path: str = "") -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            _diff(a.get(k), b.get(k), f"{path}.{k}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff(x, y, f"{path}[{i}]")
    elif a != b:
        print(f"  server {path} = {a!r:.150}\n  mirror {path} = {b!r:.150}")


def order_push_bytes(
    samples: list[Sample], games: list[Game], *, reveals: bool
) -> tuple[int, dict[str, dict[str, float]]]:
    """The orders (SubmitOrder, PassOrder) the server applied, either those that leave the turn
    open or each turn's last (which reveals and resolves it), and what each sent to each screen
    but the one that gave it (the seat's phone, or the GM's for an NPC crew's order), by audience:
    the most bytes one screen got, the mean over the screens that got a push, and how many did
    of how many. A push counts for the command whose version its marker shows."""
    pushed = {g.index: g.pushed for g in games}
    got: dict[str, list[int]] = {audience: [] for audience in SCREENS}
    orders = [s for s in samples if s.kind in ORDERS and s.status == 200 and s.reveals == reveals]
    for s in orders:
        sizes = pushed[s.game].get(s.version, [0] * len(AUDIENCES))
        giver = GM_SOCKET if s.actor == GM else s.actor
        for i, audience in enumerate(AUDIENCES):
            if i != giver:
                got[audience].append(sizes[i])
    out: dict[str, dict[str, float]] = {}
    for audience, sizes in got.items():
        sent = [size for size in sizes if size]
        out[audience] = {
            "max": max(sizes, default=0),
            "mean": sum(sent) / len(sent) if sent else 0.0,
            "pushed": len(sent),
            "screens": len(sizes),
        }
    return len(orders), out


async def _gather_limited(coros: list[Any], limit: int) -> list[Any]:
    gate = asyncio.Semaphore(limit)

    async def one(coro: Any) -> Any:
        async with gate:
            return await coro

    return await asyncio.gather(*(one(co) for co in coros))


# --- Report --------------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


@dataclasses.dataclass
class Figures:
    name: str
    processes: int
    sockets: int
    commands: int
    rate: float
    p50: float
    p95: float
    p99: float
    p99_intended: float
    answer_p50: float
    local_p50: float
    remote_p50: float
    remote_p99: float
    fanout_p50: float  # push arrival minus the POST's answer: delivery after the commit
    remote_fanout_p50: float
    server_cpu: float  # % of one core
    pg_cpu: float
    gen_cpu: float
    kb_connected: float
    kb_after: float
    missed: int
    unexpected: int
    errors: int
    late: int
    check: str
    resent: int = 0  # commands sent again with their command_id after a lost answer (or 429/5xx)
    replanned: int = 0  # timers the server expired under the plan (the game was planned again)
    stopped: int = 0  # games sent no more commands after a refusal no timer explains
    # Bytes of one push message to one screen, before deflate: the mean by audience and "all".
    push_bytes_mean: dict[str, float] = dataclasses.field(default_factory=dict)
    # SubmitOrder and PassOrder applied inside the window but each turn's last, and what one sent
    # to each screen but the giver's: max, mean, pushed, screens by audience
    order_commands: int = 0
    order_push_bytes: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict)
    # The same for each turn's last order, which reveals the orders and resolves the turn
    reveal_commands: int = 0
    reveal_push_bytes: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict)
    unversioned_pushes: int = 0  # push messages with no version marker, so with no command
    # --quiet-game: its rate, commands, p50, p95, p99, max and p99 from schedule ms, missed
    # pushes, errors
    quiet: dict[str, float] | None = None


def latencies(samples: list[Sample]) -> list[float]:
    """Seconds from sending each command to its last changed screen's push (or its answer, if no
    screen changes), for the commands applied whose every push came."""
    ok = [s for s in samples if s.status == 200 and not s.missed]
    return [max(s.arrivals.values(), default=s.answered) for s in ok]


def intended_latencies(samples: list[Sample]) -> list[float]:
    """The same from when each command was due on the schedule: a late start counts."""
    ok = [s for s in samples if s.status == 200 and not s.missed]
    return [max(s.arrivals.values(), default=s.answered) + (s.sent - s.scheduled) for s in ok]


def quiet_figures(r: Result) -> dict[str, float] | None:
    if not r.quiet_rate:
        return None
    done = latencies(r.quiet_samples)
    return {
        "rate": r.quiet_rate,
        "commands": len(r.quiet_samples),
        **{f"p{q}": pct(done, q / 100) * 1000 for q in (50, 95, 99)},
        "max": max(done, default=math.nan) * 1000,
        "p99_intended": pct(intended_latencies(r.quiet_samples), 0.99) * 1000,
        "missed": sum(s.missed for s in r.quiet_samples),
        "errors": r.quiet_errors,
    }


def figures(r: Result) -> Figures:
    ok = [s for s in r.samples if s.status == 200 and not s.missed]
    done = latencies(r.samples)
    intended = intended_latencies(r.samples)
    local = [t for s in ok for i, t in s.arrivals.items() if i not in s.remote]
    remote = [t for s in ok for i, t in s.arrivals.items() if i in s.remote]
    fanout = [t - s.answered for s in ok for i, t in s.arrivals.items() if i not in s.remote]
    remote_fanout = [t - s.answered for s in ok for i, t in s.arrivals.items() if i in s.remote]
    ms = 1000.0
    return Figures(
        name=r.name,
        processes=r.processes,
        sockets=r.sockets,
        commands=len(r.samples),
        rate=r.completions / r.duration,  # done per second inside the window, whenever sent
        p50=pct(done, 0.5) * ms,
        p95=pct(done, 0.95) * ms,
        p99=pct(done, 0.99) * ms,
        p99_intended=pct(intended, 0.99) * ms,
        answer_p50=pct([s.answered for s in ok], 0.5) * ms,
        local_p50=pct(local, 0.5) * ms,
        remote_p50=pct(remote, 0.5) * ms if remote else float("nan"),
        remote_p99=pct(remote, 0.99) * ms if remote else float("nan"),
        fanout_p50=pct(fanout, 0.5) * ms,
        remote_fanout_p50=pct(remote_fanout, 0.5) * ms if remote_fanout else float("nan"),
        server_cpu=100 * r.server_cpu / r.duration,
        pg_cpu=100 * r.pg_cpu / r.duration,
        gen_cpu=100 * r.gen_cpu / r.duration,
        kb_connected=(r.rss_connected - r.rss_before) / max(1, r.measured_sockets) / 1024,
        kb_after=(r.rss_after - r.rss_before) / max(1, r.measured_sockets) / 1024,
        missed=sum(s.missed for s in r.samples),
        unexpected=r.unexpected,
        errors=sum(r.errors.values()),
        late=r.late,
        check=r.check,
        resent=r.resent,
        replanned=r.replanned,
        stopped=r.stopped,
        push_bytes_mean={**r.bytes_by_audience, "all": r.bytes_per_push},
        order_commands=r.orders,
        order_push_bytes=r.order_bytes,
        reveal_commands=r.reveals,
        reveal_push_bytes=r.reveal_bytes,
        unversioned_pushes=r.unversioned,
        quiet=quiet_figures(r),
    )


def ratio(value: float, base: float) -> str:
    if base and not math.isnan(value) and not math.isnan(base) and base > 0:
        return f" ({value / base:.1f}×)"
    return ""


def table(rows: list[Figures], base: Figures | None, args: argparse.Namespace) -> str:
    b = base
    out = [
        f"Load: {args.games} games × {len(AUDIENCES)} sockets, target {args.rate:g} commands/s "
        f"(open loop), {args.duration:g} s measured after {args.warmup:g} s warm-up, "
        f"scenario {args.scenario}, permessage-deflate offered {'no' if args.no_deflate else 'yes'}"
        f" and taken {'yes' if get_settings().ws_deflate else 'no'}, "
        f"{os.cpu_count()} cores shared with the generator. Latency: POST sent → last changed "
        f"socket has its push. (×) = ratio to the bare broadcast baseline.",
        "",
        "| run | procs | sockets | cmds/s | p50 ms | p95 ms | p99 ms | server CPU % | "
        "KB/socket | PG CPU % |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for f in rows:
        base_row = b if b is not None and f is not b else None

        def r(value: float, base_value: float | None, base_row: Figures | None = base_row) -> str:
            return ratio(value, base_value) if base_row is not None and base_value else ""

        out.append(
            f"| {f.name} | {f.processes} | {f.sockets} | {f.rate:.0f} | "
            f"{f.p50:.1f}{r(f.p50, b and b.p50)} | {f.p95:.1f}{r(f.p95, b and b.p95)} | "
            f"{f.p99:.1f}{r(f.p99, b and b.p99)} | "
            f"{f.server_cpu:.0f}{r(f.server_cpu, b and b.server_cpu)} | "
            f"{f.kb_after:.0f}{r(f.kb_after, b and b.kb_after)} | {f.pg_cpu:.0f} |"
        )
    out += [
        "",
        "| run | p99 from schedule ms | late starts | POST answer p50 ms | same-proc push p50 ms "
        "| cross-proc push p50 / p99 ms | push after answer p50 ms (same / cross) "
        "| KB/socket at connect | generator CPU % | missed | unexpected | errors | mirror check |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for f in rows:
        remote = f"{f.remote_p50:.1f} / {f.remote_p99:.1f}" if not math.isnan(f.remote_p50) else "–"
        fan = f"{f.fanout_p50:.1f}" + (
            f" / {f.remote_fanout_p50:.1f}" if not math.isnan(f.remote_fanout_p50) else ""
        )
        out.append(
            f"| {f.name} | {f.p99_intended:.1f} | {f.late} | {f.answer_p50:.1f} | "
            f"{f.local_p50:.1f} | {remote} | {fan} | {f.kb_connected:.0f} | {f.gen_cpu:.0f} | "
            f"{f.missed} | {f.unexpected} | {f.errors} | {f.check} |"
        )
    for f in rows:
        if f.resent or f.replanned or f.stopped:
            out.append(
                f"\n{f.name}: {f.resent} commands sent again after a lost answer, {f.replanned} "
                f"timers expired by the server under the plan (planned again), {f.stopped} games "
                "stopped after a refusal"
            )
    return "\n".join(out)


def pushes(f: Figures) -> list[str]:
    """A real run's push sizes and its quiet game, as printed (../shared/peer-bench/table.py
    reads the "Mean push size" line: keep its `name number` pairs)."""
    mean = f.push_bytes_mean
    out = [
        f"Mean push size, run {f.name} (bytes of one push message to one screen, before deflate): "
        + ", ".join(f"{k} {mean[k]:.0f}" for k in (*sorted(SCREENS), "all") if k in mean)
    ]
    for what, count, sizes in (
        ("Orders", f.order_commands, f.order_push_bytes),
        ("Orders that reveal (a turn's last)", f.reveal_commands, f.reveal_push_bytes),
    ):
        if count:
            out.append(
                f"{what}, run {f.name}: {count} SubmitOrder/PassOrder, bytes one sent to each "
                "screen but the giver's (before deflate): "
                + "; ".join(
                    f"{k} max {b['max']:.0f}, mean {b['mean']:.0f} ({b['pushed']:.0f} of"
                    f" {b['screens']:.0f} screens pushed)"
                    for k, b in sizes.items()
                )
            )
    if f.unversioned_pushes:
        out.append(f"  {f.unversioned_pushes} push messages had no version marker: not counted")
    if f.quiet is not None:
        q = f.quiet
        out.append(
            f"Quiet game, run {f.name} ({q['rate']:g} command/s beside the load): "
            f"{q['commands']:.0f} commands, p50 {q['p50']:.1f} ms, p95 {q['p95']:.1f} ms, "
            f"p99 {q['p99']:.1f} ms, max {q['max']:.1f} ms, p99 from schedule "
            f"{q['p99_intended']:.1f} ms, {q['missed']:.0f} missed, {q['errors']:.0f} errors"
        )
    return out


# --- Main ----------------------------------------------------------------------------------------


def dump_samples(path: Path, result: Result) -> None:
    """One line per command: seconds since the first, latency ms, POST answer ms, lag ms, status,
    the command's type and when it was sent (Unix time, as the server's log has it)."""
    if not result.samples:
        return
    t0 = min(s.scheduled for s in result.samples)
    lines = ["t_s,latency_ms,answer_ms,lag_ms,status,kind,sent_unix"]
    for s in sorted(result.samples, key=lambda s: s.scheduled):
        done = max(s.arrivals.values(), default=s.answered)
        lines.append(
            f"{s.scheduled - t0:.3f},{done * 1000:.1f},{s.answered * 1000:.1f},"
            f"{(s.sent - s.scheduled) * 1000:.1f},{s.status},{s.kind},{s.wall:.3f}"
        )
    path.write_text("\n".join(lines) + "\n")


def pg_settings(pg: Any, settings: list[str]) -> None:
    """ALTER SYSTEM name=value for each, then reload (diagnosis: lock waits, slow statements)."""
    from app.db.embedded import BIN, USER

    sql = [f"ALTER SYSTEM SET {k} = '{v}'" for k, v in (s.split("=", 1) for s in settings)]
    subprocess.run(  # noqa: S603
        [BIN / "psql", "-X", "-q", "-h", str(pg.socket_dir), "-p", str(pg.port), "-U", USER,
         "-d", "postgres", *(a for q in [*sql, "SELECT pg_reload_conf()"] for a in ("-c", q))],
        check=True, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


async def main_async(args: argparse.Namespace) -> None:
    runs = [r.strip() for r in args.runs.split(",") if r.strip()]
    workdir = Path(tempfile.mkdtemp(prefix="bridgecrew-load-"))
    os.chmod(workdir, 0o755)  # noqa: S103 - as root, pgserver runs postgres as its own user, which must get in
    from app.db.embedded import start_embedded

    pg = await asyncio.to_thread(start_embedded, workdir / "pg", "postgres")
    if args.pg_set:
        await asyncio.to_thread(pg_settings, pg, args.pg_set)
    results: dict[str, Figures] = {}
    errors: dict[str, collections.Counter[str]] = {}
    fragments: dict[str, bytes] = {}
    # Setup (games, seats, planning, sockets) takes about a second per 10 games; then the schedule,
    # the grace for stragglers and the checks. Past this, a run is abandoned.
    budget = 120 + args.games * 1.5 + args.warmup + args.duration + HARD_GRACE
    task = asyncio.current_task()
    assert task is not None
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        run = Run(args, workdir, pg)
        for name in runs:
            if name == "baseline":
                continue
            procs = {"one": 1, "two": 2}[name]
            result, fragments = await asyncio.wait_for(run.real(name, procs), budget)
            results[name] = figures(result)
            errors[name] = result.errors
            if args.samples:
                dump_samples(Path(f"{args.samples}.{name}.csv"), result)
            print(table([results[name]], None, args).split("\n\n")[1], flush=True)
        if "baseline" in runs:
            if not fragments:  # no real run to copy sizes from: typical sizes
                fragments = {"station": b"<div>" * 2200, "gm": b"<div>" * 7000,
                             "display": b"<div>" * 1800}  # fmt: skip
            result_b = await asyncio.wait_for(run.baseline(fragments), budget)
            results["baseline"] = figures(result_b)
            errors["baseline"] = result_b.errors
    finally:
        with contextlib.suppress(Exception):
            await asyncio.to_thread(pg.stop)
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    base = results.get("baseline")
    rows = [results[n] for n in runs if n in results]
    print()
    for f in rows:
        if f.name != "baseline":
            print("\n".join(pushes(f)))
    for name, counter in errors.items():
        if counter:
            print(f"{name} errors: {dict(counter.most_common(5))}")
    print()
    print(table(rows, base, args))
    if args.json:
        with open(args.json, "w") as out:  # noqa: ASYNC230 - after the run
            json.dump([dataclasses.asdict(r) for r in rows], out, indent=1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--rate", type=float, default=200.0, help="commands per second, overall")
    parser.add_argument("--duration", type=float, default=30.0, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring")
    parser.add_argument("--runs", default="one,two,baseline", help="any of one,two,baseline")
    parser.add_argument("--scenario", default="skirmish")
    parser.add_argument(
        "--connections",
        type=int,
        default=0,
        help="HTTP keep-alive connections (default: one per game, up to 256)",
    )
    parser.add_argument("--no-deflate", action="store_true", help="no permessage-deflate")
    parser.add_argument(
        "--post-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long a POST waits for its answer before it is sent again (same command_id); "
        "a short one past capacity loses answers on purpose",
    )
    parser.add_argument(
        "--spread",
        action="store_true",
        help="with two processes, send each game's commands to one of them in turn "
        "(default: every command to the first)",
    )
    parser.add_argument(
        "--alternate",
        action="store_true",
        help="with two processes, send each game's commands to both in turn, as phones behind "
        "one address may land on either",
    )
    parser.add_argument(
        "--stagger",
        type=int,
        default=0,
        metavar="N",
        help="before the clock starts, game i plays i mod N commands, so the games are not in "
        "lockstep (all revealing and starting turns in the same second) but spread over a turn",
    )
    parser.add_argument(
        "--turn-seconds",
        type=int,
        default=None,
        metavar="N",
        help="each turn's timer (default: the scenario's, 60 s); a short one makes the server's "
        "sweeper expire turns between a game's commands, which the mirror must follow",
    )
    parser.add_argument("--profile", type=Path, default=None, help="py-spy raw stacks to this dir")
    parser.add_argument("--json", default=None, help="also write the figures here")
    parser.add_argument(
        "--samples",
        default=None,
        metavar="PREFIX",
        help="write each command's timings to PREFIX.<run>.csv",
    )
    parser.add_argument(
        "--pg-set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a PostgreSQL setting for the run (repeatable)",
    )
    parser.add_argument(
        "--expect",
        choices=("html", "view"),
        default="html",
        help="which screens get a push: those whose panels' inputs change (this hub) or "
        "whose view changes (the hub before panel caching)",
    )
    parser.add_argument(
        "--quiet-game",
        type=float,
        nargs="?",
        const=1.0,
        default=None,
        metavar="RATE",
        help="one game more, on a schedule of its own (default 1 command/s), beside the load; its "
        "latencies are reported apart",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (logs)")
    args = parser.parse_args()
    if args.games < 1 or not 0 < args.rate <= 2000 or not 0 < args.duration <= 600:
        parser.error("1+ games, a rate up to 2000/s and a duration up to 600 s")
    if args.quiet_game is not None and not 0 < args.quiet_game <= 50:
        parser.error("a quiet game's rate is above 0 and up to 50/s")
    try:
        import uvloop
    except ImportError:
        asyncio.run(main_async(args))
    else:
        uvloop.run(main_async(args))


if __name__ == "__main__":
    main()
