"""On a phone: Send stays on screen, an order chosen but not sent survives a
reload, a refusal does not outlive the order that went through, the change-position panel stays
open through a push, the tab names the new station, and the join page shows a seat freed while it
is open."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server
from tests.browser.screens import create_game, join, send

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000


def phone_at(
    server: Server, browser: Any, playwright: Any, code: str, seat: str, name: str
) -> Page:
    """A new phone (its own browser context), joined at `seat` as `name`."""
    phone: Page = browser.new_context(**playwright.devices["Pixel 7"]).new_page()
    join(phone, server.base, code, seat, name)
    return phone


def checked_cards(phone: Page) -> list[str]:
    cards: list[str] = phone.eval_on_selector_all(
        "#hand input[name=cards]:checked", "els => els.map(e => e.value)"
    )
    return sorted(cards)


def test_send_in_view_a_draft_survives_a_reload_and_an_answered_refusal_goes(
    server: Server, browser: Any, playwright: Any
) -> None:
    gm = browser.new_context().new_page()
    code = create_game(gm, server.base)
    phone = phone_at(server, browser, playwright, code, "kestrel/weapons", "Ann")
    gm.click("#turn button:has-text('Start combat')")
    expect(phone.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)

    # Send is on the first screen, and still there with the page scrolled to the bottom.
    send_button = phone.locator("#order button:has-text('Send order')")
    for scroll in ("0", "document.body.scrollHeight"):
        phone.evaluate(f"window.scrollTo(0, {scroll})")
        expect(send_button).to_be_in_viewport(ratio=1)

    # Chosen, not sent, then the page reloads: the same action and cards are chosen again.
    phone.click("#order label.choice:has(input[value=attack])")
    playable = phone.locator("#hand .card:not(.unfit)")
    assert playable.count() >= 2
    playable.nth(0).click()
    playable.nth(1).click()
    chosen = checked_cards(phone)
    phone.reload()
    expect(phone.locator("#hand")).to_be_visible()
    expect(phone.locator("#order input[value=attack]")).to_be_checked()
    assert checked_cards(phone) == chosen
    expect(phone.locator("#order [data-chosen]")).to_contain_text("Not sent yet")

    # Sent without cards: refused, with why. Then sent with them: the refusal goes with it.
    for card in chosen:
        phone.click(f"#hand label.card:has(input[value='{card}'])")
    assert checked_cards(phone) == []
    send_button.click()
    toast = phone.locator("#toast")
    expect(toast).to_be_visible(timeout=WAIT)
    for card in chosen:
        phone.click(f"#hand label.card:has(input[value='{card}'])")
    send(phone)
    assert phone.evaluate("document.getElementById('toast').hidden")
    # The order is the server's now: no draft is kept to come back over it.
    drafts = "Object.keys(sessionStorage).filter(k => k.startsWith('bc-order-draft')).length"
    phone.wait_for_function(f"{drafts} === 0", timeout=WAIT)


def test_the_position_panel_stays_open_through_a_push_and_the_tab_follows_a_move(
    server: Server, browser: Any, playwright: Any
) -> None:
    gm = browser.new_context().new_page()
    code = create_game(gm, server.base)
    switch_on = gm.locator("#turn button:has-text('seats: off')")
    if switch_on.count():  # the lobby's first scenario may have it on already
        switch_on.click()
    expect(gm.locator("#turn")).to_contain_text("seats: on", timeout=WAIT)
    ann = phone_at(server, browser, playwright, code, "kestrel/weapons", "Ann")
    expect(ann).to_have_title("Weapons · Kestrel")
    bob = phone_at(server, browser, playwright, code, "kestrel/pilot", "Bob")

    ann.click("#position summary:has-text('Change position')")
    panel = ann.locator("#position details.seat-change")
    expect(panel).to_have_attribute("open", "")
    # Bob's move is pushed to Ann's phone (her list of stations changes under her finger).
    bob.click("#position summary:has-text('Change position')")
    bob.click("#position button.seat-to[data-station=comms]")
    expect(ann.locator("#position button.seat-to[data-station=comms]")).to_contain_text(
        "taken by Bob", timeout=WAIT
    )
    expect(panel).to_have_attribute("open", "")
    expect(bob).to_have_title("Comms · Kestrel")

    ann.click("#position button.seat-to[data-station=pilot]")
    expect(ann.locator("#who")).to_contain_text("Pilot", timeout=WAIT)
    expect(ann).to_have_title("Pilot · Kestrel")


def test_the_join_page_shows_a_seat_freed_while_it_is_open(
    server: Server, browser: Any, playwright: Any
) -> None:
    gm = browser.new_context().new_page()
    code = create_game(gm, server.base)
    ann = phone_at(server, browser, playwright, code, "kestrel/weapons", "Ann")
    newcomer = browser.new_context(**playwright.devices["Pixel 7"]).new_page()
    newcomer.goto(f"{server.base}/join/{code}")
    seat = newcomer.locator("label.choice:has(input[value='kestrel/weapons'])")
    expect(seat).to_contain_text("taken by Ann")
    expect(seat.locator("input")).to_be_disabled()

    ann.once("dialog", lambda dialog: dialog.accept())
    ann.click("button:has-text('Leave this station')")
    expect(seat).to_contain_text("free", timeout=WAIT)
    expect(seat.locator("input")).to_be_enabled()
    seat.click()
    newcomer.fill("#name", "Cy")
    newcomer.click("button:has-text('Join')")
    expect(newcomer.locator("#who")).to_contain_text("Weapons", timeout=WAIT)
