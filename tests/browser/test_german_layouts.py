"""German runs about 30 % longer than English: at 390x844 no phone text overflows or is
cut, and on the projector at 1920x1080 no text falls under 24 px and nothing is cut, in German.
Measured in the page, as tests/browser/test_projector.py measures the English projector."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server
from tests.browser.screens import create_game, shot
from tests.browser.test_projector import check_legible

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000
PHONE = {"width": 390, "height": 844}

# Whatever on a phone screen spills out: the page wider than the screen; a box whose content is
# wider than itself without scrolling (a long German word in a button); a run of text cut by an
# element that hides its overflow, or by the screen's edges (sideways). A name ending in an
# ellipsis with the whole of it in its title is shortened on purpose.
SPILLS = """(root) => {
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > innerWidth + 1) out.push('page ' + doc.scrollWidth + ' px wide');
  const scrolls = (s) => ['auto', 'scroll'].includes(s.overflowX);
  for (const el of document.querySelectorAll(root + ' *')) {
    const style = getComputedStyle(el);
    if (style.display === 'inline' || el.clientWidth === 0) continue;
    if (el.closest('svg, .visually-hidden')) continue;
    // A name cut short on purpose: an ellipsis, the whole name in its title.
    const shortened = (e) => getComputedStyle(e).textOverflow === 'ellipsis' && e.title;
    if (shortened(el)) continue;
    if (el.scrollWidth > el.clientWidth + 1 && !scrolls(style) && !el.closest('.map-scroll'))
      out.push('spills: ' + el.tagName + '.' + el.className + ' "' +
               el.textContent.trim().slice(0, 40) + '" ' + el.scrollWidth + '>' + el.clientWidth);
  }
  const walker = document.createTreeWalker(document.querySelector(root), NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const el = node.parentElement;
    if (!node.textContent.trim() || el.closest('svg, .map-scroll, .visually-hidden')) continue;
    if (getComputedStyle(el).textOverflow === 'ellipsis' && el.title) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    let cut = r.left < -1 || r.right > innerWidth + 1;
    for (let up = el; up && !cut; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.overflow === 'visible' || scrolls(style)) continue;
      const c = up.getBoundingClientRect();
      cut = r.left < c.left - 1 || r.top < c.top - 1 || r.right > c.right + 1
        || r.bottom > c.bottom + 1;
    }
    if (cut) out.push('cut: "' + node.textContent.trim().slice(0, 40) + '"');
  }
  return out;
}"""


def spills(page: Page, root: str) -> list[str]:
    found: list[str] = page.evaluate(SPILLS, root)
    return found


def german_phone(browser: Any, server: Server, code: str, seat: str, name: str) -> Page:
    """A phone whose browser asks for German joins through the join page."""
    page: Page = browser.new_context(viewport=PHONE, locale="de-DE").new_page()
    page.goto(f"{server.base}/join/{code}")
    expect(page.locator("h1")).to_have_text("Auf die Brücke")
    assert not spills(page, "main"), spills(page, "main")
    page.click(f"label.choice:has(input[value='{seat}'])")
    page.fill("#name", name)
    page.click("button:has-text('Beitreten')")
    page.wait_for_url(re.compile(r"/play/[0-9a-f-]+$"))
    expect(page.locator("#hand")).to_be_visible()
    return page


def test_german_phones_at_390_wide_keep_every_word_on_screen(server: Server, browser: Any) -> None:
    gm: Page = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    code = create_game(gm, server.base, "torpedo-run")
    phones = {
        seat: german_phone(browser, server, code, f"harrier/{seat}", name)
        for seat, name in (("weapons", "Maximilian-Alexander"), ("pilot", "Friederike"))
    }
    for seat, page in phones.items():
        assert page.locator("html").get_attribute("lang") == "de"
        assert not spills(page, "body"), (seat, "downtime", spills(page, "body"))
    gm.click("#turn button:has-text('Start combat')")
    gm.click("#turn button:has-text('RED ALERT')")
    for seat, page in phones.items():
        expect(page.locator("#order")).to_contain_text("Aktion und Karten wählen", timeout=WAIT)
        expect(page.locator("#status")).to_contain_text("ROTER ALARM", timeout=WAIT)
        # Everything a player can open, open: the discard, the log, the seat change.
        for summary in page.locator("details:not([open]) > summary").all():
            if summary.is_visible():
                summary.click()
        assert not spills(page, "body"), (seat, "orders", spills(page, "body"))
        shot(page, f"phone-de-{seat}", full_page=True)


@pytest.mark.parametrize("scenario,ships", [("skirmish", 2), ("eight-ships", 8)])
def test_a_german_projector_at_1920_keeps_24_px_and_cuts_nothing(
    server: Server, browser: Any, scenario: str, ships: int
) -> None:
    gm: Page = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    create_game(gm, server.base, scenario)
    game_id = gm.url.rsplit("/", 1)[1]
    # The GM sets the projector's language; the projector's own browser asks for English.
    gm.click("#gm-settings > summary")
    form = gm.locator("form.cmd:has(input[name=type][value=SetDisplayLanguage])")
    form.locator("select[name=language]").select_option("de")
    form.locator("button").click()
    page: Page = browser.new_context(
        viewport={"width": 1920, "height": 1080}, locale="en-GB"
    ).new_page()
    page.goto(f"{server.base}/display/{game_id}")
    expect(page.locator("#timer")).to_contain_text("Vor dem Kampf", timeout=WAIT)
    shot(page, f"projector-de-{scenario}-lobby")
    check_legible(page, 1920, ships)
    gm.click("#turn button:has-text('Start combat')")
    expect(page.locator("#timer")).to_contain_text("Runde", timeout=WAIT)
    if ships == 2:  # as the English projector's test: the alert and a long message with two
        gm.click("#turn button:has-text('RED ALERT')")
        gm.fill(
            "#messages input[name=text]",
            "Alle Mann: Das Relaistor bricht hinter dem Plünderer zusammen. Wer in zwei Runden "
            "noch drüben ist, bleibt dort; Technik, meldet den Reaktor vor dem Sprung.",
        )
        gm.click("#messages button:has-text('Send')")
        expect(page.locator("#alert")).to_contain_text("ROTER ALARM", timeout=WAIT)
        expect(page.locator("#messages")).to_contain_text("Relaistor", timeout=WAIT)
    shot(page, f"projector-de-{scenario}")
    check_legible(page, 1920, ships)
