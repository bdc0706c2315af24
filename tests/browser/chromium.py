"""Debian's Chromium, as the browser tests and bench/page_weight.py launch it: Playwright cannot
download its own browser here, and these flags keep a headless run from reaching the network."""

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
