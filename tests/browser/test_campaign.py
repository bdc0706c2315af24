"""A campaign in the browser (G-CAMP-1): the GM starts one from the lobby and its first evening
from its page; two phones (390×844) join and play; the evening is written back from the
dashboard; the next evening starts from the roster, and the same table re-joins on its one code,
each phone finding its station, name and character filled in; the campaign's page shows both
evenings on a phone, and in large type on the projector."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from app.web.deps import gm_cookie
from tests.browser.conftest import Server
from tests.browser.screens import shot, small_targets
from tests.browser.test_accessibility import violations

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000
CAMPAIGN = "Die lange Reise der Unerschütterlichen Zuversicht"
PHONES = {  # character: (station, a 40-character name)
    "amara-lind": ("kestrel/weapons", "Friederike Großkopf-Überlingen vom Rhein"),
    "tomas-reyes": ("kestrel/engineering", "Maximiliane Schwarzenberg-Hohenlohe-Weiß"),
}


def phone(browser: Any) -> Page:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="en-GB"
    )
    page: Page = context.new_page()
    return page


def evening_code(gm: Page) -> str:
    gm.wait_for_url(re.compile(r"/gm/[0-9a-f-]+$"))
    return gm.inner_text(".gm-join .d-code").strip()


def two_clicks(page: Page, button: Any) -> None:
    """A button that asks first (data-confirm): a click arms it, the second acts."""
    button.click()
    button.click()


# rule: G-CAMP-1
def test_the_same_table_rejoins_the_next_evening_on_one_code(server: Server, browser: Any) -> None:
    gm = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    gm.goto(f"{server.base}/gm")
    gm.fill("#campaign-name", CAMPAIGN)
    gm.click("button:has-text('Start a campaign')")
    gm.wait_for_url(re.compile(r"/campaign/[0-9a-f-]+/gm$"))
    campaign = gm.url.removesuffix("/gm")
    gm.select_option("#campaign-next select[name=scenario]", "skirmish")
    gm.click("button:has-text('Start the evening from the roster')")
    code = evening_code(gm)

    phones: dict[str, Page] = {}
    for character, (seat, name) in PHONES.items():
        page = phone(browser)
        page.goto(f"{server.base}/join/{code}")
        expect(page.locator(".join-campaign")).to_contain_text(CAMPAIGN)
        page.click(f"label.choice:has(input[value='{seat}'])")
        page.fill("#name", name)
        page.click(f"label.choice:has(input[value='{character}'])")
        page.click("button:has-text('Join')")
        page.wait_for_url(re.compile(r"/play/[0-9a-f-]+$"))
        phones[character] = page

    # The evening: Dr Amara Lind hurt (two characteristics, so her points can go either way) by
    # the GM's commands, each waited for, so that the day of Downtime meets exactly these wounds;
    # a combat, ended; then the GM writes it back from the dashboard.
    game_id = gm.url.rsplit("/", 1)[1]
    token = next(c["value"] for c in gm.context.cookies() if c["name"] == gm_cookie(game_id))
    for field, value in (("endurance", 7), ("strength", 4)):
        command = {"type": "SetCharacteristic", "character": "amara-lind", "field": field}
        given = gm.request.post(
            f"{server.base}/api/games/{game_id}/commands",
            data={**command, "value": value, "command_id": f"wound-{field}"},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert given.ok, given.text()
    injury = phones["amara-lind"].locator(".injury")
    expect(injury).to_contain_text("END 7/10", timeout=WAIT)
    expect(injury).to_contain_text("STR 4/6")
    gm.click("#turn button:has-text('Start combat')")
    expect(phones["amara-lind"].locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)
    two_clicks(gm, gm.locator("#turn button:has-text('End combat')"))
    expect(phones["tomas-reyes"].locator("#combat-end")).to_contain_text("is over", timeout=WAIT)
    panel = gm.locator("#campaign-panel")  # it follows the combat's end by itself
    expect(panel).to_contain_text("Evening 1 of the campaign", timeout=WAIT)
    expect(panel.locator("button.write-back")).to_be_enabled(timeout=WAIT)
    two_clicks(gm, panel.locator("button.write-back"))
    expect(panel.locator(".written-back")).to_be_visible(timeout=WAIT)

    # A day of Downtime, an active one (1 + Endurance DM 0): the player places the point on
    # her phone.
    gm.goto(f"{campaign}/gm")
    gm.fill("#days", "1")
    gm.select_option("select[name='care.amara-lind']", "active")
    gm.click("button:has-text('Let the days pass')")
    # The day has passed once the GM's page says what it left Amara: only then does her phone
    # open its page, which shows it at once (else it would learn it at its next ask).
    placing = gm.locator("form.gm-place[data-character='amara-lind']")
    expect(placing).to_contain_text("1 point to place", timeout=WAIT)
    yours = phones["amara-lind"]
    yours.goto(campaign)
    form = yours.locator("#campaign-yours form.place-form")
    expect(form).to_contain_text("Place 1 point")
    assert small_targets(yours) == []
    shot(yours, "phone-campaign-place")
    form.locator("input[name='points.strength']").fill("1")
    form.locator("input[name='points.endurance']").fill("0")
    form.locator("button:has-text('Place the points')").click()
    expect(yours.locator("#campaign-yours")).not_to_contain_text("Place 1 point")
    expect(
        yours.locator("[data-character='amara-lind'] [data-characteristic='strength']").first
    ).to_contain_text("5/6")
    expect(yours.locator("#campaign-downtimes")).to_contain_text("an active day")

    # The next evening, from the campaign's page; one new code for the whole table.
    gm.goto(f"{campaign}/gm")
    gm.select_option("#campaign-next select[name=scenario]", "skirmish")
    gm.click("button:has-text('Start the evening from the roster')")
    second = evening_code(gm)
    assert second != code

    for character, (seat, name) in PHONES.items():
        page = phones[character]
        page.goto(f"{server.base}/join/{second}")
        expect(page.locator(".join-campaign")).to_contain_text("Welcome back")
        # Remembered: the station, the name and the character are chosen; one tap joins.
        expect(page.locator(f"input[name=seat][value='{seat}']")).to_be_checked()
        expect(page.locator("#name")).to_have_value(name)
        mine = page.locator(f"label.choice.yours:has(input[value='{character}'])")
        expect(mine.locator("input")).to_be_checked()
        expect(mine).to_contain_text("yours")
        if character == "amara-lind":
            shot(page, "phone-campaign-rejoin")
        page.click("button:has-text('Join')")
        page.wait_for_url(re.compile(r"/play/[0-9a-f-]+$"))
        expect(page.locator("#who")).to_contain_text("Kestrel", timeout=WAIT)

    # The campaign's page shows both evenings: on a phone without sideways scrolling...
    reader = phones["amara-lind"]
    reader.goto(campaign)
    expect(reader.locator("#evening-1")).to_contain_text("Skirmish at the Gate")
    expect(reader.locator("#evening-2")).to_contain_text("tonight")
    expect(reader.locator("#evening-2 .d-code")).to_have_text(second)
    expect(reader.locator("#campaign-characters")).to_contain_text("Dr Amara Lind")
    expect(reader.locator("#campaign-ships .hull-chart svg")).to_be_visible()
    wide = reader.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0, f"the campaign page scrolls {wide} px sideways on a phone"
    shot(reader, "phone-campaign", full_page=True)
    assert violations(reader) == [], "the campaign page, as axe-core reads it"
    # In German too, long words and all.
    reader.goto(f"{campaign}?lang=de")
    expect(reader.locator("#campaign-evenings h2")).to_have_text("Abende")
    wide = reader.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0, f"the German campaign page scrolls {wide} px sideways on a phone"
    # ... and on the projector, in large type.
    projector = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    projector.goto(f"{campaign}?screen=display")
    expect(projector.locator("#evening-2")).to_be_visible()
    for selector in ("#campaign-head .muted", ".campaign-character h3", ".chart-ends"):
        size = projector.eval_on_selector(selector, "e => getComputedStyle(e).fontSize")
        assert float(size.removesuffix("px")) >= 24, selector
    shot(projector, "projector-campaign")
    # The GM's page on the laptop: the next step is on the first screen.
    gm.goto(f"{campaign}/gm")
    expect(gm.locator("#campaign-next")).to_contain_text("Evening 2 is running")
    box = gm.locator("#campaign-next").bounding_box()
    assert box is not None and box["y"] < 768
    shot(gm, "gm-campaign")
