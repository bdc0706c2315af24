"""PostgreSQL stopped and started again under a running game (cleanly, and as good as a crash):
/healthz says degraded while it is away, a phone's command is answered 503 and its retry applied
once when the database is back, a server that boots while it is away comes up degraded and waits,
the servers recover by themselves (commands, the deadline that ran out meanwhile, pushes to
websockets through a LISTEN connection that reconnects), and nothing they acknowledged is lost."""

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from app.db.embedded import EmbeddedPostgres, start_embedded, stop_embedded
from app.db.models import Event
from app.db.session import create_engine, create_session_factory
from app.service import load_state
from tests.conftest import until
from tests.processes import Server

from .harness import (
    Ack,
    Phone,
    ViewWatcher,
    check_store,
    replay_matches,
    snapshot,
)

# Close codes after which htmx-ext-ws (and our test clients) reconnect; None: still open, waiting.
# 1008 would tell a phone to stop trying for good.
RECONNECT_CODES = (None, 1006, 1011, 1012, 1013)


async def health(server: Server) -> tuple[int, dict[str, Any]]:
    async with httpx.AsyncClient(base_url=server.http, timeout=10) as http:
        answer = await http.get("/healthz")
        return answer.status_code, dict(answer.json())


async def close_code_of_a_new_socket(url: str) -> int | None:
    """Open a socket and read until the server closes it (or 5 s of silence)."""
    try:
        async with connect(url, open_timeout=10) as socket_:
            try:
                while True:
                    await asyncio.wait_for(socket_.recv(), 5)
            except ConnectionClosed:
                return socket_.close_code
            except TimeoutError:
                return None  # still open: the server is waiting for the database with it
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["fast", "immediate"])
async def test_servers_ride_out_a_database_restart_and_lose_nothing(
    own_postgres: EmbeddedPostgres, tmp_path: Path, mode: str
) -> None:
    url = own_postgres.url()
    # Two processes: commands go through `a`, screens watch `b`, so b's screens are only brought
    # up to date through PostgreSQL's NOTIFY, i.e. by b's LISTEN connection. (b is also killed and
    # restarted while the database is away; its screens reconnect by themselves.)
    a = Server(url, tmp_path, "a").start()
    b = Server(url, tmp_path, "b").start()
    engine = create_engine(url)
    sessions = create_session_factory(engine)
    phone = Phone(a.http)
    watchers: list[ViewWatcher] = []
    try:
        await asyncio.gather(a.ready(), b.ready())
        made = await phone.http.post("/api/games", json={"scenario": "skirmish", "seed": 5})
        assert made.status_code == 201, made.text
        game_id, gm_token = made.json()["game_id"], made.json()["gm_token"]
        seated = await phone.http.post(
            f"/api/games/{game_id}/seats",
            json={"ship": "kestrel", "station": "weapons", "name": "Vasquez"},
        )
        assert seated.status_code == 201, seated.text
        seat_id, seat_token = seated.json()["seat_id"], seated.json()["seat_token"]
        watchers = [
            ViewWatcher(b.ws, game_id, "display", "display", None).start(),
            ViewWatcher(b.ws, game_id, "station", ("seat", seat_id), seat_token).start(),
            ViewWatcher(a.ws, game_id, "gm", "gm", gm_token).start(),
        ]
        tokens = {"display": None, "station": seat_token, "gm": gm_token}

        acks: list[Ack] = []
        stop_sending = asyncio.Event()

        async def gm(fields: dict[str, Any], **kwargs: Any) -> Ack:
            ack = await phone.post_command(game_id, gm_token, fields, "gm", **kwargs)
            acks.append(ack)
            return ack

        async def chatter() -> None:
            """The GM keeps talking through the outage; each message retried until answered."""
            n = 0
            while not stop_sending.is_set():
                n += 1
                marker = f"chaos pg {mode} {n}"
                await gm({"type": "SendMessage", "text": marker}, marker=marker)
                await asyncio.sleep(0.02)

        sending = asyncio.create_task(chatter())
        await until(lambda: asyncio.sleep(0, len(acks) >= 5), 20, "the first messages")
        # An orders timer that runs out while the database is away.
        started = await gm({"type": "StartTurn", "seconds": 2})
        stopped_at = time.monotonic()

        await asyncio.to_thread(stop_embedded, own_postgres.pgdata, mode)  # type: ignore[arg-type]
        acked_while_stopping = len(acks)
        for server in (a, b):

            async def degraded(server: Server = server) -> bool:
                status, body = await health(server)
                return status == 503 and body["database"] == "down"

            await until(degraded, 15, f"{server.log.stem} says degraded")
        status, body = await health(a)
        assert status == 503 and body["status"] == "degraded" and body["code"] == "DEGRADED"

        # A command now is not acknowledged: the phone is told to try again, and does.
        refused = await phone.http.post(
            f"/api/games/{game_id}/commands",
            json={"command_id": "during-outage", "type": "SetRedAlert", "on": True},
            headers={"Authorization": f"Bearer {gm_token}"},
        )
        assert refused.status_code == 503, refused.text
        assert refused.json()["code"] == "DATABASE_UNAVAILABLE"
        # A phone (re)connecting now is not turned away for good (1008 means: stop trying).
        code = await close_code_of_a_new_socket(f"{b.ws}/ws/display/{game_id}?format=json")
        assert code in RECONNECT_CODES, code
        # The power cut took `b` down too, and it boots before the database: it must come up
        # (degraded) and wait, not crash.
        b.kill()
        b.start()

        async def up_but_degraded() -> bool:
            b.assert_alive()
            try:
                return (await health(b))[0] == 503
            except httpx.TransportError:
                return False

        await until(up_but_degraded, 30, "b restarts while the database is away")
        await asyncio.sleep(max(0.0, stopped_at + 3 - time.monotonic()))  # the timer runs out
        b.assert_alive()
        assert len(acks) <= acked_while_stopping + 1  # nothing is acknowledged while it is down

        restarted = await asyncio.to_thread(start_embedded, own_postgres.pgdata)
        assert restarted.url() == url  # same socket, same port: the servers' URL still works
        for server in (a, b):

            async def healthy(server: Server = server) -> bool:
                return (await health(server))[0] == 200

            await until(healthy, 30, f"{server.log.stem} is healthy again")

        errors_when_back = phone.server_errors
        # The retry of the refused command is applied now, once.
        red = await gm({"type": "SetRedAlert", "on": True}, command_id="during-outage")
        again = await gm({"type": "SetRedAlert", "on": True}, command_id="during-outage")
        assert again.version == red.version
        acks.pop()  # the same acknowledgement twice

        async def timer_expired() -> bool:
            phase = (await load_state(sessions, game_id))[1]["phase"]
            return bool(phase != "orders")

        await until(timer_expired, 15, "the sweeper expires the timer that ran out")

        # The messages kept coming: some were acknowledged after the database came back.
        await until(
            lambda: asyncio.sleep(0, len(acks) > acked_while_stopping + 5), 20, "more messages"
        )
        stop_sending.set()
        await sending
        assert phone.server_errors == errors_when_back  # once healthy, no command fails

        # A change made through `a` reaches the sockets on `b`: its listener is back.
        last = await gm({"type": "SetRedAlert", "on": False})
        for watcher in watchers:
            version, view = await phone.get_view(game_id, tokens[watcher.audience])
            assert version >= last.version
            assert await watcher.shows(view), f"{watcher.audience} screen was not brought up"
            assert not watcher.refused

        # Nothing acknowledged was lost, nothing applied twice, and the store replays.
        store = check_store(await snapshot(engine, game_id), acks)
        assert (store.lost, store.duplicates, store.problems) == ([], [], [])
        assert await replay_matches(engine, sessions, game_id)
        assert started.version < red.version
        async with sessions() as session:
            expiries = await session.scalar(
                select(func.count())
                .select_from(Event)
                .where(Event.game_id == uuid.UUID(game_id), Event.type == "TimerExpired")
            )
        assert expiries == 1
    finally:
        for watcher in watchers:
            await watcher.stop()
        await phone.close()
        a.stop()
        b.stop()
        await engine.dispose()
