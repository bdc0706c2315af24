"""Decisions recorded in docs/rules.md where GAME-DESIGN.md is silent."""

from __future__ import annotations

from app.rules import commands as c

from .builders import (
    GM,
    NOW,
    damage,
    game,
    give,
    one,
    place,
    refused,
    run_events,
    seat,
    set_rolls,
    shields,
    started,
)
from .test_damage import kestrel_fires


# rule: G-DMG-3
def test_g_dmg_3_station_share_beyond_its_health_stays_on_the_hull() -> None:
    state = place(started(game()), "rustjaw", 8, 5)  # Medium: laser 2 + torpedo 3 = 5 damage
    state = damage(state, "rustjaw", "pilot", 4)  # Rustjaw's pilot has 1 box left of 5
    state, _ = kestrel_fires(state, "pulse-laser", "torpedo", target_station="pilot")
    rustjaw = state["ships"]["rustjaw"]
    assert rustjaw["stations"]["pilot"]["damage"] == 5  # took the 1 it had
    assert rustjaw["hull"]["damage"] == 4  # 2 of the 3 meant for the station went to the hull


# rule: G-DMG-7
def test_g_dmg_7_an_order_from_a_station_taken_down_before_the_reveal_is_void() -> None:
    state = place(started(game()), "rustjaw", 8, 5)
    cards = give(state, "kestrel", "weapons", 5)
    state, _ = run_events(
        state,
        c.SubmitOrder(
            ship="kestrel",
            station="weapons",
            action="attack",
            cards=tuple(cards),
            target="rustjaw",
            actor=seat("kestrel", "weapons"),
            now=NOW,
        ),
    )
    state, _ = run_events(
        state, c.SetTrack(ship="kestrel", track="weapons", damage=5, actor=GM, now=NOW)
    )
    state, events = run_events(state, c.CloseOrders(actor=GM, now=NOW))
    assert one(events, "OrderVoided")["station"] == "weapons"
    assert not [e for e in events if e["type"] == "AttackResolved"]
    assert state["ships"]["rustjaw"]["hull"]["damage"] == 0


def test_jam_must_target_an_enemy_ship() -> None:
    from app.content import load_catalogue
    from app.rules import Actor, apply, new_game

    catalogue = load_catalogue()
    state = new_game(catalogue.scenarios["convoy"], catalogue, seed=3)
    state, _ = apply(state, c.SeatCrew(ship="kestrel", station="comms", seat="s1", name="Jo"))
    state, _ = apply(state, c.StartTurn(seconds=0))
    ewar = [
        cid
        for cid in state["ships"]["kestrel"]["stations"]["comms"]["hand"]
        if state["cards"][cid]["kind"] in ("ewar", "any")
    ]
    refused(
        state,
        c.SubmitOrder(
            ship="kestrel",
            station="comms",
            action="jam",
            cards=(ewar[0],),
            target="resolute",
            actor=Actor.for_seat("s1"),
        ),
        "NOT_AN_ENEMY",
    )


def test_card_ids_name_one_card_even_when_two_ships_share_a_deck() -> None:
    from app.content import load_catalogue
    from app.rules import new_game

    catalogue = load_catalogue()
    state = new_game(catalogue.scenarios["convoy"], catalogue, seed=3)
    piles = [
        card
        for ship in state["ships"].values()
        for st in ship["stations"].values()
        for card in st["draw"]
    ]
    assert len(piles) == len(set(piles))
    raiders = [s for s in state["ships"].values() if s["class"] == "raider"]
    assert len(raiders) == 3 and set(raiders[0]["stations"]["weapons"]["draw"]).isdisjoint(
        raiders[1]["stations"]["weapons"]["draw"]
    )


def test_a_penalty_cannot_turn_evasive_into_a_defence_penalty() -> None:
    state = shields(started(game()), "kestrel", False)
    state, _ = run_events(
        state,
        c.ImposeModifier(
            ship="kestrel",
            applies="station",
            station="pilot",
            value=-5,
            reason="engine fire",
            actor=GM,
            now=NOW,
        ),
    )
    cards = give(state, "kestrel", "pilot", 2)
    state, _ = run_events(
        state,
        c.SubmitOrder(
            ship="kestrel",
            station="pilot",
            action="evasive",
            cards=tuple(cards),
            actor=seat("kestrel", "pilot"),
            now=NOW,
        ),
    )
    state = set_rolls(state)
    state, events = run_events(state, c.CloseOrders(actor=GM, now=NOW))
    assert one(events, "EvasiveManoeuvre")["value"] == 0
