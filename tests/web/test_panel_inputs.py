"""Screens cannot go stale: every panel of every screen is a function of the inputs it declares
(app/web/render.py), so it is pushed exactly when they change.

Along bot games with every kind of change a table sees (orders, turns, damage, messages, red
alert, modifiers, injuries, an allocation prompt), for every panel of every screen (each station,
the GM, the projector):
- changing everything in the view except its inputs leaves its full render and its key as they
  were: it shows nothing it did not declare, and is not pushed for changes elsewhere;
- its key changes, and its HTML with it, at some step of the game: its inputs are live;
- at every step where its full render changed, its key changed: it is never left stale;
- rendered from its inputs alone, it is the full render's bytes, and reading anything else fails.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from typing import Any

import pytest
from jinja2 import UndefinedError

from app.content import load_catalogue
from app.rules import apply, new_game
from app.rules import commands as c
from app.rules.bot import seat_table, table_command
from app.rules.content import MODULES
from app.service import canonical, view_for
from app.web import render as panels
from app.web.live.presence import Presence, with_presence
from app.web.render import PANELS, PLANS, TREES, Inputs, Screen, render_panels

State = dict[str, Any]
SCREENS = [(audience, name) for audience in PANELS for name in PANELS[audience]]


def _game(scenario: str, seed: int, steps: int) -> tuple[list[State], list[str]]:
    """States along a bot game at a fully seated bridge of the scenario's first players' ship,
    every module switched on, with the GM's doings mixed in."""
    catalogue = load_catalogue()
    state = canonical(new_game(catalogue.scenarios[scenario], catalogue, seed=seed))
    for module in MODULES:
        state = canonical(apply(state, c.SetModule(module=module, on=True))[0])
    ship = next(s for s in state["ships"].values() if s["crew"] == "players")["id"]
    state, seats = seat_table(state, ship, 5, list(catalogue.characters), canonical)
    character = next(iter(state["characters"]))
    gm_doings: list[c.Command] = [
        c.SendMessage(text="All hands"),
        c.SendMessage(text="Weapons only", to="kestrel/weapons"),
        c.SetRedAlert(on=True),
        c.SetCharacteristic(character=character, field="strength", value=1),
        c.SetRedAlert(on=False),
        c.SetSetting(name="sound_volume", value=40),
        c.SetShipValue(ship=ship, field="name", value="Gefechtsstation Friedrich-Wilhelm"),
    ]
    rng, states = random.Random(seed), [state]
    for step in range(steps):
        command = gm_doings[step // 9 % len(gm_doings)] if step % 9 == 4 else None
        try:
            command = command or table_command(state, rng, step)
            state = canonical(apply(state, command)[0])
        except Exception:  # the bot may propose what the engine refuses
            continue
        states.append(state)
    # Engineering asked where Hull damage goes (the bots rarely get there on their own).
    prompt = {"ships": {ship: {"hull_damage": 3, "answered": False}}}
    states.append(canonical({**state, "phase": "allocation", "allocation": prompt}))
    # The end of the combat (G-END-1, G-END-2): one side beaten, then the GM ends it.
    if state["phase"] == "downtime":
        state = canonical(apply(state, c.StartTurn())[0])
    for enemy in [s["id"] for s in state["ships"].values() if s["side"] != "players"]:
        if state["ships"][enemy]["destroyed"]:
            continue
        state = canonical(apply(state, c.DestroyShip(ship=enemy))[0])
    states.append(state)
    states.append(canonical(apply(state, c.EndCombat())[0]))
    return states, seats


# Every map and every module: a grid and a zone map, torpedoes, NPC crews and seat changes.
SCENARIOS = ("skirmish", "torpedo-run", "nebula-ambush", "boarding-party")


@pytest.fixture(scope="module", params=SCENARIOS)
def game(request: pytest.FixtureRequest) -> tuple[list[State], list[str]]:
    return _game(request.param, seed=7, steps=90)


def _view(state: State, viewer: Any, seats: list[str]) -> dict[str, Any]:
    """A screen's view; the GM's with who is connected, as the hub gives it: one of the bridge's
    phones offline, and no projector."""
    view = view_for(state, viewer)
    if viewer != "gm":
        return view
    connected = Presence()
    for seat in seats[1:]:
        connected.came(seat)
    return with_presence(view, connected)


def _viewers(audience: str, seats: list[str]) -> list[Any]:
    if audience == "station":
        return [("seat", seat) for seat in seats]
    return [audience]


def _outside(node: Any, tree: panels.Tree | None, hit: int) -> Any:
    """The view with every plain value outside `tree` changed (inside it, left as it is)."""
    if tree is None:
        return node
    if isinstance(node, dict):
        return {
            key: _outside(value, tree["*"] if "*" in tree else tree.get(key, {}), hit)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_outside(item, tree.get("*", {}), hit) for item in node]
    if tree:  # a plain value where a declared path would go on: it is an input itself
        return node
    return _changed(node, hit)


def _changed(value: Any, hit: int) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1 + hit
    if isinstance(value, str):
        return f"{value}≠{hit}"
    if value is None:
        return f"was none {hit}"
    return value


def _every_view(game: tuple[list[State], list[str]]) -> Iterator[tuple[str, Any, int, State]]:
    states, seats = game
    for audience in PANELS:
        for viewer in _viewers(audience, seats):
            for index, state in enumerate(states):
                yield audience, viewer, index, _view(state, viewer, seats)


@pytest.mark.parametrize(("audience", "name"), SCREENS)
def test_a_panel_shows_nothing_but_its_inputs(
    game: tuple[list[State], list[str]], audience: str, name: str
) -> None:
    """Everything else in the view changed: the same full render, the same key (no push)."""
    states, seats = game
    tree = TREES[(audience, name)]
    for viewer in _viewers(audience, seats):
        for index in range(0, len(states), 7):
            view = _view(states[index], viewer, seats)
            other = _outside(view, tree, index)
            assert other != view
            own = PLANS[(audience, name)].own
            assert Inputs().key(other, own) == Inputs().key(view, own)
            shown = render_panels(audience, view, (name,))
            assert render_panels(audience, other, (name,)) == shown, (viewer, index)


@pytest.mark.slow
def test_every_panel_is_pushed_exactly_when_its_inputs_change(
    game: tuple[list[State], list[str]],
) -> None:
    """Key changed wherever the full render changed; and each panel both changes somewhere and
    stays put somewhere (it is not simply pushed on every change)."""
    before: dict[tuple[str, Any, str], tuple[int, str]] = {}
    changed: set[tuple[str, str]] = set()
    kept: set[tuple[str, str]] = set()
    for audience, viewer, _, view in _every_view(game):
        parts = Inputs()
        for name in PANELS[audience]:
            key = parts.key(view, TREES[(audience, name)])
            projected = parts.project(view, TREES[(audience, name)])
            html = render_panels(audience, view, (name,))
            assert render_panels(audience, projected, (name,)) == html, (audience, name)
            was = before.get((audience, viewer, name))
            before[(audience, viewer, name)] = (key, html)
            if was is None:
                continue
            if was[1] != html:
                assert was[0] != key, f"{audience} {name} went stale"
                changed.add((audience, name))
            elif was[0] == key:
                kept.add((audience, name))
    assert sorted(set(SCREENS) - changed) == []
    assert sorted(set(SCREENS) - kept) == []


def _plain(value: Any) -> bool:
    """JSON data, nothing else: dicts with string keys, lists, strings, finite numbers, booleans,
    None."""
    if type(value) is dict:
        return all(type(key) is str and _plain(item) for key, item in value.items())
    if type(value) is list:
        return all(_plain(item) for item in value)
    if type(value) is float:
        return math.isfinite(value)
    return value is None or type(value) in (str, int, bool)


def test_views_are_plain_json_data(game: tuple[list[State], list[str]]) -> None:
    """The hub remembers what each panel read of a part by the part's JSON (app.web.render):
    sound because equal JSON means equal values, down to their types, in views alone."""
    for audience, viewer, index, view in _every_view(game):
        assert _plain(view), (audience, viewer, index)


def test_reading_anything_but_its_inputs_fails_the_render(
    game: tuple[list[State], list[str]],
) -> None:
    states, _ = game
    view = view_for(states[-1], "display")
    projected = Inputs().project(view, TREES[("display", "alert")])
    assert projected["game"]["red_alert"] is view["game"]["red_alert"]
    with pytest.raises(UndefinedError, match="'log' is not an input of this fragment"):
        render_panels("display", projected, ("log",))


ENTRIES = [(audience, name) for audience, name in SCREENS if PANELS[audience][name].items]


@pytest.mark.parametrize(("audience", "name"), ENTRIES)
def test_an_entry_drawn_from_its_inputs_is_what_its_panel_draws(
    game: tuple[list[State], list[str]], audience: str, name: str
) -> None:
    """Each entry of a panel's list, rendered from its own inputs alone (its fields, its owner's,
    its slice of keyed parts, its panel's inputs; reading anything else fails), is the very HTML
    the whole panel draws for it, in an element with the id its list declares, but for the swap
    that sends it alone."""
    states, seats = game
    checked = 0
    for viewer in _viewers(audience, seats):
        for index in range(0, len(states), 5):
            view = _view(states[index], viewer, seats)
            whole = render_panels(audience, view, (name,))
            screen = Screen(audience, view)
            for at, items in enumerate(PANELS[audience][name].items):
                for key in screen.entries(name, at):
                    alone = screen.html(("entry", name, at, key), {}).decode()
                    opening = alone[: alone.index(">")]
                    assert f'id="{items.element(key)}"' in opening, (viewer, key, opening)
                    assert ' hx-swap-oob="true"' in opening, (viewer, key)
                    inline = alone.replace(' hx-swap-oob="true"', "", 1)
                    assert inline in whole, (viewer, index, key)
                    checked += 1
    assert checked


GUARDED = [(audience, name) for audience, name in SCREENS if PANELS[audience][name].shown]


@pytest.mark.parametrize(("audience", "name"), GUARDED)
def test_a_panel_that_does_not_show_is_always_the_same_empty_element(
    game: tuple[list[State], list[str]], audience: str, name: str
) -> None:
    """While a guarded panel does not show, its render reads only what its guard reads, and is
    the same at every step: the hub never sends it again for changes to its other inputs."""
    plan = PLANS[(audience, name)]
    empty: set[str] = set()
    for _, viewer, _, shown in _every_view(game):
        if _viewer_audience(viewer) != audience:
            continue
        # These games have every module on: the same views with none, too.
        off = {**shown, "game": {**shown["game"], "modules": []}}
        for view in (shown, off):
            if plan.shows(view):
                continue
            hidden = render_panels(audience, Inputs().project(view, plan.hidden), (name,))
            assert hidden == render_panels(audience, view, (name,))
            empty.add(hidden)
    assert len(empty) == 1, empty


def _viewer_audience(viewer: Any) -> str:
    return "station" if isinstance(viewer, tuple) else str(viewer)
