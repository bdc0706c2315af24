"""Campaigns (G-CAMP-1 to G-CAMP-8): the roster between games, and Downtime day by day with the
campaign's own keyed dice. Every expected roll is read from a copy of the campaign's generator
before the command, so each test proves the rule with the dice the campaign really rolls."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.rules import Actor, RulesError, apply, new_game, parse_command
from app.rules import campaign as camp
from app.rules.campaign.downtime import suggested
from app.rules.campaign.state import dm
from app.rules.core.report import build_report
from app.rules.core.rng import Dice
from tests.rules.builders import CAT

GM = Actor.gm()
SERVER = Actor.system()
State = dict[str, Any]
Events = list[dict[str, Any]]
SHIP_NAME = "Unerschütterliche Zuversicht der Äußeren Kolonien, Patrouill"  # 60 characters
PLAYER = "Friederike Großkopf-Überlingen vom Rhein"  # 40 characters


def game_command(state: State, data: dict[str, Any], events: Events, actor: Actor = GM) -> State:
    state, new = apply(state, parse_command(data, actor))
    events += new
    return state


def campaign_command(state: State, data: dict[str, Any], actor: Actor = GM) -> tuple[State, Events]:
    return camp.apply(state, camp.parse_campaign_command(data, actor))


def begin(campaign: State, scenario: str, game_id: str, seed: int = 3) -> tuple[State, State]:
    """A game of `scenario` begun from the campaign's roster: (campaign, game)."""
    game = new_game(CAT.scenarios[scenario], CAT, seed=seed)
    game = apply(game, parse_command({"type": "SetModule", "module": "npc", "on": False}, GM))[0]
    slots = camp.roster.slots(campaign, game)
    campaign, _ = campaign_command(
        campaign,
        {"type": "BeginEvening", "game": game_id, "scenario": scenario, "ships": slots},
        SERVER,
    )
    game = apply(game, parse_command(camp.roster.take_roster(campaign, game, slots), GM))[0]
    return campaign, game


def end(campaign: State, game: State, events: Events) -> State:
    report = build_report(game, events)
    data = camp.roster.evening_from_game(campaign, game, events, report)
    return campaign_command(campaign, data, SERVER)[0]


def first_evening(
    wounds: dict[str, dict[str, int]], hull: int = 5, seed: int = 11
) -> tuple[State, State]:
    """A campaign whose first evening (a skirmish) left the Kestrel's Hull damaged and these
    characters wounded: (campaign, the game as it ended)."""
    campaign = camp.new_campaign("Die lange Reise der Zuversicht", seed)
    campaign, game = begin(campaign, "skirmish", "evening-1")
    events: Events = []
    for station, character in zip(
        ("weapons", "pilot", "comms", "engineering"), sorted(wounds), strict=False
    ):
        seat = {"ship": "kestrel", "station": station, "seat": f"s-{station}"}
        game = game_command(
            game, {"type": "SeatCrew", **seat, "name": PLAYER, "character": character}, events
        )
    game = game_command(game, {"type": "SetShipValue", "ship": "kestrel", "field": "name",
                               "value": SHIP_NAME}, events)  # fmt: skip
    game = game_command(game, {"type": "SetTrack", "ship": "kestrel", "track": "hull",
                               "damage": hull}, events)  # fmt: skip
    for character, values in wounds.items():
        for field, value in values.items():
            game = game_command(
                game,
                {"type": "SetCharacteristic", "character": character, "field": field,
                 "value": value},
                events,
            )  # fmt: skip
    return end(campaign, game, events), game


def downtime(campaign: State, days: int, plans: dict[str, Any]) -> tuple[State, Events]:
    return campaign_command(campaign, {"type": "StartDowntime", "days": days, "plans": plans})


def dice(campaign: State) -> Dice:
    """The rolls the campaign's next command will make, from a copy of its generator."""
    return Dice(dict(campaign["rng"]))


