"""G-ZONE-6 through the real server: on `nebula-ambush` the Pilot sees which zones the chosen
cards can pay for, taps one on the map, and after the reveal the ship stands there on the
projector, on the GM's map and on every phone."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server
from tests.browser.screens import create_game, join, pick_cards, send, shot, small_targets
from tests.browser.worst_case import FLOOR

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000


def kestrel_zone(page: Page) -> Any:
    """Where a map on this page draws Kestrel: the zone group holding its token."""
    return page.locator("svg.zone-map g.zone:has([data-ship=kestrel])").first


def test_g_zone_6_the_pilot_taps_a_zone_and_every_screen_shows_the_ship_there(
    server: Server, browser: Any, playwright: Any
) -> None:
    base = server.base
    gm = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    gm.goto(f"{base}/gm")
    gm.click("label.choice:has(input[value=nebula-ambush])")
    gm.fill("#seed", "7")
    gm.click("button:has-text('Create game')")
    gm.wait_for_url(re.compile(r"/gm/[0-9a-f-]+$"))
    game_id = gm.url.rsplit("/", 1)[1]
    code = gm.inner_text(".gm-join .d-code").strip()

    display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    display.goto(f"{base}/display/{game_id}")
    expect(kestrel_zone(display)).to_have_attribute("data-zone", "jump-point", timeout=WAIT)
    expect(display.locator("#map")).to_contain_text("Kestrel → Gutter Knife")

    phones: dict[str, Page] = {}
    for seat, device in (
        ("kestrel/pilot", "Pixel 7"),
        ("kestrel/weapons", "iPhone 13"),
        ("resolute/pilot", "Pixel 7"),
    ):
        page = browser.new_context(**playwright.devices[device]).new_page()
        join(page, base, code, seat, seat.replace("/", " "))
        phones[seat] = page
    expect(gm.locator("#seats")).to_contain_text("resolute pilot", timeout=WAIT)

    gm.locator("#turn input[name=seconds]").fill("0")
    gm.locator("#turn button:has-text('Start combat')").first.click()
    pilot = phones["kestrel/pilot"]
    expect(pilot.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)

    # Before any card: every zone is out of reach, and says what it costs.
    outer = pilot.locator(".zone-choice[data-zone=outer-rim]")
    expect(outer).to_have_class(re.compile(r"\bout\b"))
    expect(outer).to_contain_text("needs 3")
    expect(pilot.locator(".zone-choice[data-zone=raider-den]")).to_contain_text("too far")

    assert pick_cards(pilot, 5) >= 1
    total = int(pilot.inner_text("#hand [data-total]"))
    assert total >= 3, f"seed 7 deals the Pilot {total}: pick another seed"
    expect(outer).to_have_class(re.compile(r"\breach\b"))
    for tile in pilot.locator(".zone-choice").all():
        need = int(tile.get_attribute("data-need") or 0)
        assert ("out" in (tile.get_attribute("class") or "").split()) is (need > total)
    expect(pilot.locator(".zone-choice[data-zone=raider-den] input")).to_be_disabled()

    pilot.locator(".zone-pick-map g.zone[data-zone=outer-rim]").click()
    expect(outer.locator("input")).to_be_checked()
    expect(pilot.locator(".zone-pick-map g.zone[data-zone=outer-rim]")).to_have_class(
        re.compile(r"\bpicked\b")
    )
    shot(pilot, "phone-pilot-zone-map", full_page=True)
    assert small_targets(pilot) == []
    send(pilot)
    gm.locator("#turn button:has-text('Close orders')").first.click()

    expect(display.locator("#reveal")).to_contain_text("Turn 1 revealed", timeout=WAIT)
    expect(display.locator("#reveal")).to_contain_text("Kestrel moved from Jump Point to Outer Rim")
    for page in (display, gm, pilot):
        expect(kestrel_zone(page)).to_have_attribute("data-zone", "outer-rim", timeout=WAIT)
    for seat, page in phones.items():
        if seat.startswith("kestrel"):
            expect(page.locator(".zone-here")).to_contain_text("Kestrel is in Outer Rim")
        else:
            contact = page.locator(".contact", has_text="Kestrel")
            expect(contact).to_contain_text("in Outer Rim · 1 zone", timeout=WAIT)
    shot(display, "projector-zone-map")


# Every text on the zone maps of this page: what it says, its font size as drawn (the SVG's scale
# applied) and its box. A text may hold tspans; it is one run.
ZONE_TEXTS = """(selector) => Array.from(document.querySelectorAll(selector + ' svg.zone-map text'))
  .filter(t => t.textContent.trim() && t.checkVisibility())
  .map(t => {
    const r = t.getBoundingClientRect();
    const scale = t.getScreenCTM().a;
    return {text: t.textContent.trim(), size: parseFloat(getComputedStyle(t).fontSize) * scale,
            box: [r.left, r.top, r.right, r.bottom]};
  })"""


def zone_texts(page: Page, selector: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(ZONE_TEXTS, selector)
    assert found, "no zone map drawn"
    return found


def check_zone_map(page: Page, selector: str, floor: float) -> None:
    """Every text at `floor` px or more, none over another, all on screen."""
    texts = zone_texts(page, selector)
    small = [t for t in texts if t["size"] < floor - 0.01]
    assert not small, small
    width, height = page.viewport_size["width"], page.viewport_size["height"]  # type: ignore[index]
    off = [
        t
        for t in texts
        if t["box"][0] < 0 or t["box"][1] < 0 or t["box"][2] > width or t["box"][3] > height
    ]
    assert not off, off
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            assert not (
                a["box"][0] < b["box"][2] - 0.5
                and b["box"][0] < a["box"][2] - 0.5
                and a["box"][1] < b["box"][3] - 0.5
                and b["box"][1] < a["box"][3] - 0.5
            ), (a, b)


@pytest.mark.parametrize(
    "scenario,width,height",
    [
        ("nebula-ambush", 1920, 1080),
        ("nebula-ambush", 1280, 720),
        # Eight ships (a cue's wave brings the ambush to six): the map beside a full column.
        ("crowded-nebula", 1920, 1080),
        ("crowded-nebula", 1280, 720),
    ],
)
def test_the_zone_map_reads_from_across_the_room_and_on_the_gm_laptop(
    server: Server, browser: Any, scenario: str, width: int, height: int
) -> None:
    gm = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    create_game(gm, server.base, scenario, seed=7)
    game_id = gm.url.rsplit("/", 1)[1]
    display = browser.new_context(viewport={"width": width, "height": height}).new_page()
    display.goto(f"{server.base}/display/{game_id}")
    expect(kestrel_zone(display)).to_have_attribute("data-zone", "jump-point", timeout=WAIT)
    # Set up as for the evening: one click lets the projector play sound, and the button asking
    # for it, a line above the header until then (test_kiosk_sound.py), goes.
    display.mouse.click(2, 2)
    expect(display.locator(".d-sound-enable")).to_be_hidden(timeout=WAIT)
    # 24 px on a projector of any size, as the rest of its text.
    shot(display, f"projector-zone-map-{scenario}-{width}")
    check_zone_map(display, "#map", FLOOR)
    # The GM reads the map from a laptop at arm's length.
    gm.locator("#map").scroll_into_view_if_needed()
    shot(gm, "gm-zone-map-1366")
    check_zone_map(gm, "#map", 14)
