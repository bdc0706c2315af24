"""One evening at the table, end to end: a GM, a projector and four phones (iPhone and Pixel
emulation) play three turns through the real server, which is restarted in the middle.

Proves: joining through the join URL; orders from the phones; a hit that fills a red Hull box and
shrinks the hand on every phone of that ship (and buzzes them); Engineering's allocation prompt; a
repair that raises a hand limit; every page recovering by itself after a server restart; and no
page ever holding another seat's cards.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server
from tests.browser.screens import (
    VIBRATE_SPY,
    hand_ids,
    hand_limit,
    join,
    pass_turn,
    pick_cards,
    send,
    shot,
    small_targets,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROLES = ("weapons", "engineering", "pilot", "comms")
WAIT = 15_000  # ms: generous for a 2-core machine; every step normally takes well under 1 s


def no_leaks(phones: dict[str, Page], display: Page) -> None:
    """No phone's page holds a card id from another phone's hand; the projector holds none."""
    hands = {role: hand_ids(page) for role, page in phones.items()}
    pages = {role: page.content() for role, page in phones.items()}
    shown = display.content()
    for role, ids in hands.items():
        for card in ids:
            assert card not in shown, (card, "on the projector")
            for other, html in pages.items():
                if other != role:
                    assert f'value="{card}"' not in html and card not in html, (card, other)


def gm_click(gm: Page, button: str, within: str = "body") -> None:
    gm.locator(within).locator(f"button:has-text('{button}')").first.click()


def npc_pass_one_by_one(gm: Page) -> None:
    """The GM passes for each NPC station still waiting (each pass re-renders the panel)."""
    for _ in range(6):
        waiting = gm.locator("#npc .npc-station:not(:has(.ready)) button:has-text('Pass')")
        if waiting.count() == 0:
            return
        count = waiting.count()
        waiting.first.click()
        expect(waiting).to_have_count(count - 1, timeout=WAIT)


def npc_pass_all(gm: Page) -> None:
    """The GM's one tap: every NPC station still waiting passes."""
    gm.click("#npc button:has-text('Pass for every NPC station')")
    waiting = gm.locator("#npc .npc-station:not(:has(.ready)) button:has-text('Pass')")
    expect(waiting).to_have_count(0, timeout=WAIT)


