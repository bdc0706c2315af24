"""The GM's dashboard after a combat, a destroyed ship, the sections to jump
to, and the zone rules the phones charge."""

from __future__ import annotations

import re
from typing import Any

from app.rules import commands as c
from app.rules import display_view, gm_view
from app.web.render import render_page
from tests.web import games
from tests.web.test_end_screens import after
from tests.web.test_render import PAGE

State = dict[str, Any]


def gm(state: State) -> str:
    return render_page("gm", gm_view(state), **PAGE)


def start_buttons(html: str) -> list[str]:
    return re.findall(r"<button[^>]*>\s*(Start combat|Start the next combat|Start turn \d+)", html)


# rule: G-END-3
def test_after_a_combat_the_gm_has_one_start_button_and_it_starts_the_next_combat() -> None:
    before = games.seated()
    assert start_buttons(gm(before)) == ["Start combat"]
    over = after(games.orders_phase(), c.EndCombat())
    html = gm(over)
    assert start_buttons(html) == ["Start the next combat"]
    turn = re.search(r'<section id="turn".*?</section>', html, re.S)
    assert turn is not None and 'name="type" value="StartNextCombat"' in turn.group(0)
    ending = re.search(r'<section id="combat-end".*?</section>', html, re.S)
    assert ending is not None and "StartNextCombat" not in ending.group(0)


def hull_label(html: str, article: str) -> str:
    """The Hull row's words in one ship's article (the GM's card or a ship panel)."""
    found = re.search(
        article
        + r".*?(?:<div id=\"gm-track-\w+-hull\" class=\"gm-row\">"
        + r"<b class=\"gm-cell gm-head\">Hull</b>.*?</div>\s*</div>"
        + r"|hull-row.*?(?=<span class=\"track))",
        html,
        re.S,
    )
    assert found is not None, article
    return re.sub(r"<[^>]+>|\s+", " ", found.group(0)).split("Hull")[-1]


def test_a_ship_the_gm_destroyed_reads_destroyed_not_a_whole_hull() -> None:
    state = after(games.orders_phase(), c.DestroyShip(ship="rustjaw"))
    boxes = state["ships"]["rustjaw"]["hull"]["boxes"]
    assert state["ships"]["rustjaw"]["hull"]["damage"] == 0  # the boxes stay as they were
    whole = f"{boxes}/{boxes}"
    card = r'<article id="gm-ship-rustjaw" class="panel gm-ship side-raiders destroyed"'
    gm_hull = hull_label(gm(state), card)
    display = render_page("display", display_view(state), **PAGE)
    shown = hull_label(display, r'id="ship-rustjaw"')
    for label in (gm_hull, shown):
        assert "destroyed" in label and whole not in label.replace(" ", ""), label
    # A ship still fighting keeps its numbers.
    kestrel = state["ships"]["kestrel"]["hull"]
    whole = f"{kestrel['boxes'] - kestrel['damage']}/{kestrel['boxes']}"
    assert whole in hull_label(display, r'id="ship-kestrel"').replace(" ", "")


def test_the_dashboard_links_to_each_of_its_sections() -> None:
    html = gm(games.orders_phase())
    targets = re.findall(r'<a href="#([\w-]+)" data-jump="([\w-]+)">', html)
    assert ("seats", "seats") in targets and len(targets) >= 8
    for target, _ in targets:
        assert f'id="{target}"' in html, target


def test_the_dashboard_shows_the_zone_moves_and_terrain_the_phones_charge() -> None:
    state = games.seated("nebula-ambush")
    state = after(state, c.SetSetting(name="zone_move_two", value=5))
    html = gm(state)
    rules = re.search(r'<details id="gm-zone-rules".*?</details>', html, re.S)
    assert rules is not None
    text = re.sub(r"<[^>]+>", "", rules.group(0))
    assert "One zone costs 3, two zones 5" in text
    for zone in state["map"]["zones"].values():
        if zone["terrain"] != "open":
            assert f"{zone['name']}:" in text
    assert 'value="zone_move_two"' in rules.group(0) and 'name="value" value="5"' in rules.group(0)
    assert "gm-zone-rules" not in gm(games.seated())  # a grid game has no zones to explain


def test_the_cue_list_says_who_fired_each_cue_last() -> None:
    """M-CUES-3: Boarding Party's alarm is a prop's button; the GM's list says a prop pressed it,
    and the GM when the GM fires it."""
    state = games.seated("boarding-party")
    state = after(state, c.FireCue(cue="alarm", actor=c.Actor.prop()))
    alarm = re.search(r'<li class="cue [^"]*" id="cue-alarm">(.*?)</li>', gm(state), re.S)
    assert alarm is not None and "· by a prop" in alarm[1]
    state = after(state, c.FireCue(cue="alarm"))
    alarm = re.search(r'<li class="cue [^"]*" id="cue-alarm">(.*?)</li>', gm(state), re.S)
    assert alarm is not None and "· by the GM" in alarm[1] and "by a prop" not in alarm[1]
