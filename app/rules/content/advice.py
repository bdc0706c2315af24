"""Advice on content that checks but is likely an organiser's slip: warnings, which never refuse
a save. Each names its field as a problem does (a ContentError) and says why in a message.

A Station deck is dealt to a station of its role (a ship's station takes a deck of its own role
only), and a card counts towards an order only if the order takes its kind: which kinds a role's
orders take is the engine's (core/phases.py, `kinds_played_by`), handed in by the caller, as
content depends on nothing of the core but its messages. A card of a kind no order of
that role takes can never be played from such a hand: it is only ever discarded (G-CARD-5), a
dead card, and a deck of them a hand that cannot act (the captain's hand full of repair cards).
A character's Skill cards go to whatever station the character takes, which the content does
not fix, so they are not judged here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..core.messages import message
from .checks import ContentError


def deck_warnings(
    data: Mapping[str, Any], source: str, played_by: Callable[[str], Iterable[str]]
) -> list[ContentError]:
    """rule: G-CARD-1, G-CARD-5: each card of a Station deck (its form's `cards[n].kind`) whose
    kind no order of the deck's role plays (`played_by(role)`: the kinds its orders take). A deck
    whose role or cards do not read yields none: its problems say what is wrong."""
    role, cards = data.get("role"), data.get("cards")
    if not isinstance(role, str) or not isinstance(cards, list):
        return []
    playable = sorted(played_by(role))
    if not playable:
        return []
    found = []
    for index, card in enumerate(cards):
        kind = card.get("kind") if isinstance(card, Mapping) else None
        if isinstance(kind, str) and kind and kind not in playable:
            shown = [one for one in playable if one != "any"]  # every role plays "any"
            dead = message("content_card_never_played", station=role, kind=kind, kinds=shown)
            found.append(ContentError(source, f"cards[{index}].kind", dead))
    return found
