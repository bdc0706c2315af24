"""Dead hands: a player may discard in Orders (G-CARD-5), and Engineering at zero may
repair itself with any card (G-DMG-8)."""

from __future__ import annotations

from app.rules import Actor
from app.rules import commands as c

from .builders import (
    GM,
    NOW,
    State,
    close,
    damage,
    game,
    give,
    one,
    order,
    refused,
    run,
    run_events,
    seat,
    set_hand,
    skill_cards,
    started,
    stations,
)


def discard(*cards: str, actor: Actor | None = None, **where: str) -> c.DiscardCards:
    return c.DiscardCards(
        cards=tuple(cards), actor=actor or seat("kestrel", "pilot"), now=NOW, **where
    )


# rule: G-CARD-5
def test_g_card_5_a_player_discards_cards_of_their_choice_in_orders() -> None:
    state = started(game())
    pilot = stations(state, "kestrel")["pilot"]
    dropped = pilot["hand"][:2]
    state, events = run_events(state, discard(*dropped))
    pilot = stations(state, "kestrel")["pilot"]
    assert not set(dropped) & set(pilot["hand"])
    assert set(dropped) <= set(pilot["discard"])
    event = one(events, "CardsDiscarded")
    assert event["count"] == 2 and event["secret"] == {"cards": dropped}
    assert event["secret_seats"] == ["kestrel-pilot"]  # which cards stays private


# rule: G-CARD-5
def test_g_card_5_discarded_cards_are_replaced_at_the_next_draw() -> None:
    state = started(game())
    held = len(stations(state, "kestrel")["pilot"]["hand"])
    state = run(state, discard(*stations(state, "kestrel")["pilot"]["hand"]))
    assert stations(state, "kestrel")["pilot"]["hand"] == []
    state, _ = close(state)
    state = run(state, c.StartTurn(seconds=0, now=NOW))
    assert len(stations(state, "kestrel")["pilot"]["hand"]) == held


# rule: G-CARD-5
def test_g_card_5_a_skill_card_goes_back_to_its_character() -> None:
    state = started(game(characters={"kestrel/pilot": "amara-lind"}))
    skill = next(
        card
        for card in stations(state, "kestrel")["pilot"]["hand"]
        if state["cards"][card]["owner"] == "amara-lind"
    )
    state = run(state, discard(skill))
    assert skill in state["characters"]["amara-lind"]["discard"]
    assert skill in skill_cards(state, "amara-lind")


# rule: G-CARD-5
def test_g_card_5_discarding_is_refused_with_a_clear_reason() -> None:
    state = started(game())
    hand = stations(state, "kestrel")["pilot"]["hand"]
    other = stations(state, "kestrel")["weapons"]["hand"][0]
    refused(state, discard(), "NO_CARDS")
    refused(state, discard(hand[0], hand[0]), "DUPLICATE_CARD")
    refused(state, discard(other), "CARD_NOT_IN_HAND")
    refused(state, discard(other, ship="kestrel", station="weapons"), "NOT_YOUR_STATION")
    refused(state, discard(hand[0], actor=Actor.for_seat("nobody")), "NOT_SEATED")
    refused(state, discard(hand[0], actor=GM), "BAD_COMMAND")
    cards = give(state, "kestrel", "pilot", 2, 1)
    state = run(state, order("kestrel", "pilot", "evasive", [cards[0]]))
    refused(state, discard(cards[0]), "CARD_IN_ORDER")
    state, _ = close(state)
    refused(state, discard(cards[1]), "WRONG_PHASE")  # only in Orders


# rule: G-CARD-5
def test_g_card_5_the_gm_discards_for_a_named_station_and_engineering_at_zero_may_discard() -> None:
    state = damage(started(game()), "kestrel", "engineering", 6)  # at zero: a hand of 1
    held = stations(state, "kestrel")["engineering"]["hand"]
    assert len(held) == 1
    state = run(state, discard(held[0], actor=seat("kestrel", "engineering")))
    assert stations(state, "kestrel")["engineering"]["hand"] == []
    weapons = stations(state, "kestrel")["weapons"]["hand"]
    state = run(state, discard(weapons[0], actor=GM, ship="kestrel", station="weapons"))
    assert stations(state, "kestrel")["weapons"]["hand"] == weapons[1:]


def engineering_holds_an_attack_card(state: State, value: int) -> list[str]:
    """Move a Weapons card of this value into Engineering's hand: a card of the wrong kind."""
    card = give(state, "kestrel", "weapons", value)
    set_hand(state, "kestrel", "weapons", [])
    set_hand(state, "kestrel", "engineering", card)
    return card


# rule: G-DMG-8
def test_g_dmg_8_engineering_at_zero_repairs_itself_with_any_card() -> None:
    state = started(game())
    state = damage(state, "kestrel", "engineering", 6)
    attack_card = engineering_holds_an_attack_card(state, 5)
    state = run(
        state, order("kestrel", "engineering", "repair", attack_card, target_station="engineering")
    )
    state, events = close(state)
    assert one(events, "RepairResolved")["value"] == 5
    # Still only repairing itself: the same card is refused for another station.
    state = damage(run(state, c.StartTurn(seconds=0, now=NOW)), "kestrel", "engineering", 6)
    state = damage(state, "kestrel", "pilot", 1)
    card = engineering_holds_an_attack_card(state, 4)
    refused(
        state,
        order("kestrel", "engineering", "repair", card, target_station="pilot"),
        "ENGINEERING_REPAIR_ONLY",
    )


# rule: G-DMG-8
def test_g_dmg_8_a_working_engineering_still_needs_repair_cards() -> None:
    state = damage(started(game()), "kestrel", "engineering", 1)
    card = engineering_holds_an_attack_card(state, 4)
    refused(
        state,
        order("kestrel", "engineering", "repair", card, target_station="engineering"),
        "CARD_WRONG_KIND",
    )
