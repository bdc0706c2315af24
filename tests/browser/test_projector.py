"""The projector read from five metres: measured, not eyeballed. The smallest status
text, text cut off or pushed off screen, ship markers and names that hide each other on the map,
and the RED ALERT badge over anything else, with two ships and eight, at 1920x1080 and 1280x720;
eight ships under 60-character names, shortened with the full name at hand."""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server
from tests.browser.screens import create_game, shot
from tests.browser.worst_case import (
    FLOOR,
    PROJECTORS,
    ready_marks_level,
    shortened,
    small_projector,
    spills,
    texts,
    worst_table,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000

# Every visible run of text in the projector's page (the map's SVG apart): its font size, its box,
# and whether an element that clips (overflow other than visible) or the window cuts it.
TEXTS = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.querySelector('main.display'),
                                           NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const el = node.parentElement;
    if (!node.textContent.trim() || el.closest('svg')) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    // A name cut short with an ellipsis on purpose is not cut off: its full name is its title.
    const ellipsis = getComputedStyle(el).textOverflow === 'ellipsis';
    let clipped = r.left < -1 || r.top < -1 || r.right > innerWidth + 1
      || r.bottom > innerHeight + 1;
    for (let up = el; up && !clipped; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.overflow === 'visible') continue;
      const c = up.getBoundingClientRect();
      clipped = r.left < c.left - 1 || r.top < c.top - 1 || r.right > c.right + 1
        || r.bottom > c.bottom + 1;
    }
    out.push({text: node.textContent.trim().slice(0, 40),
              size: parseFloat(getComputedStyle(el).fontSize),
              box: [r.left, r.top, r.right, r.bottom], clipped, ellipsis,
              title: el.closest('[title]')?.title || '',
              where: el.closest('section, header, div[id]')?.id || ''});
  }
  return out;
}"""

# Each ship on the map: the box of its marker and of its name, as drawn.
MAP_BOXES = """() => Array.from(document.querySelectorAll('#map .ship-mark')).flatMap(g => {
  const name = g.querySelector('.ship-label').textContent;
  const full = g.querySelector('title')?.textContent || name;
  return [['marker ' + name, full, g.querySelector('.ship-shape').getBoundingClientRect()],
          ['name ' + name, full, g.querySelector('.ship-label').getBoundingClientRect()]];
}).map(([what, full, r]) => ({what, full, box: [r.left, r.top, r.right, r.bottom]}))"""

# Every panel's box, and the window's.
PANELS = """() => ({
  window: [0, 0, innerWidth, innerHeight],
  panels: Array.from(document.querySelectorAll(
      'main.display section[id], #ship-status article.ship'))
    .filter(el => el.checkVisibility())
    .map(el => { const r = el.getBoundingClientRect();
                 return {id: el.id, box: [r.left, r.top, r.right, r.bottom]}; })
})"""


def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def inside(box: list[float], frame: list[float]) -> bool:
    return (
        box[0] >= frame[0] - 1
        and box[1] >= frame[1] - 1
        and box[2] <= frame[2] + 1
        and box[3] <= frame[3] + 1
    )


def new_game(
    server: Server, browser: Any, scenario: str, seed: int | None = None
) -> tuple[Page, str]:
    gm = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    create_game(gm, server.base, scenario, seed)
    return gm, gm.url.rsplit("/", 1)[1]


def projector(server: Server, browser: Any, game_id: str, width: int, height: int) -> Page:
    page: Page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.goto(f"{server.base}/display/{game_id}")
    expect(page.locator("#map .ship-mark").first).to_be_visible()
    return page


def check_legible(page: Page, width: int, ships: int) -> None:
    texts: list[dict[str, Any]] = page.evaluate(TEXTS)
    tiny = [t for t in texts if t["size"] < FLOOR - 0.01]
    assert not tiny, tiny
    # The log drops its oldest lines and the reveal shows a page at a time (tests/browser/
    # test_reveal_pages.py); a name may end in an ellipsis if its title holds it whole; nothing
    # else may be cut.
    cut = [
        t
        for t in texts
        if t["clipped"] and t["where"] not in ("log", "reveal") and not shortened(t)
    ]
    assert not cut, cut
    # Every panel whole on screen, and every ship's panel inside the ships' column.
    boxes: dict[str, Any] = page.evaluate(PANELS)
    off = [p for p in boxes["panels"] if not inside(p["box"], boxes["window"])]
    assert not off, off
    column = next(p["box"] for p in boxes["panels"] if p["id"] == "ship-status")
    loose = [
        p for p in boxes["panels"] if p["id"].startswith("ship-") and not inside(p["box"], column)
    ]
    assert not loose, loose
    assert page.locator("#ship-status article.ship").count() == ships
    size = page.viewport_size
    on_small = size is not None and small_projector(
        {"width": size["width"], "height": size["height"]}
    )
    if on_small:
        # The ready list's marks on their ships' own lines, whatever the ships' lines hold.
        level = ready_marks_level(page)
        assert all(level.values()), level
    if not page.locator("#map").is_visible():
        # A small projector gives the map's place to a turn's reveal until the next orders open.
        assert on_small
        expect(page.locator("#reveal h2")).to_be_visible()
        return
    marks: list[dict[str, Any]] = page.evaluate(MAP_BOXES)
    assert len(marks) == 2 * ships
    for i, a in enumerate(marks):
        for b in marks[i + 1 :]:
            assert not overlaps(a["box"], b["box"]), (a, b)
    # The map's names are as legible as the rest.
    heights = [m["box"][3] - m["box"][1] for m in marks if m["what"].startswith("name ")]
    assert min(heights) >= FLOOR - 0.01, heights


@pytest.mark.parametrize("width,height", [(1920, 1080), (1280, 720)])
def test_eight_ships_stacked_on_the_same_and_adjacent_squares(
    server: Server, browser: Any, width: int, height: int
) -> None:
    gm, game_id = new_game(server, browser, "eight-ships")
    page = projector(server, browser, game_id, width, height)
    shot(page, f"projector-eight-ships-lobby-{width}")
    check_legible(page, width, 8)
    gm.click("#turn button:has-text('Start combat')")
    expect(page.locator("#timer")).to_contain_text("Turn 1", timeout=WAIT)
    shot(page, f"projector-eight-ships-{width}")
    check_legible(page, width, 8)


@pytest.mark.parametrize("width,height", [(1920, 1080), (1280, 720)])
def test_eight_ships_under_sixty_character_names(
    server: Server, browser: Any, width: int, height: int
) -> None:
    gm, game_id = new_game(server, browser, "eight-long-names", seed=5)
    page = projector(server, browser, game_id, width, height)
    shot(page, f"projector-eight-long-names-lobby-{width}")
    check_legible(page, width, 8)
    # Shortened where they are shown (an ellipsis on the cards, a few words on the map), whole in
    # the cards' titles and the map's.
    titles = page.eval_on_selector_all(
        "#ship-status article.ship h3", "els => els.map(e => e.closest('[title]')?.title)"
    )
    assert all(len(t) == 60 for t in titles), titles
    marks: list[dict[str, Any]] = page.evaluate(MAP_BOXES)
    assert {m["full"] for m in marks} == set(titles)
    labels = [m["what"].removeprefix("name ") for m in marks if m["what"].startswith("name ")]
    assert all(len(label) <= 14 for label in labels), labels
    gm.click("#turn button:has-text('Start combat')")
    # Orders: every NPC station is ready at once, and the projector lists them all.
    expect(page.locator("#ready .d-ready-ship")).to_have_count(8, timeout=WAIT)
    check_legible(page, width, 8)
    shot(page, f"projector-eight-long-names-orders-{width}")
    gm.locator("#turn button:has-text('Close orders')").first.click()
    expect(page.locator("#reveal")).to_contain_text("Turn 1 revealed", timeout=WAIT)
    check_legible(page, width, 8)
    shot(page, f"projector-eight-long-names-{width}")


@pytest.mark.parametrize("width,height", [(1920, 1080), (1280, 720)])
def test_two_ships_red_alert_and_a_long_message(
    server: Server, browser: Any, width: int, height: int
) -> None:
    gm, game_id = new_game(server, browser, "skirmish")
    page = projector(server, browser, game_id, width, height)
    check_legible(page, width, 2)
    gm.click("#turn button:has-text('Start combat')")
    gm.click("#turn button:has-text('RED ALERT')")
    long = (
        "All hands: the relay gate is collapsing behind the raider. Anyone still on the far side "
        "in two turns stays there; Engineering, report the reactor before you jump."
    )
    gm.fill("#messages input[name=text]", long)
    gm.click("#messages button:has-text('Send')")
    expect(page.locator("#messages")).to_contain_text("report the reactor", timeout=WAIT)
    expect(page.locator("#alert")).to_contain_text("RED ALERT", timeout=WAIT)
    check_legible(page, width, 2)
    badge = page.locator("#alert .red-alert-word").bounding_box()
    assert badge is not None
    box = [badge["x"], badge["y"], badge["x"] + badge["width"], badge["y"] + badge["height"]]
    texts: list[dict[str, Any]] = page.evaluate(TEXTS)
    covered = [t for t in texts if t["where"] != "alert" and overlaps(box, t["box"])]
    assert not covered, covered
    shot(page, f"projector-red-alert-{width}")


# Every part of the projector's report (static/js/report-pages.js): its text, whether it is shown,
# and whether it lies whole inside the window.
REPORT_PARTS = """() => Array.from(document.querySelectorAll(
    'main.report :is(h1, h2, h3, h4, p, li, tbody tr, figure):not(figure *, li *)')).map(el => {
  const r = el.getBoundingClientRect();
  return {text: el.textContent.replace(/\\s+/g, ' ').trim().slice(0, 60),
          shown: el.checkVisibility() && r.height > 0,
          whole: r.top >= -1 && r.bottom <= innerHeight + 1 && r.left >= -1
                 && r.right <= innerWidth + 1};
})"""


@pytest.mark.parametrize("viewport", PROJECTORS, ids=lambda v: f"{v['width']}x{v['height']}")
def test_the_projectors_report_pages_itself_and_nothing_is_cut(
    server: Server, browser: Any, viewport: dict[str, int]
) -> None:
    """The report button on the projector opens the report in the room's language, a screen at a
    time: no scrolling, every part of it whole on screen at some moment, no text under 24 px."""
    table = worst_table(server.base, ships=8)
    rng = random.Random(5)
    for _ in range(2):
        table.command("StartTurn")
        table.order_all(rng)
        if table.view()["game"]["phase"] == "orders":
            table.command("CloseOrders")
    table.command("EndCombat")
    display = browser.new_context(viewport=viewport, locale="en-US").new_page()
    display.clock.install()
    display.goto(f"{table.base}/display/{table.game_id}")
    link = display.locator("#combat-end .report-link")
    expect(link).to_have_attribute("href", "report?lang=de", timeout=WAIT)
    display.goto(f"{table.base}/display/{table.game_id}/report?lang=de")
    expect(display.locator("h1")).to_contain_text("Einsatzbericht")
    first: list[dict[str, Any]] = display.evaluate(REPORT_PARTS)
    pages = int(display.locator("body").get_attribute("data-pages") or 0)
    assert pages >= 2, "two battles' report cannot fit one screen at 24 px"
    seen: set[int] = set()
    for step in range(pages):
        expect(display.locator("body")).to_have_attribute("data-page", str(step + 1))
        scroll = display.evaluate("() => document.scrollingElement.scrollHeight - innerHeight")
        assert scroll <= 1, f"page {step + 1} scrolls by {scroll} px"
        parts: list[dict[str, Any]] = display.evaluate(REPORT_PARTS)
        assert [p["text"] for p in parts] == [p["text"] for p in first]
        cut = [p["text"] for p in parts if p["shown"] and not p["whole"]]
        assert not cut, (step + 1, cut)
        seen |= {i for i, p in enumerate(parts) if p["shown"]}
        problems = [
            t
            for t in texts(display, "main.report")
            if t["size"] < 24 - 0.01 or (t["clipped"] and not shortened(t))
        ]
        assert not problems, (step + 1, problems)
        assert not spills(display, "main.report"), (step + 1, spills(display, "main.report"))
        shot(display, f"projector-report-{viewport['width']}-{step + 1}")
        display.clock.fast_forward(120_000)
    missed = [p["text"] for i, p in enumerate(first) if i not in seen]
    assert not missed, missed
