"""M-SEATS-1..3: changing position, overriding a station nobody can work, and fallen crew."""

from __future__ import annotations

from typing import Any

from app.rules import commands as c
from app.rules import station_view

from .builders import (
    NOW,
    close,
    damage,
    game,
    give,
    of_type,
    one,
    refused,
    run,
    run_events,
    said,
    seat,
    set_hand,
    skill_cards,
    started,
    stations,
)

State = dict[str, Any]


def bridge(*, free: tuple[str, ...] = ("comms",), modules: tuple[str, ...] = ("seats",)) -> State:
    """Kestrel's crew seated (Amara Lind at Weapons), with the `free` stations left empty."""
    state = game(
        "skirmish",
        modules=modules,
        characters={"kestrel/weapons": "amara-lind", "kestrel/pilot": "ilse-marrow"},
    )
    for station in free:
        state = run(state, c.UnseatCrew(ship="kestrel", station=station))
    return state


def move(state: State, station: str, *, who: str = "weapons") -> c.ChangePosition:
    return c.ChangePosition(ship="kestrel", station=station, actor=seat("kestrel", who), now=NOW)


def crew_at(state: State, station: str) -> str | None:
    crew = stations(state, "kestrel")[station]["crew"]
    return None if crew is None else str(crew["seat"])


def test_m_seats_1_moving_to_a_free_station_is_at_once_skill_cards_travel_station_cards_stay() -> (
    None
):
    state = started(bridge())
    weapons = stations(state, "kestrel")["weapons"]
    skill = [card for card in weapons["hand"] if state["cards"][card]["owner"]]
    station_cards = [card for card in weapons["hand"] if card not in skill]
    assert skill and station_cards
    state, events = run_events(state, move(state, "comms"))
    assert crew_at(state, "comms") == "kestrel-weapons" and crew_at(state, "weapons") is None
    comms = stations(state, "kestrel")["comms"]
    assert set(skill) <= set(comms["hand"])  # the character's cards came along
    assert stations(state, "kestrel")["weapons"]["hand"] == station_cards  # the station's stayed
    assert len(comms["hand"]) == comms["boxes"]  # Orders are open: drawn up to the new limit
    assert one(events, "PositionChanged")["left"] == "weapons"
    assert station_view(state, "kestrel-weapons")["me"]["station"] == "comms"


def test_m_seats_1_the_new_station_s_lower_limit_applies_at_once() -> None:
    state = started(bridge())
    state = damage(state, "kestrel", "comms", stations(state, "kestrel")["comms"]["boxes"] - 2)
    state, events = run_events(state, move(state, "comms"))
    assert len(stations(state, "kestrel")["comms"]["hand"]) == 2
    assert of_type(events, "HandReduced")


def test_m_seats_1_a_taken_station_is_taken_when_its_occupant_leaves() -> None:
    state = started(bridge())
    state = run(state, move(state, "pilot"))  # Pilot is manned: the move waits
    assert (
        crew_at(state, "pilot") == "kestrel-pilot"
        and crew_at(state, "weapons") == "kestrel-weapons"
    )
    state = run(state, move(state, "comms", who="pilot"))  # the Pilot walks off to Comms
    assert crew_at(state, "pilot") == "kestrel-weapons"
    assert crew_at(state, "comms") == "kestrel-pilot"
    assert crew_at(state, "weapons") is None


def test_m_seats_1_a_queued_move_can_be_taken_back_and_waits_for_the_gm_unseating_too() -> None:
    state = run(bridge(), move(bridge(), "pilot"))
    state = run(state, move(state, "weapons"))  # asking for one's own station cancels
    state = run(state, c.UnseatCrew(ship="kestrel", station="pilot"))
    assert crew_at(state, "pilot") is None
    state = run(state, c.SeatCrew(ship="kestrel", station="pilot", seat="kestrel-pilot", name="P"))
    state = run(state, move(state, "pilot"))
    state = run(state, c.UnseatCrew(ship="kestrel", station="pilot"))
    assert crew_at(state, "pilot") == "kestrel-weapons"


def test_m_seats_1_not_during_resolution_not_off_the_ship_and_only_with_the_module() -> None:
    refused(bridge(modules=()), move(bridge(modules=()), "comms"), "MODULE_OFF")
    state = bridge()
    refused(
        state,
        c.ChangePosition(ship="rustjaw", station="pilot", actor=seat("kestrel", "weapons")),
        "OTHER_SHIP",
    )
    refused(state, move(state, "weapons"), "SAME_STATION")
    refused(
        state,
        c.ChangePosition(ship="kestrel", station="pilot", actor=c.Actor.for_seat("nobody")),
        "NOT_SEATED",
    )
    state = started(state)
    state["phase"] = "allocation"  # Engineering's prompt is part of the resolution
    refused(state, move(state, "comms"), "WRONG_PHASE")


