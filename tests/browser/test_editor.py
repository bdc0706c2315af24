"""Through the real server and Chromium, in English and in German: from the lobby, an organiser
copies a built-in ship class and changes it, builds a new scenario from scratch with a five-zone
map, two ships and a cue added through the form, starts it, sees the cue fire, and the crew play
a turn on it with phones. In German, no page it passes shows an English word: the built-ins' and
the test scenarios' content are in German too."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server
from tests.browser.screens import SCREENSHOTS, join, pick_cards, shot
from tests.browser.test_accessibility import violations
from tests.i18n.screens import NOT_WORDS, readable, without
from tests.i18n.test_screens import _ENGLISH

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000

# What the test types and waits for, in each language.
WORDS = {
    "en": {
        "editor": "Content editor",
        "saved": "Saved as version 1.",
        "gunboat": "Gunboat",
        "scenario": "Ring Fight",
        "description": "Five zones in a line, two ships.",
        "cue": "Boarders sighted",
        "message": "Boarders on the port side!",
        "revealed": "Turn 1 revealed",
        "moved": "Ship 1 moved from Zone 1 to Zone 2",
        "orders": "T1",
        "ship": "ship-1",
    },
    "de": {
        "editor": "Inhaltseditor",
        "saved": "Als Version 1 gespeichert.",
        "gunboat": "Kanonenboot Größe",
        "scenario": "Ringkampf über fünf Zonen",
        "description": "Fünf Zonen in einer Reihe, zwei Schiffe.",
        "cue": "Enterer gesichtet",
        "message": "Enterer an Backbord!",
        "revealed": "Runde 1 aufgedeckt",
        "moved": "Schiff 1 fliegt von Zone 1 nach Zone 2",
        "orders": "R1",
        "ship": "schiff-1",  # ids are made from the names, in the organiser's language
    },
}


def _english(page: Page, typed: dict[str, str]) -> list[str]:
    """English words on the page, the built-ins' and the test scenarios' content included (a
    German page shows their German), apart from what the organiser typed."""
    text = without(readable(page.content()), NOT_WORDS | set(typed.values()))
    return sorted(set(_ENGLISH.findall(text)))


def _saved(page: Page, words: dict[str, str]) -> None:
    page.locator("button.save").first.click()
    expect(page.locator(".ok-box")).to_contain_text(words["saved"], timeout=WAIT)


def _ordered(page: Page, button: str) -> None:
    """An order sent (or a pass), in any language: the phone no longer asks for one."""
    page.click(f"#order {button}")
    expect(page.locator("#order .order-state")).to_have_class(re.compile(r"\b(sent|idle)\b"))


def _touch(page: Page, zone: int, other: str) -> None:
    page.locator(f"#f-map-zones-{zone} input[value='{other}']").check()


@pytest.mark.parametrize("lang", ["en", "de"])
def test_copy_a_ship_class_build_a_zone_scenario_with_a_cue_start_it_and_play_a_turn(
    server: Server, browser: Any, playwright: Any, lang: str
) -> None:
    words = WORDS[lang]
    english: dict[str, list[str]] = {}

    def passed(page: Page, name: str) -> None:
        if lang == "de":
            english[name] = _english(page, words)

    base = server.base
    key = (server.data_dir / "organiser_key").read_text().strip()
    context = {"locale": "de-DE"} if lang == "de" else {}
    organiser = browser.new_context(viewport={"width": 1400, "height": 1000}, **context).new_page()
    organiser.goto(f"{base}/gm")
    organiser.click("a[href='/editor']")
    # Without the key the editor says why, and takes the key typed in.
    expect(organiser.locator(".error-box")).to_be_visible()
    passed(organiser, "editor key")
    organiser.fill("#organiser-key", key)
    organiser.locator("form:has(#organiser-key) button").click()
    expect(organiser.locator("h1")).to_have_text(words["editor"])
    passed(organiser, "editor home")

    # A copy of the built-in frigate, tougher, under a name of its own: its id is made from it.
    organiser.click("a[href='/editor/ship/new?copy=frigate']")
    organiser.fill("#f-name", words["gunboat"])
    if lang == "de":  # the copy's German name, beside the name: the original's, as a copy
        expect(organiser.locator("#f-_tr-de-name")).to_have_value(
            "Fregatte der Kestrel-Klasse (Kopie)"
        )
        organiser.fill("#f-_tr-de-name", words["gunboat"])
    organiser.fill("#f-defence", "6")
    expect(organiser.locator("#preview .ship")).to_contain_text(words["gunboat"], timeout=WAIT)
    # Text inputs read as the selects beside them do.
    sizes = organiser.evaluate(
        """() => [document.querySelector('#f-name'), document.querySelector('#f-systems')]
            .map(el => [parseFloat(getComputedStyle(el).fontSize), el.offsetHeight])"""
    )
    assert sizes[0][0] == sizes[1][0] and sizes[0][1] >= sizes[1][1] - 4, sizes
    passed(organiser, "ship form")
    _saved(organiser, words)
    gunboat = organiser.url.split("/editor/ship/")[1].split("?")[0]

    # A new scenario: the blank one has two zones and two ships; three zones more make a line.
    organiser.goto(f"{base}/editor")
    organiser.click("#kind-scenario a[href='/editor/scenario/new']")
    organiser.fill("#f-name", words["scenario"])
    organiser.fill("#f-description", words["description"])
    for _ in range(3):
        organiser.click("button[value='add:map.zones']")
    expect(organiser.locator("#f-map-zones-4")).to_be_visible()
    # Each link is ticked once, on the first of its two zones; it goes both ways.
    for zone, other in ((1, "zone-3"), (2, "zone-4"), (3, "zone-5")):
        _touch(organiser, zone, other)
    organiser.select_option("#f-ships-0-ship_class", gunboat)
    organiser.select_option("#f-ships-1-zone", "zone-5")
    expect(organiser.locator("#preview svg.zone-map g.zone")).to_have_count(5, timeout=WAIT)
    expect(organiser.locator("#preview .preview-problems")).to_have_count(0)

    # A cue through the form: as turn 1 begins, a message to every screen and a red alert.
    organiser.click("button[value='add:cues']")
    organiser.fill("#f-cues-0-name", words["cue"])
    organiser.select_option("#f-cues-0-trigger-kind", "turn")
    organiser.select_option("#f-cues-0-actions-0-kind", "message")
    organiser.locator("#f-cues-0 button[value=refresh]").click()
    organiser.fill("#f-cues-0-trigger-value", "1")
    organiser.fill("#f-cues-0-actions-0-value", words["message"])
    organiser.click("#f-cues-0 button[value='add:cues[0].actions']")
    organiser.select_option("#f-cues-0-actions-1-kind", "red_alert")
    organiser.locator("#f-cues-0 button[value=refresh]").click()
    expect(organiser.locator("#f-cues-0-actions-1-value")).to_be_checked()
    expect(organiser.locator("#preview .preview-cues")).to_contain_text(words["cue"], timeout=WAIT)
    passed(organiser, "scenario form")
    _saved(organiser, words)
    scenario = organiser.url.split("/editor/scenario/")[1].split("?")[0]
    shot(organiser, f"editor-zone-scenario-{lang}", full_page=True)

    # The lobby lists it with its description; the GM starts it.
    gm = browser.new_context(viewport={"width": 1600, "height": 1000}, **context).new_page()
    gm.goto(f"{base}/gm")
    choice = gm.locator(f"label.choice:has(input[value={scenario}])")
    expect(choice).to_contain_text(words["description"])
    passed(gm, "lobby")
    choice.click()
    gm.fill("#seed", "7")
    gm.locator("button.lobby-create").click()
    gm.wait_for_url(re.compile(r"/gm/[0-9a-f-]+$"))
    code = gm.inner_text(".gm-join .d-code").strip()
    expect(gm.locator("#ship-status, main").first).to_contain_text(words["gunboat"])

    phones: dict[str, Page] = {}
    for role, device in (("pilot", "Pixel 7"), ("weapons", "iPhone 13")):
        page = browser.new_context(**playwright.devices[device], **context).new_page()
        join(page, base, code, f"{words['ship']}/{role}", f"Kim {role}")
        phones[role] = page
    expect(gm.locator("#seats")).to_contain_text("Kim weapons", timeout=WAIT)
    if lang == "de":  # the projector speaks the language the GM sets for the room
        gm.click("#gm-settings > summary")
        form = gm.locator("form.cmd:has(input[name=type][value=SetDisplayLanguage])")
        form.locator("select[name=language]").select_option("de")
        form.locator("button").click()
    display = browser.new_context(viewport={"width": 1920, "height": 1080}, **context).new_page()
    display.goto(gm.url.replace("/gm/", "/display/"))

    gm.locator("#turn input[name=seconds]").fill("0")
    gm.locator("#turn form:has(input[value=StartTurn]) button").click()
    for page in phones.values():
        expect(page.locator("#status")).to_contain_text(words["orders"], timeout=WAIT)
    # The cue fired as turn 1 began: its message on every screen, the red alert on the projector.
    expect(display.locator("#messages")).to_contain_text(words["message"], timeout=WAIT)
    expect(phones["pilot"].locator("#messages")).to_contain_text(words["message"])
    expect(display.locator("#alert")).not_to_have_class(re.compile(r"\boff\b"), timeout=WAIT)
    passed(gm, "GM")
    passed(phones["pilot"], "phone")

    # The Pilot flies the Gunboat into the next zone; the Weapons officer holds fire.
    pilot = phones["pilot"]
    pick_cards(pilot, 5)
    total = int(pilot.inner_text("#hand [data-total]"))
    assert total >= 3, f"seed 7 deals the Pilot {total}: pick another seed"
    pilot.locator(".zone-pick-map g.zone[data-zone=zone-2]").click()
    _ordered(pilot, "button.primary[type=submit]")
    _ordered(phones["weapons"], "button[hx-post=pass]")
    gm.locator("#turn form:has(input[value=CloseOrders]) button").click()
    expect(display.locator("#reveal")).to_contain_text(words["revealed"], timeout=WAIT)
    expect(display.locator("#reveal")).to_contain_text(words["moved"])
    expect(display.locator("svg.zone-map g.zone")).to_have_count(5)
    passed(display, "projector")
    shot(display, f"projector-custom-scenario-{lang}")
    assert not {page: found for page, found in english.items() if found}


def _on_screen(page: Page, x: float, y: float) -> tuple[float, float]:
    """Where a point of the drawn zone map (map units) is in the window."""
    found = page.evaluate(
        """([x, y]) => {
            const svg = document.querySelector('#zone-draw svg');
            const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
            return [p.x, p.y];
        }""",
        [x, y],
    )
    return float(found[0]), float(found[1])


def _drag(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    page.mouse.move(*_on_screen(page, *start))
    page.mouse.down()
    page.mouse.move(*_on_screen(page, *end), steps=8)
    page.mouse.up()


def _swipe(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A finger's drag (the browser's own touch events, which it turns into pointer events)."""
    touch = page.context.new_cdp_session(page)
    (x0, y0), (x1, y1) = _on_screen(page, *start), _on_screen(page, *end)
    touch.send(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]}
    )
    for step in range(1, 9):
        at = {"x": x0 + (x1 - x0) * step / 8, "y": y0 + (y1 - y0) * step / 8}
        touch.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [at]})
    touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    touch.detach()


