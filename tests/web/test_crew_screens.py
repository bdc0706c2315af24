"""The screens of NPC crews and seats: Change position and Override on the phone (M-SEATS-1/2),
the fallen character's message (M-SEATS-3), and the GM's NPC crew controls and orders
(M-NPC-1/2)."""

from __future__ import annotations

import re
from typing import Any

from app.rules import commands as c
from app.rules import gm_view, station_view
from app.web.render import render_page
from tests.rules.builders import game, run, started

PAGE = {
    "game_id": "00000000-0000-0000-0000-000000000001",
    "csrf": "token",
    "join_code": "K7QF",
    "join_url": "http://10.0.0.5:8000/join/K7QF",
    "join_qr": "",
    "props_code": None,
}


def phone(state: dict[str, Any], station: str) -> str:
    return render_page("station", station_view(state, f"kestrel-{station}"), **PAGE)


def crewed(modules: tuple[str, ...]) -> dict[str, Any]:
    state = game("skirmish", modules=modules, characters={"kestrel/pilot": "ilse-marrow"})
    return started(run(state, c.UnseatCrew(ship="kestrel", station="comms")))


def test_m_seats_1_every_phone_has_change_position_with_free_and_taken_stations() -> None:
    html = phone(crewed(("seats",)), "weapons")
    assert "Change position" in html
    assert re.search(r'value="comms"[^>]*>[^<]*Comms ·\s*free: move now', html)
    assert re.search(r'value="pilot"[^>]*>[^<]*Pilot ·\s*taken by P pilot', html)
    assert "Skill cards come with you; your Station cards stay here" in html
    assert "Change position" not in phone(crewed(()), "weapons")  # only with the module


def test_m_seats_2_the_order_builder_offers_override_of_an_unmanned_station_at_minus_2() -> None:
    html = phone(crewed(("seats",)), "weapons")
    assert "Override Comms (unmanned) · −2" in html
    assert 'name="override" value="comms"' in html
    assert "Override Pilot" not in html  # manned and working


def test_m_seats_3_a_fallen_character_s_phone_says_why() -> None:
    state = crewed(("seats",))
    for field in ("endurance", "strength"):
        state = run(state, c.SetCharacteristic(character="ilse-marrow", field=field, value=0))
    html = phone(state, "pilot")
    assert "Your character is unconscious: the station is unmanned until first aid." in html
    assert "Change position" not in html


def test_m_npc_2_the_gm_sees_each_npc_order_and_sets_quality_and_automation() -> None:
    state = run(game("skirmish", modules=("npc",)), c.SetNpc(ship="rustjaw", quality="talented"))
    html = render_page("gm", gm_view(started(state)), **PAGE)
    assert re.search(r'<option value="talented" selected>Talented \(\+3\)', html)
    assert '<option value="true" selected>Orders by its tactic' in html
    assert "Manoeuvre (crew roll)" in html  # the tactic's order, rolled at the reveal
