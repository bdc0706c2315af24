"""What each viewer may know at each moment of a game, and a search for what they must not.

Worked out from the raw states alone, never from a view (a view is what is being checked):
a card id is a secret from a viewer while it sits in another station's hand or in another
station's unrevealed order, unless the viewer has held it or it was revealed before. A card name
is secret when no card the viewer may know has it. A private message is secret from everyone
outside its ship or station; an unrevealed order's description from everyone outside its
station, unless the same words were revealed before.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from markupsafe import escape

from app.rules import gm_view
from app.rules.core.resolve import describe_order
from app.web.templating import order_text
from app.web.words import sentence

State = dict[str, Any]
Viewer = str | tuple[str, str]  # "display" | ("seat", seat_id)


@dataclasses.dataclass
class Secrets:
    ids: set[str]
    names: set[str]
    texts: set[str]  # private messages and unrevealed orders' descriptions


@dataclasses.dataclass
class Knowledge:
    """Follows a game state by state. `station_of` maps each seat to its "ship/station"."""

    station_of: dict[str, str]
    public_ids: set[str] = dataclasses.field(default_factory=set)
    public_texts: set[str] = dataclasses.field(default_factory=set)
    held: dict[str, set[str]] = dataclasses.field(default_factory=dict)  # seat -> ids it held
    private_messages: list[tuple[str, str]] = dataclasses.field(default_factory=list)  # to, text

    def observe(self, state: State) -> None:
        """Call after every command, before checking what the viewers see."""
        revealed = state["revealed"]
        if revealed is not None:
            view = gm_view(state)
            for order in revealed["orders"].values():
                self.public_ids.update(order["cards"])
                self.public_texts.update(order_texts(state, order, view))
        for seat, key in self.station_of.items():
            held = self.held.setdefault(seat, set())
            held.update(hand(state, key))
            held.update(state["orders"].get(key, {}).get("cards", []))

    def message_sent(self, to: str, text: str) -> None:
        if to != "all":
            self.private_messages.append((to, text))

    def secrets_for(self, state: State, viewer: Viewer) -> Secrets:
        mine = self.station_of.get(viewer[1]) if isinstance(viewer, tuple) else None
        known = self.public_ids | (self.held.get(viewer[1], set()) if mine else set())
        ids: set[str] = set()
        texts: set[str] = set()
        unrevealed = state["phase"] == "orders"
        view = gm_view(state)
        mine_texts: set[str] = set()
        for ship in state["ships"].values():
            for station in ship["stations"].values():
                key = f"{ship['id']}/{station['id']}"
                if key == mine:
                    own = state["orders"].get(key)
                    if own is not None:
                        mine_texts = order_texts(state, own, view)
                    continue
                ids.update(station["hand"])
                order = state["orders"].get(key)
                if order is not None and unrevealed:
                    ids.update(order["cards"])
                    texts.update(order_texts(state, order, view) - self.public_texts)
        ids -= known
        texts -= mine_texts  # two stations may give orders worded alike
        cards = state["cards"]
        names = {cards[c]["name"] for c in ids} - {cards[c]["name"] for c in known}
        for to, text in self.private_messages:
            if mine is None or not (mine == to or mine.split("/")[0] == to):
                texts.add(text)
        return Secrets(ids, names, texts)


def hand(state: State, key: str) -> list[str]:
    ship, _, station = key.partition("/")
    return list(state["ships"][ship]["stations"][station]["hand"])


def order_texts(state: State, order: dict[str, Any], view: dict[str, Any]) -> set[str]:
    """The ways screens word an order: the engine's reveal line and the UI's own."""
    ship = state["ships"][order["ship"]]
    station = ship["stations"][order["station"]]
    texts = {
        sentence(describe_order(state, ship, station, order)["words"]),
        order_text(view, order),
    }
    # Only wordings specific enough to be found by accident in no other sentence: those naming
    # the station, a value or a target ("Pass." or "Raise shields." could be help text).
    return {t for t in texts if " of " in t or "(" in t or "→" in t}


# --- Searching what a viewer got ------------------------------------------------------------------


def leaks(text: str, secrets: Secrets) -> list[str]:
    """Every secret found in a page, a push, a JSON body or an error, in any of its spellings."""
    found = []
    if secrets.ids:
        pattern = "|".join(re.escape(i) for i in sorted(secrets.ids, key=len, reverse=True))
        found += [f"card id {m}" for m in re.findall(rf"(?<![\w-])({pattern})(?![\w-])", text)]
    for secret in secrets.names | secrets.texts:
        spellings = {secret, str(escape(secret)), json.dumps(secret)[1:-1]}
        found += [f"secret {secret!r}" for s in spellings if s in text][:1]
    return found


def foreign_orders(data: Any, mine: str | None, path: str = "") -> list[str]:
    """Order records (ship, station, action, value, by) of other stations, outside the reveal
    and the OrdersRevealed events, where an order is public."""
    found: list[str] = []
    if isinstance(data, dict):
        if data.get("type") == "OrdersRevealed":
            return []
        is_order = {"ship", "station", "action", "value", "by"} <= data.keys()
        if is_order and f"{data['ship']}/{data['station']}" != mine:
            found.append(f"{path}: order of {data['ship']}/{data['station']}")
        for key, value in data.items():
            if key != "revealed":
                found += foreign_orders(value, mine, f"{path}.{key}")
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found += foreign_orders(value, mine, f"{path}[{i}]")
    return found
