"""A prop's signal fires a cue: a message on bridgecrew/<join code>/in/cue/<cue id> is the GM's
FireCue, through the one unit of work; a spent cue or a wrong code changes nothing (issue 34)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import app.service.games
from app.content import SCENARIOS_DIR, load_catalogue
from app.props import PropsBridge
from app.service import create_game, load_state
from app.service.commands import SessionFactory, on_commit
from tests.server.conftest import LiveServer

from .conftest import Heard, Mosquitto, connected, publish

# A set's two buttons: the alarm (once), and the all-clear (as often as it is pressed).
BUTTONS = """
[[cues]]
id = "alarm"
name = "The alarm button"
trigger = { prop = true }
actions = [{ red_alert = true }]

[[cues]]
id = "all-clear"
name = "The all-clear button"
trigger = { prop = true }
actions = [{ red_alert = false }]
repeat = true
"""


@pytest.fixture
def with_buttons(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """New games of the skirmish come with the buttons' cues."""
    scenarios = tmp_path / "scenarios"
    shutil.copytree(SCENARIOS_DIR, scenarios)
    skirmish = scenarios / "skirmish.toml"
    skirmish.write_text(skirmish.read_text() + BUTTONS)
    catalogue = load_catalogue(scenarios)
    monkeypatch.setattr(app.service.games, "catalogue_with", lambda *_: catalogue)


@pytest.mark.usefixtures("with_buttons")
async def test_a_button_on_the_set_fires_its_cue_once_as_the_gm_would(
    live: LiveServer, broker: Mosquitto, heard: Heard
) -> None:
    bridge = live.app.state.props
    await connected(bridge)
    factory = live.app.state.session_factory
    game_id, code, _ = await create_game(factory, "skirmish", seed=1)

    await publish(broker, f"bridgecrew/{code}/in/cue/alarm", b"pressed")
    await heard.until(4)  # our own message, the cue, its red alert, the phase first seen
    _, state = await load_state(factory, game_id)
    cues = {cue["id"]: cue for cue in state["cues"]}
    assert state["red_alert"] and cues["alarm"]["status"] == "fired"

    await publish(broker, f"bridgecrew/{code}/in/cue/alarm")  # spent: refused
    await publish(broker, "bridgecrew/NOSUCH/in/cue/alarm")  # no game has that code
    await publish(broker, f"bridgecrew/{code}/in/cue/no-such-cue")
    await publish(broker, f"bridgecrew/{code}/in/cue/all-clear")  # the bridge takes them in turn
    await heard.until(10)
    version, state = await load_state(factory, game_id)
    assert version == 2 and not state["red_alert"]
    news = [(t, p) for t, p in heard.messages if "/in/" not in t]
    assert [(t.split("/", 2)[2], p.get("on", p.get("by"))) for t, p in news] == [
        ("cue/alarm", "gm"),
        ("red-alert", True),
        ("phase", None),  # first seen with the first commit: after that commit's events
        ("cue/all-clear", "gm"),
        ("red-alert", False),
    ]


@pytest.mark.usefixtures("with_buttons")
async def test_a_signal_fires_its_cue_once_however_many_server_processes_listen(
    session_factory: SessionFactory, broker: Mosquitto, heard: Heard
) -> None:
    game_id, code, _ = await create_game(session_factory, "skirmish", seed=1)
    workers = [PropsBridge(session_factory, broker.url) for _ in range(2)]
    on_commit(session_factory, workers[0].committed)
    for worker in workers:
        await worker.start()
    try:
        for worker in workers:
            await connected(worker)
        await publish(broker, f"bridgecrew/{code}/in/cue/all-clear")
        await heard.until(2)  # the signal, the cue fired
        await heard.quiet(1.0)
    finally:
        for worker in workers:
            await worker.stop()
    version, state = await load_state(session_factory, game_id)
    assert version == 1 and [c["fired"] for c in state["cues"] if c["id"] == "all-clear"] == [1]
