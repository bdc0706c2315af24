"""E-EVENING-1 on the server: the GM moves the same game (row, join code, seats) on to the next
battle in one unit of work; the seat rows follow their crews, tokens keep working, and a replay
of the stored commands gives the same state."""

from __future__ import annotations

import json
import uuid

import pytest
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.backup import BackupError, check_export, export_game, import_game
from app.db.models import Seat
from app.rules import Actor
from app.service import (
    ServiceError,
    canonical,
    create_game,
    create_seat,
    game_info,
    load_state,
    replay_state,
    run_command,
)
from app.service.evening import move_table_on
from app.service.library import save_item
from app.service.seats import revoke_seat, seat_by_token
from tests.editor.content import ship_copy, zone_scenario

Sessions = async_sessionmaker[AsyncSession]
GM = Actor.gm()


async def gm(sessions: Sessions, game_id: uuid.UUID, **command: object) -> None:
    await run_command(sessions, game_id, dict(command), GM, command_id=uuid.uuid4().hex)


async def live_rows(sessions: Sessions, game_id: uuid.UUID) -> dict[str, tuple[str, str]]:
    async with sessions() as session:
        found = await session.scalars(
            select(Seat).where(Seat.game_id == game_id, Seat.revoked_at.is_(None))
        )
        return {str(s.id): (s.ship, s.station) for s in found}


async def test_e_evening_1_the_table_moves_on_with_its_code_seats_and_tokens(
    session_factory: Sessions,
) -> None:
    game_id, code, _ = await create_game(session_factory, "skirmish", seed=5)
    ada, ada_token = await create_seat(
        session_factory, game_id, "kestrel", "weapons", "Ada", "amara-lind"
    )
    bo, _ = await create_seat(session_factory, game_id, "kestrel", "pilot", "Bo")
    await gm(session_factory, game_id, type="StartTurn", seconds=0)
    await gm(session_factory, game_id, type="EndCombat")

    version = await move_table_on(session_factory, game_id, "torpedo-run", "gm:next-1")

    info = await game_info(session_factory, game_id)
    assert (info.join_code, info.version) == (code, version)
    _, state = await load_state(session_factory, game_id)
    assert state["scenario"]["id"] == "torpedo-run"
    assert await live_rows(session_factory, game_id) == {
        str(ada): ("harrier", "weapons"),
        str(bo): ("harrier", "pilot"),
    }
    seat = await seat_by_token(session_factory, game_id, ada_token)
    assert seat is not None and (seat.ship, seat.station) == ("harrier", "weapons")
    # Ada's phone gives orders aboard the new ship with the token it had.
    await gm(session_factory, game_id, type="StartTurn", seconds=0)
    await run_command(
        session_factory,
        game_id,
        {"type": "PassOrder", "ship": "harrier", "station": "weapons"},
        Actor.for_seat(str(ada)),
        command_id="pass-1",
    )
    # A newcomer joins a station still free on the new ship.
    await create_seat(session_factory, game_id, "harrier", "comms", "Cy")
    # The row kept its first scenario, and replay meets the move among the stored commands.
    assert info.scenario == "skirmish"
    _, state = await load_state(session_factory, game_id)
    assert canonical(await replay_state(session_factory, game_id)) == state


async def test_e_evening_1_a_retry_changes_nothing_and_a_combat_must_end_first(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=5)
    first = await move_table_on(session_factory, game_id, "convoy", "gm:a")
    assert await move_table_on(session_factory, game_id, "convoy", "gm:a") == first
    await gm(session_factory, game_id, type="StartTurn", seconds=0)
    with pytest.raises(ServiceError) as caught:
        await move_table_on(session_factory, game_id, "skirmish", "gm:b")
    assert caught.value.code == "WRONG_PHASE"
    with pytest.raises(ServiceError) as caught:
        await move_table_on(session_factory, game_id, "no-such-battle", "gm:c")
    assert caught.value.code == "NO_SUCH_SCENARIO"
    _, state = await load_state(session_factory, game_id)
    assert state["scenario"]["id"] == "convoy"


async def test_e_evening_1_a_seat_with_no_station_stays_on_the_roster_and_comes_back(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "convoy", seed=5)
    kim, kim_token = await create_seat(
        session_factory, game_id, "resolute", "captain", "Kim", "amara-lind"
    )
    crew = {
        str((await create_seat(session_factory, game_id, "kestrel", station, station))[0]): (
            "kestrel",
            station,
        )
        for station in ("weapons", "engineering", "pilot", "comms")
    }
    await move_table_on(session_factory, game_id, "skirmish", "gm:next")
    # Skirmish has one frigate: its four stations keep their crews; Kim, with no captain's
    # station, keeps the seat (the same token) on the table's roster, holding no station.
    rows = await live_rows(session_factory, game_id)
    assert {k: v for k, v in rows.items() if k != str(kim)} == crew
    assert rows[str(kim)] == ("resolute", f"~{kim}")
    assert await seat_by_token(session_factory, game_id, kim_token) is not None
    await move_table_on(session_factory, game_id, "convoy", "gm:back")
    assert (await live_rows(session_factory, game_id))[str(kim)] == ("resolute", "captain")
    _, state = await load_state(session_factory, game_id)
    captain = state["ships"]["resolute"]["stations"]["captain"]["crew"]
    assert captain == {"seat": str(kim), "name": "Kim", "character": "amara-lind"}
    assert canonical(await replay_state(session_factory, game_id)) == state


