"""The projector shows every entry of a long turn, in a few pages. Eight NPC crews reveal a turn
of a dozen results and more at once; the reveal box shows them a page at a time, at most four
pages, and every entry is, at some moment, whole inside the box at 24 px or more. A resync that
re-renders the reveal mid-cycle keeps the page the room is reading. The GM hears the room has seen
it all when the projector has shown its last page."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server
from tests.browser.screens import create_game, shot
from tests.browser.worst_case import GM, PROJECTORS, READABLE_PAGES, worst_table

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000
FLOOR = 24
# Longer than any page stays up: the fake clock jumps this far to turn the page.
TURN_PAGE_MS = 120_000

# Each entry of the reveal, in order: its text, the smallest font size of its text, its height,
# and which part of it (from, to: px below its top) is on screen, neither cut by the window nor by
# any box that clips it.
ENTRIES = """() => Array.from(document.querySelectorAll(
    '#reveal .turn-tally > li, #reveal .results > li, #reveal .orders-revealed > li')).map(li => {
  const r = li.getBoundingClientRect();
  let top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);
  for (let up = li.parentElement; up; up = up.parentElement) {
    if (getComputedStyle(up).overflow === 'visible') continue;
    const c = up.getBoundingClientRect();
    top = Math.max(top, c.top);
    bottom = Math.min(bottom, c.bottom);
  }
  const sizes = Array.from(li.querySelectorAll('*')).concat([li])
    .filter(el => Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim()))
    .map(el => parseFloat(getComputedStyle(el).fontSize));
  const on = li.checkVisibility() && r.height > 0 && bottom > top;
  return {text: li.textContent.replace(/\\s+/g, ' ').trim(), size: Math.min(...sizes),
          height: r.height, shown: on ? [top - r.top, bottom - r.top] : null};
})"""


def uncovered(height: float, spans: list[list[float]]) -> float:
    """How much of an entry `height` px tall no shown span covered (a pixel's slack each end)."""
    reached = 0.0
    for start, end in sorted(spans):
        if start > reached + 1:
            break
        reached = max(reached, end)
    return max(0.0, height - 1 - reached)


def page_number(display: Page) -> tuple[int, int]:
    reveal = display.locator("#reveal")
    return int(reveal.get_attribute("data-page") or 0), int(reveal.get_attribute("data-pages") or 0)


def test_every_entry_of_a_twenty_entry_turn_is_on_the_projector_at_some_moment(
    server: Server, browser: Any
) -> None:
    gm = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    create_game(gm, server.base, "eight-long-names", seed=3)
    game_id = gm.url.rsplit("/", 1)[1]
    display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    display.clock.install()
    display.goto(f"{server.base}/display/{game_id}")
    expect(display.locator("#ship-status article.ship")).to_have_count(8)
    # Set up as for the evening (test_zone_map.py): the click that lets it play sound takes the
    # button asking for it away, so the reveal's box keeps its size while the pages turn.
    display.mouse.click(2, 2)
    display.clock.run_for(500)
    expect(display.locator(".d-sound-enable")).to_be_hidden()

    gm.locator("#turn button:has-text('Start combat')").click()
    # Every station is an NPC's and has its order at once.
    expect(gm.locator("#npc .npc-station").filter(has_text="✓")).to_have_count(30, timeout=WAIT)
    gm.locator("#turn button:has-text('Close orders')").first.click()
    expect(display.locator("#reveal")).to_contain_text("Turn 1 revealed", timeout=WAIT)
    expect(display.locator("#reveal")).to_have_attribute("data-pages", re.compile(r"^\d+$"))
    first: list[dict[str, Any]] = display.evaluate(ENTRIES)
    assert len(first) >= 12, [e["text"] for e in first]
    page, pages = page_number(display)
    assert page == 1
    assert pages >= 2, "twenty entries cannot fit one page at 24 px"
    # The room takes in the whole turn in the seconds a GM gives it: a few pages, not dozens.
    assert pages <= READABLE_PAGES, pages
    expect(display.locator("#reveal h2")).to_contain_text(f"page 1 of {pages}")

    spans: list[list[list[float]]] = [[] for _ in first]
    for step in range(60):
        page, pages = page_number(display)
        entries: list[dict[str, Any]] = display.evaluate(ENTRIES)
        assert [e["text"] for e in entries] == [e["text"] for e in first]
        shown = [i for i, e in enumerate(entries) if e["shown"]]
        assert shown, f"page {page} of {pages} shows nothing"
        small = [e for e in entries if e["shown"] and e["size"] < FLOOR - 0.01]
        assert not small, small
        for i in shown:
            spans[i].append(entries[i]["shown"])
        shot(display, f"projector-reveal-page-{step + 1}")
        if step == 1:
            # A GM message takes room above the reveal: its pages are laid out again, and the
            # entry the room was reading stays on screen.
            gm.fill("#messages input[name=text]", "Hold your fire until the convoy is clear.")
            gm.click("#messages button:has-text('Send')")
            expect(display.locator("#messages")).to_contain_text("convoy", timeout=WAIT)
            display.wait_for_timeout(500)
            after: list[dict[str, Any]] = display.evaluate(ENTRIES)
            assert after[shown[0]]["shown"], after
            page, pages = page_number(display)
        if step > 0 and page == pages:
            break
        display.clock.fast_forward(TURN_PAGE_MS)
        expect(display.locator("#reveal")).to_have_attribute("data-page", str(page + 1))
    missed = [e["text"] for e, s in zip(first, spans, strict=True) if uncovered(e["height"], s)]
    assert not missed, missed


def test_the_gm_hears_the_room_has_seen_the_reveal_as_the_projector_shows_its_last_page(
    server: Server, browser: Any
) -> None:
    """Under the start button the GM reads how long the projector still shows the reveal; the
    line says the room has seen it all once the projector has shown its every page, not before,
    and not long after."""
    table = worst_table(server.base, ships=3)
    gm = browser.new_context(viewport=GM, locale="de-DE").new_page()
    gm.clock.install()
    gm.goto(f"{table.base}/gm/{table.game_id}?token={table.gm_token}")
    display = browser.new_context(viewport=PROJECTORS[1]).new_page()
    display.clock.install()
    display.goto(f"{table.base}/display/{table.game_id}")
    display.mouse.click(2, 2)  # sound allowed: the button asking for it goes
    expect(display.locator(".d-sound-enable")).to_be_hidden()
    table.command("StartTurn")
    table.order_all(random.Random(7))
    if table.view()["game"]["phase"] == "orders":
        table.command("CloseOrders")
    expect(display.locator("#reveal")).to_contain_text("Runde 1", timeout=WAIT)
    reading = gm.locator("#turn .room-reading")
    expect(reading).to_contain_text("zeigt noch", timeout=WAIT)
    pages = page_number(display)[1]
    assert pages >= 2
    seen: set[int] = set()
    last_left = None  # seconds since the projector left its last page
    for tick in range(240):  # half a second each
        page, _ = page_number(display)
        if page == pages:
            last_left = None
        elif pages in seen and last_left is None:
            last_left = tick
        seen.add(page)
        if "alles gezeigt" in (reading.text_content() or ""):
            assert seen == set(range(1, pages + 1)), (seen, pages)
            # Said within a couple of seconds of the projector turning past its last page.
            assert last_left is None or tick - last_left <= 4, (tick, last_left)
            break
        display.clock.run_for(500)
        gm.clock.run_for(500)
    else:
        raise AssertionError(f"the GM never heard the room had seen it all ({seen} of {pages})")