def values(campaign: State, character: str) -> tuple[int, int, int]:
    ch = campaign["characters"][character]
    return ch["strength"]["value"], ch["dexterity"]["value"], ch["endurance"]["value"]


def refused(campaign: State, data: dict[str, Any], code: str, actor: Actor = GM) -> None:
    before = json.dumps(campaign, sort_keys=True)
    with pytest.raises(RulesError) as caught:
        campaign_command(campaign, data, actor)
    assert caught.value.code == code
    assert json.dumps(campaign, sort_keys=True) == before


def of_type(events: Events, kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


# --- G-CAMP-1: the roster between games -----------------------------------------------------------


def test_g_camp_1_an_evenings_end_writes_ships_characters_and_players_back() -> None:
    campaign, _ = first_evening({"amara-lind": {"endurance": 4}, "tomas-reyes": {"endurance": 0}})
    ship = campaign["ships"]["kestrel"]
    assert (ship["name"], ship["class"], ship["hull"]["damage"]) == (SHIP_NAME, "frigate", 5)
    assert values(campaign, "amara-lind") == (6, 11, 4)
    assert campaign["characters"]["amara-lind"]["player"] == PLAYER
    assert campaign["characters"]["tomas-reyes"]["status"] == "wounded"
    assert campaign["evenings"][0]["hull_ended"] == {"kestrel": {"left": 7, "boxes": 12}}
    assert campaign["evening"] is None


def test_g_camp_1_the_next_game_begins_from_the_roster_on_a_ship_of_its_own_class() -> None:
    campaign, _ = first_evening({"amara-lind": {"endurance": 4}})
    # The torpedo run's players fly a lancer: the campaign's frigate takes its place.
    campaign, game = begin(campaign, "torpedo-run", "evening-2")
    harrier = game["ships"]["harrier"]
    assert (harrier["name"], harrier["class"]) == (SHIP_NAME, "frigate")
    assert harrier["hull"]["damage"] == 5
    assert (harrier["x"], harrier["y"], harrier["side"]) == (
        new_game(CAT.scenarios["torpedo-run"], CAT, seed=1)["ships"]["harrier"]["x"],
        new_game(CAT.scenarios["torpedo-run"], CAT, seed=1)["ships"]["harrier"]["y"],
        "players",
    )
    assert game["characters"]["amara-lind"]["endurance"]["value"] == 4
    assert campaign["evening"]["ships"] == {"harrier": "kestrel"}


def test_g_camp_1_magazines_and_station_damage_come_back_as_they_were_left() -> None:
    campaign = camp.new_campaign("Magazine", 1)
    campaign, game = begin(campaign, "torpedo-run", "e1")
    events: Events = []
    game = game_command(game, {"type": "SetModule", "module": "weapons", "on": True}, events)
    game = game_command(
        game, {"type": "SetMagazine", "ship": "harrier", "weapon": "launcher", "count": 1}, events
    )
    game = game_command(
        game, {"type": "SetTrack", "ship": "harrier", "track": "pilot", "damage": 3}, events
    )
    campaign = end(campaign, game, events)
    assert campaign["ships"]["harrier"]["counts"]["weapon.launcher.loaded"] == 1
    campaign, game = begin(campaign, "torpedo-run", "e2")
    harrier = game["ships"]["harrier"]
    assert harrier["stations"]["pilot"]["damage"] == 3
    assert next(w for w in harrier["weapons"] if w["id"] == "launcher")["loaded"] == 1


def test_g_camp_1_the_dead_stay_in_the_roster_and_out_of_the_next_game() -> None:
    campaign, _ = first_evening(
        {"kofi-adeyemi": {"endurance": 0, "strength": 0, "dexterity": 0}, "amara-lind": {}}
    )
    assert campaign["characters"]["kofi-adeyemi"]["status"] == "dead"
    assert campaign["characters"]["kofi-adeyemi"]["died"] == {"evening": 1}
    _, game = begin(campaign, "skirmish", "evening-2")
    assert "kofi-adeyemi" not in game["characters"]
    assert "amara-lind" in game["characters"]


def test_g_camp_1_the_campaigns_ship_stays_aboard_through_the_evenings_next_battle() -> None:
    from app.rules.core.evening import next_battle

    campaign, _ = first_evening({"amara-lind": {}})
    campaign, game = begin(campaign, "skirmish", "evening-2")
    moved, _ = next_battle(game, CAT.scenarios["torpedo-run"], CAT)
    carried = camp.roster.carry_ships(game, moved)
    assert carried is not None
    moved = apply(moved, parse_command(carried, GM))[0]
    harrier = moved["ships"]["harrier"]
    assert (harrier["name"], harrier["class"], harrier["hull"]["damage"]) == (
        SHIP_NAME,
        "frigate",
        5,
    )


def test_g_camp_1_an_evening_of_two_battles_writes_back_the_same_roster_ship() -> None:
    from app.rules.core.evening import next_battle

    campaign, _ = first_evening({"amara-lind": {}}, hull=5)
    campaign, game = begin(campaign, "skirmish", "evening-2")
    moved, _ = next_battle(game, CAT.scenarios["torpedo-run"], CAT)
    carried = camp.roster.carry_ships(game, moved)
    assert carried is not None
    moved = apply(moved, parse_command(carried, GM))[0]
    events: Events = []
    moved = game_command(
        moved, {"type": "SetTrack", "ship": "harrier", "track": "hull", "damage": 8}, events
    )
    campaign = end(campaign, moved, events)
    assert sorted(campaign["ships"]) == ["kestrel"]  # the harrier's place was the Kestrel's
    assert campaign["ships"]["kestrel"]["hull"]["damage"] == 8


def test_g_camp_1_two_evenings_of_one_campaign_never_run_at_once() -> None:
    campaign, _ = first_evening({"amara-lind": {}})
    campaign, _ = begin(campaign, "skirmish", "evening-2")
    refused(
        campaign,
        {"type": "BeginEvening", "game": "evening-3", "scenario": "skirmish"},
        "EVENING_RUNNING",
        SERVER,
    )
    # Only the server starts or ends an evening: it reads them from the game.
    refused(campaign, {"type": "BeginEvening", "game": "x", "scenario": "y"}, "SERVER_ONLY")


def test_g_camp_1_a_roster_that_does_not_fit_is_refused_whole() -> None:
    campaign, _ = first_evening({"amara-lind": {}})
    campaign, game = begin(campaign, "skirmish", "evening-2")
    data = camp.roster.evening_from_game(campaign, game, [], build_report(game, []))
    data["roster"]["characters"]["amara-lind"]["strength"]["value"] = 99
    refused(campaign, data, "BAD_ROSTER", SERVER)


# --- G-CAMP-2: days set by the GM, repairs per day ------------------------------------------------


def test_g_camp_2_each_day_mends_one_hull_box_and_one_box_of_each_station() -> None:
    campaign, _ = first_evening({"amara-lind": {}}, hull=5)
    campaign["ships"]["kestrel"]["stations"]["weapons"]["damage"] = 4
    campaign["ships"]["kestrel"]["shields"]["damage"] = 1
    campaign, events = downtime(campaign, 3, {})
    ship = campaign["ships"]["kestrel"]
    assert ship["hull"]["damage"] == 2
    assert ship["stations"]["weapons"]["damage"] == 1
    assert ship["shields"]["damage"] == 0
    assert len(of_type(events, "ShipMended")) == 3
    assert campaign["day"] == 3


def test_g_camp_2_the_gm_sets_how_much_a_day_mends() -> None:
    campaign, _ = first_evening({"amara-lind": {}}, hull=9)
    campaign, _ = campaign_command(
        campaign, {"type": "SetRepairs", "hull_per_day": 3, "station_per_day": 0}
    )
    campaign, _ = downtime(campaign, 2, {})
    assert campaign["ships"]["kestrel"]["hull"]["damage"] == 3


@pytest.mark.parametrize("days", [0, -3, 61, 100_000])
def test_g_camp_2_negative_or_absurd_days_are_refused_and_change_nothing(days: int) -> None:
    campaign, _ = first_evening({"amara-lind": {"endurance": 2}})
    refused(campaign, {"type": "StartDowntime", "days": days}, "BAD_DAYS")


def test_g_camp_2_no_downtime_while_an_evening_runs() -> None:
    campaign, _ = first_evening({"amara-lind": {}})
    campaign, _ = begin(campaign, "skirmish", "evening-2")
    refused(campaign, {"type": "StartDowntime", "days": 3}, "EVENING_RUNNING")


def test_g_camp_2_a_character_not_in_the_roster_is_refused() -> None:
    campaign, _ = first_evening({"amara-lind": {}})
    refused(
        campaign,
        {"type": "StartDowntime", "days": 3, "plans": {"nobody": {"care": "rest"}}},
        "NOT_IN_ROSTER",
    )


# --- G-CAMP-3: a characteristic's DM --------------------------------------------------------------


def test_g_camp_3_the_dm_follows_the_current_value() -> None:
    table = {0: -3, 1: -2, 2: -2, 3: -1, 5: -1, 6: 0, 8: 0, 9: 1, 11: 1, 12: 2, 14: 2, 15: 3}
    assert {value: dm(value) for value in table} == table


# --- G-CAMP-4: natural healing --------------------------------------------------------------------


def test_g_camp_4_full_rest_restores_a_d6_plus_the_endurance_dm() -> None:
    campaign, _ = first_evening({"amara-lind": {"endurance": 1}})  # DM −2
    roll = dice(campaign).roll(6)
    campaign, events = downtime(campaign, 1, {"amara-lind": {"care": "rest"}})
    rolled = of_type(events, "RecoveryRolled")[0]
    assert rolled["rolls"] == [roll]
    assert rolled["points"] == roll - 2
    assert rolled["words"]["how"]["terms"] == [["d6", roll], ["endurance_dm", -2]]
    # Only Endurance is damaged: the points go there without asking (a loss comes off it too).
    assert values(campaign, "amara-lind")[2] == 1 + roll - 2


def test_g_camp_4_an_active_day_restores_one_plus_the_endurance_dm() -> None:
    campaign, _ = first_evening({"tomas-reyes": {"endurance": 6}})  # DM 0
    campaign, events = downtime(campaign, 2, {"tomas-reyes": {"care": "active"}})
    assert [e["points"] for e in of_type(events, "RecoveryRolled")] == [1, 1]
    assert values(campaign, "tomas-reyes")[2] == 8


def test_g_camp_4_the_seriously_wounded_restore_only_the_dm_and_a_negative_one_hurts() -> None:
    wounds = {"endurance": 1, "strength": 9, "dexterity": 8}  # all three damaged; DM −2
    campaign, _ = first_evening({"tomas-reyes": wounds})
    assert campaign["characters"]["tomas-reyes"]["status"] == "seriously_wounded"
    campaign, events = downtime(campaign, 1, {"tomas-reyes": {"care": "rest"}})
    assert of_type(events, "RecoveryRolled")[0]["points"] == -2
    assert of_type(events, "RecoveryRolled")[0]["rolls"] == []
    # Endurance goes first, then the higher of Strength and Dexterity.
    assert values(campaign, "tomas-reyes") == (8, 8, 0)


def test_g_camp_4_the_player_chooses_where_points_go_and_may_split_them() -> None:
    campaign, _ = first_evening({"juno-pike": {"endurance": 3, "strength": 4}})  # DM −1
    roll = dice(campaign).roll(6)
    campaign, events = downtime(campaign, 2, {"juno-pike": {"care": "rest"}})
    owed = roll - 1
    assert owed > 1  # this campaign's first roll gives points to split
    waiting = campaign["downtime"]["waiting"]["juno-pike"]
    assert waiting["points"] == owed
    assert campaign["downtime"]["day"] == 1  # day 2 waits for the choice
    split = {"strength": owed // 2, "endurance": owed - owed // 2}
    # Someone else's phone may not place them; all of them must be placed, none above a maximum.
    refused(
        campaign,
        {"type": "PlaceRecovery", "character": "juno-pike", "points": split},
        "NOT_YOUR_CHARACTER",
        camp.player("amara-lind"),
    )
    refused(
        campaign,
        {"type": "PlaceRecovery", "character": "juno-pike", "points": {"strength": owed - 1}},
        "PLACE_EVERY_POINT",
        camp.player("juno-pike"),
    )
    refused(
        campaign,
        {"type": "PlaceRecovery", "character": "juno-pike", "points": {"dexterity": owed}},
        "ABOVE_MAXIMUM",
        camp.player("juno-pike"),
    )
    campaign, events = campaign_command(
        campaign,
        {"type": "PlaceRecovery", "character": "juno-pike", "points": split},
        camp.player("juno-pike"),
    )
    strength, _, endurance = values(campaign, "juno-pike")
    restored = of_type(events, "CharacteristicsRestored")[0]["restored"]
    assert restored == {k: v for k, v in split.items() if v}
    assert strength >= 4 + split["strength"] and endurance >= 3 + split["endurance"]
    assert of_type(events, "RecoveryRolled")  # and day 2 was rolled once the choice was in


def test_g_camp_4_no_characteristic_rises_above_its_maximum() -> None:
    campaign, _ = first_evening({"amara-lind": {"endurance": 9}})
    campaign, _ = downtime(campaign, 5, {"amara-lind": {"care": "rest"}})
    assert values(campaign, "amara-lind") == (6, 11, 10)


# --- G-CAMP-5: medical care and surgery -----------------------------------------------------------


def test_g_camp_5_medical_care_restores_two_plus_dm_plus_medicine_divided_evenly() -> None:
    campaign, _ = first_evening(
        {"kofi-adeyemi": {"endurance": 3, "strength": 3}, "amara-lind": {}}
    )  # DM −1
    plan = {"kofi-adeyemi": {"care": "medical", "doctor": "amara-lind"}}  # Medicine 3
    campaign, events = downtime(campaign, 1, plan)
    assert of_type(events, "RecoveryRolled")[0]["points"] == 2 - 1 + 3
    assert values(campaign, "kofi-adeyemi") == (5, 10, 5)


def test_g_camp_5_the_seriously_wounded_need_surgery_before_medical_care() -> None:
    campaign, _ = first_evening(
        {"tomas-reyes": {"endurance": 2, "strength": 5, "dexterity": 5}, "amara-lind": {}}
    )
    refused(
        campaign,
        {"type": "StartDowntime", "days": 2,
         "plans": {"tomas-reyes": {"care": "medical", "doctor": "amara-lind"}}},
        "NEEDS_SURGERY",
    )  # fmt: skip
    refused(
        campaign,
        {"type": "StartDowntime", "days": 2, "plans": {"tomas-reyes": {"care": "surgery"}}},
        "NO_DOCTOR",
    )


@pytest.mark.parametrize(("seed", "effect"), [(13, 6), (3, -1)])
def test_g_camp_5_surgery_restores_twice_the_effect_or_costs_the_effect(
    seed: int, effect: int
) -> None:
    wounds = {"endurance": 6, "strength": 6, "dexterity": 6}
    campaign, _ = first_evening({"tomas-reyes": wounds, "amara-lind": {}}, seed=seed)
    roller = dice(campaign)
    a, b = roller.roll(6), roller.roll(6)
    assert a + b + 3 - 8 == effect  # Dr Amara Lind's Medicine 3, against 8
    plan = {"tomas-reyes": {"care": "surgery", "doctor": "amara-lind"}}
    campaign, events = downtime(campaign, 1, plan)
    rolled = of_type(events, "RecoveryRolled")[0]
    assert rolled["rolls"] == [a, b]
    if effect < 0:  # a failed check costs points equal to its Effect, Endurance first
        assert rolled["points"] == effect
        assert values(campaign, "tomas-reyes") == (6, 6, 6 + effect)
        return
    # Twice the Effect, placed as the player chooses, as first aid's points are.
    assert rolled["points"] == 2 * effect
    assert campaign["downtime"]["waiting"]["tomas-reyes"]["points"] == 2 * effect
    campaign, _ = campaign_command(
        campaign,
        {"type": "PlaceRecovery", "character": "tomas-reyes",
         "points": {"strength": 5, "endurance": 6, "dexterity": 1}},
        camp.player("tomas-reyes"),
    )  # fmt: skip
    assert values(campaign, "tomas-reyes") == (11, 7, 12)


def test_g_camp_5_surgery_on_oneself_is_minus_four() -> None:
    campaign, _ = first_evening({"amara-lind": {"endurance": 5, "strength": 5, "dexterity": 5}})
    roller = dice(campaign)
    a, b = roller.roll(6), roller.roll(6)
    plan = {"amara-lind": {"care": "surgery", "doctor": "amara-lind"}}
    campaign, events = downtime(campaign, 1, plan)
    rolled = of_type(events, "RecoveryRolled")[0]
    assert rolled["words"]["how"]["total"] == a + b + 3 - 4
    assert ["on_oneself", -4] in rolled["words"]["how"]["terms"]


# --- G-CAMP-6: first aid, in the game and within the hour after --------------------------------


def test_g_camp_6_first_aid_within_the_hour_restores_only_the_effect() -> None:
    campaign, _ = first_evening({"kofi-adeyemi": {"endurance": 1}, "amara-lind": {}})
    roller = dice(campaign)
    a, b = roller.roll(6), roller.roll(6)
    effect = a + b + 3 - 8
    plan = {"kofi-adeyemi": {"care": "active", "first_aid": "amara-lind"}}
    campaign, events = downtime(campaign, 1, plan)
    aid = of_type(events, "RecoveryRolled")[0]
    assert (aid["care"], aid["rolls"], aid["points"]) == ("first_aid", [a, b], max(0, effect))


def test_g_camp_6_first_aid_on_oneself_is_minus_two_in_the_game_too() -> None:
    game = new_game(CAT.scenarios["skirmish"], CAT, seed=5)
    game["characters"]["amara-lind"]["endurance"]["value"] = 2
    game["characters"]["amara-lind"]["status"] = "wounded"
    a, b = Dice(dict(game["rng"])).roll(6), Dice(dict(game["rng"])).roll(6)
    roller = Dice(dict(game["rng"]))
    a, b = roller.roll(6), roller.roll(6)
    data = {"type": "FirstAid", "character": "amara-lind", "medic": "amara-lind"}
    _, events = apply(game, parse_command(data, GM))
    rolled = next(e for e in events if e["type"] == "FirstAidRolled")
    assert rolled["total"] == a + b + 3 - 2


# --- G-CAMP-7: serious wounds end with one characteristic restored -------------------------------


def test_g_camp_7_one_characteristic_back_at_its_maximum_ends_serious_wounds() -> None:
    campaign, _ = first_evening(
        {"juno-pike": {"endurance": 8, "strength": 8, "dexterity": 9}, "amara-lind": {}}
    )
    assert campaign["characters"]["juno-pike"]["status"] == "seriously_wounded"
    # Surgery until it works, placing each success as suggested.
    plan = {"juno-pike": {"care": "surgery", "doctor": "amara-lind"}}
    campaign, events = downtime(campaign, 10, plan)
    seen = list(events)
    while campaign["downtime"] is not None:
        campaign, more = campaign_command(
            campaign, {"type": "PlaceAsSuggested", "character": "juno-pike"}
        )
        seen += more
    ended = of_type(seen, "SeriousWoundsEnded")
    assert ended, [e["type"] for e in seen]
    restored = seen.index(ended[0]) - 1
    assert seen[restored]["type"] == "CharacteristicsRestored"
    assert seen[restored]["was"] == "seriously_wounded"
    assert seen[restored]["status"] != "seriously_wounded"


# --- G-CAMP-8: the campaign's own dice, recorded, replayable --------------------------------------


def test_g_camp_8_the_same_commands_give_the_same_campaign_and_no_view_holds_the_key() -> None:
    def play() -> tuple[State, Events]:
        campaign, _ = first_evening(
            {"amara-lind": {"endurance": 2}, "tomas-reyes": {"endurance": 4}}
        )
        plans = {
            "amara-lind": {"care": "rest"},
            "tomas-reyes": {"care": "medical", "doctor": "amara-lind"},
        }
        campaign, events = downtime(campaign, 4, plans)
        while campaign["downtime"] is not None:
            campaign, more = campaign_command(campaign, {"type": "PlaceAsSuggested"})
            events += more
        return campaign, events

    first, second = play(), play()
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    assert campaign_rolls(first[1]) and campaign_rolls(first[1]) == campaign_rolls(second[1])
    key = first[0]["rng"]["key"]
    assert key not in json.dumps(camp.campaign_view(first[0]))
    assert key not in json.dumps(camp.campaign_story(first[0], first[1]))


def campaign_rolls(events: Events) -> list[list[int]]:
    return [e["rolls"] for e in events if e["type"] == "RecoveryRolled" and e["rolls"]]


def test_g_camp_8_undoing_a_downtime_rewinds_its_dice_too() -> None:
    campaign, _ = first_evening({"amara-lind": {"endurance": 2}})
    before = json.dumps(campaign, sort_keys=True)
    once, events = downtime(campaign, 3, {"amara-lind": {"care": "rest"}})
    undone, _ = campaign_command(once, {"type": "UndoDowntime"})
    assert json.dumps({**undone, "undo": None}, sort_keys=True) == json.dumps(
        {**json.loads(before), "undo": None}, sort_keys=True
    )
    again, again_events = downtime(undone, 3, {"amara-lind": {"care": "rest"}})
    assert campaign_rolls(again_events) == campaign_rolls(events)
    assert camp.campaign_view(again)["can_undo"]
    # After the next evening begins, that Downtime is history.
    begun, _ = begin(again, "skirmish", "evening-2")
    refused(begun, {"type": "UndoDowntime"}, "NOTHING_TO_UNDO")


def test_g_camp_8_the_story_tells_each_roll_by_day_without_an_undone_downtime() -> None:
    campaign, _ = first_evening({"amara-lind": {"endurance": 2}})
    campaign, first = downtime(campaign, 2, {"amara-lind": {"care": "active"}})
    campaign, undo = campaign_command(campaign, {"type": "UndoDowntime"})
    campaign, second = downtime(campaign, 3, {"amara-lind": {"care": "active"}})
    story = camp.campaign_story(campaign, [*first, *undo, *second])
    assert [d["days"] for d in story["downtimes"]] == [3]
    days = [e["day"] for e in story["downtimes"][0]["entries"] if e["type"] == "RecoveryRolled"]
    assert days == [1, 2, 3]
    assert len(story["characters"]["amara-lind"]["recoveries"]) == 3


def test_the_suggestion_wakes_first_then_endurance_then_the_most_damaged() -> None:
    character = {
        "strength": {"max": 8, "value": 0},
        "dexterity": {"max": 10, "value": 2},
        "endurance": {"max": 9, "value": 5},
    }
    assert suggested(character, 1) == {"strength": 1, "dexterity": 0, "endurance": 0}
    assert suggested(character, 6) == {"strength": 1, "dexterity": 1, "endurance": 4}
