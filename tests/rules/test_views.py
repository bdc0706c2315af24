"""Views (section 11, STYLE 6): a station sees its own hand and order and nobody else's, the
display sees nothing hidden, the GM sees everything; events are stripped the same way."""

from __future__ import annotations

import json
from typing import Any

from app.rules import commands as c
from app.rules import display_view, event_view, gm_view, station_view

from .builders import (
    Events,
    State,
    close,
    damage,
    dicts_in,
    game,
    hands,
    leaks,
    npc,
    of_type,
    order,
    place,
    run,
    run_events,
    said,
    seat_of,
    set_rolls,
    shields,
    skill_cards,
    started,
    stations,
    strings_in,
)

A = ("kestrel", "weapons")
B = ("kestrel", "pilot")


def orders_open() -> tuple[State, Events]:
    """Turn 1 with characters at A and B; B has ordered (a secret), A has ordered too."""
    state = started(
        game(characters={"kestrel/weapons": "vesna-kaur", "kestrel/pilot": "ilse-marrow"})
    )
    a_cards = stations(state, "kestrel")["weapons"]["hand"][:2]
    b_cards = stations(state, "kestrel")["pilot"]["hand"][-2:]
    return run_events(
        state,
        order(*A, "attack", a_cards, target="rustjaw", weapons=("torpedo",)),
        order(*B, "manoeuvre", b_cards, x=4, y=6),
    )


def test_station_view_shows_its_own_hand_and_order_only() -> None:
    state, _ = orders_open()
    view = station_view(state, seat_of(*A))
    me = view["me"]
    assert [card["id"] for card in me["hand"]] == stations(state, "kestrel")["weapons"]["hand"]
    assert me["order"] == state["orders"]["kestrel/weapons"]
    b_hand = set(stations(state, "kestrel")["pilot"]["hand"])
    assert b_hand and not b_hand & strings_in(view)
    assert not [d for d in dicts_in(view) if d.get("action") == "manoeuvre"]
    assert "manoeuvre" not in json.dumps(view)
    assert leaks(state, view, "kestrel/weapons") == []


def test_every_seat_view_keeps_every_other_seat_secret() -> None:
    state, _ = orders_open()
    for ship, station in (A, B, ("kestrel", "engineering"), ("kestrel", "comms")):
        assert leaks(state, station_view(state, seat_of(ship, station)), f"{ship}/{station}") == []


def test_the_leak_check_would_catch_a_leak() -> None:
    state, _ = orders_open()
    view = station_view(state, seat_of(*A))
    b_hand = stations(state, "kestrel")["pilot"]["hand"]
    view["ships"][0]["stations"][2]["hand"] = b_hand
    view["ships"][0]["stations"][2]["order"] = state["orders"]["kestrel/pilot"]
    assert len(leaks(state, view, "kestrel/weapons")) == len(b_hand) + 1


def test_display_view_has_no_hand_and_no_unrevealed_order() -> None:
    state, _ = orders_open()
    view = display_view(state)
    assert "hand" not in strings_in(view) and "me" not in view
    all_cards = {card for held in hands(state).values() for card in held}
    assert not all_cards & strings_in(view)
    assert leaks(state, view, None) == []


def test_gm_view_has_every_hand_and_order() -> None:
    state, _ = orders_open()
    view = gm_view(state)
    shown = {
        f"{ship}/{station}": [card["id"] for card in held]
        for ship, stations in view["hands"].items()
        for station, held in stations.items()
    }
    assert shown == hands(state)
    given = {
        f"{ship}/{station}": order
        for ship, stations in view["orders"].items()
        for station, order in stations.items()
    }
    assert given == state["orders"]
    assert view["hands"]["kestrel"]["weapons"][0]["name"]


def test_orders_are_public_once_revealed() -> None:
    state, _ = orders_open()
    played = state["orders"]["kestrel/pilot"]["cards"]
    state, _ = close(set_rolls(state, 1))
    view = station_view(state, seat_of(*A))
    shown = {o["station"]: o for o in view["revealed"]["orders"] if o["ship"] == "kestrel"}
    assert shown["pilot"]["action"] == "manoeuvre" and shown["pilot"]["cards"] == played
    assert "Manoeuvre" in said(shown["pilot"])
    assert leaks(state, view, "kestrel/weapons") == []
    state = started(state)  # during the next Orders phase the old reveal stays public
    assert station_view(state, seat_of(*A))["revealed"]["turn"] == 1


