"""The HTML routes against the real app and database: joining, the seat cookie, CSRF, actions that
answer with panels or a toast, and the GM's link."""

from __future__ import annotations

import html
import re
import time

from fastapi.testclient import TestClient

from app.rules import rng
from app.web.deps import gm_cookie, seat_cookie


def csrf_of(html: str) -> str:
    found = re.search(r'X-CSRF-Token": "([^"]+)"', html) or re.search(
        r'name="csrf" value="([^"]+)"', html
    )
    assert found is not None
    return found.group(1)


def new_game(client: TestClient) -> tuple[str, str]:
    lobby = client.get("/gm")
    answer = client.post(
        "/gm",
        data={"scenario": "skirmish", "seed": "7", "csrf": csrf_of(lobby.text)},
        follow_redirects=False,
    )
    assert answer.status_code == 303
    game_id = answer.headers["location"].rsplit("/", 1)[1]
    dashboard = client.get(f"/gm/{game_id}")
    code = re.search(r'class="d-code">(\w+)<', dashboard.text)
    assert code is not None
    return game_id, code.group(1)


def join(client: TestClient, code: str, seat: str, name: str, character: str = "") -> str:
    page = client.get(f"/join/{code}")
    answer = client.post(
        f"/join/{code}",
        data={"seat": seat, "name": name, "character": character, "csrf": csrf_of(page.text)},
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
    return answer.cookies.get(seat_cookie(answer.headers["location"].rsplit("/", 1)[1])) or ""


def test_joining_sets_a_seat_cookie_that_brings_the_phone_back(client: TestClient) -> None:
    game_id, code = new_game(client)
    client.cookies.clear()
    page = client.get(f"/join/{code}")
    assert "kestrel/weapons" in page.text
    assert f"{client.base_url}/join/{code}" not in page.text  # no QR on the phone itself
    answer = client.post(
        f"/join/{code}",
        data={
            "seat": "kestrel/weapons",
            "name": "Ann",
            "character": "amara-lind",
            "csrf": csrf_of(page.text),
        },
        follow_redirects=False,
    )
    assert answer.status_code == 303
    assert answer.headers["location"] == f"/play/{game_id}"
    cookie = answer.headers["set-cookie"]
    assert f"{seat_cookie(game_id)}=" in cookie
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie
    station = client.get(f"/play/{game_id}")
    assert station.status_code == 200
    assert 'id="hand"' in station.text and "Weapons" in station.text
    again = client.get(f"/join/{code}", follow_redirects=False)
    assert again.status_code == 303 and again.headers["location"] == f"/play/{game_id}"


def test_a_join_whose_answer_was_lost_finds_its_seat_again(client: TestClient) -> None:
    game_id, code = new_game(client)
    client.cookies.clear()
    page = client.get(f"/join/{code}")
    form = {"seat": "kestrel/pilot", "name": "Ann", "character": "", "csrf": csrf_of(page.text)}
    first = client.post(f"/join/{code}", data=form, follow_redirects=False)
    token = first.cookies.get(seat_cookie(game_id))
    assert first.status_code == 303 and token
    # The answer (and its cookie) never reached the phone; the browser sends the form again.
    client.cookies.delete(seat_cookie(game_id))
    again = client.post(f"/join/{code}", data=form, follow_redirects=False)
    assert again.status_code == 303 and again.headers["location"] == f"/play/{game_id}"
    assert again.cookies.get(seat_cookie(game_id)) == token  # the same seat, not a second one
    # Or the player scans the code again: straight back to the seat.
    client.cookies.delete(seat_cookie(game_id))
    back = client.get(f"/join/{code}", follow_redirects=False)
    assert back.status_code == 303 and back.headers["location"] == f"/play/{game_id}"
    assert back.cookies.get(seat_cookie(game_id)) == token
    assert "Pilot" in client.get(f"/play/{game_id}").text
    # Another phone sees the pilot's station taken, and every other one free.
    client.cookies.clear()
    other = client.get(f"/join/{code}")
    assert 'value="kestrel/pilot" required disabled' in other.text
    assert 'value="kestrel/weapons" required>' in other.text


def test_a_taken_station_is_refused_with_the_form_kept(client: TestClient) -> None:
    _, code = new_game(client)
    client.cookies.clear()
    join(client, code, "kestrel/pilot", "Ann")
    client.cookies.clear()
    page = client.get(f"/join/{code}")
    assert 'value="kestrel/pilot" required disabled' in page.text
    answer = client.post(
        f"/join/{code}", data={"seat": "kestrel/pilot", "name": "Bo", "csrf": csrf_of(page.text)}
    )
    assert answer.status_code == 409
    assert "already manned" in answer.text and 'value="Bo"' in answer.text


def test_a_lobby_seed_that_is_not_a_number_is_refused_not_ignored(client: TestClient) -> None:
    """G-TURN-3: a GM who types a seed wants a repeatable game; a typo must not quietly make a
    random one. A number still gives the same game (and the GM's screen does not show it)."""
    for typed in ("seven", "²", "1" * 30):
        lobby = client.get("/gm")
        answer = client.post(
            "/gm",
            data={"scenario": "skirmish", "seed": typed, "csrf": csrf_of(lobby.text)},
            follow_redirects=False,
        )
        assert answer.status_code == 400, typed
        assert (
            'data-code="BAD_VALUE"' in answer.text
            and "A seed must be a whole number" in answer.text
        )
    game_id, _ = new_game(client)  # seed "7"
    assert rng.chosen(7)["key"] not in client.get(f"/gm/{game_id}").text


def test_forms_without_the_csrf_token_are_refused(client: TestClient) -> None:
    _, code = new_game(client)
    answer = client.post(f"/join/{code}", data={"seat": "kestrel/pilot", "name": "Eve"})
    assert answer.status_code == 403
    assert answer.json()["code"] == "BAD_CSRF"


def test_an_order_answers_with_panels_or_with_a_toast(client: TestClient) -> None:
    game_id, code = new_game(client)
    client.cookies.clear()
    join(client, code, "kestrel/comms", "Cy")
    page = client.get(f"/play/{game_id}")
    headers = {"X-CSRF-Token": csrf_of(page.text), "HX-Request": "true"}
    refused = client.post(f"/play/{game_id}/pass", headers=headers)
    assert refused.status_code == 409
    assert 'id="toast"' in refused.text and 'data-code="WRONG_PHASE"' in refused.text
    assert "hx-swap-oob" in refused.text
    forged = client.post(f"/play/{game_id}/pass", headers={"X-CSRF-Token": "x" * 32})
    assert forged.status_code == 403


def test_the_gm_link_sets_the_gm_cookie_and_a_command_reaches_the_screen_by_its_socket(
    client: TestClient,
) -> None:
    """The answer to a command carries nothing the socket carries: 204, and the GM's own socket
    pushes the panels the command changed."""
    game_id, _ = new_game(client)
    token = client.cookies.get(gm_cookie(game_id))
    assert token
    client.cookies.clear()
    refused = client.get(f"/gm/{game_id}")
    assert refused.status_code == 403 and "GM link" in refused.text
    assert refused.headers["content-type"].startswith("text/html")
    opened = client.get(f"/gm/{game_id}?token={token}", follow_redirects=False)
    assert opened.status_code == 303 and opened.headers["location"] == f"/gm/{game_id}"
    dashboard = client.get(f"/gm/{game_id}")
    assert dashboard.status_code == 200
    headers = {"X-CSRF-Token": csrf_of(dashboard.text), "HX-Request": "true"}
    with client.websocket_connect(f"/ws/gm/{game_id}?token={token}") as socket:
        assert "Turn <b>1</b>" not in socket.receive_text()  # the welcome: every panel
        started = client.post(
            f"/gm/{game_id}/command", data={"type": "StartTurn", "seconds": "30"}, headers=headers
        )
        assert started.status_code == 204 and started.content == b""
        pushed = socket.receive_text()
    assert re.search(r'id="turn"[^>]*hx-swap-oob="true"', pushed)
    assert "Turn <b>1</b>" in pushed


def test_a_station_page_from_the_server_holds_only_its_own_cards(client: TestClient) -> None:
    game_id, code = new_game(client)
    gm_token = client.cookies.get(gm_cookie(game_id))
    pages = {}
    for role in ("weapons", "pilot"):
        client.cookies.clear()
        join(client, code, f"kestrel/{role}", role)
        pages[role] = dict(client.cookies)
    client.cookies.clear()
    client.cookies.set(gm_cookie(game_id), gm_token or "")
    dashboard = client.get(f"/gm/{game_id}")
    client.post(
        f"/gm/{game_id}/command",
        data={"type": "StartTurn"},
        headers={"X-CSRF-Token": csrf_of(dashboard.text)},
    )
    html = {}
    for role, cookies in pages.items():
        client.cookies.clear()
        for name, value in cookies.items():
            client.cookies.set(name, value)
        html[role] = (
            client.get(f"/play/{game_id}").text + client.get(f"/play/{game_id}/panels").text
        )
    own = {
        role: set(re.findall(r'name="cards" value="([^"]+)"', text)) for role, text in html.items()
    }
    assert own["weapons"] and own["pilot"]
    for card in own["weapons"]:
        assert card not in html["pilot"]
    for card in own["pilot"]:
        assert card not in html["weapons"]


def test_unknown_games_get_a_page_not_json(client: TestClient) -> None:
    for path in ("/play/not-a-game", "/display/00000000-0000-0000-0000-000000000000"):
        answer = client.get(path)
        assert answer.status_code == 404
        assert "No such game" in answer.text


def test_the_projector_shows_the_join_qr_for_the_address_phones_use(client: TestClient) -> None:
    game_id, code = new_game(client)
    display = client.get(f"/display/{game_id}", headers={"Host": "10.1.2.3:8000"})
    assert display.status_code == 200
    assert f"http://10.1.2.3:8000/join/{code}" in display.text
    assert "<svg" in display.text
    assert 'ws-connect="/ws/display/' in display.text


def test_the_gm_frees_a_seat_and_the_old_phone_is_sent_to_join_again(client: TestClient) -> None:
    game_id, code = new_game(client)
    gm_token = client.cookies.get(gm_cookie(game_id)) or ""
    client.cookies.clear()
    join(client, code, "kestrel/pilot", "Ann")
    phone = dict(client.cookies)
    client.cookies.clear()
    client.cookies.set(gm_cookie(game_id), gm_token)
    dashboard = client.get(f"/gm/{game_id}")
    seats = client.get(f"/gm/{game_id}/seats")
    assert "Ann" in seats.text and 'id="seats"' in seats.text
    freed = client.post(
        f"/gm/{game_id}/seats/free",
        data={"ship": "kestrel", "station": "pilot"},
        headers={"X-CSRF-Token": csrf_of(dashboard.text)},
    )
    assert freed.status_code == 200
    assert "Ann" not in freed.text and "free: join with the code" in freed.text
    client.cookies.clear()
    for name, value in phone.items():
        client.cookies.set(name, value)
    back = client.get(f"/play/{game_id}", follow_redirects=False)
    assert back.status_code == 303 and back.headers["location"] == f"/join/{code}"


def test_the_gm_sees_which_phones_are_connected(client: TestClient) -> None:
    game_id, code = new_game(client)
    gm_token = client.cookies.get(gm_cookie(game_id)) or ""
    client.cookies.clear()
    token = join(client, code, "kestrel/pilot", "Ann")
    client.cookies.clear()
    client.cookies.set(gm_cookie(game_id), gm_token)

    def anns_phone() -> str:
        row = re.search(r"Ann.*?</tr>", client.get(f"/gm/{game_id}/seats").text, re.S)
        assert row is not None
        return row.group(0)

    assert "○ offline" in anns_phone()  # joined, but the station page is not open
    with client.websocket_connect(f"/ws/station/{game_id}?token={token}") as socket:
        socket.receive_text()  # the station's first screen
        assert "● online" in anns_phone()
    deadline = time.monotonic() + 5
    while "○ offline" not in anns_phone():  # its socket closed: cleared within moments
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_a_player_who_leaves_frees_the_station(client: TestClient) -> None:
    game_id, code = new_game(client)
    client.cookies.clear()
    join(client, code, "kestrel/comms", "Cy")
    page = client.get(f"/play/{game_id}")
    left = client.post(f"/play/{game_id}/leave", headers={"X-CSRF-Token": csrf_of(page.text)})
    assert left.status_code == 204
    assert left.headers["HX-Redirect"] == f"/join/{code}"
    again = client.get(f"/join/{code}")
    assert 'value="kestrel/comms" required>' in again.text  # free again, not disabled


def test_the_gm_lets_the_npcs_choose_legal_orders(client: TestClient) -> None:
    game_id, code = new_game(client)
    dashboard = client.get(f"/gm/{game_id}")
    headers = {"X-CSRF-Token": csrf_of(dashboard.text)}
    join(client, code, "kestrel/weapons", "Ann")  # one seat keeps the turn open after the NPCs
    for command in ({"type": "SetModule", "module": "npc", "on": "false"}, {"type": "StartTurn"}):
        given = client.post(f"/gm/{game_id}/command", data=command, headers=headers)
        assert given.status_code == 204, given.text
    before = client.get(f"/api/games/{game_id}").json()["version"]
    answer = client.post(f"/gm/{game_id}/npc-auto", headers=headers)
    assert answer.status_code == 204, answer.text
    events = client.get(f"/api/games/{game_id}/events?after=0").json()
    given = [e for e in events["events"] if e["type"] == "OrderGiven" and e["ship"] == "rustjaw"]
    assert {e["station"] for e in given} == {"weapons", "engineering", "pilot"}
    # One command, one unit of work: every NPC order in one version, the game one step on.
    assert {e["version"] for e in given} == {before + 1}
    assert client.get(f"/api/games/{game_id}").json()["version"] == before + 1
    again = client.post(f"/gm/{game_id}/npc-auto", headers={**headers, "HX-Request": "true"})
    assert again.status_code == 400 and 'data-code="NO_NPC_WAITING"' in again.text
    kestrel = [e for e in events["events"] if e["type"] == "OrderGiven" and e["ship"] == "kestrel"]
    assert kestrel == []  # a player's station is never ordered for them


def test_pages_and_scripts_are_sent_gzipped_to_phones(client: TestClient) -> None:
    _, code = new_game(client)
    page = client.get(f"/join/{code}", headers={"Accept-Encoding": "gzip"})
    script = client.get("/static/vendor/htmx.min.js", headers={"Accept-Encoding": "gzip"})
    assert page.headers.get("content-encoding") == "gzip"
    assert script.headers.get("content-encoding") == "gzip"


def _panel(html: str, element_id: str) -> str:
    """From the element with this id to the end of the section holding it."""
    start = html.index(f'id="{element_id}"')
    return html[start : html.index("</section>", start)]


def test_a_turn_waiting_for_npc_orders_says_so_and_the_room_sees_every_ship(
    client: TestClient,
) -> None:
    game_id, code = new_game(client)
    dashboard = client.get(f"/gm/{game_id}")
    headers = {"X-CSRF-Token": csrf_of(dashboard.text)}
    join(client, code, "kestrel/weapons", "Friedrich-Wilhelm von Hohenzollern-Sigma")
    for command in ({"type": "SetModule", "module": "npc", "on": "false"}, {"type": "StartTurn"}):
        given = client.post(f"/gm/{game_id}/command", data=command, headers=headers)
        assert given.status_code == 204, given.text
    waiting = _panel(client.get(f"/gm/{game_id}").text, "waiting")
    assert "The turn waits for 3 NPC stations: only you can give their orders." in waiting
    assert 'hx-post="npc-auto"' in waiting  # the one button that ends the wait
    room = _panel(client.get(f"/display/{game_id}").text, "ready")
    rustjaw = room[room.index('id="ready-rustjaw"') :]
    assert "Rustjaw" in rustjaw and "… choosing" in rustjaw  # the NPC ship is on the list
    assert client.post(f"/gm/{game_id}/npc-auto", headers=headers).status_code == 204
    assert "NPC station" not in _panel(client.get(f"/gm/{game_id}").text, "waiting")
    room = _panel(client.get(f"/display/{game_id}").text, "ready")
    rustjaw = room[room.index('id="ready-rustjaw"') :]
    assert "✓ ready" in rustjaw and "… choosing" not in rustjaw


def test_the_gm_passes_in_one_tap_for_every_station_whose_phone_is_offline(
    client: TestClient,
) -> None:
    """Two players joined but no phone of theirs is connected (no socket opened): the waiting
    line names both stations, and the one button passes for both, which reveals the turn."""
    game_id, code = new_game(client)
    gm = dict(client.cookies)
    for seat, name in (("kestrel/weapons", "Ann"), ("kestrel/engineering", "Bo")):
        client.cookies.clear()  # two phones
        join(client, code, seat, name)
    client.cookies.clear()
    client.cookies.update(gm)
    dashboard = client.get(f"/gm/{game_id}")
    headers = {"X-CSRF-Token": csrf_of(dashboard.text)}
    assert client.post(f"/gm/{game_id}/command", data={"type": "StartTurn"}, headers=headers)
    waiting = html.unescape(_panel(client.get(f"/gm/{game_id}").text, "waiting"))
    for station in ("Weapons", "Engineering"):
        assert f"Waiting for {station} on Kestrel — their phone is offline." in waiting
    assert 'hx-post="offline-pass"' in waiting
    stations = re.findall(r'name="station" value="(kestrel/\w+)"', waiting)
    assert sorted(stations) == ["kestrel/engineering", "kestrel/weapons"]
    passed = client.post(f"/gm/{game_id}/offline-pass", data={"station": stations}, headers=headers)
    assert passed.status_code == 204, passed.text
    view = client.get(f"/api/games/{game_id}/view").json()["view"]
    assert view["game"]["phase"] == "turn_end" and view["revealed"]
    assert "offline" not in _panel(client.get(f"/gm/{game_id}").text, "waiting")


def _move_on(client: TestClient, game_id: str, headers: dict[str, str], scenario: str) -> None:
    data = {"scenario": scenario, "command_id": scenario + "-move"}
    moved = client.post(f"/gm/{game_id}/evening/next", data=data, headers=headers)
    assert moved.status_code == 200 and "toast" not in moved.text, moved.text


def test_moving_on_keeps_a_player_with_no_station_and_forgets_the_last_battle(
    client: TestClient,
) -> None:
    lobby = client.get("/gm")
    answer = client.post(
        "/gm",
        data={"scenario": "convoy", "seed": "7", "csrf": csrf_of(lobby.text)},
        follow_redirects=False,
    )
    game_id = answer.headers["location"].rsplit("/", 1)[1]
    dashboard = client.get(f"/gm/{game_id}")
    headers = {"X-CSRF-Token": csrf_of(dashboard.text)}
    code = re.search(r'class="d-code">(\w+)<', dashboard.text)
    assert code is not None
    name = "Friedrich-Wilhelm von Hohenzollern-Sigma"
    join(client, code.group(1), "resolute/captain", name, "amara-lind")
    for station in ("weapons", "engineering", "pilot", "comms"):  # the frigate's crew, by hand
        seat = {"type": "SeatCrew", "ship": "kestrel", "station": station, "seat": station}
        seat["name"] = station
        given = client.post(f"/gm/{game_id}/command", data=seat, headers=headers)
        assert given.is_success, given.text
    for command in ({"type": "StartTurn"}, {"type": "EndCombat"}):
        assert client.post(f"/gm/{game_id}/command", data=command, headers=headers).is_success
    assert "Combat 1 is over." in client.get(f"/display/{game_id}").text
    _move_on(client, game_id, headers, "skirmish")  # one frigate: no captain's station
    evening = client.get(f"/gm/{game_id}/evening").text
    assert "On the table's roster, with no station in this battle:" in evening
    assert f"<b>{name}</b> (Captain)" in evening
    phone = client.get(f"/play/{game_id}")
    assert phone.status_code == 200
    assert "This battle has no Captain station free for you." in phone.text
    assert f"You stay on the table's roster as {name} with Dr Amara Lind" in phone.text
    for page in (phone.text, client.get(f"/display/{game_id}").text):
        assert "Combat 1 is over." not in page and "Convoy" not in page
    _move_on(client, game_id, headers, "convoy")  # the captain's station again
    phone = client.get(f"/play/{game_id}")
    assert "table's roster" not in phone.text
    assert f"{name} as Dr Amara Lind" in phone.text
