"""The end of a combat (G-END-1, G-END-3): the engine notices a beaten side, ending a combat
clears what belonged to it, and the GM starts the next combat of the same game."""

from __future__ import annotations

from typing import Any

from app.rules import commands as c
from app.rules import display_view, gm_view, station_view
from app.rules.core.hooks import HOOKS

from .builders import (
    GM,
    NOW,
    State,
    close,
    damage,
    game,
    npc,
    of_type,
    one,
    refused,
    run,
    run_events,
    said,
    seat,
    started,
    stations,
)


def messages_and_alert(state: State) -> State:
    return run(state, c.SendMessage(text="Brace!"), c.SetRedAlert(on=True))


# rule: G-END-1
def test_g_end_1_the_engine_notices_when_a_side_has_no_ship_that_can_fight() -> None:
    state = started(game())
    assert gm_view(state)["combat_can_end"] is None
    state, events = run_events(state, c.DestroyShip(ship="rustjaw"))
    notice = one(events, "CombatCanEnd")
    assert notice["side"] == "raiders" and "Rustjaw destroyed" in said(notice)
    can_end = gm_view(state)["combat_can_end"]
    assert can_end["side"] == "raiders" and can_end["standing"] == ["players"]
    assert display_view(state)["combat_can_end"] == can_end  # the room is told too
    assert any(entry["type"] == "CombatCanEnd" for entry in state["log"])
    # Told once: the next command says nothing new, and the GM may play on.
    _, events = run_events(state, c.SendMessage(text="Anyone left?"))
    assert not of_type(events, "CombatCanEnd")
    assert run(state, c.CloseOrders(now=NOW))["phase"] == "turn_end"


# rule: G-END-1
def test_g_end_1_fled_and_surrendered_ships_count_as_out_of_the_fight() -> None:
    state = started(game("convoy"))
    state = run(state, c.DestroyShip(ship="jackal-1"), c.SetShipOut(ship="jackal-2", out="fled"))
    assert gm_view(state)["combat_can_end"] is None  # Jackal-3 still fights
    state, events = run_events(state, c.SetShipOut(ship="jackal-3", out="surrendered"))
    notice = one(events, "CombatCanEnd")
    assert notice["why"] == [["Gutter Knife", "destroyed"]] + [
        [state["ships"][s]["name"], why]
        for s, why in (("jackal-2", "fled"), ("jackal-3", "surrendered"))
    ]
    assert gm_view(state)["ships"][-1]["out"] == "surrendered"
    state = run(state, c.SetShipOut(ship="jackal-3", out=""))  # the GM changes their mind
    assert gm_view(state)["combat_can_end"] is None
    refused(state, c.SetShipOut(ship="jackal-3", out="vanished"), "BAD_VALUE")


# rule: G-END-1
def test_g_end_1_a_ship_that_flees_stops_fighting_its_orders_end_and_its_crew_stops() -> None:
    state = run(game("skirmish", modules=("npc",)), c.SetPosition(ship="rustjaw", x=7, y=5))
    state = started(state)  # Rustjaw's crew chose as Orders opened: it attacks from Close
    assert state["orders"]["rustjaw/weapons"]["action"] == "attack"
    state = run(state, c.SetShipOut(ship="rustjaw", out="fled"))
    assert not [key for key in state["orders"] if key.startswith("rustjaw/")]
    refused(state, npc("rustjaw", "weapons", "attack", 3, target="kestrel"), "SHIP_OUT")
    refused(state, c.PassOrder(ship="rustjaw", station="pilot", actor=GM), "SHIP_OUT")
    state, events = close(state)
    assert not [e for e in of_type(events, "AttackResolved") if e["ship"] == "rustjaw"]
    state = run(state, c.StartTurn(seconds=0, now=NOW))  # and in the turns after
    assert not [key for key in state["orders"] if key.startswith("rustjaw/")]
    phone = station_view(state, "kestrel-weapons")
    assert phone["me"]["can_order"]  # the players' ship fights on


