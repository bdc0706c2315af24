"""Crew (section 8, G-CREW-*): characteristics, wounds, incapacity and first aid."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import commands as c
from app.rules.content import ContentError, parse_character
from app.rules.core.context import Context
from app.rules.core.crew import injure, status_of
from app.rules.core.messages import message
from app.rules.core.orders import stations_expected

from .builders import (
    CAT,
    NOW,
    Events,
    State,
    close,
    game,
    npc,
    of_type,
    one,
    order,
    place,
    refused,
    run,
    run_events,
    seat,
    set_rolls,
    shields,
    started,
    stations,
)


def character_data(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "ada",
        "name": "Ada",
        "strength": 8,
        "dexterity": 9,
        "endurance": 10,
        "armour": 1,
        "medicine": 2,
        "skill_cards": [{"name": "Knack", "value": 1, "kind": "helm", "effect": "Adds 1."}],
    }
    data.update(changes)
    return data


def hurt(state: State, character: str, points: int) -> tuple[dict[str, Any], Events]:
    ctx = Context(state, NOW)
    injure(ctx, state["characters"][character], points, message("cause_enemy_fire"))
    return state["characters"][character], ctx.events


def values(ch: dict[str, Any]) -> tuple[int, ...]:
    return tuple(ch[k]["value"] for k in ("strength", "dexterity", "endurance"))


def set_values(state: State, character: str, **values_: int) -> State:
    return run(
        state,
        *(c.SetCharacteristic(character=character, field=k, value=v) for k, v in values_.items()),
    )


# rule: G-CREW-1
def test_g_crew_1_characters_have_three_characteristics_from_2_to_15_and_armour() -> None:
    for ch in CAT.characters.values():
        assert all(2 <= v <= 15 for v in (ch.strength, ch.dexterity, ch.endurance))
        assert ch.armour >= 0
    amara = game()["characters"]["amara-lind"]
    assert (amara["strength"], amara["dexterity"], amara["endurance"], amara["armour"]) == (
        {"max": 6, "value": 6},
        {"max": 11, "value": 11},
        {"max": 10, "value": 10},
        0,
    )


# rule: G-CREW-1
@pytest.mark.parametrize(
    "field, value, ok",
    [
        ("strength", 2, True),
        ("strength", 15, True),
        ("dexterity", 1, False),
        ("endurance", 16, False),
        ("armour", -1, False),
    ],
)
def test_g_crew_1_content_refuses_characteristics_out_of_range(
    field: str, value: int, ok: bool
) -> None:
    data = character_data(**{field: value})
    if ok:
        assert getattr(parse_character(data, "scenarios/characters/ada.toml"), field) == value
    else:
        with pytest.raises(ContentError):
            parse_character(data, "scenarios/characters/ada.toml")


# rule: G-CREW-2
def test_g_crew_2_armour_is_taken_off_each_injury() -> None:
    state = game()
    tomas, events = hurt(state, "tomas-reyes", 3)  # armour 2
    assert values(tomas) == (11, 9, 11)
    assert one(events, "CrewInjured")["blocked"] == 2


# rule: G-CREW-2
def test_g_crew_2_endurance_goes_first_then_strength_or_dexterity() -> None:
    state = game()
    amara, _ = hurt(state, "amara-lind", 10)  # S 6, D 11, E 10
    assert values(amara) == (6, 11, 0) and amara["status"] == "wounded"
    amara, _ = hurt(state, "amara-lind", 5)  # the higher one (the engine's choice for the player)
    assert values(amara) == (6, 6, 0) and amara["status"] == "wounded"
    amara, _ = hurt(state, "amara-lind", 1)
    assert values(amara) == (5, 6, 0) and amara["status"] == "seriously_wounded"
    amara, _ = hurt(state, "amara-lind", 10)
    assert values(amara) == (0, 1, 0) and amara["status"] == "unconscious"
    amara, events = hurt(state, "amara-lind", 5)
    assert values(amara) == (0, 0, 0) and amara["status"] == "dead"
    assert one(events, "CrewInjured")["lost"] == {"dexterity": 1}


# rule: G-CREW-2
@pytest.mark.parametrize(
    "s, d, e, status",
    [
        (6, 11, 10, "healthy"),
        (6, 11, 9, "wounded"),
        (5, 10, 9, "seriously_wounded"),
        (0, 11, 0, "unconscious"),
        (6, 0, 0, "unconscious"),
        (0, 0, 0, "dead"),
        (5, 10, 0, "seriously_wounded"),
    ],
)
def test_g_crew_2_status_follows_damaged_and_zeroed_characteristics(
    s: int, d: int, e: int, status: str
) -> None:
    amara = game()["characters"]["amara-lind"]
    for key, value in zip(("strength", "dexterity", "endurance"), (s, d, e), strict=True):
        amara[key]["value"] = value
    assert status_of(amara) == status


# rule: G-CREW-3
def test_g_crew_3_an_unconscious_character_leaves_the_station_unmanned() -> None:
    state = started(game(characters={"kestrel/pilot": "ilse-marrow"}))
    assert "kestrel/pilot" in stations_expected(state)
    state = set_values(state, "ilse-marrow", endurance=0, dexterity=0)
    assert state["characters"]["ilse-marrow"]["status"] == "unconscious"
    assert "kestrel/pilot" not in stations_expected(state)
    hand = stations(state, "kestrel")["pilot"]["hand"]
    refused(state, order("kestrel", "pilot", "evasive", hand[:1]), "CREW_INCAPACITATED")
    state, _ = close(state)
    stations(state, "kestrel")["pilot"]["hand"] = []
    state = started(state)
    assert stations(state, "kestrel")["pilot"]["hand"] == []  # an unmanned station draws nothing


# rule: G-CREW-3
def test_g_crew_3_unconscious_engineer_cannot_divert_damage() -> None:
    state = game(characters={"kestrel/engineering": "juno-pike"})
    state = set_values(
        shields(started(state), "kestrel", False), "juno-pike", endurance=0, strength=0
    )
    state = place(state, "rustjaw", 5, 5)
    state = run(state, npc("rustjaw", "weapons", "attack", 6, target="kestrel"))
    state, events = close(set_rolls(state, 3))
    assert not of_type(events, "AllocationRequested")
    assert state["ships"]["kestrel"]["hull"]["damage"] == 5


# rule: G-CREW-3
def test_g_crew_3_first_aid_puts_the_character_back_at_the_station() -> None:
    state = started(game(characters={"kestrel/pilot": "ilse-marrow"}))
    state = set_values(state, "ilse-marrow", endurance=0, dexterity=0)
    state = run(state, c.FirstAid(character="ilse-marrow", effect=1))
    assert state["characters"]["ilse-marrow"]["status"] == "wounded"
    assert "kestrel/pilot" in stations_expected(state)


# rule: G-CREW-4
def test_g_crew_4_first_aid_restores_twice_the_effect() -> None:
    state = set_values(game(), "amara-lind", endurance=0, strength=0)
    state, events = run_events(state, c.FirstAid(character="amara-lind", effect=3))
    healed = one(events, "CrewHealed")
    assert sum(healed["restored"].values()) == 6
    amara = state["characters"]["amara-lind"]
    assert values(amara) == (1, 11, 5)  # zeros first (waking her), then the most damaged
    assert amara["status"] == "wounded"


# rule: G-CREW-4
def test_g_crew_4_a_medic_off_station_rolls_two_dice_plus_medicine_against_eight() -> None:
    state = game(crew=False)
    state = set_values(state, "vesna-kaur", endurance=0)  # 9 points down
    state = set_rolls(state, 4, 5)
    state, events = run_events(state, c.FirstAid(character="vesna-kaur", medic="amara-lind"))
    roll = one(events, "FirstAidRolled")
    assert roll["rolls"] == [4, 5] and roll["total"] == 4 + 5 + 3 and roll["effect"] == 4
    assert state["characters"]["vesna-kaur"]["endurance"]["value"] == 8


# rule: G-CREW-4
def test_g_crew_4_a_failed_check_restores_nothing() -> None:
    state = set_rolls(set_values(game(crew=False), "vesna-kaur", endurance=3), 1, 2)
    state, events = run_events(state, c.FirstAid(character="vesna-kaur", medic="amara-lind"))
    assert one(events, "FirstAidRolled")["effect"] == 1 + 2 + 3 - 8
    assert one(events, "FirstAidFailed")
    assert state["characters"]["vesna-kaur"]["endurance"]["value"] == 3


# rule: G-CREW-4
def test_g_crew_4_a_medic_manning_a_station_cannot_give_first_aid() -> None:
    state = game(characters={"kestrel/comms": "amara-lind"})
    state = set_values(state, "vesna-kaur", endurance=3)
    refused(state, c.FirstAid(character="vesna-kaur", medic="amara-lind"), "MEDIC_AT_STATION")
    refused(
        state,
        c.FirstAid(character="vesna-kaur", effect=2, actor=seat("kestrel", "comms")),
        "GM_ONLY",
    )
    refused(state, c.FirstAid(character="amara-lind", effect=2), "NOT_INJURED")


# rule: G-CREW-3
def test_g_crew_3_seating_an_unconscious_character_mid_combat_draws_nothing() -> None:
    state = run(game(), c.UnseatCrew(ship="kestrel", station="pilot"))
    state = set_values(started(state), "ilse-marrow", endurance=0, dexterity=0)
    stations(state, "kestrel")["pilot"]["hand"] = []
    state = run(
        state,
        c.SeatCrew(ship="kestrel", station="pilot", seat="s", name="S", character="ilse-marrow"),
    )
    assert stations(state, "kestrel")["pilot"]["hand"] == []
    state = run(state, c.FirstAid(character="ilse-marrow", effect=1))
    assert "kestrel/pilot" in stations_expected(state)
