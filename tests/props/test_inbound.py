"""A prop's signal fires a cue: a message on bridgecrew/<props code>/in/cue/<cue id> is FireCue
given by the props, through the one unit of work; a spent cue or a wrong code changes nothing."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

import app.service.games
from app.content import SCENARIOS_DIR, load_catalogue
from app.props import PropsBridge
from app.service import create_game, load_state
from app.service.commands import SessionFactory, on_commit
from app.settings import Settings
from tests.server.conftest import LiveServer

from .conftest import Heard, Mosquitto, connected, props_code, publish

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


@pytest.fixture
def settings(db_url: str, tmp_path: Path, broker: Mosquitto) -> Settings:
    """Room for every press of these tests at once: pacing has tests of its own."""
    return Settings(
        database_url=db_url, data_dir=tmp_path, mqtt_url=broker.url, props_press_burst=10
    )


@pytest.mark.usefixtures("with_buttons")
async def test_a_button_on_the_set_fires_its_cue_once_as_the_props(
    live: LiveServer, broker: Mosquitto, heard: Heard
) -> None:
    bridge = live.app.state.props
    await connected(bridge)
    factory = live.app.state.session_factory
    game_id, join_code, _ = await create_game(factory, "skirmish", seed=1)
    code = await props_code(factory, game_id)

    await publish(broker, f"bridgecrew/{code}/in/cue/alarm", b"pressed")
    await heard.until(5)  # our own message, the cue, its red alert, its sound, the phase
    _, state = await load_state(factory, game_id)
    cues = {cue["id"]: cue for cue in state["cues"]}
    assert state["red_alert"] and cues["alarm"]["status"] == "fired"

    await publish(broker, f"bridgecrew/{code}/in/cue/alarm")  # spent: refused
    await publish(broker, f"bridgecrew/{'0' * 32}/in/cue/alarm")  # no game has that code
    await publish(broker, f"bridgecrew/{join_code}/in/cue/alarm")  # the join code is not one
    await publish(broker, f"bridgecrew/{code}/in/cue/no-such-cue")
    await publish(broker, f"bridgecrew/{code}/in/cue/all-clear")  # the bridge takes them in turn
    await heard.until(12)
    await heard.quiet()
    version, state = await load_state(factory, game_id)
    assert version == 2 and not state["red_alert"]
    news = [(t, p) for t, p in heard.messages if "/in/" not in t]
    assert [(t.split("/", 2)[2], p.get("on", p.get("by", p.get("sound")))) for t, p in news] == [
        ("cue/alarm", "prop"),
        ("red-alert", True),
        ("sound", "red-alert"),
        ("phase", None),  # first seen with the first commit: after that commit's events
        ("cue/all-clear", "prop"),
        ("red-alert", False),
    ]


@pytest.mark.usefixtures("with_buttons")
async def test_a_signal_fires_its_cue_once_however_many_server_processes_listen(
    session_factory: SessionFactory, broker: Mosquitto, heard: Heard, settings: Settings
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    code = await props_code(session_factory, game_id)
    workers = [PropsBridge(session_factory, settings) for _ in range(2)]
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


async def test_a_prop_fires_only_the_cues_its_scenario_gives_the_props(
    live: LiveServer, broker: Mosquitto, caplog: pytest.LogCaptureFixture
) -> None:
    """Boarding Party's alarm is a prop's button; its boarders (turn 3), the Maw running (a Hull)
    and the patrol (the GM's button) are the GM's plan, which no press runs early."""
    await connected(live.app.state.props)
    factory = live.app.state.session_factory
    game_id, _, _ = await create_game(factory, "boarding-party", seed=1)
    code = await props_code(factory, game_id)
    for cue in ("boarders", "maw-runs", "patrol", "alarm"):
        await publish(broker, f"bridgecrew/{code}/in/cue/{cue}", b"pressed")
    for _ in range(200):  # the alarm's command, then a moment for any other to come
        if (await load_state(factory, game_id))[0] >= 1:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    version, state = await load_state(factory, game_id)
    fired = {cue["id"]: (cue["status"], cue["fired"]) for cue in state["cues"]}
    assert version == 1 and fired == {
        "boarders": ("armed", 0),
        "maw-runs": ("armed", 0),
        "alarm": ("armed", 1),  # it repeats
        "patrol": ("armed", 0),
    }
    assert caplog.text.count("refused: CUE_NOT_PROPS") == 3
