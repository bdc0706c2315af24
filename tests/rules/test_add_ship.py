"""G-SHIP-1, the GM's second wave: a ship of any class on the game's sheets, added mid-game whole
(full Hull, shields as its sheet has them, full decks) in one command."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from app.rules import apply, display_view, gm_view, station_view
from app.rules import commands as c

from .builders import CAT, GM, NOW, close, game, one, refused, run, run_events, said, started


def _wave(**fields: Any) -> c.AddShip:
    values: dict[str, Any] = {
        "ship_class": "cruiser",
        "name": "Iron Maw",
        "side": "raiders",
        "x": 12,
        "y": 2,
    }
    values.update(fields)
    return c.AddShip(**values, now=NOW)


def test_g_ship_1_a_ship_added_mid_combat_starts_whole() -> None:
    state = started(game())
    state, events = run_events(state, _wave())
    added = one(events, "ShipAdded")
    ship = state["ships"][added["ship"]]
    sheet = CAT.ships["cruiser"]
    assert (ship["name"], ship["class"], ship["side"], ship["crew"]) == (
        "Iron Maw",
        "cruiser",
        "raiders",
        "npc",
    )
    assert (ship["x"], ship["y"]) == (12, 2)
    assert ship["hull"]["damage"] == 0 and ship["hull"]["boxes"] == sheet.hull.boxes
    assert ship["shields"]["damage"] == 0 and ship["shields"]["boxes"] == sheet.shields.boxes
    assert ship["shields"]["active"] is (sheet.shields.boxes > 0)
    assert ship["defence"] == sheet.defence and not ship["destroyed"]
    for spec in sheet.stations:
        station = ship["stations"][spec.id]
        assert station["damage"] == 0 and station["boxes"] == spec.track.boxes
        assert station["crew"] is None and station["hand"] == []
        assert len(station["draw"]) == len(CAT.decks[spec.deck].cards)
    # Everyone sees it: the GM with its tracks, the projector too.
    for view in (gm_view(state), display_view(state)):
        shown = next(s for s in view["ships"] if s["id"] == ship["id"])
        assert shown["hull"]["health"] == sheet.hull.boxes
    assert "joined the raiders" in said(state["log"][-1])


def test_g_ship_1_every_class_on_the_sheets_can_be_added() -> None:
    state = game()
    offered = {k["id"] for k in gm_view(state)["ship_classes"]}
    assert offered == set(CAT.ships)
    for n, ship_class in enumerate(sorted(CAT.ships)):
        state = run(state, _wave(ship_class=ship_class, name=f"Wave {n}", x=n))
    assert {s["class"] for s in state["ships"].values()} >= set(CAT.ships)


def test_g_ship_1_a_players_ship_added_later_deals_its_own_cards() -> None:
    """A players' ship brought in mid-combat: whoever sits down draws its deck cards, reads them
    on the phone, and plays them; the card catalogue written when the game was made is not
    rewritten."""
    state = started(game())
    catalogue = state["cards"]
    state, events = run_events(state, _wave(name="Second Wind", side="players", crew="players"))
    ship_id = one(events, "ShipAdded")["ship"]
    state = run(
        state, c.SeatCrew(ship=ship_id, station="weapons", seat="late-gunner", name="Late Gunner")
    )
    assert state["cards"] is catalogue
    hand = station_view(state, "late-gunner")["me"]["hand"]
    assert hand and all(card["id"].startswith(f"{ship_id}.weapons.") for card in hand)
    assert all(card["name"] and card["value"] >= 0 for card in hand)
    attack = [card for card in hand if card["kind"] in ("attack", "any")][:1]
    assert attack
    state = run(
        state,
        c.SubmitOrder(
            ship=ship_id,
            station="weapons",
            action="attack",
            cards=(attack[0]["id"],),
            target="rustjaw",
            actor=c.Actor.for_seat("late-gunner"),
            now=NOW,
        ),
    )
    state, events = close(state)
    revealed = state["revealed"]["orders"][f"{ship_id}/weapons"]
    assert [card["id"] for card in revealed["played"]] == [attack[0]["id"]]
    assert revealed["played"][0]["value"] == attack[0]["value"]


def test_g_ship_1_adding_a_ship_replays_the_same() -> None:
    """The decks are shuffled by the game's own generator: the same commands, the same game."""
    first = run(started(game()), _wave(), _wave(name="Iron Maw II", x=13))
    second = run(started(game()), _wave(), _wave(name="Iron Maw II", x=13))
    assert first == second
    draws = [s["draw"] for s in first["ships"]["iron-maw"]["stations"].values()]
    unshuffled = [
        [f"iron-maw.{spec.id}.{card.id}" for card in CAT.decks[spec.deck].cards]
        for spec in CAT.ships["cruiser"].stations
    ]
    assert draws != unshuffled


