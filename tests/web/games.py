"""Engine states at the moments the screens must handle, built by playing real commands.

Used by the rendering tests and the local preview app; no server or database involved.
"""

from __future__ import annotations

from typing import Any

from app.content import load_catalogue
from app.rules import apply, new_game
from app.rules import commands as c

State = dict[str, Any]
NOW = 1_000.0
SEATS = {"weapons": "seat-w", "engineering": "seat-e", "pilot": "seat-p", "comms": "seat-c"}
CHARACTERS = {
    "weapons": "amara-lind",
    "engineering": "juno-pike",
    "pilot": "kofi-adeyemi",
    "comms": "vesna-kaur",
}


def _do(state: State, *commands: c.Command) -> State:
    for command in commands:
        state, _ = apply(state, command)
    return state


def seated(scenario: str = "skirmish", seed: int = 7) -> State:
    """Downtime, the players' first ship fully crewed."""
    catalogue = load_catalogue()
    state = new_game(catalogue.scenarios[scenario], catalogue, seed=seed)
    ship = next(s for s in state["ships"].values() if s["crew"] == "players")
    for station in ship["stations"]:
        if station in SEATS:
            state = _do(
                state,
                c.SeatCrew(
                    ship=ship["id"],
                    station=station,
                    seat=SEATS[station],
                    name=f"Player {station}",
                    character=CHARACTERS[station],
                ),
            )
    return state


def orders_phase() -> State:
    """Turn 1, Orders: Weapons has sent an attack, the rest are still choosing."""
    state = _do(seated(), c.StartTurn(now=NOW))
    hand = state["ships"]["kestrel"]["stations"]["weapons"]["hand"]
    attack = [h for h in hand if state["cards"][h]["kind"] in ("attack", "any")][:2]
    return _do(
        state,
        c.SubmitOrder(
            ship="kestrel",
            station="weapons",
            action="attack",
            cards=tuple(attack),
            target="rustjaw",
            actor=c.Actor.for_seat("seat-w"),
            now=NOW,
        ),
    )


def allocation_phase() -> State:
    """Rustjaw hit Kestrel's Hull hard with shields down: Engineering must divert."""
    state = _do(
        seated(),
        c.SetShields(ship="kestrel", active=False),
        c.SetPosition(ship="rustjaw", x=5, y=5),
        c.StartTurn(now=NOW),
    )
    state = _do(
        state,
        c.SubmitOrder(
            ship="rustjaw", station="weapons", action="attack", value=30, target="kestrel", now=NOW
        ),
    )
    for role in ("engineering", "pilot"):
        state = _do(state, c.PassOrder(ship="rustjaw", station=role, now=NOW))
    for role, seat in SEATS.items():
        if state["phase"] == "orders":
            state = _do(
                state,
                c.PassOrder(ship="kestrel", station=role, actor=c.Actor.for_seat(seat), now=NOW),
            )
    assert state["phase"] == "allocation", state["phase"]
    return state


def after_hit() -> State:
    """Turn end after the hit: a red Hull box filled, every station lost a box and cards."""
    state = allocation_phase()
    return _do(
        state,
        c.AllocateDamage(
            ship="kestrel", allocations={"pilot": 1}, actor=c.Actor.for_seat("seat-e"), now=NOW
        ),
        c.SetRedAlert(on=True),
        c.SendMessage(text="Brace for impact!", to="all"),
    )


ALL = {
    "downtime": seated,
    "orders": orders_phase,
    "allocation": allocation_phase,
    "after_hit": after_hit,
}