def _placed(page: Page, zone: int) -> tuple[int, int]:
    at = f"#f-map-zones-{zone}"
    return int(page.input_value(f"{at}-x")), int(page.input_value(f"{at}-y"))


def _linked(page: Page) -> set[tuple[int, str]]:
    """The links the form holds: (zone row, the other zone's id), ticked on the first zone."""
    found = page.eval_on_selector_all(
        "#item-form input[type=checkbox][name$='.touches|list']:checked",
        "boxes => boxes.map(b => [b.name, b.value])",
    )
    return {(int(re.findall(r"\d+", name)[0]), other) for name, other in found}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_zone_map_drawn_by_dragging_is_saved_and_shown_where_drawn(
    server: Server, browser: Any, lang: str
) -> None:
    """Three zones placed by dragging (with a mouse and a finger), two links drawn from zone to
    zone and the blank map's own link clicked away: the fields follow, a save keeps it all, and
    the projector of a game started from it draws the zones where they were placed."""
    base = server.base
    key = (server.data_dir / "organiser_key").read_text().strip()
    context = {"locale": "de-DE"} if lang == "de" else {}
    organiser = browser.new_context(
        viewport={"width": 1400, "height": 1000}, has_touch=True, **context
    ).new_page()
    organiser.goto(f"{base}/editor?organiser_token={key}")
    organiser.goto(f"{base}/editor/scenario/new")
    name = {"en": "Drawn Triangle", "de": "Gezeichnetes Dreieck über drei Zonen"}[lang]
    organiser.fill("#f-name", name)
    organiser.click("button[value='add:map.zones']")
    drawing = organiser.locator("#zone-draw svg")
    expect(drawing.locator("g.zone-draw-zone")).to_have_count(3)
    expect(drawing.locator("line.zone-draw-link")).to_have_count(1)  # the blank map's own
    drawing.scroll_into_view_if_needed()

    # Each zone dragged by its inner disc to where it goes: the last by a finger.
    wanted = {0: (15, 70), 1: (85, 70), 2: (50, 20)}
    for zone, spot in wanted.items():
        (_swipe if zone == 2 else _drag)(organiser, _placed(organiser, zone), spot)
    placed = {zone: _placed(organiser, zone) for zone in wanted}
    for zone, (x, y) in placed.items():
        assert abs(x - wanted[zone][0]) <= 1 and abs(y - wanted[zone][1]) <= 1, placed

    # The blank map's link clicked away leaves Zone 3 cut off: the save is refused, in the
    # reader's language beside the map's fields, and the drawing is as it was left.
    (x1, y1), (x2, y2), (x3, y3) = placed[0], placed[1], placed[2]
    organiser.mouse.click(*_on_screen(organiser, (x1 + x2) / 2, (y1 + y2) / 2))
    expect(drawing.locator("line.zone-draw-link")).to_have_count(0)
    organiser.locator("button.save").first.click()
    cut_off = {"en": "The map is not connected", "de": "Die Karte hängt nicht zusammen"}[lang]
    expect(organiser.locator("fieldset:has(#zone-draw) .field-error")).to_contain_text(cut_off)
    assert {zone: _placed(organiser, zone) for zone in wanted} == placed
    drawing.scroll_into_view_if_needed()

    # Two links, each dragged from a zone's outer ring onto the other zone.
    _drag(organiser, (x1 + 8, y1), (x3, y3))
    _drag(organiser, (x3 - 8, y3), (x2, y2))
    expect(drawing.locator("line.zone-draw-link")).to_have_count(2)
    assert _linked(organiser) == {(0, "zone-3"), (1, "zone-3")}
    expect(organiser.locator("#preview svg.zone-map line.zone-link")).to_have_count(2, timeout=WAIT)
    assert not violations(organiser), violations(organiser)
    organiser.locator("fieldset:has(#zone-draw)").screenshot(
        path=str(SCREENSHOTS / f"editor-zone-drawing-{lang}.png")
    )
    if lang == "de":
        assert not _english(organiser, {"name": name}), _english(organiser, {"name": name})
    organiser.locator("button.save").first.click()
    expect(organiser.locator(".ok-box")).to_be_visible(timeout=WAIT)
    scenario = organiser.url.split("/editor/scenario/")[1].split("?")[0]

    # Opened again: the places and the links are the saved ones, in the fields and the drawing.
    organiser.goto(f"{base}/editor/scenario/{scenario}")
    assert {zone: _placed(organiser, zone) for zone in wanted} == placed
    assert _linked(organiser) == {(0, "zone-3"), (1, "zone-3")}
    expect(drawing.locator("line.zone-draw-link")).to_have_count(2)

    # A game from it: the projector and the GM draw each zone where it was placed, and the two
    # links.
    gm = browser.new_context(viewport={"width": 1600, "height": 1000}, **context).new_page()
    gm.goto(f"{base}/gm")
    gm.locator(f"label.choice:has(input[value={scenario}])").click()
    gm.locator("button.lobby-create").click()
    gm.wait_for_url(re.compile(r"/gm/[0-9a-f-]+$"))
    display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    display.goto(gm.url.replace("/gm/", "/display/"))
    for page in (display, gm):
        zones = page.locator("svg.zone-map g.zone")
        expect(zones).to_have_count(3, timeout=WAIT)
        expect(page.locator("svg.zone-map line.zone-link")).to_have_count(2)
        shown = {}
        for zone in range(3):
            transform = page.get_attribute(
                f"svg.zone-map g.zone[data-zone=zone-{zone + 1}]", "transform"
            )
            across, down = re.findall(r"[-\d.]+", transform or "")
            shown[zone] = (float(across), float(down))
        assert shown == {zone: (float(x), float(y)) for zone, (x, y) in placed.items()}, shown
