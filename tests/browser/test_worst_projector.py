"""The projector on the worst table (tests/browser/worst_case.py) at 1920x1080 and 1280x720: as
the GM adds ships from two to eight, before combat, while orders are open and after a reveal,
through the cue's wave as turn 2 begins (and its RED ALERT), every ship and every station is on
screen, no text is under the floor (24 px at both sizes), a name too long for its place ends in
an ellipsis with the whole name in its title, and no word is split without a hyphen; on the
small projector the ready list's marks sit on their ships' lines."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server
from tests.browser.screens import shot
from tests.browser.test_zone_map import check_zone_map
from tests.browser.worst_case import (
    CREW,
    FLOOR,
    PROJECTORS,
    READABLE_PAGES,
    WAIT,
    Table,
    projector_page,
    projector_problems,
    ready_marks_level,
    small_projector,
    worst_table,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def settled(display: Page, table: Table) -> None:
    expect(display.locator("#ship-status article.ship")).to_have_count(table.ships(), timeout=WAIT)
    display.wait_for_timeout(300)


def stations_shown(display: Page, table: Table) -> None:
    """Every station of every ship has its line or chip on the projector."""
    view = table.view()
    wanted = {f"station-{s['id']}-{st['id']}" for s in view["ships"] for st in s["stations"]}
    drawn = set(
        display.evaluate(
            "() => Array.from(document.querySelectorAll('#ship-status [id^=station-]'), e => e.id)"
        )
    )
    assert wanted <= drawn, sorted(wanted - drawn)


# A ship on the ready list named by enough of its name to tell it from the others.
RECOGNISABLE = 12


def ready_names_shown(display: Page) -> dict[str, int]:
    """How many letters of each ship's name the ready list shows (as wide as its box allows)."""
    shown: dict[str, int] = display.evaluate(
        """() => Object.fromEntries(Array.from(document.querySelectorAll('#ready h3'))
          .filter(h => h.checkVisibility())
          .map(h => [h.title, Math.floor(h.title.length
                                         * Math.min(1, h.clientWidth / h.scrollWidth))]))"""
    )
    return shown


def ready_shown(display: Page, table: Table, small: bool) -> None:
    """Every ship still fighting is on the ready list, recognisably: by 12 letters of its name, or
    on a small projector by a mark on the ship's own line."""
    fighting = {s["id"] for s in table.view()["ships"] if not s["destroyed"] and not s.get("out")}
    if small:
        level = ready_marks_level(display)
        assert set(level) == fighting and all(level.values()), level
    else:
        shown = ready_names_shown(display)
        assert len(shown) == len(fighting) and min(shown.values()) >= RECOGNISABLE, shown


@pytest.mark.parametrize(
    "viewport",
    PROJECTORS,
    ids=lambda v: f"{v['width']}x{v['height']}",
)
def test_every_ship_and_station_readable_from_two_to_eight_ships(
    server: Server, browser: Any, viewport: dict[str, int]
) -> None:
    table = worst_table(server.base, ships=2)
    display = projector_page(browser, table, viewport)
    size = f"{viewport['width']}x{viewport['height']}"
    small = small_projector(viewport)
    settled(display, table)
    assert not projector_problems(display), projector_problems(display)
    stations_shown(display, table)
    # Two ships are full cards: each station's line names its crew, on a small projector too.
    crews = display.evaluate(
        """() => Array.from(document.querySelectorAll('#ship-hoffnung .crew'))
          .filter(e => e.checkVisibility()).map(e => e.title)"""
    )
    assert sorted(crews) == sorted(CREW.values()), crews
    rng = random.Random(7)
    for ships in range(3, 9):
        table.grow(ships)
        if ships == 3:
            # Orders open, then a reveal, with three ships: the first layout's fullest moment.
            table.command("StartTurn")
            settled(display, table)
            assert not projector_problems(display), ("orders", projector_problems(display))
            ready_shown(display, table, small)
            table.order_all(rng)
            if table.view()["game"]["phase"] == "orders":
                table.command("CloseOrders")
            expect(display.locator("#reveal")).to_contain_text("Runde 1", timeout=WAIT)
            # The reveal's first page leads with what the turn did to each ship.
            expect(display.locator("#reveal").locator("li:visible").first).to_have_class(
                re.compile(r"\btally\b")
            )
            # The whole turn in a few pages, read in the seconds a GM gives the room.
            expect(display.locator("#reveal")).to_have_attribute("data-pages", re.compile(r"^\d+$"))
            shot(display, f"worst-projector-{size}-reveal-1")
            pages = int(display.locator("#reveal").get_attribute("data-pages") or 0)
            assert 1 <= pages <= READABLE_PAGES, pages
        if ships == 4:
            # Turn 2: the cue's wave of two raiders arrives, with RED ALERT and the cue's
            # message; the last reveal stays up while orders are open.
            table.command("StartTurn")
            expect(display.locator("#alert")).to_contain_text("ROTER ALARM", timeout=WAIT)
        settled(display, table)
        shot(display, f"worst-projector-{size}-{table.ships()}")
        assert not projector_problems(display), (ships, projector_problems(display))
        if display.locator("#map").is_visible():
            check_zone_map(display, "#map", FLOOR)
        else:
            # A small projector gives the map's place to the reveal until the next orders open.
            assert small and table.view()["game"]["phase"] != "orders"
            expect(display.locator("#reveal h2")).to_be_visible()
        if table.view()["game"]["phase"] == "orders":
            ready_shown(display, table, small)
        stations_shown(display, table)
