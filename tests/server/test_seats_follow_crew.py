"""On the server: the seat rows follow the crew after any command, so a queued change
of position that happens because its occupant fell (not only left) takes the phone along, and an
undo leaves the table as it is (no ghost of a freed player, no NOT_YOUR_STATION for the newcomer).
"""

from __future__ import annotations

import uuid

from app.rules import Actor
from app.service import create_game, create_seat, free_seat, run_command
from app.service.seats import change_position
from tests.server.test_positions import GM, Sessions, crew, rows, seats_game


async def gm(sessions: Sessions, game_id: uuid.UUID, **command: object) -> None:
    await run_command(sessions, game_id, command, GM, command_id=f"gm-{uuid.uuid4()}")


async def passes(sessions: Sessions, game_id: uuid.UUID, seat: uuid.UUID, station: str) -> None:
    """The seat's phone passes for `station`: refused NOT_YOUR_STATION unless it sits there."""
    pass_order = {"type": "PassOrder", "ship": "kestrel", "station": station}
    actor = Actor.for_seat(str(seat))
    await run_command(sessions, game_id, pass_order, actor, command_id=f"pass-{uuid.uuid4()}")


# rule: M-SEATS-1
async def test_m_seats_1_a_queued_move_takes_the_phone_along_when_the_occupant_falls(
    session_factory: Sessions,
) -> None:
    game_id = await seats_game(session_factory)
    ada, _ = await create_seat(session_factory, game_id, "kestrel", "weapons", "Ada", "amara-lind")
    bo, _ = await create_seat(session_factory, game_id, "kestrel", "pilot", "Bo", "ilse-marrow")
    await gm(session_factory, game_id, type="StartTurn")
    await change_position(session_factory, game_id, ada, "pilot", "c1")  # Pilot is taken: waits
    for field in ("endurance", "strength"):  # Bo's character falls unconscious
        await gm(
            session_factory,
            game_id,
            type="SetCharacteristic",
            character="ilse-marrow",
            field=field,
            value=0,
        )
    assert (await crew(session_factory, game_id))["pilot"] == str(ada)
    assert (await rows(session_factory, game_id))[str(ada)] == "pilot"
    await passes(session_factory, game_id, ada, "pilot")  # Ada's phone orders for the Pilot
    assert str(bo) not in await rows(session_factory, game_id)  # carried off: the seat ended


async def test_an_undo_keeps_the_newcomer_and_brings_no_freed_player_back(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=3, modules_off=["npc"])
    await create_seat(session_factory, game_id, "kestrel", "comms", "Ann")
    await gm(session_factory, game_id, type="StartTurn")
    await gm(session_factory, game_id, type="CloseOrders")
    await free_seat(session_factory, game_id, "kestrel", "comms")
    noor, _ = await create_seat(session_factory, game_id, "kestrel", "comms", "Noor")
    await gm(session_factory, game_id, type="UndoResolution")
    assert (await crew(session_factory, game_id))["comms"] == str(noor)
    assert await rows(session_factory, game_id) == {str(noor): "comms"}
    await passes(session_factory, game_id, noor, "comms")
