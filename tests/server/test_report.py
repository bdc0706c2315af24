"""The after-action report (G-END-2): made from the stored event log, it equals the report a
replay of the game's commands gives; players and the projector read it once the combat ended."""

import uuid
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.content import load_catalogue
from app.db.models import AppliedCommand, Game
from app.rules import Actor, apply, new_game, parse_command
from app.rules.core.report import build_report
from app.service import canonical, create_game, create_seat, load_state, run_command
from app.service.report import game_report
from app.web.words import sentence

from .conftest import Table

Sessions = async_sessionmaker[AsyncSession]
GM = Actor.gm()


async def replayed_report(sessions: Sessions, game_id: uuid.UUID) -> dict[str, Any]:
    """The report rebuilt from scratch: the game's commands applied again to its scenario and
    seed, and the events that replay produces."""
    async with sessions() as session:
        game = await session.get(Game, game_id)
        assert game is not None
        rows = await session.scalars(
            select(AppliedCommand)
            .where(AppliedCommand.game_id == game_id)
            .order_by(AppliedCommand.version)
        )
        stored = [row.result for row in rows]
    catalogue = load_catalogue()
    state = canonical(new_game(catalogue.scenarios[game.scenario], catalogue, seed=game.seed))
    events: list[dict[str, Any]] = []
    for entry in stored:
        command = parse_command(entry["command"], Actor(**entry["actor"]), entry["now"])
        state, new = apply(state, command)
        state = canonical(state)
        events += new
    return build_report(state, events)


async def gm(sessions: Sessions, game_id: uuid.UUID, **command: Any) -> None:
    await run_command(sessions, game_id, command, GM, command_id=uuid.uuid4().hex)


async def play_turn(sessions: Sessions, game_id: uuid.UUID, *, undo_once: bool = False) -> None:
    """Both ships fire with a GM's action value; any Hull damage waiting for Engineering is
    forced through."""
    await gm(sessions, game_id, type="StartTurn", seconds=0)
    for ship, target in (("kestrel", "rustjaw"), ("rustjaw", "kestrel")):
        await gm(
            sessions, game_id, type="SubmitOrder", ship=ship, station="weapons",
            action="attack", value=9, target=target,
        )  # fmt: skip
    await gm(sessions, game_id, type="CloseOrders")
    if undo_once:  # the undone resolution's events must not count
        await gm(sessions, game_id, type="UndoResolution")
        await gm(sessions, game_id, type="CloseOrders")
    _, state = await load_state(sessions, game_id)
    if state["phase"] == "allocation":
        await gm(sessions, game_id, type="ForceAllocation")


