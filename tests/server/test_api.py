"""The JSON API: every endpoint, its errors, and who may do what with which token."""

import uuid

from fastapi.testclient import TestClient

from app.rules import COMMANDS
from app.rules.content import MODULES

from .conftest import Table


def test_scenarios_list_ships_stations_characters_and_modules(client: TestClient) -> None:
    body = client.get("/api/scenarios").json()
    skirmish = next(s for s in body["scenarios"] if s["id"] == "skirmish")
    kestrel = next(s for s in skirmish["ships"] if s["id"] == "kestrel")
    assert {st["id"] for st in kestrel["stations"]} == {"weapons", "engineering", "pilot", "comms"}
    assert body["characters"] and set(body["modules"]) == set(MODULES)


def test_create_game_returns_its_id_code_and_gm_token(client: TestClient) -> None:
    made = client.post(
        "/api/games", json={"scenario": "skirmish", "seed": 5, "modules": ["syshit"]}
    )
    assert made.status_code == 201
    body = made.json()
    assert set(body) == {"game_id", "join_code", "gm_token"}
    summary = client.get(f"/api/games/{body['game_id']}").json()
    assert summary == {
        "game_id": body["game_id"],
        "join_code": body["join_code"],
        "scenario": "skirmish",
        "version": 1,
    }


def test_create_game_errors_have_code_and_message(client: TestClient) -> None:
    unknown = client.post("/api/games", json={"scenario": "atlantis"})
    assert unknown.status_code == 404 and unknown.json()["code"] == "NO_SUCH_SCENARIO"
    malformed = client.post("/api/games", json={"seed": "many"})
    assert malformed.status_code == 422
    assert malformed.json()["code"] == "BAD_REQUEST"
    assert "scenario" in malformed.json()["message"]
    not_json = client.post("/api/games", content=b"{", headers={"content-type": "application/json"})
    assert not_json.status_code == 422 and not_json.json()["code"] == "BAD_REQUEST"
    module = client.post("/api/games", json={"scenario": "skirmish", "modules": ["warp"]})
    assert module.status_code == 400 and module.json()["code"] == "UNKNOWN_MODULE"


def test_seats_are_created_and_their_conflicts_refused(table: Table) -> None:
    seat = table.seat("weapons")
    assert uuid.UUID(seat["seat_id"]) and len(seat["seat_token"]) >= 40
    url = f"/api/games/{table.game_id}/seats"
    taken = table.client.post(url, json={"ship": "kestrel", "station": "weapons", "name": "B"})
    assert taken.status_code == 409 and taken.json()["code"] == "STATION_TAKEN"
    nowhere = table.client.post(url, json={"ship": "ghost", "station": "weapons", "name": "B"})
    assert nowhere.status_code == 404 and nowhere.json()["code"] == "NO_SUCH_SHIP"
    nameless = table.client.post(url, json={"ship": "kestrel", "station": "pilot", "name": ""})
    assert nameless.status_code == 422 and nameless.json()["code"] == "BAD_REQUEST"
    no_game = table.client.post(
        f"/api/games/{uuid.uuid4()}/seats",
        json={"ship": "kestrel", "station": "pilot", "name": "C"},
    )
    assert no_game.status_code == 404 and no_game.json()["code"] == "NO_SUCH_GAME"


