"""What a test does with the screens, in the players' own steps: join, pick cards, send, pass."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from playwright.sync_api import Page, expect

# Screenshots refresh the README's pictures only when asked
# (`BRIDGECREW_SCREENSHOTS=docs/screenshots make test`); an ordinary run writes them to a scratch
# folder, so tests leave the tree clean.
SCREENSHOTS = Path(
    os.environ.get("BRIDGECREW_SCREENSHOTS")
    or Path(tempfile.gettempdir()) / "bridgecrew-screenshots"
).resolve()

# Records navigator.vibrate calls, so a test can tell the phone buzzed.
VIBRATE_SPY = (
    "window.__buzz = [];"
    "navigator.vibrate = function (pattern) { window.__buzz.push(pattern); return true; };"
)


def create_game(
    gm: Page,
    base: str,
    scenario: str | None = None,
    seed: int | None = None,
    modules_off: tuple[str, ...] = (),
) -> str:
    """The GM makes a game with the lobby's defaults (or this scenario and seed, and without
    these modules of it); returns its join code."""
    gm.goto(f"{base}/gm")
    if scenario is not None:
        gm.click(f"label.choice:has(input[value={scenario}])")
    for module in modules_off:
        gm.uncheck(f"input[name='modules.{scenario}'][value={module}]")
    if seed is not None:
        gm.fill("#seed", str(seed))
    gm.click("button:has-text('Create game')")
    gm.wait_for_url(re.compile(r"/gm/[0-9a-f-]+$"))
    return gm.inner_text(".gm-join .d-code").strip()


def join(page: Page, base: str, code: str, seat: str, name: str) -> None:
    """Join through the join URL: one tap for the station, a name, Join (the first free
    character is already chosen)."""
    page.goto(f"{base}/join/{code}")
    page.click(f"label.choice:has(input[value='{seat}'])")
    page.fill("#name", name)
    page.click("form.join-form button[type=submit]")  # in any language
    page.wait_for_url(re.compile(r"/play/[0-9a-f-]+$"))
    expect(page.locator("#hand")).to_be_visible()


def hand_ids(page: Page) -> list[str]:
    ids: list[str] = page.eval_on_selector_all(
        "#hand input[name=cards]", "els => els.map(e => e.value)"
    )
    return ids


def hand_limit(page: Page) -> int:
    return int(page.inner_text("#me .limit"))


def pick_cards(page: Page, count: int = 1) -> int:
    """Tap up to `count` cards that fit the chosen action; returns how many were tapped."""
    playable = page.locator("#hand .card:not(.unfit):not(:has(input:checked))")
    tapped = min(count, playable.count())
    for _ in range(tapped):
        playable.first.click()
    return tapped


# Sent, or already resolved: the last order of a turn reveals it at once.
TAKEN = re.compile(r"Sent|is over|Resolving")


def send(page: Page) -> None:
    page.click("#order button:has-text('Send order')")
    expect(page.locator("#order .order-state")).to_have_text(TAKEN)


def pass_turn(page: Page) -> None:
    page.click("#order button:has-text('Pass')")
    expect(page.locator("#order .order-state")).to_have_text(TAKEN)


def shot(page: Page, name: str, full_page: bool = False) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page)


SMALL_TARGETS = """() => Array.from(document.querySelectorAll(
    'button, a, summary, label.choice, label.card, label.cell, input[type=number], ' +
    'input[type=text]'))
  .filter(el => el.offsetParent !== null)
  .map(el => [el.tagName + '.' + el.className + ' ' + el.textContent.trim().slice(0, 30),
              el.getBoundingClientRect()])
  .filter(([, r]) => r.width > 0 && (r.width < 44 || r.height < 44))
  .map(([name, r]) => name + ' ' + Math.round(r.width) + 'x' + Math.round(r.height))"""


def small_targets(page: Page) -> list[str]:
    """Visible tap targets smaller than 44 x 44 CSS px (fingers in the dark, in gloves)."""
    found: list[str] = page.evaluate(SMALL_TARGETS)
    return found
