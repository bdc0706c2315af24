"""The GM's loop on a 1366x768 laptop: a game from the lobby, the turn, the orders and
the last reveal on the first screen, a second wave in one form, and a Destroy and an End combat
that ask first (two clicks, no dialog a kiosk browser would block)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import FloatRect, Page, expect

from app.content import load_catalogue
from tests.browser.conftest import Server
from tests.browser.screens import shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000
WIDTH, HEIGHT = 1366, 768


def on_first_screen(page: Page, selector: str) -> FloatRect:
    """The element's box, asserted to lie wholly inside the viewport at the top of the page."""
    assert page.evaluate("window.scrollY") == 0
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= WIDTH, (selector, box)
    assert box["y"] + box["height"] <= HEIGHT, (selector, box)
    return box


def test_the_gm_starts_a_game_keeps_up_adds_a_ship_and_destroys_it(
    server: Server, browser: Any
) -> None:
    gm = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}).new_page()
    gm.goto(f"{server.base}/gm")
    on_first_screen(gm, "button:has-text('Create game')")  # not below the fold
    # Every scenario is offered, with its modules to switch.
    for scenario in load_catalogue().scenarios.values():
        expect(gm.locator(f"label.choice:has(input[value={scenario.id}])")).to_contain_text(
            scenario.name
        )
    convoy = gm.locator("label.choice:has(input[value=convoy])")
    convoy.click()
    convoy.locator("input[value=syshit]").check()
    convoy.locator("input[value=npc]").uncheck()  # the GM has the NPCs choose, below
    shot(gm, "gm-lobby-scenarios-with-modules")
    gm.click("button:has-text('Create game')")
    gm.wait_for_url(re.compile(r"/gm/[0-9a-f-]+$"))
    game_id = gm.url.rsplit("/", 1)[1]
    expect(gm.locator("#turn")).to_contain_text("System hits: on")
    expect(gm.locator("a[href='/gm']")).to_be_visible()
    display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    display.goto(f"{server.base}/display/{game_id}")

    # A turn with a result, and the next turn open: all three on the first screen.
    gm.click("#turn button:has-text('Start combat')")
    gm.click("#npc button:has-text('Let the NPCs choose')")  # the last order reveals the turn
    expect(gm.locator("#reveal")).to_contain_text("Turn 1 revealed", timeout=WAIT)
    gm.click("#turn button:has-text('Start turn 2')")
    expect(gm.locator("#turn .gm-phase")).to_contain_text("Turn 2", timeout=WAIT)
    expect(gm.locator("#waiting")).to_contain_text("still choosing", timeout=WAIT)
    turn = on_first_screen(gm, "#turn")
    orders = on_first_screen(gm, "#orders")
    reveal = on_first_screen(gm, "#reveal")
    on_first_screen(gm, "#npc button:has-text('Let the NPCs choose')")
    assert turn["y"] < 120 and orders["y"] < 120 and reveal["y"] < 120
    shot(gm, "gm-first-screen-1366")

    # A second wave: one form, and the ship arrives whole.
    cruiser = load_catalogue().ships["cruiser"]
    add = gm.locator("#add-ship")
    add.locator("select[name=ship_class]").select_option("cruiser")
    add.locator("input[name=name]").fill("Iron Maw")
    add.locator("input[name=x]").fill("14")
    add.locator("input[name=y]").fill("2")
    add.locator("button:has-text('Add ship')").click()
    ship = gm.locator("article.gm-ship", has_text="Iron Maw")
    expect(ship).to_be_visible(timeout=WAIT)
    hull = ship.locator(".gm-row", has_text="Hull")
    expect(hull).to_contain_text(f"{cruiser.hull.boxes}/{cruiser.hull.boxes}")
    expect(ship.locator(".gm-row", has_text="Shields")).to_contain_text(
        f"{cruiser.shields.boxes}/{cruiser.shields.boxes}"
    )
    expect(ship).to_contain_text("Shields UP")
    expect(add.locator("input[name=name]")).to_have_value("")  # ready for the next one
    expect(display.locator("#ship-status")).to_contain_text("Iron Maw", timeout=WAIT)
    shot(gm, "gm-dashboard-1366-whole-page", full_page=True)

    # Destroy asks first: one click arms the button, nothing happens; the second destroys.
    destroy = ship.locator("button:has-text('Destroy')")
    destroy.click()
    expect(destroy).to_have_text("Destroy Iron Maw? Click again")
    gm.wait_for_timeout(700)
    expect(ship.locator(".destroyed-tag")).to_have_count(0)
    # A push that redraws the ships meanwhile (here a hit on its Hull) leaves it armed.
    headers = json.loads(gm.get_attribute("body", "hx-headers") or "{}")
    hit = gm.request.post(
        f"{server.base}/gm/{game_id}/command",
        form={"type": "SetTrack", "ship": "iron-maw", "track": "hull", "damage": "1"},
        headers={**headers, "HX-Request": "true"},
    )
    assert hit.ok, hit.text()
    expect(hull).to_contain_text(f"{cruiser.hull.boxes - 1}/{cruiser.hull.boxes}", timeout=WAIT)
    expect(destroy).to_have_text("Destroy Iron Maw? Click again")
    destroy.click()
    expect(ship.locator(".destroyed-tag")).to_have_text("DESTROYED", timeout=WAIT)
    expect(display.locator("#ship-status")).to_contain_text("DESTROYED", timeout=WAIT)
    # Its Hull reads destroyed, not the boxes it kept.
    expect(hull).to_contain_text("destroyed")
    expect(hull).not_to_contain_text(f"/{cruiser.hull.boxes}")
    expect(display.locator("#ship-iron-maw .hull-row")).to_contain_text("destroyed")

    # So does End combat; left alone, the armed button stands down by itself.
    end = gm.locator("#turn button:has-text('End combat')")
    end.click()
    expect(end).to_have_text(re.compile("Click again"))
    expect(end).to_have_text("End combat", timeout=8_000)
    expect(gm.locator("#turn .gm-phase")).to_contain_text("Orders")
    end.click()
    gm.locator("#turn button:has-text('Click again')").click()
    expect(gm.locator("#turn .gm-phase")).to_contain_text("Downtime", timeout=WAIT)

    # The Seats panel is far down; the bar at the top jumps there, on the same page.
    gm.evaluate("window.scrollTo(0, 0)")
    gm.click(".gm-jump a:has-text('Seats')")
    gm.wait_for_function(
        "() => { const r = document.getElementById('seats').getBoundingClientRect();"
        " return r.top >= 0 && r.top < innerHeight / 2; }",
        timeout=WAIT,
    )
    assert gm.url.endswith(f"/gm/{game_id}")
    expect(gm.locator(".gm-bar")).to_be_in_viewport()