def test_g_ship_1_ship_ids_are_unique_and_name_their_cards() -> None:
    state = run(game(), _wave(name="Kestrel.2"), _wave(name="kestrel 2!"))
    refused(state, _wave(name="KESTREL.2"), "NAME_TAKEN")
    added = [s for s in state["ships"].values() if s["name"] in ("Kestrel.2", "kestrel 2!")]
    assert sorted(s["id"] for s in added) == ["kestrel-2", "kestrel-2-2"]


def test_g_ship_1_what_cannot_be_added_is_refused_clearly() -> None:
    state = started(game())
    refused(state, _wave(ship_class="dreadnought"), "NO_SUCH_CLASS")
    refused(state, _wave(name="  "), "BAD_NAME")
    refused(state, _wave(name="Rustjaw"), "NAME_TAKEN")
    refused(state, _wave(side="Space Pirates"), "BAD_SIDE")
    refused(state, _wave(crew="robots"), "BAD_CREW")
    refused(state, _wave(x=16), "OFF_MAP")
    refused(state, _wave(y=-1), "OFF_MAP")
    older = {k: v for k, v in state.items() if k != "sheets"}
    refused(older, _wave(), "NO_SHIP_SHEETS")
    assert gm_view(older)["ship_classes"] == []


def test_g_ship_1_only_the_gm_adds_ships() -> None:
    state = game()
    refused(state, replace(_wave(), actor=c.Actor.for_seat("kestrel-pilot")), "GM_ONLY")
    assert apply(state, replace(_wave(), actor=GM))[0]["ships"]["iron-maw"]


# rule: G-CARD-5 (an added ship's cards are read through the catalogue it uses)
def test_g_card_5_discarding_a_card_in_the_order_aboard_an_added_ship_is_refused_with_a_code() -> (
    None
):
    state, events = run_events(started(game()), _wave(crew="players"))
    added = one(events, "ShipAdded")["ship"]
    seat = c.Actor.for_seat("wave-pilot")
    state = run(state, c.SeatCrew(ship=added, station="pilot", seat="wave-pilot", name="W"))
    hand = state["ships"][added]["stations"]["pilot"]["hand"]
    assert hand and all(card not in state["cards"] for card in hand)  # copies named in piles only
    state = run(
        state,
        c.SubmitOrder(
            ship=added, station="pilot", action="evasive", cards=(hand[0],), actor=seat, now=NOW
        ),
    )
    error = refused(state, c.DiscardCards(cards=(hand[0],), actor=seat, now=NOW), "CARD_IN_ORDER")
    assert "part of your order" in said(error)


# rule: G-SHIP-1 (a game holds at most eight ships, as many as the projector shows)
def test_g_ship_1_a_ninth_ship_is_refused_with_a_code() -> None:
    state = started(game())  # Kestrel and Rustjaw
    for n in range(6):
        state = run(state, _wave(name=f"Wave {n}", x=n))
    assert len(state["ships"]) == 8
    state = run(state, c.DestroyShip(ship="wave-0"))  # a wreck still takes its place
    error = refused(state, _wave(name="Wave 9"), "TOO_MANY_SHIPS")
    assert "at most 8 ships" in said(error)
