"""At the table: three NPC raiders (modules npc and seats, scenario boarding-party) fight
a player frigate for three turns with no GM input but Start turn, and a player changes station in
the middle of the combat and plays from the new one.

Proves: the raiders' orders are there as Orders open (the GM sees them, the projector does not),
their values are rolled at the reveal with the crew's breakdown, and a Change position on the
phone moves the player, who then gives orders from the new station.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server
from tests.browser.screens import create_game, join, pass_turn, pick_cards, send

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000


def start_turn(gm: Page, turn: int) -> None:
    label = "Start combat" if turn == 1 else f"Start turn {turn}"
    gm.locator("#turn").locator(f"button:has-text('{label}')").click()
    expect(gm.locator("#turn")).to_contain_text("Orders", timeout=WAIT)


def play(page: Page) -> None:
    """Send an order with a card if one fits the first action, else pass."""
    if pick_cards(page, 1):
        if page.locator("#order .cell.reach").count():
            page.locator("#order .cell.reach").first.click()
        send(page)
    else:
        pass_turn(page)


def test_three_npc_raiders_fight_with_no_gm_input_and_a_player_changes_station(
    server: Server, browser: Any, playwright: Any
) -> None:
    base = server.base
    gm = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    code = create_game(gm, base, "boarding-party", seed=7)
    game_id = gm.url.rsplit("/", 1)[1]
    display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    display.goto(f"{base}/display/{game_id}")

    phones: dict[str, Page] = {}
    for role, device in (("weapons", "iPhone 13"), ("pilot", "Pixel 7")):
        page = browser.new_context(**playwright.devices[device]).new_page()
        join(page, base, code, f"kestrel/{role}", f"{role.capitalize()} player")
        phones[role] = page

    for turn in (1, 2, 3):
        start_turn(gm, turn)
        for page in phones.values():
            expect(page.locator("#status")).to_contain_text(f"T{turn} · Orders", timeout=WAIT)
        # M-NPC-2: every raider station already has its order; the GM sees each one.
        npc = gm.locator("#npc .npc-station")
        expect(npc.filter(has_text="✓")).to_have_count(9, timeout=WAIT)
        # M-NPC-3: the projector shows who is ready, never what.
        assert "crew roll" not in display.content()
        if turn == 2:  # M-SEATS-1: the Weapons player walks over to the empty Comms station
            mover = phones["weapons"]
            mover.locator("#position summary:has-text('Change position')").click()
            mover.locator("#position button[name=station][value=comms]").click()
            expect(mover.locator("#me .me-head")).to_contain_text("Comms", timeout=WAIT)
            expect(mover.locator("#order")).to_contain_text("Jam", timeout=WAIT)
            phones["comms"] = phones.pop("weapons")
        for page in phones.values():
            play(page)
        expect(display.locator("#reveal")).to_contain_text(f"Turn {turn} revealed", timeout=WAIT)
        # M-NPC-1: the crews' values were rolled at the reveal, with their breakdown.
        # ("Basic crew): 1 + d6 4" as rolled, or "Basic crew 1 + d6 4" in an attack's sum).
        expect(display.locator("#log")).to_contain_text(re.compile(r"crew\)?:? \d \+ d6 \d"))
    # The mover's order, from the new station (the GM's reveal lists the orders; the projector's
    # says what they did).
    expect(gm.locator("#reveal")).to_contain_text("Comms of Kestrel")
    expect(gm.locator("#turn")).to_contain_text("Start turn 4")
