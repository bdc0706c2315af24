"""Pieces (section 1): ship sheets as data (G-SHIP-1), decks and hands (G-CARD-*)."""

from __future__ import annotations

from app.rules import commands as c
from app.rules.core.state import hand_limit

from .builders import (
    CAT,
    GM,
    cards_worth,
    close,
    damage,
    game,
    give,
    one,
    order,
    run,
    set_hand,
    skill_cards,
    started,
    stations,
)


# rule: G-SHIP-1
def test_g_ship_1_a_ship_in_play_carries_everything_of_its_sheet() -> None:
    state = game()
    kestrel = state["ships"]["kestrel"]
    assert (kestrel["name"], kestrel["class"], kestrel["hull_size"], kestrel["defence"]) == (
        "Kestrel",
        "frigate",
        12,
        4,
    )
    assert (kestrel["hull"]["boxes"], kestrel["hull"]["red"]) == (12, [4, 8, 11])
    assert (kestrel["shields"]["boxes"], kestrel["shields"]["active"]) == (4, True)
    assert {k: (s["role"], s["boxes"], s["red"]) for k, s in kestrel["stations"].items()} == {
        "weapons": ("weapons", 5, [3, 5]),
        "engineering": ("engineering", 6, [3, 5]),
        "pilot": ("pilot", 5, [3]),
        "comms": ("comms", 4, [2, 4]),
    }
    assert kestrel["weapons"][2] == {
        "id": "torpedo",
        "name": "Forward Torpedo Tube",
        "damage": 3,
        "max_range": "long",
        "kind": "torpedo",
        "magazine": 4,  # M-WEAPONS-6: a launcher's default
        "loaded": 4,
    }
    assert (kestrel["x"], kestrel["y"]) == (3, 5)


# rule: G-SHIP-1
def test_g_ship_1_sheets_differ_only_by_data() -> None:
    state = game("convoy")
    resolute, jackal = state["ships"]["resolute"], state["ships"]["jackal-1"]
    assert "captain" in resolute["stations"]  # a sheet may add stations
    assert (jackal["shields"]["boxes"], jackal["shields"]["active"]) == (0, False)  # no shields
    for ship in state["ships"].values():
        sheet = CAT.ships[ship["class"]]
        assert ship["hull"]["boxes"] == sheet.hull.boxes
        assert ship["shields"]["boxes"] == sheet.shields.boxes
        assert [w["id"] for w in ship["weapons"]] == [w.id for w in sheet.weapons]


# rule: G-CARD-1
def test_g_card_1_station_and_skill_decks_hold_cards_with_name_value_kind_and_effect() -> None:
    for deck in CAT.decks.values():
        assert deck.cards
        for card in deck.cards:
            assert card.name and card.effect and card.kind and card.value >= 0
    for character in CAT.characters.values():
        assert character.skill_cards
    state = game()
    assert all(set(card) >= {"name", "value", "kind", "effect"} for card in state["cards"].values())


# rule: G-CARD-1
def test_g_card_1_hand_holds_at_most_three_skill_cards() -> None:
    state = started(game(characters={"kestrel/engineering": "tomas-reyes"}))  # limit 6, 7 skills
    hand = stations(state, "kestrel")["engineering"]["hand"]
    tomas = set(skill_cards(state, "tomas-reyes"))
    assert len(hand) == 6
    assert len([c for c in hand if c in tomas]) == 3
    assert all(state["cards"][c]["source"] == "station" for c in hand if c not in tomas)


# rule: G-CARD-2
def test_g_card_2_hand_limit_is_the_stations_health() -> None:
    state = game()
    for points in range(6):
        weapons = stations(damage(state, "kestrel", "weapons", min(points, 5)), "kestrel")[
            "weapons"
        ]
        assert hand_limit(weapons) == 5 - min(points, 5)


# rule: G-CARD-2
def test_g_card_2_the_limit_belongs_to_the_station_not_the_player() -> None:
    state = damage(started(game()), "kestrel", "weapons", 2)
    state = run(
        state,
        c.UnseatCrew(ship="kestrel", station="weapons"),
        c.SeatCrew(
            ship="kestrel", station="weapons", seat="newcomer", name="New", character="vesna-kaur"
        ),
    )
    weapons = stations(state, "kestrel")["weapons"]
    assert hand_limit(weapons) == 3 and len(weapons["hand"]) == 3