async def test_e_evening_1_a_player_who_leaves_from_the_roster_leaves_it(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "convoy", seed=5)
    kim, _ = await create_seat(session_factory, game_id, "resolute", "captain", "Kim")
    await move_table_on(session_factory, game_id, "skirmish", "gm:next")
    await revoke_seat(session_factory, game_id, kim)
    _, state = await load_state(session_factory, game_id)
    assert state["bench"] == []
    await move_table_on(session_factory, game_id, "convoy", "gm:back")
    _, state = await load_state(session_factory, game_id)
    assert state["ships"]["resolute"]["stations"]["captain"]["crew"] is None
    assert canonical(await replay_state(session_factory, game_id)) == state


async def test_e_evening_1_the_next_battle_comes_from_the_library_as_it_is_at_the_move(
    session_factory: Sessions,
) -> None:
    """A scenario the organisers wrote after the evening began, in its newest version at each
    move; the game keeps each move's copy, so a replay and an export build every battle as it
    was played, whatever the library holds later."""
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=5)
    await save_item(session_factory, "ship", ship_copy(), "Ada", expected_version=0)
    await save_item(session_factory, "scenario", zone_scenario(), "Ada", expected_version=0)

    await move_table_on(session_factory, game_id, "ring-fight", "gm:first")
    _, state = await load_state(session_factory, game_id)
    assert state["ships"]["hawk"]["defence"] == 4
    sturdier = {**ship_copy(), "defence": 9}
    await save_item(session_factory, "ship", sturdier, "Bo", expected_version=1)
    await move_table_on(session_factory, game_id, "ring-fight", "gm:second")
    _, state = await load_state(session_factory, game_id)
    assert state["ships"]["hawk"]["defence"] == 9
    assert canonical(await replay_state(session_factory, game_id)) == state

    exported = json.loads(json.dumps(await export_game(session_factory, str(game_id))))
    async with session_factory() as session, session.begin():
        await session.execute(text("DELETE FROM games"))
        await session.execute(text("DELETE FROM content_versions"))
        await session.execute(text("DELETE FROM content_items"))
    await import_game(session_factory, exported, keep_tokens=True)
    assert canonical(await replay_state(session_factory, game_id)) == state
    # A file whose move holds content that does not load is refused whole, as the game's is.
    move = next(c for c in exported["applied_commands"] if c["command_id"] == "gm:second")
    move["result"]["content"]["ship"]["gunboat"]["defence"] = "high"
    with pytest.raises(BackupError) as refused:
        check_export(exported)
    assert refused.value.code == "BAD_BACKUP" and "move to another battle" in str(refused.value)


async def test_e_evening_1_the_panel_says_which_version_the_table_plays(
    session_factory: Sessions,
) -> None:
    """The organiser corrects the scenario in the editor: the Evening panel says the library has
    a newer version than the table plays, until the table moves on to it."""
    from app.service.evening import scenario_versions
    from app.web.render import render_template

    game_id, _, _ = await create_game(session_factory, "skirmish", seed=5)
    await save_item(session_factory, "ship", ship_copy(), "Ada", expected_version=0)
    await save_item(session_factory, "scenario", zone_scenario(), "Ada", expected_version=0)
    assert await scenario_versions(session_factory, game_id, "skirmish") == (0, True)  # built in
    await move_table_on(session_factory, game_id, "ring-fight", "gm:first")
    assert await scenario_versions(session_factory, game_id, "ring-fight") == (1, True)
    corrected = {**zone_scenario(), "description": "Corrected after the first battle."}
    await save_item(session_factory, "scenario", corrected, "Bo", expected_version=1)
    assert await scenario_versions(session_factory, game_id, "ring-fight") == (2, False)
    panel = render_template(
        "_gm_evening.html", scenarios=[], current={"id": "ring-fight", "name": "Ring"},
        phase="downtime", command_id="c", newest=2, uses_newest=False, versions={}, bench=[],
    )  # fmt: skip
    assert "newer version (2)" in panel
    await move_table_on(session_factory, game_id, "ring-fight", "gm:second")
    assert await scenario_versions(session_factory, game_id, "ring-fight") == (2, True)
