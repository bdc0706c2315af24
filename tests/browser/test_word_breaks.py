"""No word is split between two letters without a hyphen, and nothing spills off a phone, on the
worst table (tests/browser/worst_case.py) in German: every phone of the five-station ship at
390x844 with its hand of German cards, the GM at 1366x768 and the projector. A long word breaks
only where the language hyphenates it (a soft hyphen, drawn as a hyphen when the line breaks
there), since Chromium here carries no hyphenation dictionary of its own."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server
from tests.browser.screens import shot
from tests.browser.worst_case import (
    PROJECTORS,
    STATIONS,
    WAIT,
    gm_page,
    phone_page,
    projector_page,
    spills,
    split_words,
    worst_table,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_german_words_break_only_at_a_hyphen_on_every_screen(server: Server, browser: Any) -> None:
    table = worst_table(server.base, ships=4)
    table.command("StartTurn")
    for station in STATIONS:
        phone = phone_page(browser, table, station)
        expect(phone.locator("#status")).to_contain_text("Befehle", timeout=WAIT)
        for summary in phone.locator("details:not([open]) > summary").all():
            if summary.is_visible():
                summary.click()
        assert not split_words(phone), (station, split_words(phone))
        assert not spills(phone), (station, spills(phone))
        shot(phone, f"worst-phone-{station}", full_page=True)
        phone.context.close()
    gm = gm_page(browser, table)
    expect(gm.locator("#turn")).to_contain_text("Runde 1", timeout=WAIT)
    assert not split_words(gm), split_words(gm)
    for viewport in PROJECTORS:
        display = projector_page(browser, table, viewport)
        expect(display.locator("#timer")).to_contain_text("Runde", timeout=WAIT)
        assert not split_words(display), (viewport, split_words(display))
        display.context.close()
