"""Props hear the game: public events reach a real Mosquitto on their topics, in the order they
happened, and nothing private reaches it."""

from __future__ import annotations

import uuid

from app.rules import Actor
from app.rules.content import QUALITIES
from app.rules.core.views import public_event
from app.service import create_game, game_info, load_state, run_command
from app.service.evening import move_table_on
from app.service.library import save_item
from tests.editor.content import builtin
from tests.server.conftest import AsyncTable, LiveServer

from .conftest import Heard, connected, props_code
from .game import play, seat_crew, stored_events

# What each public event is called on the wire, as docs/props.md promises.
SHIP_TOPICS = {
    "HullHit": "hit",
    "ShieldsHit": "hit",
    "ShieldsFailed": "shields-down",
    "ShieldsLowered": "shields-down",
    "StationDown": "station-down",
    "ShipDestroyed": "destroyed",
}
GAME_TOPICS = {"TurnStarted": "turn", "RedAlertSet": "red-alert"}


def expected_topics(code: str, events: list[dict[str, object]]) -> list[str]:
    topics = []
    for event in events:
        kind = str(event["type"])
        if kind in SHIP_TOPICS:
            topics.append(f"bridgecrew/{code}/ship/{event['ship']}/{SHIP_TOPICS[kind]}")
        elif kind in GAME_TOPICS:
            topics.append(f"bridgecrew/{code}/{GAME_TOPICS[kind]}")
        elif kind == "CueFired":  # the scenario's own cues, as they fire
            topics.append(f"bridgecrew/{code}/cue/{event['cue']}")
    return topics


async def test_a_turn_of_fighting_reaches_props_on_each_ships_topics_in_order(
    live: LiveServer, table: AsyncTable, heard: Heard
) -> None:
    await connected(live.app.state.props)
    factory = live.app.state.session_factory
    game_id = uuid.UUID(table.game_id)
    code = (await game_info(factory, game_id)).props_code
    await table.gm_command(type="SetSetting", name="close_when_all_ready", value=False)
    await table.gm_command(type="SetShields", ship="kestrel", active=False)
    await table.gm_command(type="SetRedAlert", on=True)
    await table.gm_command(type="StartTurn", seconds=0)
    for ship, target in (("kestrel", "rustjaw"), ("rustjaw", "kestrel")):
        await table.gm_command(
            type="SubmitOrder", ship=ship, station="weapons", action="attack", value=9,
            target=target,
        )  # fmt: skip
    await table.gm_command(type="CloseOrders")
    _, state = await load_state(factory, game_id)
    allocation = state["phase"] == "allocation"
    if allocation:
        await table.gm_command(type="ForceAllocation")
    await table.gm_command(type="DestroyShip", ship="rustjaw")
    await table.gm_command(type="SetRedAlert", on=False)

    wanted = expected_topics(code, await stored_events(factory, game_id))
    assert f"bridgecrew/{code}/ship/rustjaw/hit" in wanted  # the attack did land
    assert f"bridgecrew/{code}/ship/rustjaw/destroyed" in wanted
    # The phase as each commit leaves it, when it changed (the first commit seen here, too).
    phases = ["downtime", "orders", *(["allocation"] if allocation else []), "turn_end"]
    await heard.until(len(wanted) + len(phases))
    await heard.quiet()
    assert [t for t in heard.topics() if not t.endswith(("/phase", "/sound"))] == wanted
    assert [p["phase"] for p in heard.payloads(f"bridgecrew/{code}/phase")] == phases

    # Each message carries its version, and they arrive in the order of the versions.
    versions = [payload["version"] for _, payload in heard.messages]
    assert versions == sorted(versions)
    red_alert = heard.payloads(f"bridgecrew/{code}/red-alert")
    assert [(p["turn"], p["on"]) for p in red_alert] == [(0, True), (1, False)]
    turn = heard.payloads(f"bridgecrew/{code}/turn")
    assert [(p["turn"], p["seconds"], p["deadline"]) for p in turn] == [(1, 0, None)]
    # The sounds the projector plays: the alert set on (not off), the turn, the enemy hit, the
    # wreck; each once a commit.
    sounds = [p["sound"] for p in heard.payloads(f"bridgecrew/{code}/sound")]
    assert sounds[:2] == ["red-alert", "turn-start"] and sounds[-1] == "destroyed"
    assert "hit-enemy" in sounds and len(sounds) <= 5
    hits = heard.payloads(f"bridgecrew/{code}/ship/rustjaw/hit")
    hull = [p["left"] for p in hits if p["track"] == "hull"]
    _, state = await load_state(factory, game_id)
    rustjaw = state["ships"]["rustjaw"]["hull"]
    assert hull == list(range(hull[0], rustjaw["boxes"] - rustjaw["damage"] - 1, -1))


