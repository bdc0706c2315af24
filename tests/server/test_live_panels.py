"""The hub renders HTML screens panel by panel and reuses a panel while the view parts it read are
unchanged: what each screen gets must still be exactly render_push's bytes, turn after turn."""

import json
import random
import uuid
from typing import Any

from app import live
from app.content import load_catalogue
from app.live import Hub, Room
from app.rules import apply, new_game, shared_view
from app.rules import commands as c
from app.rules.bot import seat_table, table_command
from app.service import canonical, view_for
from app.web.render import PANELS, render_panels, render_push


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


def test_panels_reused_across_rounds_and_viewers_give_render_push_bytes() -> None:
    hub = Hub(None, "postgresql+asyncpg://u@localhost/db")  # type: ignore[arg-type]
    room = Room(uuid.uuid4())
    state, seats = seated(3)
    viewers = screens(seats)
    checked = 0
    for step in play(state, random.Random(5), 60):
        shared: dict[Any, Any] = {}
        # As a push round does: the views share what every view shows, and its digests
        common, digests = shared_view(step), live.Digests()
        for audience, viewer in viewers:
            view = view_for(step, viewer, common)
            panels = hub._panels(room, (audience, viewer, "html"), view, shared, digests)
            alone = view_for(step, viewer)  # the view as a page or an htmx answer makes it
            assert "".join(p.html for p in panels) == render_push(audience, alone)
            checked += 1
    assert checked > 200
    # Reuse must be real, or the hub gains nothing: far fewer renders than panels shown.
    shown = sum(len(PANELS[a]) for a, _ in viewers) * (checked // len(viewers))
    assert hub.rendered < shown / 2


def test_reads_note_each_path_and_walking_a_part_reads_its_keys_or_all_of_it() -> None:
    reads = live._Reads()
    view = live._DictReads(
        {"ships": [{"id": "a", "x": 1}, {"id": "b", "x": 2}], "game": {"turn": 3}, "t": [1, 2]},
        reads,
        (),
    )
    assert view["ships"][1]["x"] == 2 and view.get("nope") is None and view["t"] == [1, 2]
    assert "turn" in view["game"]
    assert set(reads.deps) == {
        (("ships",), live._LEN),
        (("ships", 1, "x"), live._LEAF),
        (("nope",), live._LEAF),
        (("t",), live._LEAF),
        (("game",), live._TYPE),
        (("game",), live._KEYS),
    }
    assert repr(view["game"]) == "{'turn': 3}" and (("game",), live._WHOLE) in reads.deps
    assert json.loads(json.dumps(view)) == {
        "ships": [{"id": "a", "x": 1}, {"id": "b", "x": 2}],
        "game": {"turn": 3},
        "t": [1, 2],
    }
    assert (("ships", 0, "id"), live._LEAF) in reads.deps  # json walked everything, item by item


def test_what_a_render_read_is_what_a_probe_of_that_view_reads() -> None:
    """A new panel's signature comes from the values its render read, not a second walk down
    the view: each must be what a probe of the same view would read, or panels would be reused
    wrongly (or never). Every panel of every screen along a bot game."""
    state, seats = seated(4)
    viewers = screens(seats)
    checked = 0
    for step in play(state, random.Random(6), 30):
        for audience, viewer in viewers:
            view = view_for(step, viewer)
            for name in PANELS[audience]:
                reads = live._Reads()
                render_panels(audience, live._DictReads(view, reads, ()), (name,))
                walked = live._Probe(view)
                for (path, kind), answer in reads.deps.items():
                    assert walked.read((path, kind)) == answer, (audience, name, path, kind)
                    checked += 1
    assert checked > 10_000


def test_a_panel_fits_a_view_only_if_everything_it_read_reads_the_same() -> None:
    deps = (((("ships", 0, "x"), live._LEAF)), (("ships",), live._LEN), (("gone",), live._LEAF))
    base = {"ships": [{"x": 1, "ready": False}], "game": {}}
    panel = live.Panel(deps, live._Probe(base), "<div></div>")
    assert panel.fits(live._Probe({"ships": [{"x": 1, "ready": True}], "game": {"turn": 2}}))
    assert not panel.fits(live._Probe({"ships": [{"x": 2, "ready": False}]}))
    assert not panel.fits(live._Probe({"ships": [{"x": 1}, {"x": 1}]}))
    assert not panel.fits(live._Probe({"ships": [{"x": 1}], "gone": None}))
