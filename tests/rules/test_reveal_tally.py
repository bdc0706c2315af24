"""The reveal leads with what the turn did to each ship (the projector's room takes that in
first, the dice after): attacks and how many hit, the damage dealt, Hull and Shields lost, a ship
destroyed, counted from the turn's own results."""

from __future__ import annotations

from app.rules.core.views import display_view

from .builders import close, damage, game, give, one, order, place, run, set_rolls, started


def test_the_reveal_tallies_each_ships_attacks_hits_and_damage_from_its_results() -> None:
    state = started(game("convoy"))
    state = damage(place(state, "jackal-1", 6, 6), "resolute", "weapons", 1)
    weapons = give(state, "resolute", "weapons", 5)
    state = run(
        state,
        order(
            "resolute",
            "weapons",
            "attack",
            weapons,
            target="jackal-1",
            weapons=("twin-laser", "torpedo-bay"),
        ),
    )
    state, events = close(set_rolls(state, 6))
    revealed = display_view(state)["revealed"]
    tally = {line["ship"]: line for line in revealed["ships"]}
    attacks = [e for e in events if e["type"] == "AttackResolved" and e["ship"] == "resolute"]
    assert attacks
    ours = tally["resolute"]
    assert ours["attacks"] == len(attacks)
    assert ours["hits"] == sum(1 for e in attacks if e["hit"])
    assert ours["damage_dealt"] == sum(e["damage"] for e in attacks if e["hit"])
    hit = [e for e in events if e.get("ship") == "jackal-1"]
    assert tally["jackal-1"]["hull_lost"] == sum(e["type"] == "HullHit" for e in hit) > 0
    assert tally["jackal-1"]["shields_lost"] == sum(
        e["points"] for e in hit if e["type"] == "ShieldsHit"
    )
    assert tally["jackal-1"]["destroyed"] == any(
        e["type"] == "ShipDestroyed" and e["ship"] == "jackal-1" for e in events
    )
    # A ship the turn left alone is not listed.
    quiet = {s for s in state["ships"]} - {e.get("ship") for e in events} - {"jackal-1"}
    assert quiet and not quiet & set(tally)
    assert one(events, "TurnResolved")
