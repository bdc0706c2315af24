"""Hands and decks: drawing (G-CARD-3), hand limits (G-CARD-2, G-CARD-4) and refills (G-REP-2)."""

from __future__ import annotations

from typing import Any

from .context import Context
from .hooks import HOOKS
from .messages import message
from .state import (
    Ship,
    Station,
    card_of,
    hand_limit,
    manned,
    operational,
    out_of_the_fight,
    station_key,
)

SKILL_CARDS_MAX = 3


def is_skill(ctx: Context, card_id: str) -> bool:
    return bool(card_of(ctx.state, card_id)["source"] == "skill")


def skill_count(ctx: Context, station: Station) -> int:
    return sum(1 for c in station["hand"] if is_skill(ctx, c))


def _take(ctx: Context, pile: dict[str, Any]) -> str | None:
    """Top card of a draw pile, reshuffling its discards when it runs dry (G-CARD-3)."""
    if not pile["draw"] and pile["discard"]:
        pile["draw"] = pile["discard"]
        pile["discard"] = []
        ctx.dice.shuffle(pile["draw"])
    return pile["draw"].pop() if pile["draw"] else None


def _crew_character(ctx: Context, station: Station) -> dict[str, Any] | None:
    crew = station["crew"]
    if crew is None or crew.get("character") is None:
        return None
    return ctx.state["characters"][crew["character"]]  # type: ignore[no-any-return]


def draw_up(ctx: Context, ship: Ship, station: Station, most: int | None = None) -> list[str]:
    """Skill cards up to 3 (within the limit), then Station cards up to the limit."""
    limit = hand_limit(station)
    budget = (
        limit - len(station["hand"]) if most is None else min(most, limit - len(station["hand"]))
    )
    drawn: list[str] = []
    character = _crew_character(ctx, station)
    if character is not None:
        want_skill = min(SKILL_CARDS_MAX, limit) - skill_count(ctx, station)
        while budget > 0 and want_skill > 0:
            card = _take(ctx, character)
            if card is None:
                break
            station["hand"].append(card)
            drawn.append(card)
            budget -= 1
            want_skill -= 1
    while budget > 0:
        card = _take(ctx, station)
        if card is None:
            break
        station["hand"].append(card)
        drawn.append(card)
        budget -= 1
    if drawn:
        name = ship["name"]
        ctx.emit(
            "CardsDrawn",
            message(
                "cards_drawn", station=station["role"].capitalize(), ship=name, count=len(drawn)
            ),
            log=False,
            ship=ship["id"],
            station=station["id"],
            count=len(drawn),
            secret_for=station_key(ship, station),
            secret={"cards": drawn},
        )
    return drawn


def draw_for_turn(ctx: Context) -> None:
    """G-CARD-3, with G-DMG-8: Engineering at zero still draws; a ship out of the fight
    (G-END-1) gives no orders, so its crew draws none."""
    for ship in ctx.state["ships"].values():
        _draw_aboard(ctx, ship)


def _draw_aboard(ctx: Context, ship: Ship) -> None:
    if out_of_the_fight(ship):
        return
    for station in ship["stations"].values():
        if not manned(ctx.state, station):
            continue
        if operational(station) or station["role"] == "engineering":
            draw_up(ctx, ship, station)


def joins_orders(ctx: Context, ship: Ship) -> None:
    """A ship comes into a turn whose Orders are open (added, restored, back into the fight): its
    crew draws as the others did when the turn began (G-CARD-3), and the modules hear of it, so
    an NPC crew chooses at once and the turn never waits for the newcomer."""
    if ctx.state["phase"] != "orders" or out_of_the_fight(ship):
        return
    _draw_aboard(ctx, ship)
    HOOKS.joins_orders(ctx, ship)


def discard(ctx: Context, station: Station, card_id: str) -> None:
    """Played or dropped cards go to their own pile: Skill cards back to their character's."""
    station["hand"].remove(card_id)
    owner = card_of(ctx.state, card_id).get("owner")
    if owner is not None:
        ctx.state["characters"][owner]["discard"].append(card_id)
    else:
        station["discard"].append(card_id)


def enforce_limit(ctx: Context, ship: Ship, station: Station) -> list[str]:
    """G-CARD-4: over the limit, discard Station cards first, then Skill cards.

    The engine discards the lowest values first, so a player never loses their best card to a
    choice the rules would have let them make.
    """
    excess = len(station["hand"]) - hand_limit(station)
    if excess <= 0:
        return []
    order = sorted(
        station["hand"], key=lambda c: (is_skill(ctx, c), card_of(ctx.state, c)["value"])
    )
    dropped = order[:excess]
    for card_id in dropped:
        discard(ctx, station, card_id)
    ctx.emit(
        "HandReduced",
        message(
            "hand_reduced",
            station=station["role"].capitalize(),
            ship=ship["name"],
            count=len(dropped),
        ),
        ship=ship["id"],
        station=station["id"],
        count=len(dropped),
        limit=hand_limit(station),
        secret_for=station_key(ship, station),
        secret={"cards": dropped},
    )
    return dropped


def return_skill_cards(ctx: Context, station: Station) -> None:
    """When a crew member leaves a station, their Skill cards go with them to their discards."""
    for card_id in [c for c in station["hand"] if is_skill(ctx, c)]:
        discard(ctx, station, card_id)
