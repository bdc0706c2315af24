"""A player who takes a freed station reads nothing the player before them was told or did in
private: not through the events API, the JSON view, the station's pages and panels, nor its
websocket. The station's hand is the station's, and theirs from when they sit down."""

import json
from typing import Any

from fastapi.testclient import TestClient

from tests.server.conftest import Table

TOLD_TO_PILOT = "Ada, the captain is a traitor"
TOLD_TO_SHIP = "Kestrel crew, hold your fire"


def _seat(table: Table, station: str, name: str, character: str | None = None) -> dict[str, Any]:
    made = table.client.post(
        f"/api/games/{table.game_id}/seats",
        json={"ship": "kestrel", "station": station, "name": name, "character": character},
    )
    assert made.status_code == 201, made.text
    body: dict[str, Any] = made.json()
    return {**body, "headers": {"Authorization": f"Bearer {body['seat_token']}"}}


def _events(client: TestClient, game_id: str, headers: dict[str, str]) -> list[dict[str, Any]]:
    answer = client.get(f"/api/games/{game_id}/events?after=0", headers=headers)
    assert answer.status_code == 200, answer.text
    events: list[dict[str, Any]] = answer.json()["events"]
    return events


def _everything_a_seat_reads(table: Table, seat: dict[str, Any]) -> dict[str, str]:
    client, game = table.client, table.game_id
    token = seat["seat_token"]
    client.cookies.clear()
    cookie = {"Cookie": f"bc_seat_{game}={token}"}
    read = {
        "events": json.dumps(_events(client, game, seat["headers"])),
        "view": client.get(f"/api/games/{game}/view", headers=seat["headers"]).text,
        "page": client.get(f"/play/{game}", headers=cookie).text,
        "panels": client.get(f"/play/{game}/panels", headers=cookie).text,
    }
    with client.websocket_connect(f"/ws/station/{game}?format=json&token={token}") as socket:
        read["socket (json)"] = json.dumps(socket.receive_json())
    with client.websocket_connect(f"/ws/station/{game}?token={token}") as socket:
        read["socket (html)"] = socket.receive_text()
    return read


def test_a_newcomer_on_a_freed_station_reads_none_of_the_previous_players_secrets(
    table: Table,
) -> None:
    ada = _seat(table, "pilot", "Ada", "ilse-marrow")
    cy = _seat(table, "weapons", "Cy")
    table.gm_command(type="StartTurn", seconds=0)  # everyone draws, Ada her Skill cards too
    table.gm_command(type="SendMessage", text=TOLD_TO_PILOT, to="kestrel/pilot")
    table.gm_command(type="SendMessage", text=TOLD_TO_SHIP, to="kestrel")
    ordered = table.command(ada["headers"], type="PassOrder", ship="kestrel", station="pilot")
    assert ordered.status_code == 200, ordered.text
    ada_drew = {
        card
        for event in _events(table.client, table.game_id, table.gm)
        if event["type"] == "CardsDrawn" and event.get("secret_for") == "kestrel/pilot"
        for card in event["secret"]["cards"]
    }
    freed = table.client.delete(
        f"/api/games/{table.game_id}/seats/{ada['seat_id']}", headers=table.gm
    )
    assert freed.status_code == 200, freed.text
    bob = _seat(table, "pilot", "Bob")
    joined = table.client.get(f"/api/games/{table.game_id}").json()["version"]

    view = table.client.get(f"/api/games/{table.game_id}/view", headers=bob["headers"]).json()
    bobs_hand = {card["id"] for card in view["view"]["me"]["hand"]}
    adas_own = ada_drew - bobs_hand  # her Skill cards left with her
    assert len(adas_own) >= 3
    for where, text in _everything_a_seat_reads(table, bob).items():
        for secret in (TOLD_TO_PILOT, TOLD_TO_SHIP, *adas_own):
            assert secret not in text, f"Bob reads {secret!r} in his {where}"
    before = [
        e for e in _events(table.client, table.game_id, bob["headers"]) if e["version"] < joined
    ]
    assert before and not [e for e in before if "secret" in e]
    # Those who were there still read what was theirs; the GM reads everything.
    cy_view = table.client.get(f"/api/games/{table.game_id}/view", headers=cy["headers"]).json()
    assert [m["text"] for m in cy_view["view"]["messages"]] == [TOLD_TO_SHIP]
    gm_read = json.dumps(_events(table.client, table.game_id, table.gm))
    assert TOLD_TO_PILOT in gm_read and TOLD_TO_SHIP in gm_read
