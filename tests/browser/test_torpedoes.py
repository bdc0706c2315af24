"""Module `weapons` in the browser (M-WEAPONS-3, -4): an NPC torpedo launched from Medium shows on
the projector's map and list and warns the target's Pilot and Weapons phones; next turn the
Weapons player orders Point defence and shoots it down, with the dice on every screen."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server
from tests.browser.screens import join, pass_turn, pick_cards, send
from tests.browser.test_bridge_e2e import npc_pass_all

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000


def npc_station(gm: Page, ship: str, station: str) -> Any:
    return gm.locator(
        f"#npc .npc-station:has(input[name=ship][value={ship}])"
        f":has(input[name=station][value={station}])"
    )


# rule: M-WEAPONS-3, M-WEAPONS-4
def test_a_torpedo_from_medium_is_seen_coming_and_shot_down_by_point_defence(
    server: Server, browser: Any, playwright: Any
) -> None:
    base = server.base
    gm = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    gm.goto(f"{base}/gm")
    gm.click("label.choice:has(input[value=torpedo-run])")
    gm.uncheck("input[name='modules.torpedo-run'][value=npc]")  # the GM gives Viper's orders
    gm.fill("#seed", "5")
    gm.click("button:has-text('Create game')")
    gm.wait_for_url(re.compile(r"/gm/[0-9a-f-]+$"))
    game_id = gm.url.rsplit("/", 1)[1]
    code = gm.inner_text(".gm-join .d-code").strip()
    display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    display.goto(f"{base}/display/{game_id}")
    phones: dict[str, Page] = {}
    for role in ("pilot", "weapons"):
        page = browser.new_context(**playwright.devices["Pixel 7"]).new_page()
        join(page, base, code, f"harrier/{role}", f"{role.capitalize()} player")
        phones[role] = page
    expect(gm.locator("#seats")).to_contain_text("Weapons player", timeout=WAIT)

    # Viper comes to Medium range (5 squares from Harrier at (3, 5)) before the combat starts.
    viper = gm.locator("article.gm-ship:has(h3:text-is('Viper'))")
    viper.locator("input[name=x]").fill("8")
    viper.locator("input[name=y]").fill("5")
    viper.locator("button:has-text('Move')").click()
    expect(display.locator("#map")).to_contain_text(
        re.compile(r"Harrier → Viper\s*5 sq\s*Medium"), timeout=WAIT
    )
    gm.locator("#turn button:has-text('Start combat')").click()

    # --- Turn 1: Viper's Weapons (the GM) launches one torpedo, guidance 1 --------------------
    weapons = npc_station(gm, "viper", "weapons")
    expect(weapons).to_be_visible(timeout=WAIT)
    weapons.locator("select[name=action]").select_option("attack")
    weapons.locator("input[name=value]").fill("1")
    weapons.locator("input[name=weapons][value=tube-a]").check()
    weapons.locator("button:has-text('Order')").click()
    expect(npc_station(gm, "viper", "weapons")).to_contain_text("✓", timeout=WAIT)
    npc_pass_all(gm)
    for page in phones.values():
        pass_turn(page)

    coming = "Viper → Harrier · strikes next turn"
    expect(display.locator("#map")).to_contain_text(coming, timeout=WAIT)
    expect(display.locator("#map .torpedo-mark")).to_have_count(1)
    expect(display.locator("#reveal")).to_contain_text("LAUNCHED · strikes next turn")
    for page in phones.values():
        expect(page.locator("#me")).to_contain_text(
            "TORPEDO INCOMING from Viper: strikes next turn", timeout=WAIT
        )
        expect(page.locator("#ship-status")).to_contain_text(coming)

    # --- Turn 2: Harrier's Weapons orders Point defence ---------------------------------------
    gm.locator("#turn button:has-text('Start turn 2')").click()
    shooter = phones["weapons"]
    expect(shooter.locator("#status")).to_contain_text("T2 · Orders", timeout=WAIT)
    expect(shooter.locator("#me")).to_contain_text("strikes this turn")
    shooter.click("#order label.choice:has(input[value=point_defence])")
    assert pick_cards(shooter, 1) == 1
    send(shooter)
    pass_turn(phones["pilot"])
    npc_pass_all(gm)

    for page in (display, gm, *phones.values()):
        reveal = page.locator("#reveal")
        expect(reveal).to_contain_text("SHOT DOWN", timeout=WAIT)
        expect(reveal).to_contain_text("Turn 2 revealed")
        intercepted = reveal.locator(".t-TorpedoIntercepted")
        expect(intercepted.locator(".term.die")).to_contain_text(re.compile(r"d6 [1-6]"))
        expect(intercepted).to_contain_text("≥ guidance 1")
    expect(display.locator("#map")).not_to_contain_text("Torpedoes in flight")
    for page in phones.values():
        expect(page.locator("#me")).not_to_contain_text("TORPEDO INCOMING")
