"""Dropping cards by choice in the Orders phase (G-CARD-5), so no hand stays clogged with cards its
station cannot play. The next draw (G-CARD-3) replaces them."""

from __future__ import annotations

from .cards import discard
from .commands import DiscardCards
from .context import Context
from .errors import refuse
from .messages import message
from .orders import acting_station
from .state import Ship, Station, card_of, role_label, seat_station, station_key


def _station_for(ctx: Context, cmd: DiscardCards) -> tuple[Ship, Station]:
    """A seat discards from its own station; the GM names the ship and station."""
    if cmd.actor.role == "seat":
        found = seat_station(ctx.state, cmd.actor.seat or "")
        if found is None:
            raise refuse("NOT_SEATED", "not_seated_no_hand")
        ship_id, station_id = found[0]["id"], found[1]["id"]
        if (cmd.ship, cmd.station) not in ((None, None), (ship_id, station_id)):
            raise refuse("NOT_YOUR_STATION", "discard_own_hand_only")
    elif cmd.ship is None or cmd.station is None:
        raise refuse("BAD_COMMAND", "discard_needs_station")
    else:
        ship_id, station_id = cmd.ship, cmd.station
    return acting_station(ctx, cmd.actor, ship_id, station_id)


def discard_cards(ctx: Context, cmd: DiscardCards) -> None:
    ship, station = _station_for(ctx, cmd)
    if not cmd.cards:
        raise refuse("NO_CARDS", "no_cards_to_discard")
    if len(set(cmd.cards)) != len(cmd.cards):
        raise refuse("DUPLICATE_CARD", "duplicate_card_discarded")
    key = station_key(ship, station)
    ordered = set(ctx.state["orders"].get(key, {}).get("cards", ()))
    for card_id in cmd.cards:
        if card_id not in station["hand"]:
            raise refuse("CARD_NOT_IN_HAND")
        if card_id in ordered:
            name = card_of(ctx.state, card_id)["name"]
            raise refuse("CARD_IN_ORDER", card=name)
    for card_id in cmd.cards:
        discard(ctx, station, card_id)
    count = len(cmd.cards)
    ctx.emit(
        "CardsDiscarded",
        message("cards_discarded", station=role_label(station), ship=ship["name"], count=count),
        log=False,
        ship=ship["id"],
        station=station["id"],
        count=count,
        secret_for=key,
        secret={"cards": list(cmd.cards)},
    )