# rule: G-END-1
def test_g_end_1_a_players_ship_that_surrendered_gives_no_orders_and_the_turn_goes_on() -> None:
    state = started(game(auto_close=True))
    for station in ("pilot", "weapons"):
        state = run(
            state, c.PassOrder(ship="kestrel", station=station, actor=seat("kestrel", station))
        )
    raiders = (c.PassOrder(ship="rustjaw", station=s) for s in stations(state, "rustjaw"))
    state = run(state, *raiders)
    assert state["phase"] == "orders"  # Kestrel's Engineering is still choosing
    state, events = run_events(state, c.SetShipOut(ship="kestrel", out="surrendered"))
    one(events, "OrdersRevealed")  # nothing is left to wait for: the turn reveals at once
    phone = station_view(run(state, c.StartTurn(seconds=0, now=NOW)), "kestrel-engineering")
    assert not phone["me"]["can_order"]
    assert "surrendered" in said({"words": phone["me"]["down"]})
    order = c.PassOrder(
        ship="kestrel", station="engineering", actor=seat("kestrel", "engineering"), now=NOW
    )
    refused(run(state, c.StartTurn(seconds=0, now=NOW)), order, "SHIP_OUT")


# rule: G-END-1
def test_g_end_1_a_ship_put_back_into_the_fight_during_orders_orders_again() -> None:
    state = run(game("skirmish", modules=("npc",)), c.SetShipOut(ship="rustjaw", out="fled"))
    state = started(state)
    assert not [key for key in state["orders"] if key.startswith("rustjaw/")]
    state = run(state, c.SetShipOut(ship="rustjaw", out=""))
    assert sorted(key for key in state["orders"] if key.startswith("rustjaw/")) == [
        "rustjaw/engineering",
        "rustjaw/pilot",
        "rustjaw/weapons",
    ]


# rule: G-END-1
def test_g_end_1_nothing_to_end_in_downtime() -> None:
    state = run(game(), c.DestroyShip(ship="rustjaw"))
    assert gm_view(state)["combat_can_end"] is None


def test_end_combat_clears_red_alert_and_the_combats_messages() -> None:
    state = messages_and_alert(started(game()))
    state = run(state, c.EndCombat())
    assert state["red_alert"] is False and state["messages"] == []
    seat = stations(state, "kestrel")["pilot"]["crew"]["seat"]
    assert station_view(state, seat)["messages"] == []


# rule: G-END-3
def test_g_end_3_the_next_combat_keeps_damage_and_clears_the_last_fights_leftovers() -> None:
    cleared: list[Any] = []
    HOOKS.between_combats.register(cleared.append)  # as a module (torpedoes in flight) would
    try:
        state = damage(started(game()), "kestrel", "hull", 3)
        state = damage(state, "kestrel", "pilot", 2)
        state = run(
            state,
            c.ImposeModifier(
                ship="kestrel", applies="attack", value=2, reason="x", lasting="combat"
            ),
            c.SetShipOut(ship="rustjaw", out="fled"),
        )
        state, _ = close(state)
        state = run(state, c.EndCombat())
        state = messages_and_alert(state)  # said in Downtime, about the last fight
        state, events = run_events(state, c.StartNextCombat(seconds=0, now=NOW))
    finally:
        HOOKS.between_combats.unregister(cleared.append)
    assert one(events, "CombatStarted")["combat"] == 2
    assert (state["combat"], state["turn"], state["phase"]) == (2, 1, "orders")
    kestrel = state["ships"]["kestrel"]
    assert kestrel["hull"]["damage"] == 3 and kestrel["stations"]["pilot"]["damage"] == 2
    assert state["modifiers"] == [] and state["messages"] == [] and not state["red_alert"]
    assert state["revealed"] is None and state["ships"]["rustjaw"]["out"] is None
    assert len(cleared) == 2  # the module's hook ran at the end and at the next start


# rule: G-END-3
def test_g_end_3_only_from_downtime_and_only_the_gm() -> None:
    state = started(game())
    refused(state, c.StartNextCombat(), "WRONG_PHASE")
    refused(run(state, c.EndCombat()), c.StartNextCombat(actor=seat("kestrel", "pilot")), "GM_ONLY")


# rule: G-END-3
def test_g_end_3_the_next_combat_is_refused_while_a_side_has_no_ship_that_can_fight() -> None:
    state = run(started(game()), c.DestroyShip(ship="rustjaw"), c.EndCombat())
    error = refused(state, c.StartNextCombat(seconds=0, now=NOW), "NOTHING_TO_FIGHT")
    assert error.words == {"msg": "nothing_to_fight", "side": "raiders"}
    # Fled is for one combat only: a side whose ships fled comes back for the next.
    fled = run(started(game()), c.SetShipOut(ship="rustjaw", out="fled"), c.EndCombat())
    assert run(fled, c.StartNextCombat(seconds=0, now=NOW))["combat"] == 2
    restored = run(state, c.RestoreShip(ship="rustjaw"))
    assert run(restored, c.StartNextCombat(seconds=0, now=NOW))["combat"] == 2
