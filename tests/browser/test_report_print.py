"""The after-action report printed on A4 (the worst table, tests/browser/worst_case.py): black
headings on white paper, and the ships table inside the page's width, no cell spilling and
no word split without a hyphen (190 mm of print area,
718 px)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import Server
from tests.browser.worst_case import spills, split_words, worst_table

pytestmark = [pytest.mark.browser, pytest.mark.slow]

A4_PRINT_AREA = {"width": 718, "height": 1047}  # 190 x 277 mm at 96 px to the inch


def test_the_report_prints_on_a4_with_dark_headings_and_the_ships_table_inside(
    server: Server, browser: Any
) -> None:
    table = worst_table(server.base, ships=4)
    table.command("StartTurn")
    table.command("EndCombat")
    page = browser.new_context(viewport=A4_PRINT_AREA, locale="de-DE").new_page()
    page.emulate_media(media="print")
    page.goto(f"{table.base}/report/{table.game_id}?token={table.gm_token}")
    found = page.evaluate(
        """() => {
          const light = (el) => {
            const [r, g, b] = getComputedStyle(el).color.match(/\\d+/g).map(Number);
            return 0.2126 * r + 0.7152 * g + 0.0722 * b > 110;
          };
          const page = document.documentElement.clientWidth;
          return {
            headings: Array.from(document.querySelectorAll('h1, h2, h3, h4, th'))
              .filter(el => el.checkVisibility() && light(el)).map(el => el.textContent.trim()),
            tables: Array.from(document.querySelectorAll('table'))
              .filter(el => el.getBoundingClientRect().right > page + 1
                || el.scrollWidth > page + 1)
              .map(el => el.className + ' ' + Math.round(el.getBoundingClientRect().right)),
          };
        }"""
    )
    assert not found["headings"], found["headings"]
    assert not found["tables"], found["tables"]
    assert not split_words(page, "main"), split_words(page, "main")
    assert not spills(page, "main"), spills(page, "main")