def test_view_depends_on_the_token(table: Table) -> None:
    seat = table.seat("weapons")
    url = f"/api/games/{table.game_id}/view"
    public = table.client.get(url).json()
    assert public["version"] == 1 and public["view"]["viewer"] == {"role": "display"}
    mine = table.client.get(url, headers=seat["headers"]).json()["view"]
    assert mine["me"]["station"] == "weapons" and "hands" not in mine
    gm = table.client.get(url, headers=table.gm).json()["view"]
    assert gm["viewer"] == {"role": "gm"} and "hands" in gm
    wrong = table.client.get(url, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and wrong.json()["code"] == "BAD_TOKEN"
    scheme = table.client.get(url, headers={"Authorization": "Basic abc"})
    assert scheme.status_code == 401 and scheme.json()["code"] == "UNAUTHENTICATED"
    assert table.client.get(f"/api/games/{uuid.uuid4()}/view").status_code == 404
    assert table.client.get("/api/games/not-a-game/view").json()["code"] == "NO_SUCH_GAME"


def test_gm_command_is_applied_and_answered_with_version_and_events(table: Table) -> None:
    body = table.gm_command(type="SetRedAlert", on=True)
    assert body["version"] == 1
    assert [e["type"] for e in body["events"]] == ["RedAlertSet"]


def test_a_seat_may_act_only_for_its_own_station(table: Table) -> None:
    weapons, pilot = table.seat("weapons"), table.seat("pilot")
    table.gm_command(type="StartTurn", seconds=0)
    other = table.command(weapons["headers"], type="PassOrder", ship="kestrel", station="pilot")
    assert other.status_code == 403 and other.json()["code"] == "NOT_YOUR_STATION"
    gm_only = table.command(weapons["headers"], type="CloseOrders")
    assert gm_only.status_code == 403 and gm_only.json()["code"] == "GM_ONLY"
    own = table.command(pilot["headers"], type="PassOrder", ship="kestrel", station="pilot")
    assert own.status_code == 200, own.text


def test_command_errors(table: Table) -> None:
    anonymous = table.command(None, type="SetRedAlert", on=True)
    assert anonymous.status_code == 401 and anonymous.json()["code"] == "UNAUTHENTICATED"
    assert anonymous.headers["www-authenticate"] == "Bearer"
    phase = table.command(table.gm, type="CloseOrders")
    assert phase.status_code == 409 and phase.json()["code"] == "WRONG_PHASE"
    unknown = table.command(table.gm, type="Teleport")
    assert unknown.status_code == 400 and unknown.json()["code"] == "UNKNOWN_COMMAND"
    ill_typed = table.command(table.gm, type="SetRedAlert", on="yes")
    assert ill_typed.status_code == 400 and ill_typed.json()["code"] == "BAD_COMMAND"
    no_id = table.client.post(
        f"/api/games/{table.game_id}/commands",
        headers=table.gm,
        json={"type": "SetRedAlert", "on": True},
    )
    assert no_id.status_code == 422 and "command_id" in no_id.json()["message"]


def test_expected_version_and_repeated_command_id(table: Table) -> None:
    first = table.command(
        table.gm, command_id="abc", expected_version=0, type="SendMessage", text="Once"
    )
    retry = table.command(
        table.gm, command_id="abc", expected_version=0, type="SendMessage", text="Once"
    )
    assert first.status_code == retry.status_code == 200
    assert first.json() == retry.json() == {"version": 1, "events": first.json()["events"]}
    stale = table.command(table.gm, expected_version=0, type="SendMessage", text="Late")
    assert stale.status_code == 409 and stale.json()["code"] == "STALE_VERSION"
    reused = table.command(table.gm, command_id="abc", type="SendMessage", text="Other")
    assert reused.status_code == 409 and reused.json()["code"] == "COMMAND_ID_REUSED"
    assert table.client.get(f"/api/games/{table.game_id}").json()["version"] == 1


def test_events_are_shown_as_each_caller_may_see_them(table: Table) -> None:
    weapons, pilot = table.seat("weapons"), table.seat("pilot")
    table.gm_command(type="SendMessage", text="For weapons only", to="kestrel/weapons")
    table.gm_command(type="SendMessage", text="For everyone")
    url = f"/api/games/{table.game_id}/events"

    def messages(headers: dict[str, str] | None, after: int = 0) -> list[str]:
        body = table.client.get(url, params={"after": after}, headers=headers or {}).json()
        assert body["version"] == 4
        return [
            e.get("secret", {}).get("message", e.get("message", {})).get("text")
            for e in body["events"]
            if e["type"] == "MessageSent"
        ]

    assert messages(weapons["headers"]) == ["For weapons only", "For everyone"]
    assert messages(table.gm) == ["For weapons only", "For everyone"]
    assert messages(pilot["headers"]) == ["For everyone"]
    assert messages(None) == ["For everyone"]
    assert messages(None, after=3) == ["For everyone"]
    every = table.client.get(url, headers=table.gm).json()["events"]
    assert [(e["version"], e["seq"]) for e in every][:2] == [(1, 0), (2, 0)]
    negative = table.client.get(url, params={"after": -1})
    assert negative.status_code == 422 and negative.json()["code"] == "BAD_REQUEST"


def test_a_seat_frees_itself_and_the_gm_frees_anyone(table: Table) -> None:
    weapons, pilot = table.seat("weapons"), table.seat("pilot")
    base = f"/api/games/{table.game_id}/seats"
    other = table.client.delete(f"{base}/{pilot['seat_id']}", headers=weapons["headers"])
    assert other.status_code == 403 and other.json()["code"] == "NOT_YOUR_SEAT"
    assert table.client.delete(f"{base}/{pilot['seat_id']}").status_code == 401
    own = table.client.delete(f"{base}/{weapons['seat_id']}", headers=weapons["headers"])
    assert own.status_code == 200
    gone = table.client.get(f"/api/games/{table.game_id}/view", headers=weapons["headers"])
    assert gone.status_code == 401  # its token stopped working
    by_gm = table.client.delete(f"{base}/{pilot['seat_id']}", headers=table.gm)
    assert by_gm.status_code == 200
    twice = table.client.delete(f"{base}/{pilot['seat_id']}", headers=table.gm)
    assert twice.status_code == 404 and twice.json()["code"] == "NO_SUCH_SEAT"


def test_health_unknown_routes_and_oversized_bodies(table: Table) -> None:
    assert table.client.get("/healthz").json() == {
        "status": "ok",
        "database": "ok",
        "listener": "ok",
    }
    missing = table.client.get("/api/nothing-here")
    assert missing.status_code == 404 and missing.json()["code"] == "NOT_FOUND"
    wrong_method = table.client.put("/api/games")
    assert wrong_method.status_code == 405 and wrong_method.json()["code"] == "METHOD_NOT_ALLOWED"
    huge = table.command(table.gm, type="SendMessage", text="x" * 70_000)
    assert huge.status_code == 413 and huge.json()["code"] == "TOO_LARGE"


def test_openapi_documents_every_command(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    described = spec["paths"]["/api/games/{game_id}/commands"]["post"]["description"]
    for name in COMMANDS:
        assert f"**{name}**" in described
    assert "`reason`: str (required)" in described
    assert client.get("/docs").status_code == 200


def test_the_projector_starts_in_the_language_of_the_gm_who_made_the_game(
    client: TestClient,
) -> None:
    """A German GM's game shows its projector in German from the start, whatever the venue's
    laptop asks for; an English GM's stays English."""
    german = client.post(
        "/api/games", json={"scenario": "skirmish"}, headers={"Accept-Language": "de-DE,de;q=0.9"}
    ).json()["game_id"]
    english = client.post("/api/games", json={"scenario": "skirmish"}).json()["game_id"]
    venue = {"Accept-Language": "en-US,en;q=0.9"}
    shown = client.get(f"/display/{german}", headers=venue).text
    assert '<html lang="de"' in shown and "Mit dem Handy beitreten" in shown
    assert '<html lang="en"' in client.get(f"/display/{english}", headers=venue).text
