"""A phone that drops off the network for two minutes while the game goes on: when it comes back
it is still at its seat, and its first message is its whole current view (its new hand, the phase
the game is in now, the messages it missed), the same as GET /view. Nothing on the server expires
a seat or its token by time: its commands still count when it is back."""

import asyncio
import random
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from websockets.asyncio.client import connect

from app.db.session import create_engine, create_session_factory
from app.rules import Actor
from app.rules.bot import propose
from app.service import canonical, load_state
from app.service.commands import command_fields
from tests.processes import Server, next_message

from .harness import Phone

OFFLINE_SECONDS = 120.0


@pytest.mark.slow
async def test_a_phone_back_after_two_minutes_offline_gets_its_seat_hand_and_phase(
    db_url: str, tmp_path: Path
) -> None:
    server = Server(db_url, tmp_path, "offline").start()
    phone = Phone(server.http)
    engine = create_engine(db_url)
    sessions = create_session_factory(engine)
    rng = random.Random(3)
    try:
        await server.ready()
        made = await phone.http.post("/api/games", json={"scenario": "skirmish", "seed": 9})
        assert made.status_code == 201, made.text
        game_id, gm_token = made.json()["game_id"], made.json()["gm_token"]
        seats: dict[str, tuple[str, str]] = {}  # station -> (seat id, token)
        for station in ("weapons", "engineering", "pilot", "comms"):
            seated = await phone.http.post(
                f"/api/games/{game_id}/seats",
                json={"ship": "kestrel", "station": station, "name": station.title()},
            )
            assert seated.status_code == 201, seated.text
            seats[station] = (seated.json()["seat_id"], seated.json()["seat_token"])
        me, my_token = seats["weapons"]
        url = f"{server.ws}/ws/station/{game_id}?format=json&token={my_token}"

        async def gm(**fields: Any) -> int:
            return (await phone.post_command(game_id, gm_token, fields, "gm")).version

        await gm(type="StartTurn", seconds=0)
        async with connect(url) as socket_:
            before = await next_message(socket_)
            assert before["view"]["me"]["station"] == "weapons"
            hand_before = [card["id"] for card in before["view"]["me"]["hand"]]
            # The phone gives its order, playing cards, then loses the network (no close frame).
            order = await bot_order(sessions, game_id, me, rng)
            await phone.post_command(game_id, my_token, order, ("seat", me))
            assert (await next_message(socket_))["view"]["me"]["order"] is not None
            socket_.transport.abort()
        offline_since = time.monotonic()

        # The game goes on for two minutes: turns resolve, new cards are dealt, the GM writes.
        turns = 0
        while time.monotonic() - offline_since < OFFLINE_SECONDS - 10:
            _, view = await phone.get_view(game_id, gm_token)
            if view["game"]["phase"] == "orders":
                await gm(type="CloseOrders")
            while (await phone.get_view(game_id, gm_token))[1]["game"]["phase"] == "allocation":
                await gm(type="ForceAllocation")
            await gm(type="SendMessage", text=f"Weapons, report ({turns})", to="kestrel/weapons")
            await gm(type="StartTurn", seconds=0)
            turns += 1
            for station in ("pilot", "comms"):  # the others play; weapons is silent
                seat_id, token = seats[station]
                fields = await bot_order(sessions, game_id, seat_id, rng)
                await phone.post_command(game_id, token, fields, ("seat", seat_id))
            await asyncio.sleep(15)
        assert turns >= 5
        await asyncio.sleep(max(0.0, offline_since + OFFLINE_SECONDS - time.monotonic()))

        async with connect(url) as socket_:
            back = await next_message(socket_)
        version, view = await phone.get_view(game_id, my_token)
        assert back["version"] == version
        assert back["view"] == view  # the whole current view, not a stale one
        mine = view["me"]
        assert (mine["ship"], mine["station"]) == ("kestrel", "weapons")
        assert view["game"]["phase"] == "orders" and mine["order"] is None
        assert [card["id"] for card in mine["hand"]] != hand_before  # played, then dealt anew
        assert f"Weapons, report ({turns - 1})" in [m["text"] for m in view["messages"]]
        # Its token still works: the phone plays on.
        order = await bot_order(sessions, game_id, me, rng)
        ack = await phone.post_command(game_id, my_token, order, ("seat", me))
        assert ack.version == version + 1
    finally:
        await phone.close()
        server.stop()
        await engine.dispose()


async def bot_order(
    sessions: async_sessionmaker[AsyncSession], game_id: str, seat_id: str, rng: random.Random
) -> dict[str, Any]:
    """An order for this seat's station from the engine's bot, playing cards if it can."""
    _, state = await load_state(sessions, game_id)
    state = canonical(state)
    ship, station = next(
        (ship["id"], station["id"])
        for ship in state["ships"].values()
        for station in ship["stations"].values()
        if station["crew"] and station["crew"]["seat"] == seat_id
    )
    actor = Actor.for_seat(seat_id)
    orders = [command_fields(propose(state, ship, station, rng, actor)) for _ in range(30)]
    return next((o for o in orders if o.get("cards")), orders[0])
