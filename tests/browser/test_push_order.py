"""Pushes carry only the panels that changed, so an answer that arrives late must not put older
panels back: every push and panel answer names its game version, and the page skips older ones."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server
from tests.browser.screens import create_game, join

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000

INJECT = "html => htmx.swap(document.body, html, {swapStyle: 'none'})"


def test_a_late_answer_with_older_panels_does_not_undo_a_newer_push(
    server: Server, browser: Any, playwright: Any
) -> None:
    gm = browser.new_context().new_page()
    code = create_game(gm, server.base)
    phone = browser.new_context(**playwright.devices["Pixel 7"]).new_page()
    join(phone, server.base, code, "kestrel/weapons", "Ann")
    expect(phone.locator("#offline")).to_be_hidden(timeout=WAIT)
    # An answer as the server gave it before combat started (what a slow request would bring).
    old: str = phone.evaluate("() => fetch('panels').then(r => r.text())")
    found = re.search(r'id="bc-version"[^>]*data-version="(\d+)"', old)
    assert found is not None, old[:300]
    old_version = int(found.group(1))
    assert "T1 · Orders" not in old

    gm.click("#turn button:has-text('Start combat')")
    expect(phone.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)

    # The late answer arrives after the push: nothing of it is shown.
    phone.evaluate(INJECT, old)
    phone.wait_for_timeout(300)
    expect(phone.locator("#status")).to_contain_text("T1 · Orders")

    # Control: the same panels named as newer are shown, so it is the version that kept them out.
    newer = old.replace(f'data-version="{old_version}"', 'data-version="999999"', 1)
    phone.evaluate(INJECT, newer)
    expect(phone.locator("#status")).not_to_contain_text("T1 · Orders", timeout=WAIT)