def overriding(
    by: str, station: str, action: str, cards: list[str] | tuple[str, ...], **fields: Any
) -> c.SubmitOrder:
    """`by`'s player gives `station`'s order instead of its own (M-SEATS-2)."""
    return c.SubmitOrder(
        ship="kestrel",
        station=by,
        action=action,
        cards=tuple(cards),
        override=station,
        actor=seat("kestrel", by),
        now=NOW,
        **fields,
    )


def any_skill_card(state: State) -> str:
    return wild_cards(state)[0]


def wild_cards(state: State) -> list[str]:
    """Weapons' wild cards: Amara Lind's Skill cards and the Weapons deck's, worth 1, 1 and 2."""
    weapons = stations(state, "kestrel")["weapons"]
    own = weapons["draw"] + weapons["discard"] + weapons["hand"]
    pool = sorted(skill_cards(state, "amara-lind")) + sorted(own)
    return [card for card in pool if state["cards"][card]["kind"] == "any"]


def test_m_seats_2_override_an_unmanned_station_at_minus_2_giving_up_one_s_own_order() -> None:
    state = started(bridge(free=("pilot",)))
    cards = wild_cards(state)
    state = set_hand(state, "kestrel", "weapons", cards)
    value = sum(state["cards"][card]["value"] for card in cards)
    assert value > 2
    state = run(state, overriding("weapons", "pilot", "evasive", cards))
    assert state["orders"]["kestrel/weapons"]["overriding"] == "pilot"
    assert state["orders"]["kestrel/pilot"]["from"] == "weapons"
    assert station_view(state, "kestrel-weapons")["me"]["order"]["overriding"] == "pilot"
    state, events = close(state)
    assert one(events, "EvasiveManoeuvre")["value"] == value - 2
    assert stations(state, "kestrel")["weapons"]["hand"] == []  # played from Weapons' hand
    assert not of_type(events, "AttackResolved")  # Weapons gave up its own order


def test_m_seats_2_a_down_station_can_be_overridden_a_manned_working_one_cannot() -> None:
    state = bridge(free=())
    state = started(damage(state, "kestrel", "pilot", stations(state, "kestrel")["pilot"]["boxes"]))
    card = any_skill_card(state)
    state = set_hand(state, "kestrel", "weapons", [card])

    refused(
        state,
        overriding("weapons", "engineering", "repair", [card], target_station="pilot"),
        "STATION_MANNED",
    )
    state = run(state, overriding("weapons", "pilot", "evasive", [card]))
    assert state["orders"]["kestrel/pilot"]["from"] == "weapons"


def test_m_seats_2_each_station_s_action_is_taken_at_most_once_a_turn() -> None:
    state = started(bridge(free=("pilot",)))
    comms_card = give(state, "kestrel", "comms", 2)[0]
    card = any_skill_card(state)
    state = set_hand(state, "kestrel", "weapons", [card])
    state = run(state, overriding("weapons", "pilot", "evasive", [card]))
    second = overriding("comms", "pilot", "evasive", [comms_card])
    refused(state, second, "ALREADY_OVERRIDDEN")
    # Weapons gives its own order again: the override is gone and Comms may take Pilot's.
    state = run(
        state,
        c.PassOrder(ship="kestrel", station="weapons", actor=seat("kestrel", "weapons"), now=NOW),
    )
    assert "kestrel/pilot" not in state["orders"]
    refused(state, second, "CARD_WRONG_KIND")  # a comms card cannot steer, but it may try


def test_m_seats_2_the_captain_s_command_cannot_be_overridden() -> None:
    state = game("convoy", modules=("seats",))
    state = started(run(state, c.UnseatCrew(ship="resolute", station="captain")))
    refused(
        state,
        c.SubmitOrder(
            ship="resolute",
            station="weapons",
            action="command",
            target_station="pilot",
            override="captain",
            actor=seat("resolute", "weapons"),
            value=None,
            now=NOW,
        ),
        "OVERRIDE_COMMAND",
    )


def test_m_seats_3_a_fallen_character_s_station_is_unmanned_says_why_and_can_be_taken() -> None:
    state = started(bridge(free=()))
    for field in ("endurance", "strength"):
        state = run(state, c.SetCharacteristic(character="ilse-marrow", field=field, value=0))
    assert "kestrel/pilot" not in state["orders"]
    me = station_view(state, "kestrel-pilot")["me"]
    down = said({"words": me["down"]})
    assert down.startswith("Your character is unconscious: the station is unmanned")
    assert "Another crew member may take it." in down
    state, events = run_events(state, move(state, "pilot"))  # free at once
    assert crew_at(state, "pilot") == "kestrel-weapons"
    assert one(events, "CrewCarriedOff")["seat"] == "kestrel-pilot"
    assert not any(
        state["cards"][card]["owner"] == "ilse-marrow"
        for card in stations(state, "kestrel")["pilot"]["hand"]
    )


