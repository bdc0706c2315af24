"""E-EVENING-1 (docs/rules.md): the same table moves on to the next battle of any scenario, its
crew carried station by station, its characters with their wounds, its dice going on."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import RulesError, apply, display_view, gm_view, station_view
from app.rules import commands as c
from app.rules.core.evening import next_battle

from .builders import CAT, GM, NOW, dump, game, of_type, one, refused, run, said, started


def crew_of(state: dict[str, Any], ship: str) -> dict[str, str | None]:
    stations = state["ships"][ship]["stations"]
    return {sid: (st["crew"] or {}).get("seat") for sid, st in stations.items()}


def test_e_evening_1_the_crew_keeps_its_stations_on_the_new_players_ship() -> None:
    state = game("skirmish", characters={"kestrel/weapons": "amara-lind"})
    after, events = next_battle(state, CAT.scenarios["torpedo-run"], CAT)
    assert set(after["ships"]) == {"harrier", "viper", "adder"}
    assert crew_of(after, "harrier") == {
        station: f"kestrel-{station}" for station in ("weapons", "engineering", "pilot", "comms")
    }
    weapons = after["ships"]["harrier"]["stations"]["weapons"]["crew"]
    assert weapons == {"seat": "kestrel-weapons", "name": "P weapons", "character": "amara-lind"}
    assert after["scenario"]["id"] == "torpedo-run"
    assert after["modules"] == ["npc", "weapons"]  # the new scenario's own
    started = one(events, "BattleStarted")
    assert started["scenario"] == {"id": "torpedo-run", "name": "Torpedo Run"}
    assert [m["to"] for m in started["moved"]] == [
        "harrier/comms", "harrier/engineering", "harrier/pilot", "harrier/weapons"
    ]  # fmt: skip
    # The finished battle's roster stays for the report: names, sides and who sat where.
    kestrel = started["finished"]["ships"]["kestrel"]
    assert kestrel["name"] == "Kestrel" and kestrel["side"] == "players"
    assert kestrel["stations"]["weapons"]["crew"] == {
        "name": "P weapons",
        "character": "Dr Amara Lind",
    }
    assert started["finished"]["scenario"]["id"] == "skirmish"


def test_e_evening_1_crews_beyond_the_new_stations_stay_on_the_tables_roster() -> None:
    # Convoy: two players' ships (frigate and cruiser, nine stations); skirmish has one frigate.
    state = game("convoy")
    after, events = next_battle(state, CAT.scenarios["skirmish"], CAT)
    assert crew_of(after, "kestrel") == {
        station: f"kestrel-{station}" for station in ("weapons", "engineering", "pilot", "comms")
    }
    stood_down = {e["seat"] for e in of_type(events, "CrewStandsBy")}
    assert stood_down == {f"resolute-{s}" for s in ("weapons", "engineering", "pilot", "comms",
                                                    "captain")}  # fmt: skip
    assert all(m["to"] is None for m in one(events, "BattleStarted")["moved"]
               if m["seat"] in stood_down)  # fmt: skip


def test_e_evening_1_a_crew_whose_ship_has_no_twin_takes_free_stations_of_its_own_role_first() -> (
    None
):
    # Two ships' crews onto convoy's two players' ships: each lands on its own twin; then a
    # captain, whose station only the cruiser has, moved onto a frigate-only battle stands down.
    state = game("convoy")
    state = run(state, c.UnseatCrew(ship="kestrel", station="pilot"))
    after, events = next_battle(state, CAT.scenarios["skirmish"], CAT)
    # Kestrel's pilot left before the move: the cruiser's pilot takes that free pilot's station.
    assert crew_of(after, "kestrel")["pilot"] == "resolute-pilot"
    moved = {m["seat"]: m["to"] for m in one(events, "BattleStarted")["moved"]}
    assert moved["resolute-pilot"] == "kestrel/pilot"
    assert moved["resolute-captain"] is None


def test_e_evening_1_more_ships_than_crews_leaves_the_other_ship_free_to_join() -> None:
    after, _ = next_battle(game("skirmish"), CAT.scenarios["convoy"], CAT)
    assert set(crew_of(after, "kestrel").values()) == {
        f"kestrel-{s}" for s in ("weapons", "engineering", "pilot", "comms")
    }
    assert set(crew_of(after, "resolute").values()) == {None}


def test_e_evening_1_characters_keep_their_wounds_and_the_room_its_settings() -> None:
    state = game("skirmish", characters={"kestrel/weapons": "amara-lind"})
    state = run(
        state,
        c.SetCharacteristic(character="amara-lind", field="strength", value=1),
        c.SetDisplayLanguage(language="de"),
        c.SetSetting(name="sound_volume", value=30),
    )
    after, _ = next_battle(state, CAT.scenarios["nebula-ambush"], CAT)
    assert after["characters"]["amara-lind"]["strength"]["value"] == 1
    assert after["settings"]["display_language"] == "de"
    assert after["settings"]["sound_volume"] == 30
    assert "map" in after  # nebula-ambush is fought on a zone map
    assert after["ships"]["kestrel"]["zone"]


def test_e_evening_1_skill_cards_in_a_hand_go_back_to_their_character() -> None:
    state = game("skirmish", characters={"kestrel/weapons": "amara-lind"})
    state = run(started(state), c.EndCombat())
    hand = state["ships"]["kestrel"]["stations"]["weapons"]["hand"]
    skills = [card for card in hand if state["cards"][card]["owner"] == "amara-lind"]
    assert skills, "the test needs a Skill card in the hand"
    after, _ = next_battle(state, CAT.scenarios["skirmish"], CAT)
    amara = after["characters"]["amara-lind"]
    assert set(skills) <= set(amara["discard"])
    assert not set(skills) & set(after["ships"]["kestrel"]["stations"]["weapons"]["hand"])


def test_e_evening_1_combats_count_on_and_the_dice_go_on() -> None:
    state = run(started(game("skirmish")), c.EndCombat())
    after, events = next_battle(state, CAT.scenarios["skirmish"], CAT)
    assert after["combat"] == 1 and after["phase"] == "downtime" and after["turn"] == 0
    assert after["rng"]["key"] == state["rng"]["key"]
    assert after["rng"]["counter"] > state["rng"]["counter"]  # the decks were shuffled anew
    assert [entry["type"] for entry in after["log"]] == ["BattleStarted"]
    assert one(events, "BattleStarted")["finished"]["scenario"]["id"] == "skirmish"
    nxt = run(after, c.StartTurn(seconds=0))
    assert nxt["combat"] == 2


def test_e_evening_1_is_deterministic_and_leaves_its_input_alone() -> None:
    state = game("convoy", characters={"kestrel/weapons": "amara-lind"})
    before = dump(state)
    first = next_battle(state, CAT.scenarios["torpedo-run"], CAT)
    assert dump(state) == before
    assert dump(first[0]) == dump(next_battle(state, CAT.scenarios["torpedo-run"], CAT)[0])


def test_e_evening_1_only_in_downtime() -> None:
    state = started(game("skirmish"))
    with pytest.raises(RulesError) as caught:
        next_battle(state, CAT.scenarios["convoy"], CAT)
    assert caught.value.code == "WRONG_PHASE"


def test_e_evening_1_apply_alone_cannot_start_a_battle() -> None:
    # The engine holds no scenarios: only the service, which reads them, can.
    refused(game("skirmish"), c.NextBattle(scenario="convoy", actor=GM), "NEEDS_SCENARIO")
    with pytest.raises(RulesError):
        apply(game("skirmish"), c.NextBattle(scenario="convoy", actor=c.Actor.for_seat("x")))


# rule: E-EVENING-1
def test_e_evening_1_a_player_with_no_station_stays_and_returns_with_name_and_character() -> None:
    state = game("convoy", characters={"resolute/captain": "amara-lind"})
    fewer, events = next_battle(state, CAT.scenarios["skirmish"], CAT)  # no captain's station
    assert fewer["bench"][0] == {
        "seat": "resolute-captain",
        "name": "P captain",
        "character": "amara-lind",
        "role": "captain",
        "from": "resolute/captain",
    }
    told = station_view(fewer, "resolute-captain")
    assert told["me"] is None
    assert told["standing_by"]["name"] == "P captain"
    assert told["standing_by"]["character"] == "Dr Amara Lind"
    [captain] = [e for e in of_type(events, "CrewStandsBy") if e["seat"] == "resolute-captain"]
    assert "stay on the table's roster" in said(captain)
    # The battle after has a captain's station again: the same player, the same character.
    back, events = next_battle(fewer, CAT.scenarios["convoy"], CAT)
    captain = back["ships"]["resolute"]["stations"]["captain"]["crew"]
    assert captain == {"seat": "resolute-captain", "name": "P captain", "character": "amara-lind"}
    assert back["bench"] == [] and station_view(back, "resolute-captain")["standing_by"] is None
    moved = {m["seat"]: m["to"] for m in one(events, "BattleStarted")["moved"]}
    assert moved["resolute-captain"] == "resolute/captain"


# rule: E-EVENING-1
def test_e_evening_1_a_player_who_leaves_the_roster_does_not_come_back() -> None:
    fewer, _ = next_battle(game("convoy"), CAT.scenarios["skirmish"], CAT)
    gone, events = apply(fewer, c.LeaveRoster(seat="resolute-captain", actor=c.Actor.system()))
    assert "P captain leaves the table's roster." in said(one(events, "CrewLeftRoster"))
    refused(gone, c.LeaveRoster(seat="resolute-captain", actor=GM), "NOT_ON_ROSTER")
    back, _ = next_battle(gone, CAT.scenarios["convoy"], CAT)
    assert back["ships"]["resolute"]["stations"]["captain"]["crew"] is None


# rule: E-EVENING-1
def test_e_evening_1_after_moving_on_no_screen_says_the_last_combat_is_over() -> None:
    state = run(started(game("skirmish")), c.EndCombat())
    assert gm_view(state)["game"]["combat_over"]
    after, _ = next_battle(state, CAT.scenarios["torpedo-run"], CAT)
    for view in (gm_view(after), display_view(after), station_view(after, "kestrel-weapons")):
        assert view["game"]["combat"] == 1 and not view["game"]["combat_over"]
    after = run(after, c.StartNextCombat(seconds=0, now=NOW), c.EndCombat())
    assert display_view(after)["game"]["combat_over"]  # this battle's own combat
