"""G-SHIP-1: every screen draws the players' side as theirs whatever it is called: the projector's
ships, map and distances, the GM's ships and orders, a phone's contacts."""

from __future__ import annotations

import re

from app.rules import apply, display_view, gm_view, new_game, station_view
from app.rules import commands as c
from app.web.render import render_page
from tests.rules.builders import CAT
from tests.rules.test_players_side import renamed

from .test_render import PAGE

GERMAN = {"players": "allianz", "raiders": "piraten"}


def classes(html: str, element_id: str) -> set[str]:
    found = re.search(
        rf'id="{element_id}"[^>]*class="([^"]*)"|class="([^"]*)"[^>]*id="{element_id}"', html
    )
    assert found, element_id
    return set((found.group(1) or found.group(2)).split())


def test_g_ship_1_the_projector_draws_allianz_as_the_players() -> None:
    state = new_game(renamed(GERMAN), CAT, seed=1)
    html = render_page("display", display_view(state), **PAGE)
    assert "players-side" in classes(html, "ship-kestrel")
    assert "players-side" not in classes(html, "ship-rustjaw")
    # The map: the players' triangle for the frigate, the enemy's diamond for the raider.
    marks = dict(re.findall(r'<g class="ship-mark ([^"]*)">.*?<title>(\w+)</title>', html, re.S))
    marks = {name: set(cls.split()) for cls, name in marks.items()}
    assert "players-side" in marks["Kestrel"] and "players-side" not in marks["Rustjaw"]
    kestrel = html[
        html.index("<title>Kestrel</title>") - 400 : html.index("<title>Kestrel</title>")
    ]
    assert "<polygon" in kestrel
    assert re.search(r"Kestrel</span> → <span[^>]*>Rustjaw</span></td>", html)


def test_g_ship_1_the_gm_and_the_phones_draw_allianz_as_the_players() -> None:
    state = new_game(renamed(GERMAN), CAT, seed=1)
    state, _ = apply(state, c.SeatCrew(ship="kestrel", station="pilot", seat="seat-p", name="Ida"))
    gm = render_page("gm", gm_view(state), **PAGE)
    assert "players-side" in classes(gm, "gm-ship-kestrel")
    assert "players-side" not in classes(gm, "gm-ship-rustjaw")
    phone = render_page("station", station_view(state, "seat-p"), **PAGE)
    assert "players-side" in classes(phone, "ship-kestrel")
    assert "players-side" not in classes(phone, "contact-rustjaw")
