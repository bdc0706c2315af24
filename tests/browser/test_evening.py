"""One code for the evening (E-EVENING-1), in the browser: two phones and a projector follow the
table from a skirmish into a torpedo run that the GM picks on the dashboard, nobody scanning or
typing anything again; the report then covers both battles."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server
from tests.browser.screens import create_game, join, pass_turn, shot
from tests.browser.test_accessibility import violations

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000


# rule: E-EVENING-1, G-END-2
def test_two_phones_and_the_projector_follow_the_table_into_the_next_battle(
    server: Server, browser: Any, playwright: Any
) -> None:
    gm = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    code = create_game(gm, server.base, "skirmish")
    game_id = gm.url.rsplit("/", 1)[1]
    ada = browser.new_context(**playwright.devices["Pixel 7"]).new_page()
    join(ada, server.base, code, "kestrel/weapons", "Ada")
    bo = browser.new_context(**playwright.devices["Pixel 7"]).new_page()
    join(bo, server.base, code, "kestrel/pilot", "Bo")
    display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    display.goto(f"{server.base}/display/{game_id}")
    expect(display.locator("#ship-status")).to_contain_text("Rustjaw", timeout=WAIT)
    addresses = (ada.url, bo.url, display.url)

    # The first battle: a combat, ended by the GM.
    gm.click("#turn button:has-text('Start combat')")
    expect(ada.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)
    gm.click("#turn button:has-text('End combat')")
    gm.click("#turn button:has-text('Click again')")
    expect(bo.locator("#combat-end")).to_contain_text("Combat 1 is over", timeout=WAIT)

    # The GM moves the table on to a torpedo run, from the Evening panel.
    evening = gm.locator("#evening")
    expect(evening).to_contain_text("Skirmish", timeout=WAIT)
    evening.locator("select[name=scenario]").select_option("torpedo-run")
    evening.locator("button:has-text('Move the table on')").click()
    evening.locator("button:has-text('Click again')").click()
    expect(gm.locator("#evening .evening-scenario")).to_have_text("Torpedo Run", timeout=WAIT)

    # Phones and projector are on the new battle by themselves, at the same addresses.
    expect(ada.locator("#who")).to_contain_text("Harrier", timeout=WAIT)
    expect(ada.locator("#who")).to_contain_text("Weapons")
    expect(bo.locator("#who")).to_contain_text("Harrier", timeout=WAIT)
    expect(bo.locator("#who")).to_contain_text("Pilot")
    for ship in ("Harrier", "Viper", "Adder"):
        expect(display.locator("#ship-status")).to_contain_text(ship, timeout=WAIT)
    expect(display.locator("#ship-status")).not_to_contain_text("Rustjaw")
    expect(gm.locator("#turn h2")).to_contain_text("Torpedo Run", timeout=WAIT)
    # Nothing speaks of the battle the table left (E-EVENING-1): no "Combat 1 is over" banner.
    for screen in (bo, display, gm):
        expect(screen.locator("#combat-end")).not_to_contain_text("is over", timeout=WAIT)
    expect(gm.locator("#turn h2")).not_to_contain_text("combat 1")
    # So do the tabs' titles, which name the battle.
    expect(display).to_have_title("Torpedo Run · Bridge Crew")
    expect(gm).to_have_title("GM · Torpedo Run")
    assert (ada.url, bo.url, display.url) == addresses
    # The old ship's cards went with it: nothing was lost to damage.
    expect(ada.locator("[data-discards]")).to_be_hidden()
    shot(display, "projector-next-battle")
    shot(ada, "phone-next-battle")

    # The same phones play the new battle: Ada's order goes through with her old seat. It is the
    # evening's next combat, and the GM's one start button says so.
    gm.click("#turn button:has-text('Start the next combat')")
    expect(ada.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)
    pass_turn(ada)
    gm.click("#turn button:has-text('Close orders')")
    expect(gm.locator("#turn")).to_contain_text("End of turn", timeout=WAIT)
    gm.click("#turn button:has-text('End combat')")
    gm.click("#turn button:has-text('Click again')")
    expect(display.locator("#combat-end")).to_contain_text("Combat 2 is over", timeout=WAIT)

    # The report covers both battles, with the players' names.
    report = display.context.new_page()
    report.goto(f"{server.base}/display/{game_id}/report")
    expect(report.locator("#battle-1")).to_contain_text("Skirmish")
    expect(report.locator("#battle-2")).to_contain_text("Torpedo Run")
    for battle in ("#battle-1", "#battle-2"):
        expect(report.locator(f"{battle} .report-crew")).to_contain_text("Ada")
        expect(report.locator(f"{battle} .report-crew")).to_contain_text("Bo")
    # On the projector in large type; on a phone nothing scrolls sideways.
    size = report.eval_on_selector(".report-outcome", "e => getComputedStyle(e).fontSize")
    assert float(size.removesuffix("px")) >= 24
    shot(report, "report-two-battles")
    assert violations(report) == [], "the report, as axe-core reads it"
    # The dashboard's Downtime repair form has findings of its own; the Evening panel none.
    assert [v for v in violations(gm) if "evening" in v] == []
    on_phone = ada.context.new_page()
    on_phone.goto(f"{server.base}/play/{game_id}/report")
    expect(on_phone.locator("#battle-2 .report-chart").first).to_be_visible()
    wide = on_phone.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0, f"the report scrolls {wide} px sideways on a phone"
    shot(on_phone, "phone-report", full_page=True)
