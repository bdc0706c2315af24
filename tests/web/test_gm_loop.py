"""The GM's loop through the dashboard's own forms: a game from the lobby with the
scenario's modules, a second wave in one form, confirmations, and picking rather than typing."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.content import load_catalogue
from app.rules.content import MODULES
from app.web.deps import gm_cookie

from .test_routes import csrf_of, join, new_game


def gm_view(client: TestClient, game_id: str) -> dict[str, Any]:
    token = client.cookies.get(gm_cookie(game_id))
    answer = client.get(f"/api/games/{game_id}/view", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200, answer.text
    return answer.json()["view"]  # type: ignore[no-any-return]


def command(client: TestClient, game_id: str, html: str, **fields: str) -> Any:
    return client.post(
        f"/gm/{game_id}/command",
        data=fields,
        headers={"X-CSRF-Token": csrf_of(html), "HX-Request": "true"},
    )


def add_ship(client: TestClient, game_id: str, page: str, name: str, **at: str) -> Any:
    return command(
        client,
        game_id,
        page,
        type="AddShip",
        ship_class="cruiser",
        name=name,
        side="raiders",
        crew="npc",
        **at,
    )


def test_the_lobby_offers_every_scenario_with_its_own_modules(client: TestClient) -> None:
    lobby = client.get("/gm").text
    for scenario in load_catalogue().scenarios.values():
        assert f'value="{scenario.id}"' in lobby and scenario.name in lobby
        boxes = re.findall(rf'name="modules\.{scenario.id}" value="(\w+)"([^>]*)>', lobby)
        assert {m for m, _ in boxes} == set(MODULES)
        assert {m for m, rest in boxes if " checked" in rest} == set(scenario.modules)
    # Ticks under another scenario do not leak into the one chosen.
    answer = client.post(
        "/gm",
        data={
            "scenario": "convoy",
            "choose_modules": "1",
            "modules.convoy": "syshit",
            "modules.skirmish": "starmada",
            "csrf": csrf_of(lobby),
        },
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
    game_id = answer.headers["location"].rsplit("/", 1)[1]
    assert gm_view(client, game_id)["game"]["modules"] == ["syshit"]


def test_the_dashboard_links_to_the_lobby(client: TestClient) -> None:
    game_id, _ = new_game(client)
    assert 'href="/gm"' in client.get(f"/gm/{game_id}").text


def test_a_second_wave_is_one_form_and_arrives_whole(client: TestClient) -> None:
    """G-SHIP-1: the Add a ship form's fields are AddShip's; the ship has its full Hull and its
    shields up (restoring a destroyed one gave Hull 1/8, shields down)."""
    game_id, _ = new_game(client)
    page = client.get(f"/gm/{game_id}").text
    form = re.search(r'<section id="add-ship".*?</section>', page, re.S)
    assert form is not None
    for field in ("ship_class", "name", "side", "crew", "x", "y"):
        assert f'name="{field}"' in form.group(0)
    for ship_class in load_catalogue().ships.values():
        assert f'<option value="{ship_class.id}">{ship_class.name}</option>' in form.group(0)
    answer = add_ship(client, game_id, page, "Iron Maw", x="12", y="3")
    assert answer.status_code == 204, answer.text
    ship = next(s for s in gm_view(client, game_id)["ships"] if s["name"] == "Iron Maw")
    cruiser = load_catalogue().ships["cruiser"]
    assert ship["hull"]["health"] == cruiser.hull.boxes
    assert ship["shields"]["health"] == cruiser.shields.boxes and ship["shields"]["active"]
    again = add_ship(client, game_id, page, "Iron Maw", x="1", y="1")
    assert again.status_code == 400 and 'data-code="NAME_TAKEN"' in again.text


def test_what_cannot_be_undone_asks_first(client: TestClient) -> None:
    game_id, code = new_game(client)
    gm = client.get(f"/gm/{game_id}").text
    command(client, game_id, gm, type="StartTurn", seconds="0")
    join(client, code, "kestrel/pilot", "Ann")
    page = client.get(f"/gm/{game_id}").text
    destroy = re.search(r'name="type" value="DestroyShip">.*?</button>', page, re.S)
    end = re.search(r'name="type" value="EndCombat">.*?</button>', page, re.S)
    assert destroy is not None and "data-confirm=" in destroy.group(0)
    assert end is not None and "data-confirm=" in end.group(0)
    seats = client.get(f"/gm/{game_id}/seats").text
    assert "hx-confirm" not in seats  # a dialog a kiosk browser blocks: the seat never freed
    assert re.search(r'data-confirm="[^"]+">Free</button>', seats)


def test_the_gm_picks_stations_and_reads_character_names(client: TestClient) -> None:
    game_id, code = new_game(client)
    page = client.get(f"/gm/{game_id}").text
    command(client, game_id, page, type="StartTurn", seconds="0")
    page = client.get(f"/gm/{game_id}").text
    assert 'name="target_station" placeholder' not in page
    assert 'name="station" placeholder' not in page
    npc = re.search(r'<section id="npc".*?</section>', page, re.S)
    assert npc is not None
    repair = re.search(r'<select name="target_station" aria-label="Repair">(.*?)</select>', npc[0])
    assert repair is not None and 'value="shields"' not in repair[0]  # the raider has none
    assert re.findall(r'<option value="(\w+)">', repair[1]) == [
        st.id for st in load_catalogue().ships["raider"].stations
    ]
    bonus = re.search(r'<select name="station" aria-label="Station">(.*?)</select>', page, re.S)
    assert bonus is not None and '<option value="pilot">Pilot</option>' in bonus[1]
    # A seat shows the character's name, not its id.
    join(client, code, "kestrel/comms", "Bo", "vesna-kaur")
    seats = client.get(f"/gm/{game_id}/seats").text
    assert "Vesna Kaur" in seats and "(vesna-kaur)" not in seats


@pytest.mark.parametrize(
    ("language", "npc_words"),
    [("en-GB", "Ships without players fight on their own"), ("de-DE", "Schiffe ohne Spieler")],
)
def test_the_lobby_says_what_each_module_does_in_one_sentence(
    client: TestClient, language: str, npc_words: str
) -> None:
    """A newcomer cannot guess "starmada" or "syshit": each module has its sentence."""
    lobby = client.get("/gm", headers={"Accept-Language": language}).text
    notes = re.search(r'<dl class="module-notes">(.*?)</dl>', lobby, re.S)
    assert notes is not None
    pairs = re.findall(r"<dt>(\w+)</dt><dd>([^<]+)</dd>", notes.group(1))
    assert [m for m, _ in pairs] == list(MODULES)
    assert all(sentence.strip().endswith(".") for _, sentence in pairs)
    assert npc_words in dict(pairs)["npc"]
