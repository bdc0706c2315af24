"""Text that players and GMs type reaches every screen as text, never as markup: names, messages,
modifier reasons and ship names, on every page, panel, toast and websocket push."""

import re
from typing import Any

from fastapi.testclient import TestClient

from app.service import Viewer, load_state, view_for
from app.web.render import render_push
from tests.server.conftest import Table

SCRIPT = "<script>alert(1)</script>"
ATTRIBUTE = '"><img src=x onerror=alert(2)>'
RAW = re.compile(r"<script>alert|<img src=x|onerror=alert\(2\)>")


def assert_escaped(html: str, where: str) -> None:
    found = RAW.search(html)
    assert found is None, f"{where}: {html[max(0, found.start() - 80) : found.end() + 40]!r}"


def test_hostile_text_is_escaped_on_every_screen_and_push(table: Table) -> None:
    client = table.client
    game = table.game_id
    # A player joins through the phone's form with a hostile name...
    client.get(f"/join/{table.join_code}")
    joined = client.post(
        f"/join/{table.join_code}",
        data={"seat": "kestrel/weapons", "name": SCRIPT, "csrf": client.cookies["bc_csrf"]},
        follow_redirects=False,
    )
    assert joined.status_code == 303
    csrf = client.cookies["bc_csrf"]
    phone = {
        "Cookie": f"bc_seat_{game}={client.cookies[f'bc_seat_{game}']}; bc_csrf={csrf}",
        "X-CSRF-Token": csrf,
    }
    # ...another through the API, and the GM types hostile text wherever text goes.
    pilot = table.seat("pilot", name=ATTRIBUTE)
    table.gm_command(type="SendMessage", text=SCRIPT)
    table.gm_command(type="SendMessage", text=ATTRIBUTE, to="kestrel/weapons")
    table.gm_command(type="SendMessage", text=SCRIPT, to="kestrel")
    table.gm_command(type="SetShipValue", ship="rustjaw", field="name", value=SCRIPT)
    table.gm_command(
        type="ImposeModifier", ship="kestrel", applies="attack", value=-1, reason=ATTRIBUTE
    )
    table.gm_command(type="StartTurn", seconds=0)

    pages: dict[str, str] = {}

    def as_phone(method: str, url: str, **kwargs: Any) -> str:
        client.cookies.clear()  # only the phone's own cookies
        return str(client.request(method, url, headers=phone, **kwargs).text)

    pages["station page"] = as_phone("GET", f"/play/{game}")
    pages["station panels"] = as_phone("GET", f"/play/{game}/panels")
    order = {"action": "attack", "target": "rustjaw"}
    pages["station toast"] = as_phone("POST", f"/play/{game}/order", data=order)
    pages["station answer"] = as_phone("POST", f"/play/{game}/pass")
    client.cookies.clear()
    pages["pilot page"] = client.get(f"/play/{game}", headers=pilot["headers"]).text
    client.cookies.clear()
    client.get(f"/gm/{game}", params={"token": table.gm_token})
    pages["gm page"] = client.get(f"/gm/{game}").text
    pages["gm panels"] = client.get(f"/gm/{game}/panels").text
    pages["gm seats"] = client.get(f"/gm/{game}/seats").text
    pages["display page"] = client.get(f"/display/{game}").text
    pages["display panels"] = client.get(f"/display/{game}/panels").text
    pages["join page"] = client.get(f"/join/{table.join_code}").text
    pages["join again"] = client.post(  # the station is taken: the form comes back, name and all
        f"/join/{table.join_code}",
        data={"seat": "kestrel/weapons", "name": SCRIPT, "csrf": client.cookies["bc_csrf"]},
    ).text
    pages["error page"] = client.get(f"/play/{game}", headers={"Authorization": "Bearer x"}).text

    factory = client.app.state.session_factory  # type: ignore[attr-defined]
    assert client.portal is not None
    state = client.portal.call(load_state, factory, game)[1]
    seats = [s["crew"]["seat"] for s in state["ships"]["kestrel"]["stations"].values() if s["crew"]]
    viewers: list[Viewer] = ["gm", "display", *(("seat", seat) for seat in seats)]
    for viewer in viewers:
        audience = viewer if isinstance(viewer, str) else "station"
        pages[f"push for {viewer}"] = render_push(audience, view_for(state, viewer))
    pages["websocket push"] = websocket_push(client, game, pilot["seat_token"])

    for where, html in pages.items():
        assert_escaped(html, where)
    shown = "\n".join(pages.values())
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in shown  # it was shown, as text
    assert "&lt;img src=x onerror=alert(2)&gt;" in shown
    for where in ("station page", "gm page", "display page", "gm seats", "join again"):
        assert "&lt;script&gt;" in pages[where] or "&lt;img" in pages[where], where


def websocket_push(client: TestClient, game: str, token: str) -> str:
    with client.websocket_connect(f"/ws/station/{game}?token={token}") as socket:
        return socket.receive_text()
