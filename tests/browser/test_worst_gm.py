"""The GM's dashboard on the worst table (tests/browser/worst_case.py) at 1366x768: it says
whether a projector is connected, and whether the projector has had time to show the whole last
reveal before the GM starts the next turn."""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server
from tests.browser.screens import shot
from tests.browser.worst_case import (
    GM,
    PROJECTORS,
    WAIT,
    gm_page,
    projector_page,
    spills,
    worst_table,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_dashboard_says_whether_the_room_has_seen_the_whole_reveal(
    server: Server, browser: Any
) -> None:
    table = worst_table(server.base, ships=3)
    gm = browser.new_context(viewport=GM, locale="de-DE").new_page()
    gm.clock.install()
    gm.goto(f"{table.base}/gm/{table.game_id}?token={table.gm_token}")
    table.command("StartTurn")
    table.order_all(random.Random(3))
    if table.view()["game"]["phase"] == "orders":
        table.command("CloseOrders")
    reading = gm.locator("#turn .room-reading")
    expect(gm.locator("#reveal")).to_contain_text("aufgedeckt", timeout=WAIT)
    gm.wait_for_timeout(1000)
    expect(reading).to_be_hidden()  # no projector: the room reads nothing
    projector_page(browser, table, PROJECTORS[1])
    expect(reading).to_contain_text("zeigt noch", timeout=WAIT)
    entries = gm.locator("#reveal .turn-tally > li, #reveal .results > li").count()
    assert entries > 3
    # The projector gives an entry two seconds: not yet all shown after half of that.
    gm.clock.run_for(entries * 1000)
    expect(reading).to_contain_text("zeigt noch")
    gm.clock.run_for(entries * 1000 + 1000)
    expect(reading).to_contain_text(f"alles gezeigt, was in Runde {table.view()['game']['turn']}")


def test_the_dashboard_says_while_no_projector_is_connected(server: Server, browser: Any) -> None:
    """The line shows while no projector is open, goes once one opens from its link, and comes
    back once the projector closes and its grace (a reload's) is over."""
    table = worst_table(server.base, ships=2)
    gm = gm_page(browser, table)
    line = gm.locator("#turn .gm-no-projector")
    expect(line).to_have_text(
        "Kein Projektor verbunden: Der Raum sieht nichts. Projektorbild öffnen", timeout=WAIT
    )
    expect(line).to_be_in_viewport(ratio=1)
    assert spills(gm, "#turn") == []
    shot(gm, "gm-no-projector")
    with gm.context.expect_page() as opened:
        line.locator("a").click()
    projector = opened.value
    expect(projector.locator("main.display")).to_be_attached(timeout=WAIT)
    expect(line).to_have_count(0, timeout=WAIT)
    projector.close()
    gm.wait_for_timeout(1000)
    expect(line).to_have_count(0)  # within the grace a reload would be back
    expect(line).to_be_visible(timeout=WAIT)


def test_every_dashboard_panel_holds_sixty_character_ship_names(
    server: Server, browser: Any
) -> None:
    """Eight ships under 60-character names at 1366x768: the order status column, the NPC
    orders and their selects, the ships: nothing spills out of its panel, every 'ready' mark
    is inside its panel, a name too long for its place ends in an ellipsis (whole in its title)."""
    table = worst_table(server.base, ships=8)
    gm = gm_page(browser, table)
    table.command("StartTurn")
    expect(gm.locator("#turn")).to_contain_text("Runde 1", timeout=WAIT)
    table.order_all(random.Random(5), but="captain")  # the orders stay listed
    expect(gm.locator("#orders-table")).to_be_visible()
    expect(gm.locator("#orders-table .ready.yes").first).to_be_visible(timeout=WAIT)
    # The projector's language is set where the GM sees it on opening the dashboard.
    expect(gm.locator("#turn select[name=language]")).to_be_in_viewport(ratio=1)
    gm.wait_for_timeout(500)
    for summary in gm.locator("details:not([open]) > summary").all():
        if summary.is_visible():
            summary.click()
    shot(gm, "worst-gm-8-ships", full_page=True)
    problems = spills(gm)
    assert not problems, "\n".join(problems)
    outside = gm.evaluate(
        """() => Array.from(document.querySelectorAll(
            'section.panel [class*=ready], section.panel select'))
          .filter(el => el.checkVisibility()).flatMap(el => {
            const r = el.getBoundingClientRect();
            const p = el.closest('section.panel').getBoundingClientRect();
            return r.right > p.right + 1 || r.left < p.left - 1
              ? [el.closest('section.panel').id + ': ' + el.textContent.trim().slice(0, 30)] : [];
          })"""
    )
    assert not outside, outside
