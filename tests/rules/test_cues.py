"""Module `cues` (M-CUES-1..7): a scenario's cues, each a trigger and the commands it
gives when it fires, played through `apply`. Most tests put cues read from TOML-shaped data into
a game of a shipped scenario."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from app.rules import apply, event_view, gm_view, new_game, station_view
from app.rules import commands as c
from app.rules.content import ContentError, Scenario, check_cross_references, parse_scenario
from app.rules.modules.cues.cue_content import cue_state
from app.web.words import sentence

from .builders import (
    CAT,
    NOW,
    State,
    close,
    dump,
    game,
    give,
    npc,
    of_type,
    one,
    order,
    refused,
    run,
    run_events,
    said,
    seat,
    set_rolls,
    shields,
    started,
)

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
WAVE = {"add_ship": "raider", "name": "Bone Saw", "side": "raiders", "x": 14, "y": 2}


def scenario_with(scenario: str, *cues: dict[str, Any]) -> Scenario:
    """The shipped scenario with these cues instead of its own, checked as a load checks it."""
    with (SCENARIOS / f"{scenario}.toml").open("rb") as file:
        data = tomllib.load(file)
    data.pop("translations", None)
    data["cues"] = list(cues)
    parsed = parse_scenario(data, f"{scenario}.toml")
    check_cross_references(type(CAT)(CAT.ships, CAT.decks, CAT.characters, {scenario: parsed}))
    return parsed


def cued(scenario: str, *cues: dict[str, Any], modules: tuple[str, ...] = ()) -> State:
    """A game of the scenario (every player station seated, see builders.game) with these cues."""
    state = game(scenario, modules=modules)
    state["cues"] = cue_state(scenario_with(scenario, *cues).sections["cues"])
    return state


def cue(
    cue_id: str, trigger: dict[str, Any], *actions: dict[str, Any], **more: Any
) -> dict[str, Any]:
    return {
        "id": cue_id,
        "name": cue_id.title(),
        "trigger": trigger,
        "actions": list(actions),
        **more,
    }


def status(state: State, cue_id: str) -> str:
    return next(str(found["status"]) for found in state["cues"] if found["id"] == cue_id)


def fired(events: list[dict[str, Any]]) -> list[str]:
    return [e["cue"] for e in of_type(events, "CueFired")]


ALERT = {"red_alert": True}


# --- M-CUES-1: triggers --------------------------------------------------------------------------


# rule: M-CUES-1
def test_m_cues_1_a_turn_cue_fires_as_that_turn_begins_and_only_then() -> None:
    state = cued("skirmish", cue("wave", {"turn": 2}, WAVE))
    state, events = run_events(state, c.StartTurn(seconds=0, now=NOW))
    assert fired(events) == [] and status(state, "wave") == "armed"
    state, _ = close(state)
    state, events = run_events(state, c.StartTurn(seconds=0, now=NOW))
    assert fired(events) == ["wave"] and status(state, "wave") == "fired"
    assert [e["type"] for e in events][-2:] == ["CueFired", "ShipAdded"]
    assert "bone-saw" in state["ships"]


# rule: M-CUES-1
def test_m_cues_1_an_every_n_turns_cue_fires_on_each_nth_turn_and_stays_armed() -> None:
    state = cued("skirmish", cue("pulse", {"every": 2}, ALERT, {"red_alert": False}))
    seen = []
    for _ in range(5):
        state, events = run_events(state, c.StartTurn(seconds=0, now=NOW))
        seen.append(bool(fired(events)))
        state, _ = close(state)
    assert seen == [False, True, False, True, False]
    assert status(state, "pulse") == "armed" and state["cues"][0]["fired"] == 2


# rule: M-CUES-1
def test_m_cues_1_a_phase_cue_fires_as_that_phase_begins() -> None:
    state = started(cued("skirmish", cue("end", {"phase": "turn_end"}, ALERT, repeat=True)))
    state, events = close(state)
    assert state["phase"] == "turn_end" and fired(events) == ["end"] and state["red_alert"]
    state, events = run_events(state, c.StartTurn(seconds=0, now=NOW))
    assert fired(events) == []
    state, events = close(state)
    assert fired(events) == ["end"]


# rule: M-CUES-1
def test_m_cues_1_a_hull_cue_fires_when_the_hull_comes_to_its_value_once() -> None:
    state = started(cued("skirmish", cue("limp", {"hull_at_most": 3, "ship": "rustjaw"}, ALERT)))
    boxes = state["ships"]["rustjaw"]["hull"]["boxes"]
    state, events = run_events(state, c.SetTrack(ship="rustjaw", track="hull", damage=boxes - 4))
    assert fired(events) == []
    state, events = run_events(state, c.SetTrack(ship="rustjaw", track="hull", damage=boxes - 3))
    assert fired(events) == ["limp"]
    state, events = run_events(state, c.SetTrack(ship="rustjaw", track="hull", damage=boxes - 2))
    assert fired(events) == []  # once: it is spent


# rule: M-CUES-1
def test_m_cues_1_a_repeating_condition_cue_fires_again_only_after_the_condition_lapsed() -> None:
    state = started(
        cued("skirmish", cue("limp", {"hull_at_most": 3, "ship": "rustjaw"}, ALERT, repeat=True))
    )
    boxes = state["ships"]["rustjaw"]["hull"]["boxes"]
    counts = []
    for left in (3, 2, 5, 1):
        state, events = run_events(
            state, c.SetTrack(ship="rustjaw", track="hull", damage=boxes - left)
        )
        counts.append(len(fired(events)))
    assert counts == [1, 0, 0, 1]


# rule: M-CUES-1
@pytest.mark.parametrize(
    ("trigger", "command"),
    [
        ({"destroyed": "rustjaw"}, c.DestroyShip(ship="rustjaw")),
        ({"fled": "rustjaw"}, c.SetShipOut(ship="rustjaw", out="fled")),
        ({"surrendered": "rustjaw"}, c.SetShipOut(ship="rustjaw", out="surrendered")),
    ],
)
def test_m_cues_1_a_ship_destroyed_fled_or_surrendered_fires_its_cue(
    trigger: dict[str, Any], command: c.Command
) -> None:
    state = started(cued("skirmish", cue("gone", trigger, ALERT)))
    other = c.SetShipOut(ship="rustjaw", out="fled" if "surrendered" in trigger else "surrendered")
    state, events = run_events(state, other)
    assert fired(events) == []
    state = run(state, c.SetShipOut(ship="rustjaw", out=""))
    state, events = run_events(state, command)
    assert fired(events) == ["gone"]


# rule: M-CUES-1
def test_m_cues_1_a_torpedo_strike_fires_its_cue_in_the_resolution() -> None:
    state = cued(
        "torpedo-run",
        cue("struck", {"torpedo_strikes": "harrier"}, {"message": "Hull breach on deck 3!"}),
    )
    state = shields(state, "harrier", False)
    state = run(
        state, c.SetPosition(ship="viper", x=4, y=5), c.SetPosition(ship="adder", x=15, y=0)
    )
    state = started(state)
    state = run(state, npc("viper", "weapons", "attack", 6, target="harrier", weapons=("tube-a",)))
    state = set_rolls(state, 6)
    state, events = close(state)
    assert of_type(events, "TorpedoStruck") and fired(events) == ["struck"]
    assert state["messages"][-1]["text"] == "Hull breach on deck 3!"


# rule: M-CUES-1
def test_m_cues_1_a_ship_entering_a_zone_fires_its_cue_but_one_already_there_does_not() -> None:
    state = cued(
        "nebula-ambush",
        cue("storm", {"enters": "ion-storm", "ship": "kestrel"}, ALERT),
        cue("den", {"enters": "jump-point"}, ALERT),  # the players start there
    )
    state = started(state)
    state, events = run_events(state, c.PlaceInZone(ship="resolute", zone="ion-storm"))
    assert fired(events) == []  # another ship
    state, events = run_events(state, c.PlaceInZone(ship="kestrel", zone="ion-storm"))
    assert fired(events) == ["storm"]


# rule: M-CUES-1
@pytest.mark.parametrize("trigger", [{"gm": True}, {"prop": True}])
def test_m_cues_1_a_gm_or_prop_cue_fires_only_by_fire_cue(trigger: dict[str, Any]) -> None:
    state = cued("skirmish", cue("button", trigger, ALERT))
    state, events = run_events(state, c.StartTurn(seconds=0, now=NOW), c.CloseOrders(now=NOW))
    state = run(state, c.DestroyShip(ship="rustjaw"))
    assert fired(events) == [] and status(state, "button") == "armed"
    state, events = run_events(state, c.FireCue(cue="button"))
    assert fired(events) == ["button"] and one(events, "CueFired")["by"] == "gm"


# --- M-CUES-2: actions ---------------------------------------------------------------------------


# rule: M-CUES-2
def test_m_cues_2_messages_reach_everyone_or_only_the_station_named() -> None:
    state = cued(
        "skirmish",
        cue(
            "call",
            {"gm": True},
            {"message": "Mayday from the relay gate!"},
            {"message": "Faint carrier wave.", "to": "kestrel/comms"},
        ),
    )
    state, events = run_events(state, c.FireCue(cue="call"))
    assert [m["text"] for m in state["messages"]] == [
        "Mayday from the relay gate!",
        "Faint carrier wave.",
    ]
    private = of_type(events, "MessageSent")[1]
    assert event_view(private, ("seat", "kestrel-comms")) is not None
    assert event_view(private, ("seat", "kestrel-pilot")) is None


# rule: M-CUES-2
def test_m_cues_2_red_alert_goes_on_and_off() -> None:
    state = cued(
        "skirmish", cue("on", {"gm": True}, ALERT), cue("off", {"gm": True}, {"red_alert": False})
    )
    state = run(state, c.FireCue(cue="on"))
    assert state["red_alert"] is True
    assert run(state, c.FireCue(cue="off"))["red_alert"] is False


# rule: M-CUES-7
def test_m_cues_7_a_cue_sounds_one_of_the_projectors_sounds_and_again_when_it_repeats() -> None:
    state = cued("skirmish", cue("siren", {"gm": True}, {"sound": "alarm"}, repeat=True))
    state, events = run_events(state, c.FireCue(cue="siren"))
    played = one(events, "SoundPlayed")
    assert played["sound"] == "alarm"
    assert sentence(played["words"]) == "The projector sounds the alarm."
    assert event_view(played, "display") is not None  # the room hears it
    assert state["sound_played"] == {"sound": "alarm", "n": 1}
    again = run(state, c.FireCue(cue="siren"))
    assert again["sound_played"] == {"sound": "alarm", "n": 2}  # numbered: it plays again
    assert gm_view(again)["game"]["sound"]["played"] == {"sound": "alarm", "n": 2}


# rule: M-CUES-7
def test_m_cues_7_the_gm_plays_a_sound_and_an_unknown_one_is_refused() -> None:
    state = run(game("skirmish"), c.PlaySound(sound="chime"))
    assert state["sound_played"] == {"sound": "chime", "n": 1}
    refused(state, c.PlaySound(sound="kazoo"), "UNKNOWN_SOUND")


# rule: M-CUES-2
def test_m_cues_2_a_wave_arrives_on_squares_or_in_a_zone() -> None:
    state = run(cued("skirmish", cue("wave", {"gm": True}, WAVE)), c.FireCue(cue="wave"))
    ship = state["ships"]["bone-saw"]
    assert (ship["class"], ship["side"], ship["crew"], ship["x"], ship["y"]) == (
        "raider",
        "raiders",
        "npc",
        14,
        2,
    )
    zoned = {"add_ship": "corsair", "name": "Storm Crow", "side": "raiders", "zone": "ion-storm"}
    state = run(cued("nebula-ambush", cue("wave", {"gm": True}, zoned)), c.FireCue(cue="wave"))
    assert state["ships"]["storm-crow"]["zone"] == "ion-storm"


# rule: M-CUES-2
def test_m_cues_2_an_npc_crew_gets_its_quality_and_automation() -> None:
    state = cued(
        "boarding-party",
        cue("veterans", {"gm": True}, {"npc": "hook", "quality": "exceptional", "auto": False}),
        modules=("npc",),
    )
    state = run(state, c.FireCue(cue="veterans"))
    assert state["ships"]["hook"]["npc"] == {"quality": "exceptional", "auto": False}


# rule: M-CUES-2
def test_m_cues_2_a_ship_is_placed_in_a_zone() -> None:
    state = cued(
        "nebula-ambush", cue("pull", {"gm": True}, {"place": "jackal-1", "zone": "singularity"})
    )
    assert run(state, c.FireCue(cue="pull"))["ships"]["jackal-1"]["zone"] == "singularity"


# rule: M-CUES-2
def test_m_cues_2_a_cue_ends_the_combat() -> None:
    state = started(cued("skirmish", cue("jump", {"turn": 2}, {"end_combat": True})))
    state, _ = close(state)
    state, events = run_events(state, c.StartTurn(seconds=0, now=NOW))
    assert fired(events) == ["jump"] and state["phase"] == "downtime"
    assert of_type(events, "CombatEnded")


# rule: M-CUES-2
def test_m_cues_2_a_cue_fires_another_and_each_fires_once() -> None:
    state = cued(
        "skirmish",
        cue("first", {"gm": True}, ALERT, {"fire": "second"}),
        cue("second", {"turn": 5}, {"message": "Second!"}),
    )
    state, events = run_events(state, c.FireCue(cue="first"))
    assert fired(events) == ["first", "second"]
    assert [status(state, k) for k in ("first", "second")] == ["fired", "fired"]
    assert one(events, "MessageSent")["message"]["text"] == "Second!"


# --- M-CUES-3: the GM's commands -----------------------------------------------------------------


# rule: M-CUES-3
def test_m_cues_3_fire_skip_and_arm_with_their_refusals() -> None:
    state = cued(
        "skirmish", cue("wave", {"turn": 2}, ALERT), cue("again", {"gm": True}, ALERT, repeat=True)
    )
    refused(state, c.FireCue(cue="nope"), "UNKNOWN_CUE")
    refused(state, c.ArmCue(cue="wave"), "CUE_ARMED")
    state, events = run_events(state, c.SkipCue(cue="wave"))
    assert status(state, "wave") == "skipped"
    refused(state, c.FireCue(cue="wave"), "CUE_SKIPPED")
    refused(state, c.SkipCue(cue="wave"), "CUE_SKIPPED")
    state = started(state)
    state, _ = close(state)
    state, events = run_events(state, c.StartTurn(seconds=0, now=NOW))
    assert fired(events) == []  # skipped: turn 2 passes it by
    state = run(state, c.ArmCue(cue="wave"), c.FireCue(cue="wave"))
    assert status(state, "wave") == "fired"
    error = refused(state, c.FireCue(cue="wave"), "CUE_SPENT")
    assert said(error) == "Cue Wave has fired already: arm it again first."
    for _ in range(3):  # a repeating cue fires as often as the GM likes
        state = run(state, c.FireCue(cue="again"))
    assert status(state, "again") == "armed" and state["cues"][1]["fired"] == 3


# rule: M-CUES-3
def test_m_cues_3_only_the_gm_fires_skips_or_arms_a_cue() -> None:
    state = cued("skirmish", cue("wave", {"gm": True}, ALERT))
    for command in (c.FireCue, c.SkipCue, c.ArmCue):
        refused(state, command(cue="wave", actor=seat("kestrel", "comms")), "GM_ONLY")


# rule: M-CUES-3
def test_m_cues_3_a_prop_fires_only_the_cues_its_scenario_gives_the_props() -> None:
    state = cued(
        "skirmish",
        cue("wave", {"turn": 3}, WAVE),
        cue("patrol", {"gm": True}, ALERT),
        cue("downgrade", {"hull_at_most": 2, "ship": "rustjaw"}, {"npc": "rustjaw", "auto": False}),
        cue("alarm", {"prop": True}, ALERT, repeat=True),
    )
    prop = c.Actor.prop()
    for cue_id in ("wave", "patrol", "downgrade"):
        error = refused(state, c.FireCue(cue=cue_id, actor=prop), "CUE_NOT_PROPS")
        assert said(error).startswith(f"Cue {cue_id.title()} is not one a prop may fire")
    state, events = run_events(state, c.FireCue(cue="alarm", actor=prop))
    fired_by = one(events, "CueFired")
    assert fired_by["by"] == "prop" and state["red_alert"] is True
    assert said(fired_by) == "Cue Alarm, by a prop's signal: red alert."
    listed = {k["id"]: k for k in gm_view(state)["cues"]["list"]}
    assert listed["alarm"]["by"] == "prop" and listed["wave"]["by"] is None
    state, events = run_events(state, c.FireCue(cue="alarm"))  # the GM's button says so too
    assert one(events, "CueFired")["by"] == "gm"
    assert gm_view(state)["cues"]["list"][3]["by"] == "gm"


# rule: M-CUES-3
def test_m_cues_3_a_prop_gives_no_command_but_fire_cue() -> None:
    state = cued("skirmish", cue("alarm", {"prop": True}, ALERT))
    prop = c.Actor.prop()
    for command in (
        c.SetRedAlert(on=True, actor=prop),
        c.SkipCue(cue="alarm", actor=prop),
        c.StartTurn(seconds=0, now=NOW, actor=prop),
    ):
        refused(state, command, "GM_ONLY")
    state = started(state)
    order_by_prop = c.SubmitOrder(
        ship="kestrel", station="weapons", action="attack", value=1, target="rustjaw", actor=prop
    )
    refused(state, order_by_prop, "GM_ONLY")


# rule: M-CUES-3
def test_m_cues_3_skipping_and_arming_tell_only_the_gm_and_the_cues_are_the_gms() -> None:
    state = started(cued("skirmish", cue("wave", {"turn": 3}, WAVE)))
    state, events = run_events(state, c.SkipCue(cue="wave"), c.ArmCue(cue="wave"))
    seat_viewer = ("seat", "kestrel-comms")
    assert [event_view(e, seat_viewer) for e in events] == [None, None]
    assert "cues" not in station_view(state, "kestrel-comms")
    listed = gm_view(state)["cues"]["list"]
    assert [(k["id"], k["status"], k["trigger"]) for k in listed] == [
        ("wave", "armed", {"msg": "cue_when_turn", "turn": 3})
    ]
    assert listed[0]["did"] == [{"msg": "cue_did_add_ship", "ship": "Bone Saw", "side": "raiders"}]


# rule: M-CUES-3
def test_m_cues_3_a_refused_action_refuses_the_gms_fire_cue_whole() -> None:
    bad = {"add_ship": "raider", "name": "Rustjaw II", "side": "raiders", "x": 1, "y": 1}
    state = cued("skirmish", cue("clash", {"gm": True}, ALERT, bad))
    state = run(state, c.AddShip(ship_class="raider", name="Rustjaw II", side="raiders", x=2, y=2))
    refused(state, c.FireCue(cue="clash"), "NAME_TAKEN")


# --- M-CUES-4: a cue its trigger fires, and one that cannot ------------------------------------


# rule: M-CUES-4
def test_m_cues_4_a_triggered_cue_that_cannot_act_fails_whole_and_the_command_stands() -> None:
    taken = {"add_ship": "raider", "name": "Usurper", "side": "raiders", "x": 1, "y": 1}
    state = cued("skirmish", cue("wave", {"turn": 1}, ALERT, taken))
    state = run(state, c.AddShip(ship_class="raider", name="Usurper", side="raiders", x=2, y=2))
    state, events = run_events(state, c.StartTurn(seconds=0, now=NOW))
    assert state["phase"] == "orders" and state["turn"] == 1  # StartTurn stands
    assert fired(events) == [] and state["red_alert"] is False  # nothing of the cue happened
    failed = one(events, "CueFailed")
    assert failed["secret"]["code"] == "NAME_TAKEN" and status(state, "wave") == "failed"
    assert gm_view(state)["cues"]["list"][0]["failure"]["msg"] == "name_taken"
    refused(state, c.FireCue(cue="wave"), "CUE_FAILED")


# rule: M-CUES-4
def test_m_cues_4_what_a_cue_does_can_fire_another_in_the_same_command() -> None:
    state = cued(
        "nebula-ambush",
        cue("pull", {"turn": 1}, {"place": "jackal-3", "zone": "ion-storm"}),
        cue("storm", {"enters": "ion-storm"}, ALERT),
    )
    state, events = run_events(state, c.StartTurn(seconds=0, now=NOW))
    assert fired(events) == ["pull", "storm"] and state["red_alert"] is True


# --- M-CUES-5: replay and undo -------------------------------------------------------------------


# rule: M-CUES-5
def test_m_cues_5_undoing_a_resolution_undoes_the_cues_it_fired() -> None:
    state = started(cued("skirmish", cue("wave", {"phase": "turn_end"}, WAVE)))
    cards = give(state, "kestrel", "pilot", 2)
    state = run(state, order("kestrel", "pilot", "manoeuvre", cards, x=4, y=5))
    before = dump(state)
    resolved, events = close(state)
    assert fired(events) == ["wave"] and "bone-saw" in resolved["ships"]
    undone = run(resolved, c.UndoResolution(now=NOW))
    assert "bone-saw" not in undone["ships"] and status(undone, "wave") == "armed"
    assert undone["orders"] == state["orders"]
    again, events = close(undone)
    assert fired(events) == ["wave"]
    assert dump(again["ships"]) == dump(resolved["ships"])
    assert dump(state) == before


# rule: M-CUES-5
def test_m_cues_5_undo_keeps_a_cue_fired_before_the_resolution() -> None:
    orders = cue("orders", {"phase": "orders"}, {"message": "Orders!"}, repeat=True)
    state = cued("skirmish", cue("wave", {"turn": 1}, WAVE), orders)
    state, events = run_events(state, c.StartTurn(seconds=0, now=NOW))
    assert fired(events) == ["wave", "orders"]
    state, _ = close(state)
    state, events = run_events(state, c.UndoResolution(now=NOW))
    assert status(state, "wave") == "fired" and "bone-saw" in state["ships"]
    assert fired(events) == []  # back in Orders by an undo: no phase began


# rule: M-CUES-5
@pytest.mark.parametrize("scenario", sorted(CAT.scenarios))
def test_m_cues_5_replaying_a_game_with_cues_gives_the_same_state(scenario: str) -> None:
    """Every shipped scenario's own cues: the same commands from the same start give the same
    state and events, cues fired and all, as replay_state rebuilds a game."""
    commands: list[c.Command] = [c.SetSetting(name="close_when_all_ready", value=False)]
    for _ in range(4):
        commands += [c.StartTurn(seconds=0, now=NOW), c.CloseOrders(now=NOW)]
        commands += [c.ForceAllocation(now=NOW)]
    first_cue = CAT.scenarios[scenario].sections["cues"][0].id
    commands += [c.FireCue(cue=first_cue), c.EndCombat()]

    def play() -> tuple[str, list[str]]:
        state = new_game(CAT.scenarios[scenario], CAT, seed=7)
        kinds: list[str] = []
        for command in commands:
            try:
                state, events = apply(state, command)
            except Exception as error:  # a refusal is part of the game too (CUE_SPENT, say)
                kinds.append(type(error).__name__)
                continue
            kinds += [e["type"] for e in events]
        return dump(state), kinds

    state, kinds = play()
    assert "CueFired" in kinds
    assert play() == (state, kinds)


# --- M-CUES-6: bad cue data is refused at load ---------------------------------------------------


# rule: M-CUES-6
@pytest.mark.parametrize(
    ("bad", "field", "words"),
    [
        (cue("x", {"sunrise": 1}, ALERT), "cues[0].trigger.sunrise", "no field 'sunrise'"),
        (cue("x", {"turn": 2, "every": 2}, ALERT), "cues[0].trigger", "one trigger, one of"),
        (
            cue("x", {"destroyed": "ghost"}, ALERT),
            "cues[0].trigger.destroyed",
            "no ship 'ghost'",
        ),
        (cue("x", {"enters": "nowhere"}, ALERT), "cues[0].trigger.enters", "no zone map"),
        (cue("x", {"phase": "lunch"}, ALERT), "cues[0].trigger.phase", "lunch"),
        (cue("x", {"gm": True}), "cues[0].actions", "at least one action"),
        (cue("x", {"gm": True}, {"dance": True}), "cues[0].actions[0].dance", "no field 'dance'"),
        (
            cue("x", {"gm": True}, {**WAVE, "add_ship": "dreadnought"}),
            "cues[0].actions[0].add_ship",
            "no ship class 'dreadnought'",
        ),
        (
            cue("x", {"gm": True}, {**WAVE, "name": "Rustjaw"}),
            "cues[0].actions[0].name",
            "already in the battle",
        ),
        (cue("x", {"gm": True}, {**WAVE, "x": 40}), "cues[0].actions[0].x", "off the map"),
        (
            cue("x", {"gm": True}, {"message": "Hi", "to": "kestrel/galley"}),
            "cues[0].actions[0].to",
            "Kestrel has no station 'galley'",  # the ship by its name, not its id
        ),
        (cue("x", {"gm": True}, {"fire": "y"}), "cues[0].actions[0].fire", "no cue 'y'"),
        (cue("x", {"gm": True}, {"sound": "kazoo"}), "cues[0].actions[0].sound", "kazoo"),
        (cue("x", {"gm": True}, {"fire": "x"}), "cues[0].actions", "loop: X, X"),
        (
            cue("x", {"gm": True}, {"npc": "kestrel", "auto": True}),
            "cues[0].actions[0].npc",
            "players",
        ),
        (cue("x", {"every": 2}, ALERT, repeat=False), "cues[0].repeat", "repeats"),
        (cue("x", {"gm": True}, WAVE, repeat=True), "cues[0].actions[0].name", "twice"),
    ],
)
def test_m_cues_6_bad_cue_data_is_refused_naming_the_file_and_field(
    bad: dict[str, Any], field: str, words: str
) -> None:
    with pytest.raises(ContentError) as caught:
        scenario_with("skirmish", bad)
    assert (caught.value.file, caught.value.field) == ("skirmish.toml", field)
    assert words in sentence(caught.value.message)


# rule: M-CUES-6
def test_m_cues_6_every_problem_of_a_scenario_is_named_at_once() -> None:
    """A file is refused with all it gets wrong, not its first problem per try."""
    cues = [
        cue("x", {"destroyed": "schakall"}, ALERT),
        cue("y", {"turn": 2}, {"sound": "gong"}, {"message": "Hi", "to": "nobody"}),
        cue("z", {"turn": 3}, {**WAVE, "add_ship": "dreadnought"}),
    ]
    with pytest.raises(ContentError) as caught:
        scenario_with("skirmish", *cues)
    assert [(e.file, e.field) for e in caught.value.every] == [
        ("skirmish.toml", "cues[0].trigger.destroyed"),
        ("skirmish.toml", "cues[1].actions[0].sound"),
        ("skirmish.toml", "cues[1].actions[1].to"),
    ]
    # What other files define is checked once the file itself reads: the class comes next.
    with pytest.raises(ContentError) as caught:
        scenario_with(
            "skirmish", cues[2], cue("w", {"turn": 4}, {**WAVE, "add_ship": "barge", "name": "B"})
        )
    assert [e.field for e in caught.value.every] == [
        "cues[0].actions[0].add_ship",
        "cues[1].actions[0].add_ship",
    ]


# rule: M-CUES-6
def test_m_cues_6_cues_that_fire_each_other_in_a_ring_are_refused() -> None:
    ring = [cue("a", {"gm": True}, {"fire": "b"}), cue("b", {"turn": 2}, {"fire": "c"})]
    ring.append(cue("c", {"turn": 3}, {"fire": "a"}))
    with pytest.raises(ContentError) as caught:
        scenario_with("skirmish", *ring)
    assert "loop: A, B, C, A" in sentence(caught.value.message)  # by their names


# rule: M-CUES-6
def test_m_cues_6_a_repeating_cue_placing_a_ship_where_it_watches_is_refused() -> None:
    loop = cue(
        "x", {"enters": "ion-storm"}, {"place": "jackal-1", "zone": "ion-storm"}, repeat=True
    )
    with pytest.raises(ContentError) as caught:
        scenario_with("nebula-ambush", loop)
    assert "fires itself" in sentence(caught.value.message)


# rule: M-CUES-6
def test_m_cues_6_every_shipped_scenario_has_cues_and_every_cue_word_is_known() -> None:
    for scenario in CAT.scenarios.values():
        assert scenario.sections["cues"], scenario.id
        state = new_game(scenario, CAT, seed=1)
        for listed in gm_view(state)["cues"]["list"]:
            assert sentence(listed["trigger"]) and all(sentence(d) for d in listed["did"])
