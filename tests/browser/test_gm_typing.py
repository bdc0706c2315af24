"""The GM types into the dashboard while the game goes on: a push that redraws the panel under
the field being typed into keeps the field, the focus and what was typed, so the GM's Enter sends
what they typed and not the value the push drew."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from playwright.sync_api import expect

from app.web.deps import gm_cookie
from tests.browser.conftest import Server
from tests.browser.screens import create_game

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000


def test_a_push_between_the_click_and_the_typing_keeps_the_gms_field(
    server: Server, browser: Any
) -> None:
    gm = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    create_game(gm, server.base, scenario="skirmish")
    game_id = gm.url.rsplit("/", 1)[1]
    token = next(c["value"] for c in gm.context.cookies() if c["name"] == gm_cookie(game_id))

    def command(**fields: Any) -> None:
        given = gm.request.post(
            f"{server.base}/api/games/{game_id}/commands",
            data={"command_id": uuid.uuid4().hex, **fields},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert given.ok, given.text()

    def stored() -> int:
        """The Pilot's damage as the server keeps it."""
        answer = gm.request.get(
            f"{server.base}/api/games/{game_id}/view",
            headers={"Authorization": f"Bearer {token}"},
        )
        ships = answer.json()["view"]["ships"]
        kestrel = next(s for s in ships if s["id"] == "kestrel")
        return int(next(t for t in kestrel["stations"] if t["id"] == "pilot")["damage"])

    def stored_becomes(value: int) -> None:
        for _ in range(100):
            if stored() == value:
                return
            gm.wait_for_timeout(100)
        assert stored() == value

    pilot = gm.locator("#gm-track-kestrel-pilot input[name=damage]")
    row = gm.locator("#gm-track-kestrel-pilot")
    # The GM clicks into the field, about to type; meanwhile another GM device (or a prop's cue)
    # changes the same row, and the push draws it again.
    pilot.click()
    row.evaluate("el => { el.dataset.before = 'yes'; }")
    command(type="SetTrack", ship="kestrel", track="pilot", damage=1)
    expect(pilot).to_have_value("1", timeout=WAIT)
    expect(row).not_to_have_attribute("data-before", "yes")  # the row was drawn anew
    expect(pilot).to_be_focused()
    gm.keyboard.press("Control+A")
    gm.keyboard.type("2")
    gm.keyboard.press("Enter")
    stored_becomes(2)

    # What the GM has typed but not sent survives a redraw of its row, focused.
    expect(pilot).to_have_value("2", timeout=WAIT)
    pilot.click()
    gm.keyboard.press("Control+A")
    gm.keyboard.type("3")
    row.evaluate("el => { el.dataset.before = 'yes'; }")
    command(type="SetTrack", ship="kestrel", track="pilot", damage=0)
    expect(row).not_to_have_attribute("data-before", "yes", timeout=WAIT)
    expect(pilot).to_be_focused()
    expect(pilot).to_have_value("3")
    gm.keyboard.press("Enter")
    stored_becomes(3)


def test_an_order_given_mid_turn_shows_in_the_gms_order_list(server: Server, browser: Any) -> None:
    """The order list is pushed a ship at a time: each ship's rows reach the dashboard alone."""
    gm = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    create_game(gm, server.base, scenario="skirmish", modules_off=("npc",))
    game_id = gm.url.rsplit("/", 1)[1]
    token = next(c["value"] for c in gm.context.cookies() if c["name"] == gm_cookie(game_id))
    gm.click("#turn button:has-text('Start combat')")
    expect(gm.locator("#turn")).to_contain_text("Turn 1 · Orders", timeout=WAIT)
    expect(gm.locator("#orders-table")).not_to_have_attribute("hidden", "")
    rustjaw = gm.locator("#orders-rustjaw")
    expect(rustjaw.locator(".ready.yes")).to_have_count(0)
    given = gm.request.post(
        f"{server.base}/api/games/{game_id}/commands",
        data={
            "command_id": uuid.uuid4().hex,
            "type": "PassOrder",
            "ship": "rustjaw",
            "station": "weapons",
        },
        headers={"Authorization": f"Bearer {token}"},
    )
    assert given.ok, given.text()
    expect(rustjaw.locator(".ready.yes")).to_have_count(1, timeout=WAIT)
    expect(rustjaw).to_contain_text("Weapons")
