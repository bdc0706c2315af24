"""Through the web routes: a phone's Change position (M-SEATS-1) and the GM's "let the
NPCs choose" by their tactic once the npc module is on (M-NPC-2)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.web.deps import gm_cookie
from tests.web.test_routes import csrf_of, join, new_game


def gm_command(client: TestClient, game_id: str, headers: dict[str, str], **data: str) -> None:
    answer = client.post(f"/gm/{game_id}/command", data=data, headers=headers)
    assert answer.status_code == 204, answer.text  # applied: the socket pushes the panels


def test_m_seats_1_a_phone_changes_position_and_then_orders_from_there(client: TestClient) -> None:
    game_id, code = new_game(client)
    gm = {"X-CSRF-Token": csrf_of(client.get(f"/gm/{game_id}").text)}
    gm_command(client, game_id, gm, type="SetModule", module="seats", on="true")
    # The NPC crew's orders are in at once (module npc): the phone's pass must not close Orders.
    gm_command(client, game_id, gm, type="SetSetting", name="close_when_all_ready", value="false")
    gm_command(client, game_id, gm, type="StartTurn", seconds="0")
    client.cookies.clear()  # from here on, the phone
    join(client, code, "kestrel/weapons", "Ann")
    phone = {"X-CSRF-Token": csrf_of(client.get(f"/play/{game_id}").text)}
    moved = client.post(f"/play/{game_id}/position", data={"station": "comms"}, headers=phone)
    assert moved.status_code == 204, moved.text
    assert "Comms" in client.get(f"/play/{game_id}").text.split('class="me-head"')[1][:400]
    passed = client.post(f"/play/{game_id}/pass", headers=phone)  # scoped to Comms now
    assert passed.status_code == 204, passed.text
    page = client.get(f"/play/{game_id}").text
    assert "<b>Comms</b>" in page and "✓ Sent: Pass." in page


def test_m_npc_2_let_the_npcs_choose_uses_their_tactic_with_the_module_on(
    client: TestClient,
) -> None:
    game_id, _ = new_game(client)
    gm = {"X-CSRF-Token": csrf_of(client.get(f"/gm/{game_id}").text)}
    gm_command(client, game_id, gm, type="SetModule", module="npc", on="true")
    gm_command(client, game_id, gm, type="SetNpc", ship="rustjaw", auto="false")
    gm_command(client, game_id, gm, type="StartTurn", seconds="0")
    assert client.post(f"/gm/{game_id}/npc-auto", headers=gm).status_code == 204
    token = client.cookies.get(gm_cookie(game_id))
    bearer = {"Authorization": f"Bearer {token}"}
    events = client.get(f"/api/games/{game_id}/events?after=0", headers=bearer).json()["events"]
    orders = {
        e["station"]: e["secret"]["order"]
        for e in events
        if e["type"] == "OrderGiven" and e["ship"] == "rustjaw"
    }
    # Rustjaw is 7 squares off: its Pilot closes in, rolled at the reveal; Weapons holds fire.
    assert orders["pilot"]["action"] == "manoeuvre" and orders["pilot"]["npc"] == "proficient"
    assert orders["weapons"]["action"] == "pass"
