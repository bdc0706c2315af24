"""Debian's Chromium, as the browser tests and bench/page_weight.py launch it: Playwright cannot
download its own browser here, and these flags keep a headless run from reaching the network."""

import os
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def under_ci() -> bool:
    """CI services set `CI` (to true), and so does .ci/run."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def need_chromium(path: str = CHROMIUM) -> None:
    """Skip the browser tests without Chromium on a developer's machine, but fail them under CI,
    where a skip would hide that no screen was looked at."""
    if Path(path).exists():
        return
    missing = f"Chromium is not at {path} (apt-get install chromium)"
    if under_ci():
        pytest.fail(f"{missing}; under CI the browser tests must run", pytrace=False)
    pytest.skip(missing)