def secret_words(value: object) -> set[str]:
    """Every string in a secret (card ids, actions, targets, qualities), long enough to be
    told apart from ordinary words in a payload."""
    if isinstance(value, str):
        return {value} if len(value) >= 4 else set()
    if isinstance(value, dict):
        return set().union(*(secret_words(v) for v in value.values()))
    if isinstance(value, list | tuple):
        return set().union(*(secret_words(v) for v in value))
    return set()


async def test_a_subscriber_on_everything_hears_nothing_private_through_a_whole_game(
    live: LiveServer, heard: Heard
) -> None:
    await connected(live.app.state.props)
    factory = live.app.state.session_factory
    game_id, join_code, _ = await create_game(factory, "skirmish", seed=11, modules=["npc"])
    code = await props_code(factory, game_id)
    await seat_crew(factory, game_id)
    command = {"type": "SetNpc", "ship": "rustjaw", "quality": QUALITIES[-1], "auto": False}
    await run_command(factory, game_id, command, Actor.gm(), command_id="npc")
    await play(factory, game_id, seed=3)
    events = await stored_events(factory, game_id)
    wanted = expected_topics(code, events)
    assert f"bridgecrew/{code}/turn" in wanted and "/destroyed" in wanted[-1]
    await heard.until(len(wanted))
    await heard.quiet()

    _, state = await load_state(factory, game_id)
    private = {state["rng"]["key"], QUALITIES[-1]}  # the dice key; the NPC crew's quality
    for card in state["cards"].values():  # every card was in some hand, or could have been
        private |= {card["id"], card["name"]}
    # What orders and the GM's settings hid, less what the room was told anyway (ship ids).
    public = secret_words([public_event(event) for event in events])
    private |= secret_words([event.get("secret") for event in events]) - public
    assert any(event["type"] == "OrderGiven" and "secret" in event for event in events)
    said = b"\n".join(heard.raw).decode()
    assert [word for word in sorted(private) if word in said] == []
    # Only the topics under the game's props code, nothing else on the broker; never the join
    # code, which the projector shows the room.
    assert {t.split("/")[1] for t in heard.topics()} == {code}
    assert join_code not in said and join_code not in "".join(heard.topics())


async def test_props_hear_when_the_table_moves_on_to_another_battle(
    live: LiveServer, table: AsyncTable, heard: Heard
) -> None:
    """E-EVENING-1: the same game, its props code too, moves on to the next battle."""
    await connected(live.app.state.props)
    factory = live.app.state.session_factory
    code = (await game_info(factory, table.game_id)).props_code
    version = await move_table_on(factory, table.game_id, "boarding-party", "next-1")
    while not heard.payloads(f"bridgecrew/{code}/battle"):
        await heard.until(len(heard.messages) + 1)
    [battle] = heard.payloads(f"bridgecrew/{code}/battle")
    assert battle == {
        "version": version,
        "turn": 0,
        "scenario": "boarding-party",
        "name": "Boarding Party",
    }


async def test_a_hit_on_the_players_side_sounds_as_theirs_whatever_the_side_is_called(
    live: LiveServer, heard: Heard
) -> None:
    """G-SHIP-1: a scenario whose players fly for "allianz": a hit on their frigate is the
    players' hit for the props, as the projector plays it."""
    await connected(live.app.state.props)
    factory = live.app.state.session_factory
    scenario = builtin("scenario", "skirmish")
    del scenario["translations"]
    scenario = {**scenario, "id": "allianz-skirmish", "players_side": "allianz"}
    sides = {"players": "allianz", "raiders": "piraten"}
    scenario["ships"] = [{**s, "side": sides[s["side"]]} for s in scenario["ships"]]
    for cue in scenario.get("cues", []):
        for action in cue["actions"]:
            if "side" in action:
                action["side"] = sides[action["side"]]
    await save_item(factory, "scenario", scenario, "Ada", expected_version=0)
    game_id, _, _ = await create_game(factory, "allianz-skirmish", seed=7)
    code = (await game_info(factory, game_id)).props_code
    for command in (
        {"type": "SetShields", "ship": "kestrel", "active": False},
        {"type": "SetSetting", "name": "close_when_all_ready", "value": False},
        {"type": "StartTurn", "seconds": 0},
        {"type": "SubmitOrder", "ship": "rustjaw", "station": "weapons", "action": "attack",
         "value": 12, "target": "kestrel"},
        {"type": "CloseOrders"},
    ):  # fmt: skip
        await run_command(factory, game_id, command, Actor.gm(), command_id=uuid.uuid4().hex)
    while "hit-players" not in [p["sound"] for p in heard.payloads(f"bridgecrew/{code}/sound")]:
        await heard.until(len(heard.messages) + 1)
    assert "hit-enemy" not in [p["sound"] for p in heard.payloads(f"bridgecrew/{code}/sound")]
