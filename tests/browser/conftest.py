"""Browser tests: the real server in a process of its own (so a test can stop and start it again)
on a fresh database, and Debian's Chromium driven by Playwright. Nothing loads from the internet.

Without Chromium these tests are skipped on a developer's machine and fail under CI (the `CI`
variable set, as CI services and .ci/run set it): tests/browser/chromium.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS, need_chromium
from tests.browser.server import LAUNCH
from tests.processes import Server

__all__ = ["Server"]  # what the tests annotate the `server` fixture with


@pytest.fixture
def server(db_url: str, tmp_path: Path) -> Iterator[Server]:
    """The app on this test's database, started; `stop()` then `start().wait_ready()` restarts it
    on the same port."""
    running = Server(db_url, tmp_path / "data", "browser", launch=LAUNCH).wait_ready()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def playwright() -> Iterator[Any]:
    need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as running:
        yield running


@pytest.fixture(scope="module")
def browser(playwright: Any) -> Iterator[Any]:
    chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    try:
        yield chromium
    finally:
        chromium.close()
