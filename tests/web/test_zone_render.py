"""G-ZONE-6: on a zone map the projector, the GM and the phones draw zones, not squares: every
zone by name with its terrain and cover, every ship in its zone, the range in words, and the
Pilot's zones with what each costs."""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.rules import apply, display_view, gm_view, station_view
from app.rules import commands as c
from app.web.render import render_page
from tests.web import games
from tests.web.test_render import PAGE

State = dict[str, Any]


@pytest.fixture(scope="module")
def ambush() -> State:
    state = games.seated("nebula-ambush")
    # Two raiders share the Dense Nebula, so the map must show both in one zone.
    for command in (
        c.PlaceInZone(ship="jackal-3", zone="dense-nebula"),
        c.StartTurn(now=games.NOW),
    ):
        state, _ = apply(state, command)
    return state


def zone_group(html: str, zone: str) -> str:
    """The SVG group drawing one zone (up to the next zone's)."""
    found = re.search(
        rf'<g class="zone [^"]*" data-zone="{zone}".*?(?=<g class="zone |</svg>)', html, re.S
    )
    assert found is not None, zone
    return found.group(0)


@pytest.mark.parametrize("audience", ["display", "gm"])
def test_g_zone_6_the_projector_and_the_gm_draw_every_zone_terrain_cover_and_ship(
    ambush: State, audience: str
) -> None:
    view = display_view(ambush) if audience == "display" else gm_view(ambush)
    html = render_page(audience, view, **PAGE)
    assert 'class="map-svg zone-map' in html and 'class="grid"' not in html
    for zone in ambush["map"]["zones"].values():
        group = zone_group(html, zone["id"])
        assert f"<title>{zone['name']}" in group  # whole, for a hover
        name = re.search(r'class="zone-name">([^<]+)<', group)
        assert name is not None
        # Whole, or its start with an ellipsis where neighbours need the room.
        whole = zone["name"]
        assert name[1] == whole or (name[1].endswith("…") and whole.startswith(name[1][:-1]))
        assert f"terrain-{zone['terrain']}" in group
        assert ("zone-cover-ring" in group) is zone["cover"]
        assert ("cover +2" in group) is zone["cover"]  # in its title, for a hover
        short = {"open": "open", "difficult": "difficult", "hazardous": "⚠ hazard"}
        drawn_terrain = short[zone["terrain"]] + (f" +{zone['cost']}" if zone["cost"] else "")
        assert f">{drawn_terrain}<" in group
        assert ('class="zone-terrain">cover<' in group) is zone["cover"]  # a line of its own
        ships = [s for s in ambush["ships"].values() if s["zone"] == zone["id"]]
        drawn = re.findall(r'data-ship="([^"]+)"', group)
        assert sorted(drawn) == sorted(s["id"] for s in ships)
        # Ships sharing a zone are listed one below the other, never on one spot.
        offsets = re.findall(r'class="zone-ship[^"]*" transform="translate\(0 ([\d.]+)\)"', group)
        assert len(set(offsets)) == len(ships)
    # The range between the sides in words.
    assert re.search(
        r"Kestrel</span> → <span[^>]*>Gutter Knife</span></td><td><b>Long</b></td><td>2 zones", html
    )


def test_g_zone_6_the_pilot_sees_each_zones_cost_before_sending(ambush: State) -> None:
    html = render_page("station", station_view(ambush, games.SEATS["pilot"]), **PAGE)
    assert "zone-pick-map" in html
    assert "Kestrel is in <b>Jump Point</b>" in html
    tiles = dict(
        re.findall(r'<label class="choice zone-choice" data-zone="([^"]+)" data-need="(\d+)"', html)
    )
    # One zone on for 3; two for 6; through the Debris Field (+1) to the Comet Tail for 7.
    assert tiles["outer-rim"] == "3" and tiles["dense-nebula"] == "6"
    assert tiles["comet-tail"] == "7"
    assert tiles["raider-den"] == "999"  # three zones: out of reach whatever the cards
    assert "too far: a manoeuvre moves one or two zones" in html


def test_g_zone_6_the_gm_moves_ships_between_zones(ambush: State) -> None:
    html = render_page("gm", gm_view(ambush), **PAGE)
    assert 'name="type" value="PlaceInZone"' in html
    assert 'name="type" value="SetPosition"' not in html