# rule: G-END-2
async def test_g_end_2_the_report_from_the_event_log_equals_a_replays(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=5)
    await create_seat(session_factory, game_id, "kestrel", "weapons", "Ada", "amara-lind")
    await gm(session_factory, game_id, type="SetSetting", name="close_when_all_ready", value=False)
    await gm(session_factory, game_id, type="SetShields", ship="kestrel", active=False)
    await play_turn(session_factory, game_id, undo_once=True)
    for _ in range(12):
        _, state = await load_state(session_factory, game_id)
        if state["ships"]["rustjaw"]["destroyed"]:
            break
        await play_turn(session_factory, game_id)
    assert state["ships"]["rustjaw"]["destroyed"]
    await gm(session_factory, game_id, type="EndCombat")

    report = await game_report(session_factory, game_id, "display")
    assert report == await replayed_report(session_factory, game_id)
    (combat,) = report["combats"]
    assert combat["ended"] and combat["turns"] == state["turn"]
    ships = {s["id"]: s for s in combat["ships"]}
    kestrel, rustjaw = ships["kestrel"], ships["rustjaw"]
    assert rustjaw["destroyed"] and not kestrel["destroyed"]
    assert kestrel["attacks"] == combat["turns"]  # the undone attack is not counted
    assert rustjaw["damage_taken"] >= 10  # every Hull box (and then some stations)
    assert kestrel["damage_dealt"] == sum(
        int(sentence(e["words"]).split("hit for ")[1].split()[0])
        for e in combat["log"]
        if e["type"] == "AttackResolved"
        and sentence(e["words"]).startswith("Weapons of Kestrel")
        and "hit for" in sentence(e["words"])
    )  # fmt: skip
    _, final = await load_state(session_factory, game_id)
    assert kestrel["damage_taken"] == final["ships"]["kestrel"]["hull"]["damage"] + sum(
        st["damage"] for st in final["ships"]["kestrel"]["stations"].values()
    )  # no repairs were made, so what it took is what it shows
    hit = combat["biggest_hit"]
    assert hit["damage"] >= 1 and hit["ship"] in ships and hit["target"] in ships
    assert all(injury["character"] == "amara-lind" for injury in combat["injuries"])
    assert hit["roll"] in range(1, 7) and "d6" in sentence(hit["words"])
    assert [t["type"] for t in combat["log"]].count("ResolutionUndone") == 1
    assert combat["log"][-1]["type"] == "CombatEnded"
    assert (kestrel["torpedoes_launched"], kestrel["torpedoes_shot_down"]) == (0, 0)

    # G-END-3: the next combat is listed too, after the first.
    await gm(session_factory, game_id, type="RestoreShip", ship="rustjaw")
    await gm(session_factory, game_id, type="StartNextCombat", seconds=0)
    await gm(session_factory, game_id, type="EndCombat")
    report = await game_report(session_factory, game_id, "gm")
    assert [c["combat"] for c in report["combats"]] == [1, 2]
    assert report == await replayed_report(session_factory, game_id)


# rule: G-END-2
def test_g_end_2_players_and_projector_read_the_report_once_the_combat_ended(
    client: TestClient,
) -> None:
    table = Table(client)
    pilot = table.seat("pilot")
    url = f"/api/games/{table.game_id}/report"
    table.gm_command(type="StartTurn", seconds=0)
    assert client.get(url, headers=table.gm).status_code == 200  # the GM: at any time
    nobody: dict[str, str] = {}
    for headers in (pilot["headers"], nobody):
        refused = client.get(url, headers=headers)
        assert refused.status_code == 403 and refused.json()["code"] == "REPORT_NOT_READY"
    assert client.get(f"/report/{table.game_id}").status_code == 403
    table.gm_command(type="EndCombat")
    for headers in (pilot["headers"], nobody, table.gm):
        shown = client.get(url, headers=headers)
        assert shown.status_code == 200 and shown.json()["combats"][0]["ended"]
    page = client.get(f"/report/{table.game_id}")
    assert page.status_code == 200 and "After-action report" in page.text
    assert "Combat 1" in page.text
    for screen in ("play", "gm", "display"):  # the link every screen carries, "report"
        moved = client.get(f"/{screen}/{table.game_id}/report", follow_redirects=False)
        # The projector's copy is set in its large type.
        large = "?screen=display" if screen == "display" else ""
        assert moved.status_code == 303
        assert moved.headers["location"] == f"/report/{table.game_id}{large}"


# rule: G-END-2
def test_g_end_2_during_the_next_combat_a_phone_is_told_why_the_report_waits(
    client: TestClient,
) -> None:
    table = Table(client)
    pilot = table.seat("pilot")
    url = f"/api/games/{table.game_id}/report"
    table.gm_command(type="StartTurn", seconds=0)
    table.gm_command(type="EndCombat")
    assert client.get(url, headers=pilot["headers"]).status_code == 200
    table.gm_command(type="StartNextCombat", seconds=0)
    german = {**pilot["headers"], "Accept-Language": "de"}
    refused = client.get(url, headers=german)
    assert refused.status_code == 403 and refused.json()["code"] == "REPORT_NOT_READY"
    assert "Kampf 2" in refused.json()["message"], refused.json()
    page = client.get(f"/report/{table.game_id}", headers={"Accept-Language": "de"})
    assert page.status_code == 403 and "Kampf 2" in page.text