# rule: G-CARD-3
def test_g_card_3_turn_start_draws_skill_cards_to_three_then_station_cards_to_the_limit() -> None:
    state = started(game(characters={"kestrel/weapons": "vesna-kaur"}))
    hand = stations(state, "kestrel")["weapons"]["hand"]
    vesna = set(skill_cards(state, "vesna-kaur"))
    assert len(hand) == 5
    assert [c in vesna for c in hand] == [True, True, True, False, False]


# rule: G-CARD-3
def test_g_card_3_skill_cards_never_above_the_limit() -> None:
    state = damage(game(characters={"kestrel/comms": "kofi-adeyemi"}), "kestrel", "comms", 2)
    state = started(state)
    hand = stations(state, "kestrel")["comms"]["hand"]
    assert len(hand) == 2 and all(c in skill_cards(state, "kofi-adeyemi") for c in hand)


# rule: G-CARD-3
def test_g_card_3_only_manned_operational_stations_draw() -> None:
    state = run(game(), c.UnseatCrew(ship="kestrel", station="comms"))
    state = started(damage(state, "kestrel", "pilot", 5))
    ours = stations(state, "kestrel")
    assert (len(ours["weapons"]["hand"]), ours["comms"]["hand"], ours["pilot"]["hand"]) == (
        5,
        [],
        [],
    )
    assert all(st["hand"] == [] for st in stations(state, "rustjaw").values())  # NPC crew


# rule: G-CARD-3
def test_g_card_3_a_hand_is_topped_up_not_replaced() -> None:
    state = started(game())
    kept = give(state, "kestrel", "weapons", 5, 4)
    state = run(state, c.PassOrder(ship="kestrel", station="weapons", actor=GM))
    state, _ = close(state)
    state = started(state)
    hand = stations(state, "kestrel")["weapons"]["hand"]
    assert hand[:2] == kept and len(hand) == 5


# rule: G-CARD-3
def test_g_card_3_empty_draw_pile_reshuffles_its_discards() -> None:
    state = game()
    weapons = stations(state, "kestrel")["weapons"]
    everything = weapons["draw"]
    weapons["draw"], weapons["discard"] = [], list(everything)
    state = started(state)
    weapons = stations(state, "kestrel")["weapons"]
    assert len(weapons["hand"]) == 5 and weapons["discard"] == []
    assert sorted(weapons["hand"] + weapons["draw"]) == sorted(everything)


# rule: G-CARD-3
def test_g_card_3_played_cards_go_to_their_discard_piles() -> None:
    state = started(game(characters={"kestrel/weapons": "vesna-kaur"}))
    hand = stations(state, "kestrel")["weapons"]["hand"]
    skill, station_card = hand[0], hand[-1]
    state = run(
        state,
        order(
            "kestrel",
            "weapons",
            "attack",
            [skill, station_card],
            target="rustjaw",
            weapons=("torpedo",),
        ),
    )
    state, events = close(state)
    assert skill in state["characters"]["vesna-kaur"]["discard"]
    assert station_card in stations(state, "kestrel")["weapons"]["discard"]
    assert skill not in stations(state, "kestrel")["weapons"]["hand"]
    assert one(events, "OrdersRevealed")


# rule: G-CARD-4
def test_g_card_4_station_cards_go_first_then_skill_cards_lowest_first() -> None:
    state = started(game(characters={"kestrel/weapons": "vesna-kaur"}))
    vesna = skill_cards(state, "vesna-kaur")  # values 1, 1, 2, 2, 3, wild 1
    skills = [vesna[4], vesna[0], vesna[2]]  # 3, 1, 2
    set_hand(state, "kestrel", "weapons", skills + cards_worth(state, "kestrel", "weapons", 5, 4))
    assert [state["cards"][c]["value"] for c in skills] == [3, 1, 2]
    state = damage(state, "kestrel", "weapons", 3)  # limit 2: three cards must go
    hand = stations(state, "kestrel")["weapons"]["hand"]
    assert sorted(hand) == sorted([vesna[4], vesna[2]])  # the 5 and 4 went, then the 1 Skill


# rule: G-CARD-4
def test_g_card_4_discard_happens_at_once_when_the_limit_drops() -> None:
    state = started(game())
    give(state, "kestrel", "pilot", 1, 5, 2, 4, 3)
    state = damage(state, "kestrel", "pilot", 2)
    pilot = stations(state, "kestrel")["pilot"]
    assert sorted(state["cards"][c]["value"] for c in pilot["hand"]) == [3, 4, 5]
    assert sorted(state["cards"][c]["value"] for c in pilot["discard"]) == [1, 2]