def test_event_view_strips_secrets_from_everyone_but_the_owner_and_the_gm() -> None:
    _, events = orders_open()
    secret = [e for e in events if e.get("secret_for") == "kestrel/pilot"]
    assert secret
    for event in secret:
        mine = event_view(event, ("seat", seat_of(*B)))
        theirs = event_view(event, ("seat", seat_of(*A)))
        shown = event_view(event, "display")
        assert mine == event and event_view(event, "gm") == event
        for public in (theirs, shown):
            assert public is not None and "secret" not in public and "secret_for" not in public
            assert not set(event["secret"].get("cards", [])) & strings_in(public)
            assert "order" not in public


def test_g_turn_3_no_view_and_no_event_shows_the_dice_key() -> None:
    """The generator's key lives in the state, and again in the snapshot an undo goes back to;
    every audience, the GM's included, gets neither."""
    state, events = orders_open()
    state, more = close(state)
    keys = {state["rng"]["key"]}
    assert {d["key"] for d in dicts_in(state["undo"]) if d.get("kind") == "hmac-sha256"} == keys
    shown: list[Any] = [gm_view(state), display_view(state)]
    shown += [station_view(state, seat_of(*seat)) for seat in (A, B)]
    for viewer in ("gm", "display", ("seat", seat_of(*A))):
        shown += [event_view(event, viewer) for event in events + more]
    text = json.dumps(shown)
    assert not [key for key in keys if key in text]


def test_start_of_turn_draws_are_secret_to_each_station() -> None:
    _, events = run_events(game(), c.StartTurn(seconds=0))
    draws = of_type(events, "CardsDrawn")
    assert {e["secret_for"] for e in draws} == {
        "kestrel/weapons",
        "kestrel/engineering",
        "kestrel/pilot",
        "kestrel/comms",
    }
    for event in draws:
        for station in ("weapons", "pilot"):
            view = event_view(event, ("seat", seat_of("kestrel", station)))
            assert view is not None
            assert ("secret" in view) is (event["secret_for"] == f"kestrel/{station}")


def test_a_message_to_one_station_reaches_no_one_else() -> None:
    state, events = run_events(started(game()), c.SendMessage(text="Psst", to="kestrel/pilot"))
    event = events[0]
    assert event_view(event, ("seat", seat_of(*A))) is None
    assert event_view(event, "display") is None
    mine = event_view(event, ("seat", seat_of(*B)))
    assert mine is not None and mine["secret"]["message"]["text"] == "Psst"
    assert [m["text"] for m in station_view(state, seat_of(*B))["messages"]] == ["Psst"]
    assert station_view(state, seat_of(*A))["messages"] == []
    assert display_view(state)["messages"] == []


def test_a_newcomer_at_a_freed_station_reads_none_of_the_previous_players_secrets() -> None:
    """Private events and messages are for the seats that held the station (or ship) when they
    happened. Whoever takes the station next holds its hand from then on, and nothing before."""
    state, events = orders_open()  # B (Ilse Marrow at the pilot's) drew and gave an order
    state, sent = run_events(
        state,
        c.SendMessage(text="Psst, pilot", to="kestrel/pilot"),
        c.SendMessage(text="All hands of the Kestrel", to="kestrel"),
        c.UnseatCrew(ship="kestrel", station="pilot"),
        c.SeatCrew(ship="kestrel", station="pilot", seat="newcomer", name="Nova"),
    )
    before, after = [*events, *sent[:3]], sent[3:]
    old_skills = skill_cards(state, "ilse-marrow")
    assert {e.get("secret_for") for e in before} >= {"kestrel/pilot", "kestrel"}
    for event in before:
        shown = event_view(event, ("seat", "newcomer"))
        assert shown is None or "secret" not in shown, event
        assert event_view(event, "gm") == event
        if event.get("secret_for") in ("kestrel/pilot", "kestrel"):
            assert event_view(event, ("seat", seat_of(*B))) == event
    nova = station_view(state, "newcomer")
    assert nova["messages"] == [] and nova["me"]["order"] is None
    assert not set(old_skills) & strings_in(nova)
    # The ship's message is still for those who were aboard; the newcomer's own draw is theirs.
    crew = station_view(state, seat_of(*A))
    assert [m["text"] for m in crew["messages"]] == ["All hands of the Kestrel"]
    drawn = [e for e in after if e["type"] == "CardsDrawn"]
    assert drawn and all(event_view(e, ("seat", "newcomer")) == e for e in drawn)
    assert all(event_view(e, ("seat", seat_of(*B))) != e for e in drawn)


