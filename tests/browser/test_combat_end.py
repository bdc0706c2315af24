"""The end of a fight, in the browser: a combat played to a win, the projector and a
phone told that the raiders can no longer fight, the after-action report on both once the GM
ends the combat, and the next combat of the same game started from the dashboard."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
import uuid
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from app.web.deps import gm_cookie
from tests.browser.conftest import Server
from tests.browser.screens import join, pick_cards, send, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000


def gm_api(server: Server, gm: Page, game_id: str, **command: Any) -> None:
    """A GM correction through the JSON API, with the token the dashboard's cookie holds."""
    token = next(c["value"] for c in gm.context.cookies() if c["name"] == gm_cookie(game_id))
    request = urllib.request.Request(
        f"{server.base}/api/games/{game_id}/commands",
        data=json.dumps({"command_id": uuid.uuid4().hex, **command}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.status == 200
    except urllib.error.HTTPError as error:
        raise AssertionError(error.read().decode()) from error


# rule: G-END-1, G-END-2, G-END-3, G-CARD-5
def test_a_combat_to_a_win_its_report_on_projector_and_phone_then_the_next_combat(
    server: Server, browser: Any, playwright: Any
) -> None:
    gm = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    gm.goto(f"{server.base}/gm")
    gm.click("label.choice:has(input[value=skirmish])")
    gm.uncheck("input[name='modules.skirmish'][value=npc]")  # the GM passes for Rustjaw
    gm.click("button:has-text('Create game')")
    gm.wait_for_url(re.compile(r"/gm/[0-9a-f-]+$"))
    game_id = gm.url.rsplit("/", 1)[1]
    code = gm.inner_text(".gm-join .d-code").strip()
    phone = browser.new_context(**playwright.devices["Pixel 7"]).new_page()
    join(phone, server.base, code, "kestrel/weapons", "Ada")
    display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    display.goto(f"{server.base}/display/{game_id}")

    # Rustjaw limps in at Point Blank with one Hull box left: any hit ends it.
    gm_api(server, gm, game_id, type="SetTrack", ship="rustjaw", track="hull", damage=7)
    gm_api(server, gm, game_id, type="SetPosition", ship="rustjaw", x=4, y=5)
    gm.click("#turn button:has-text('Start combat')")
    expect(phone.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)

    # G-CARD-5: any card, one the gunner cannot play above all, leaves the hand at once.
    held = phone.locator("#hand .card").count()
    unfit = phone.locator("#hand .card.unfit")
    dropped = (unfit if unfit.count() else phone.locator("#hand .card")).first
    card_id = dropped.locator("input").get_attribute("value")
    phone.click("#hand summary:has-text('Discard cards')")
    phone.click(f"#hand .hand-discard label:has(input[value='{card_id}'])")
    phone.click("#hand button:has-text('Discard these')")
    expect(phone.locator("#hand .card")).to_have_count(held - 1, timeout=WAIT)
    expect(phone.locator(f"#hand .card input[value='{card_id}']")).to_have_count(0)

    for turn in range(1, 9):
        expect(phone.locator("#status")).to_contain_text(f"T{turn} · Orders", timeout=WAIT)
        phone.click("#order label.choice:has(input[value=attack])")
        assert pick_cards(phone, 3) >= 1
        send(phone)
        gm.click("#npc button:has-text('Pass for every NPC station')")
        expect(gm.locator("#turn")).to_contain_text("End of turn", timeout=WAIT)
        if "DESTROYED" in display.inner_text("#ship-status"):
            break
        gm.click("#turn button:has-text('Start turn')")
    expect(display.locator("#combat-end")).to_contain_text(
        "Raiders can no longer fight", timeout=WAIT
    )
    expect(phone.locator("#combat-end")).to_contain_text("Raiders can no longer fight")
    expect(gm.locator("#combat-end")).to_contain_text("End the combat, or play on")

    gm.click("#turn button:has-text('End combat')")
    gm.click("#turn button:has-text('Click again')")  # it cannot be undone: a second click
    for screen in (display, phone, gm):
        expect(screen.locator("#combat-end")).to_contain_text("Combat 1 is over", timeout=WAIT)
    shot(display, "projector-combat-over")
    shot(phone, "phone-combat-over")
    # On a phone the banner's report button sits beside or under its words, never on them.
    words = phone.locator("#combat-end .combat-over b").bounding_box()
    link = phone.locator("#combat-end .combat-over a.report-link").bounding_box()
    assert words is not None and link is not None
    apart = (
        link["y"] >= words["y"] + words["height"] - 0.5
        or link["x"] >= words["x"] + words["width"] - 0.5
    )
    assert apart, (words, link)

    # The report, opened from the link each screen shows.
    for screen in (display, phone):
        href = screen.locator("#combat-end a.report-link").get_attribute("href")
        report = screen.context.new_page()
        report.goto(f"{screen.url.rstrip('/')}/{href}" if href.startswith("report") else str(href))
        expect(report.locator("h1")).to_contain_text("After-action report")
        expect(report.locator("#combat-1")).to_contain_text("Turns played")
        rustjaw = report.locator("#combat-1 tr[data-ship=rustjaw]")
        expect(rustjaw).to_contain_text("destroyed")
        kestrel = report.locator("#combat-1 tr[data-ship=kestrel]")
        assert int(kestrel.locator("td").nth(2).inner_text()) >= 1  # the damage it dealt
        shot(report, "report")
        report.close()

    # G-END-3: the next combat, same ships, from the dashboard's one start button; refused, with
    # why, while the raiders have nothing left to fight with.
    expect(gm.locator("button:has-text('Start combat')")).to_have_count(0)
    gm.click("#turn button:has-text('Start the next combat')")
    expect(gm.locator("#toast")).to_contain_text("Raiders has no ship left that can fight")
    gm_api(server, gm, game_id, type="RestoreShip", ship="rustjaw")
    gm.click("#turn button:has-text('Start the next combat')")
    expect(phone.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)
    expect(gm.locator("#turn")).to_contain_text("combat 2")
    expect(display.locator("#combat-end")).not_to_contain_text("Combat 1 is over")