# rule: M-SEATS-1 (players sit only on players' ships that can still fight)
def test_nobody_is_seated_on_an_npc_ship_whoever_asks() -> None:
    state = started(bridge())
    for actor in (c.Actor.gm(), c.Actor.system()):
        for station in ("pilot", "weapons"):
            seating = c.SeatCrew(
                ship="rustjaw", station=station, seat="mole", name="M", actor=actor
            )
            error = refused(state, seating, "NOT_A_PLAYERS_SHIP")
            assert "Rustjaw" in said(error)


# rule: M-SEATS-1
def test_nobody_is_seated_on_a_ship_out_of_the_fight() -> None:
    state = started(bridge())
    joining = c.SeatCrew(ship="kestrel", station="comms", seat="late", name="L")
    fled = run(state, c.SetShipOut(ship="kestrel", out="fled"))
    refused(fled, joining, "SHIP_OUT")
    refused(run(state, c.SetShipOut(ship="kestrel", out="surrendered")), joining, "SHIP_OUT")
    refused(run(state, c.DestroyShip(ship="kestrel")), joining, "SHIP_DESTROYED")
    refused(fled, move(fled, "comms"), "SHIP_OUT")  # nor moves about a ship that fled
    assert crew_at(run(state, joining), "comms") == "late"  # the same seat while it fights


# rule: M-SEATS-2 (an NPC ship's empty station is its crew's, not free)
def test_an_empty_npc_station_cannot_be_overridden() -> None:
    state = started(bridge())
    # A game stored before seating was refused there may still hold a player aboard an NPC ship.
    state["ships"]["rustjaw"]["stations"]["weapons"]["crew"] = {
        "seat": "mole",
        "name": "M",
        "character": None,
    }
    give(state, "rustjaw", "weapons", 3)
    override = c.SubmitOrder(
        ship="rustjaw",
        station="weapons",
        action="shields_down",
        override="engineering",
        actor=c.Actor.for_seat("mole"),
        now=NOW,
    )
    refused(state, override, "STATION_MANNED")


# rule: M-SEATS-1
def test_m_seats_1_a_queued_move_happens_when_the_occupant_falls() -> None:
    """However the station frees: here its character falls unconscious (M-SEATS-3)."""
    state = started(bridge(free=()))
    state = run(state, move(state, "pilot"))  # Ilse Marrow is at the Pilot's station: it waits
    assert crew_at(state, "pilot") == "kestrel-pilot"
    for field in ("endurance", "strength"):
        state = run(state, c.SetCharacteristic(character="ilse-marrow", field=field, value=0))
    assert crew_at(state, "pilot") == "kestrel-weapons" and crew_at(state, "weapons") is None
    assert state["seat_moves"] == {}


# rule: M-SEATS-1
def test_m_seats_1_a_queued_move_waits_out_engineerings_prompt_then_happens() -> None:
    state = started(bridge(free=()))
    state = run(state, move(state, "pilot"))
    state["phase"] = "allocation"  # the resolution is still open
    state = run(state, c.SetCharacteristic(character="ilse-marrow", field="endurance", value=0))
    state = run(state, c.SetCharacteristic(character="ilse-marrow", field="strength", value=0))
    assert crew_at(state, "pilot") == "kestrel-pilot"
    state["phase"] = "turn_end"
    state = run(state, c.SendMessage(to="all", text="Hold on"))
    assert crew_at(state, "pilot") == "kestrel-weapons"


def test_an_undo_keeps_the_crew_as_it_is_now() -> None:
    """A player freed after the resolution came back as a ghost, and the newcomer at
    that station was refused NOT_YOUR_STATION."""
    state = started(bridge(free=()))
    state, _ = close(state)
    state = run(state, c.UnseatCrew(ship="kestrel", station="comms"))
    state = run(state, c.SeatCrew(ship="kestrel", station="comms", seat="newcomer", name="Noor"))
    state = run(state, c.UndoResolution())
    assert state["phase"] == "orders"
    assert crew_at(state, "comms") == "newcomer"
    comms = stations(state, "kestrel")["comms"]
    assert len(comms["hand"]) == comms["boxes"]  # drawn up, as at any sit-down in Orders
    newcomer = c.Actor.for_seat("newcomer")
    state = run(state, c.PassOrder(ship="kestrel", station="comms", actor=newcomer, now=NOW))
    assert state["orders"]["kestrel/comms"]["action"] == "pass"
    assert station_view(state, "kestrel-comms")["me"] is None  # the freed player is gone


def test_an_undo_keeps_a_move_made_since_and_the_characters_skill_cards_with_them() -> None:
    state = started(bridge())
    state, _ = close(state)
    state = run(state, move(state, "comms"))  # Amara Lind moves from Weapons to Comms
    state = run(state, c.UndoResolution())
    assert crew_at(state, "comms") == "kestrel-weapons" and crew_at(state, "weapons") is None
    weapons_hand = stations(state, "kestrel")["weapons"]["hand"]
    assert not any(state["cards"][card]["owner"] == "amara-lind" for card in weapons_hand)
