"""Accessibility: axe-core finds no serious or critical violation on any page: the
lobby, the GM's dashboard (in combat and in Downtime), the join page, each station, the
projector and the error pages, in combat and with a ship destroyed (whose dimmed panel must stay
readable).

axe-core is vendored for the tests only (tests/browser/vendor, pinned by SHA256SUMS, checked in
tests/test_vendor_axe.py) and injected into each page by Playwright: it is never served."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server
from tests.browser.screens import create_game, join

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000
AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
SEATS = (
    "kestrel/weapons",
    "kestrel/engineering",
    "kestrel/pilot",
    "kestrel/comms",
    "resolute/captain",
)

# Serious and critical findings, and a page without a level-one heading (moderate, but every
# page lacked one), each with the first few elements it names.
RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical'
                 || v.id === 'page-has-heading-one')
    .map(v => v.id + ' (' + v.impact + '): '
         + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '));
}"""


def violations(page: Page) -> list[str]:
    page.add_script_tag(path=str(AXE))
    found: list[str] = page.evaluate(RUN_AXE)
    return found


def test_no_serious_or_critical_violations_on_any_page(
    server: Server, browser: Any, playwright: Any
) -> None:
    found: dict[str, list[str]] = {}
    gm = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    gm.goto(f"{server.base}/gm")
    found["lobby"] = violations(gm)
    code = create_game(gm, server.base, "convoy")
    game_id = gm.url.rsplit("/", 1)[1]

    phone_context = browser.new_context(**playwright.devices["iPhone 13"])
    joining = phone_context.new_page()
    joining.goto(f"{server.base}/join/{code}")
    found["join"] = violations(joining)
    phones = {}
    for seat in SEATS:
        phone = browser.new_context(**playwright.devices["iPhone 13"]).new_page()
        join(phone, server.base, code, seat, seat.split("/")[1].title())
        phones[seat] = phone

    gm.click("#turn button:has-text('Start combat')")
    expect(gm.locator("#turn button:has-text('Start combat')")).to_have_count(0, timeout=WAIT)
    row = gm.locator("article.gm-ship", has_text="Gutter Knife").locator(".gm-row", has_text="Hull")
    row.locator("input[name=damage]").fill("8")
    row.locator("button:has-text('dmg')").click()
    display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    display.goto(f"{server.base}/display/{game_id}")
    expect(display.locator("article.ship.destroyed")).to_have_count(1, timeout=WAIT)
    found["display"] = violations(display)
    # Enough lines that the GM's log scrolls.
    for line in range(25):
        gm.fill("#messages input[name=text]", f"Status check {line}.")
        gm.click("#messages button:has-text('Send')")
        # The button is disabled while its message is on its way: a click then would be lost.
        expect(gm.locator("#log")).to_contain_text(f"Status check {line}.", timeout=WAIT)
    gm.reload()
    found["gm"] = violations(gm)
    for seat, phone in phones.items():
        expect(phone.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)
        if seat.endswith("pilot"):
            phone.locator("#order label.choice:has(input[value=manoeuvre])").click()
        found[seat] = violations(phone)
    # After the combat the GM's dashboard shows Downtime's repair form and the modules.
    gm.click("#turn button:has-text('End combat')")
    gm.click("#turn button:has-text('Click again')")
    expect(gm.locator("#turn")).to_contain_text("Downtime repair", timeout=WAIT)
    found["gm in downtime"] = violations(gm)

    errors = browser.new_context().new_page()
    errors.goto(f"{server.base}/join/NOSUCH")
    found["unknown join code"] = violations(errors)
    errors.goto(f"{server.base}/display/00000000-0000-0000-0000-000000000000")
    found["unknown game"] = violations(errors)
    assert {page: v for page, v in found.items() if v} == {}