def test_three_turns_with_a_hit_a_repair_and_a_server_restart(
    server: Server, browser: Any, playwright: Any
) -> None:
    base = server.base
    outside: list[str] = []

    def watch(context: Any) -> Any:
        """Every request must go to the game server: the venue may have no internet."""
        context.on(
            "request",
            lambda request: (
                None
                if request.url.startswith((base, base.replace("http", "ws", 1), "data:"))
                else outside.append(request.url)
            ),
        )
        return context

    gm = watch(browser.new_context(viewport={"width": 1600, "height": 1000})).new_page()
    gm.goto(f"{base}/gm")
    gm.click("label.choice:has(input[value=skirmish])")
    gm.fill("#seed", "7")
    shot(gm, "gm-new-game")
    gm.click("button:has-text('Create game')")
    gm.wait_for_url(re.compile(r"/gm/[0-9a-f-]+$"))
    game_id = gm.url.rsplit("/", 1)[1]
    code = gm.inner_text(".gm-join .d-code").strip()
    assert re.fullmatch(r"[A-Z2-9]{4,6}", code)

    display = watch(browser.new_context(viewport={"width": 1920, "height": 1080})).new_page()
    display.goto(f"{base}/display/{game_id}")
    expect(display.locator(".d-code")).to_have_text(code)
    assert f"/join/{code}" in display.inner_text(".d-url")

    phones: dict[str, Page] = {}
    for index, role in enumerate(ROLES):
        device = dict(playwright.devices["iPhone 13" if index % 2 == 0 else "Pixel 7"])
        context = watch(browser.new_context(**device))
        context.add_init_script(VIBRATE_SPY)
        page = context.new_page()
        if index == 0:
            page.goto(f"{base}/join/{code}")
            shot(page, "phone-join")
        join(page, base, code, f"kestrel/{role}", f"{role.capitalize()} player")
        phones[role] = page
    expect(gm.locator("#seats")).to_contain_text("Comms player", timeout=WAIT)

    # --- Turn 1: Kestrel's shields are down and the raider is close: it will hit hard ----------
    kestrel = gm.locator("article.gm-ship", has_text="Kestrel-class")
    gm_click(gm, "Shields UP", "article.gm-ship:has-text('Kestrel-class')")
    expect(kestrel).to_contain_text("Shields down", timeout=WAIT)
    raider = gm.locator("article.gm-ship", has_text="Jackal Raider")
    raider.locator("input[name=x]").fill("5")
    raider.locator("input[name=y]").fill("5")
    gm_click(gm, "Move", "article.gm-ship:has-text('Jackal Raider')")
    expect(raider.locator("input[name=x]")).to_have_value("5", timeout=WAIT)
    gm.locator("#turn input[name=seconds]").fill("300")
    gm_click(gm, "Start combat", "#turn")
    for page in phones.values():
        expect(page.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)
        expect(page.locator("#status .countdown")).to_have_text(re.compile(r"[45]:\d\d"))
    expect(display.locator("#timer")).to_contain_text("Orders", timeout=WAIT)
    no_leaks(phones, display)

    # By its label: other stations' forms name Weapons too (Engineering's repair target).
    npc = gm.locator("#npc .npc-station", has=gm.locator(".npc-label", has_text="Weapons"))
    npc.locator("input[name=value]").fill("30")
    npc.locator("button:has-text('Order')").click()
    expect(npc).to_contain_text("Attack (30)", timeout=WAIT)
    npc_pass_one_by_one(gm)

    weapons = phones["weapons"]
    assert pick_cards(weapons, 2) >= 1
    assert int(weapons.inner_text("#hand [data-total]")) > 0
    shot(weapons, "phone-weapons-choosing")
    assert small_targets(weapons) == []
    send(weapons)
    expect(display.locator("#ready")).to_contain_text("✓ ready", timeout=WAIT)
    assert "Attack (" not in display.content()  # who is ready, never what

    pilot = phones["pilot"]
    if pick_cards(pilot, 1):
        pilot.locator(".cell.reach").first.click()
        shot(pilot, "phone-pilot-map")
        assert small_targets(pilot) == []
        send(pilot)
    else:
        pass_turn(pilot)
    comms = phones["comms"]
    if pick_cards(comms, 1):
        send(comms)
    else:
        pass_turn(comms)
    limits_before = {role: hand_limit(page) for role, page in phones.items()}
    gm.screenshot(path=str(_shots() / "gm-orders.png"), full_page=True)
    pass_turn(phones["engineering"])  # the last order: the turn reveals itself

    engineering = phones["engineering"]
    prompt = engineering.locator("#allocation")
    expect(prompt).to_contain_text("Hull damage", timeout=WAIT)
    expect(prompt.locator(".countdown")).to_have_text(re.compile(r"0:[01]\d"))
    expect(gm.locator("#turn")).to_contain_text("Damage allocation")
    # Brought into view wherever the player had scrolled: its heading below the sticky bar.
    heading = prompt.locator("h2")
    expect(heading).to_be_in_viewport(ratio=1)
    # The whole prompt, its Send button too, on the first screen: it comes before everything else.
    expect(prompt.locator("button[type=submit]")).to_be_in_viewport(ratio=1)
    shot(engineering, "phone-engineering-allocation")
    assert small_targets(engineering) == []
    # 4 or 5 damage (the Pilot may have moved out of the grapnel's reach). The Hull must take at
    # least 4, the first red box: divert one point only when there are five.
    found = re.search(r"Incoming: (\d+) Hull damage", prompt.inner_text(), re.I)
    assert found is not None
    damage = int(found.group(1))
    assert damage >= 4
    if damage >= 5:
        prompt.locator(".stepper", has_text="Pilot").locator("button[data-step='1']").click()
        expect(prompt.locator("[data-hull-left]")).to_have_text(str(damage - 1))
    engineering.click("#allocation button[type=submit]")

    expect(display.locator("#reveal")).to_contain_text("Turn 1 revealed", timeout=WAIT)
    expect(display.locator("#reveal")).to_contain_text(f"HIT · {damage} dmg")
    hull = display.locator("#ship-kestrel .hull-row .box")
    expect(hull.nth(3)).to_have_class(re.compile(r"\bhit\b.*\bred\b"))  # a red Hull box filled
    for role, page in phones.items():
        expect(page.locator("#status")).to_contain_text("End of turn", timeout=WAIT)
        assert hand_limit(page) < limits_before[role], role
        assert len(hand_ids(page)) <= hand_limit(page)
        assert page.evaluate("window.__buzz.length") > 0, f"{role} did not buzz"
    expect(phones["pilot"].locator("#reveal .results")).to_contain_text("red Hull box")
    shot(weapons, "phone-weapons-after-hit", full_page=True)
    shot(display, "projector-after-hit")
    no_leaks(phones, display)

    # --- Turn 2: Engineering repairs the Pilot, with a GM bonus that makes it count -------------
    pilot_limit = hand_limit(pilot)
    modifiers = gm.locator("#modifiers")
    modifiers.locator("select[name=applies]").select_option("repair")
    modifiers.locator("input[name=value]").fill("10")
    modifiers.locator("input[name=reason]").fill("Spare parts from the cargo bay")
    modifiers.locator("button:has-text('Impose')").click()
    expect(modifiers).to_contain_text("Spare parts", timeout=WAIT)
    gm_click(gm, "Start turn 2", "#turn")
    expect(engineering.locator("#status")).to_contain_text("T2 · Orders", timeout=WAIT)
    npc_pass_all(gm)
    if pick_cards(engineering, 1) == 0:
        pytest.fail("Engineering drew no card that repairs")
    expect(engineering.locator("[data-for=repair]")).to_be_visible()
    expect(engineering.locator("[data-for=shields_up]")).to_be_hidden()  # only the chosen action
    engineering.click("#order label.choice:has(input[name=target_station][value=pilot])")
    shot(engineering, "phone-engineering-repair")
    send(engineering)
    for role in ("weapons", "pilot", "comms"):
        pass_turn(phones[role])
    expect(display.locator("#reveal")).to_contain_text("Turn 2 revealed", timeout=WAIT)
    expect(display.locator("#reveal")).to_contain_text("repaired Pilot")
    expect(pilot.locator("#me .limit")).not_to_have_text(str(pilot_limit), timeout=WAIT)
    assert hand_limit(pilot) > pilot_limit
    no_leaks(phones, display)

    # --- The server restarts; every page finds its way back by itself ---------------------------
    server.stop()
    for page in (*phones.values(), gm, display):
        expect(page.locator("#offline")).to_be_visible(timeout=WAIT)
    shot(phones["comms"], "phone-reconnecting")
    time.sleep(1)
    server.start().wait_ready()
    for page in (*phones.values(), gm, display):
        expect(page.locator("#offline")).to_be_hidden(timeout=WAIT)

    # --- Turn 3: everything still flows, without any page having been reloaded ------------------
    gm_click(gm, "Start turn 3", "#turn")
    for page in phones.values():
        expect(page.locator("#status")).to_contain_text("T3 · Orders", timeout=WAIT)
    npc_pass_all(gm)
    if pick_cards(weapons, 1):
        send(weapons)
    else:
        pass_turn(weapons)
    for role in ("engineering", "pilot", "comms"):
        pass_turn(phones[role])
    expect(display.locator("#reveal")).to_contain_text("Turn 3 revealed", timeout=WAIT)
    for page in phones.values():
        expect(page.locator("#reveal")).to_contain_text("Turn 3 revealed", timeout=WAIT)
    no_leaks(phones, display)

    shot(display, "projector")
    gm.screenshot(path=str(_shots() / "gm-dashboard.png"), full_page=True)
    for role, page in phones.items():
        shot(page, f"phone-{role}")
    assert outside == []


def _shots() -> Any:
    from tests.browser.screens import SCREENSHOTS

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
