"""The hub renders HTML screens panel by panel, each from its inputs, and reuses a panel while its
inputs are unchanged: what each screen gets must still be exactly render_push's bytes."""

import random
from typing import Any

from app.content import load_catalogue
from app.rules import apply, new_game, shared_view
from app.rules import commands as c
from app.rules.bot import seat_table, table_command
from app.service import canonical, view_for
from app.web.render import PANELS, Inputs, Reads, Screen, render_push
from app.web.render import PanelCache as Cache


def seated(seed: int) -> tuple[dict[str, Any], list[str]]:
    catalogue = load_catalogue()
    state = canonical(new_game(catalogue.scenarios["skirmish"], catalogue, seed=seed))
    return seat_table(state, "kestrel", 3, list(catalogue.characters), canonical)


def screens(seats: list[str]) -> list[tuple[str, Any]]:
    """(audience, viewer) of each screen of a bridge: every seat's phone, the GM, the projector."""
    return [*(("station", ("seat", s)) for s in seats), ("gm", "gm"), ("display", "display")]


def play(state: dict[str, Any], rng: random.Random, steps: int) -> list[dict[str, Any]]:
    """States along a game: turns, the bot's orders, allocation, a message, red alert."""
    states = []
    for step in range(steps):
        command = table_command(state, rng, step)
        try:
            state = canonical(apply(state, command)[0])
        except Exception:
            continue
        states.append(state)
        if step % 11 == 5:
            state = canonical(apply(state, c.SetRedAlert(on=not state["red_alert"]))[0])
            states.append(state)
    return states


def test_panels_pushed_across_rounds_and_viewers_give_render_push_bytes() -> None:
    """Each panel rendered from its inputs alone, and reused for every screen of the round with
    the same inputs (its key worked out from the last round's where its inputs' parts are as
    they were): the bytes are still a full render's, turn after turn."""
    state, seats = seated(3)
    viewers = screens(seats)
    checked, rendered = 0, 0
    reads: Reads = {}
    for step in play(state, random.Random(5), 60):
        cache: Cache = {}
        # As a push round does: the views share what all show, and their panels' inputs too,
        # and what panels read of the parts that are as they were is remembered from the last
        common, parts = shared_view(step), Inputs(reads)
        reads = parts.reads
        for audience, viewer in viewers:
            screen = Screen(audience, view_for(step, viewer, common), parts)
            everything = tuple(range(len(screen.names)))
            alone = view_for(step, viewer)  # the view as a page or an htmx answer makes it
            message = screen.message(step_version(step), everything, cache)
            assert message == render_push(audience, alone, step_version(step))
            checked += 1
        rendered += len(cache)
    assert checked > 200
    # Reuse must be real: screens of one round share the panels they show alike (the ship's
    # status on its stations' phones, the log), so fewer renders than panels shown.
    shown = sum(len(PANELS[a]) for a, _ in viewers) * (checked // len(viewers))
    assert rendered < shown * 0.85


def step_version(state: dict[str, Any]) -> int:
    return len(state["log"])