def test_only_this_ships_engineering_sees_the_allocation_prompt() -> None:
    state = place(shields(started(game()), "kestrel", False), "rustjaw", 5, 5)
    state = run(state, npc("rustjaw", "weapons", "attack", 6, target="kestrel"))
    state, _ = close(set_rolls(state, 3))
    assert state["phase"] == "allocation"
    assert (
        station_view(state, seat_of("kestrel", "engineering"))["me"]["allocation"]["hull_damage"]
        == 5
    )
    assert station_view(state, seat_of(*A))["me"]["allocation"] is None


def test_a_seat_without_a_station_sees_only_the_public_board() -> None:
    state, _ = orders_open()
    view = station_view(state, "spectator")
    assert view["me"] is None
    assert leaks(state, view, None) == []


def test_station_view_reports_a_station_that_is_down() -> None:
    state = damage(started(game()), "kestrel", "weapons", 5)
    me = station_view(state, seat_of(*A))["me"]
    assert (
        me["operational"] is False
        and me["hand_limit"] == 0
        and "zero health" in said({"words": me["down"]})
    )


def test_views_list_ships_and_stations_in_a_fixed_order_whatever_the_key_order() -> None:
    import json

    from app.content import load_catalogue
    from app.rules import display_view, new_game

    catalogue = load_catalogue()
    state = new_game(catalogue.scenarios["convoy"], catalogue, seed=1)
    shuffled = json.loads(json.dumps(state, sort_keys=True))  # as storage may hand it back
    for view in (display_view(state), display_view(shuffled)):
        assert [s["id"] for s in view["ships"]][:2] == ["kestrel", "resolute"]  # players first
        kestrel = view["ships"][0]
        assert [st["role"] for st in kestrel["stations"]] == [
            "weapons",
            "engineering",
            "pilot",
            "comms",
        ]
    assert display_view(state) == display_view(shuffled)


def test_views_made_together_from_one_shared_part_are_the_views_made_alone() -> None:
    """Section 11: the hub makes every screen's view of a state at once (shared_view); each must
    be exactly what that audience's own view function gives, secrets stripped the same way."""
    from app.rules import shared_view

    state, _ = orders_open()
    seats = [seat_of(*A), seat_of(*B), seat_of("kestrel", "engineering"), "spectator"]
    common = shared_view(state)
    before = json.dumps(common, sort_keys=True)
    assert gm_view(state, common) == gm_view(state)
    assert display_view(state, common) == display_view(state)
    for seat in seats:
        view = station_view(state, seat, common)
        assert view == station_view(state, seat)
        owner = None if view["me"] is None else "kestrel/" + view["me"]["station"]
        assert leaks(state, view, owner) == []
    assert json.dumps(common, sort_keys=True) == before  # no view changed the shared part


def _fleet() -> State:
    """Eight ships, the most a game holds: Kestrel and one more players' ship, six raiders."""
    state = run(
        game(),
        c.AddShip(ship_class="cruiser", name="Lark", side="players", x=1, y=1, crew="players"),
    )
    for n in range(5):
        state = run(
            state, c.AddShip(ship_class="cruiser", name=f"Raider {n}", side="raiders", x=n, y=9)
        )
    return state


# rule: G-SHIP-1 (views grow with the ships, not with every pair of them)
def test_views_carry_the_distances_from_players_ships_not_every_pair() -> None:
    state = _fleet()
    ships = state["ships"]
    players = {s for s, ship in ships.items() if ship["side"] == "players"}
    assert len(ships) == 8 and players == {"kestrel", "lark"}
    for view in (
        display_view(state),
        gm_view(state),
        station_view(state, seat_of("kestrel", "pilot")),
    ):
        pairs = {frozenset((d["a"], d["b"])) for d in view["distances"]}
        assert len(pairs) == len(view["distances"]) == 13  # not all 28 pairs
        assert all(pair & players for pair in pairs)
        assert pairs == {frozenset((p, s)) for p in players for s in ships if s != p}


# rule: M-SEATS-1 (a seat kept aboard an NPC ship from an older game still sees its range)
def test_a_seat_kept_aboard_an_npc_ship_sees_its_distances() -> None:
    state = _fleet()
    state["ships"]["rustjaw"]["stations"]["pilot"]["crew"] = {
        "seat": "old",
        "name": "O",
        "character": None,
    }
    pairs = {frozenset((d["a"], d["b"])) for d in station_view(state, "old")["distances"]}
    assert {frozenset(("rustjaw", s)) for s in state["ships"] if s != "rustjaw"} <= pairs
