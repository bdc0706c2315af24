"""Browser tests: the real server in a child process (so it can be killed and restarted) on a fresh
database, and Debian's Chromium driven by Playwright. Nothing loads from the internet.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.browser


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    """`python -m tests.browser.server` on one port; stop() and start() keep port and database."""

    def __init__(self, db_url: str, data_dir: Path) -> None:
        self.port = free_port()
        self.db_url = db_url
        self.data_dir = data_dir
        self.process: subprocess.Popen[bytes] | None = None
        self.base = f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.browser.server",
                str(self.port),
                self.db_url,
                str(self.data_dir),
            ],
            cwd=ROOT,
            env=env,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.base}/healthz", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            if self.process.poll() is not None:
                raise RuntimeError("the server exited while starting")
            time.sleep(0.2)
        raise RuntimeError("the server did not come up within 30 s")

    def stop(self) -> None:
        """SIGTERM, as a GM's Ctrl-C or a service manager would: a graceful shutdown."""
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None


@pytest.fixture
def server(db_url: str, tmp_path: Path) -> Iterator[Server]:
    running = Server(db_url, tmp_path / "data")
    running.start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def playwright() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed (apt-get install chromium)")
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
