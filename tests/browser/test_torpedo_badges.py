"""On the projector's battle map a torpedo's badge (its turns to impact) reads at
24 px from across the room and covers neither a ship's name, nor its marker, nor another badge."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server
from tests.browser.screens import create_game, shot
from tests.browser.test_bridge_e2e import npc_pass_all
from tests.browser.test_torpedoes import npc_station

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000

# Every badge, ship marker and ship name on the map: what it is, its box, and for a badge the
# size its number is drawn at.
MAP_PARTS = """() => {
  const box = el => {
    const r = el.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const parts = [];
  document.querySelectorAll('#map .torpedo-mark').forEach((g, i) => {
    const text = g.querySelector('text');
    parts.push({what: 'badge ' + i, box: box(g),
                size: parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a});
  });
  document.querySelectorAll('#map .ship-mark').forEach(g => {
    const name = g.querySelector('.ship-label').textContent;
    parts.push({what: 'marker ' + name, box: box(g.querySelector('.ship-shape'))});
    parts.push({what: 'name ' + name, box: box(g.querySelector('.ship-label'))});
  });
  return parts;
}"""


def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def test_two_torpedo_badges_read_at_24_px_and_cover_nothing(server: Server, browser: Any) -> None:
    gm = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    create_game(gm, server.base, "torpedo-run", seed=5, modules_off=("npc",))  # the GM orders Viper
    game_id = gm.url.rsplit("/", 1)[1]
    display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    display.goto(f"{server.base}/display/{game_id}")
    # Viper comes to Medium range, where both its tubes reach Harrier.
    viper = gm.locator("article.gm-ship:has(h3:text-is('Viper'))")
    for field, value in (("x", "8"), ("y", "5")):
        viper.locator(f"input[name={field}]").fill(value)
    viper.locator("button:has-text('Move')").click()
    expect(display.locator("#map")).to_contain_text(re.compile(r"5 sq\s*Medium"), timeout=WAIT)
    gm.locator("#turn button:has-text('Start combat')").click()
    weapons = npc_station(gm, "viper", "weapons")
    expect(weapons).to_be_visible(timeout=WAIT)
    weapons.locator("select[name=action]").select_option("attack")
    weapons.locator("input[name=value]").fill("1")
    for tube in ("tube-a", "tube-b"):
        weapons.locator(f"input[name=weapons][value={tube}]").check()
    weapons.locator("button:has-text('Order')").click()
    expect(npc_station(gm, "viper", "weapons")).to_contain_text("✓", timeout=WAIT)
    # Harrier has no crew: with every NPC station done, the turn reveals.
    npc_pass_all(gm)
    expect(display.locator("#map .torpedo-mark")).to_have_count(2, timeout=WAIT)
    shot(display, "projector-torpedo-badges")

    parts: list[dict[str, Any]] = display.evaluate(MAP_PARTS)
    badges = [p for p in parts if p["what"].startswith("badge")]
    small = [b for b in badges if b["size"] < 24 - 0.01]
    assert not small, small
    for badge in badges:
        covered = [p for p in parts if p is not badge and overlaps(badge["box"], p["box"])]
        assert not covered, (badge, covered)
