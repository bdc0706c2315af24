"""Crew injuries and first aid, after the personal combat rules (G-CREW-*)."""

from __future__ import annotations

from typing import Any

from .context import Context
from .messages import Message, message

CHARACTERISTICS = ("strength", "dexterity", "endurance")
FIRST_AID_TARGET = 8  # a 2D6 check succeeds on 8+; its Effect is the margin


def status_of(character: dict[str, Any]) -> str:
    """G-CREW-2: wounded, seriously wounded, unconscious (two at zero), dead (three at zero)."""
    at_zero = sum(1 for c in CHARACTERISTICS if character[c]["value"] == 0)
    damaged = sum(1 for c in CHARACTERISTICS if character[c]["value"] < character[c]["max"])
    if at_zero == 3:
        return "dead"
    if at_zero == 2:
        return "unconscious"
    if damaged == 3:
        return "seriously_wounded"
    if damaged >= 1:
        return "wounded"
    return "healthy"


def injure(ctx: Context, character: dict[str, Any], damage: int, cause: Message) -> None:
    """G-CREW-2, G-DMG-9: armour first, then Endurance, then the stronger of Strength/Dexterity.

    The source lets the player pick Strength or Dexterity; the engine takes the higher one so no
    prompt holds up the turn (docs/rules.md).
    """
    blocked = min(character["armour"], damage)
    taken = damage - blocked
    before = status_of(character)
    lost: dict[str, int] = {}
    for _ in range(taken):
        target = _next_to_lose(character)
        if target is None:
            break
        character[target]["value"] -= 1
        lost[target] = lost.get(target, 0) + 1
    character["status"] = status_of(character)
    name = character["name"]
    if taken == 0:
        ctx.emit(
            "CrewInjuryBlocked",
            message("crew_injury_blocked", character=name, cause=cause),
            character=character["id"],
            damage=damage,
            armour=character["armour"],
        )
        return
    ctx.emit(
        "CrewInjured",
        message(
            "crew_injured",
            character=name,
            cause=cause,
            changes=[[c, -n] for c, n in lost.items()],
            status=character["status"],
        ),
        character=character["id"],
        damage=damage,
        blocked=blocked,
        lost=lost,
        status=character["status"],
        was=before,
    )


def _next_to_lose(character: dict[str, Any]) -> str | None:
    if character["endurance"]["value"] > 0:
        return "endurance"
    options = [c for c in ("strength", "dexterity") if character[c]["value"] > 0]
    if not options:
        return None
    return max(options, key=lambda c: character[c]["value"])


def heal(ctx: Context, character: dict[str, Any], points: int, cause: Message) -> dict[str, int]:
    """Restore points, first to characteristics at zero (waking the unconscious), then evenly."""
    restored: dict[str, int] = {}
    for _ in range(points):
        damaged = [c for c in CHARACTERISTICS if character[c]["value"] < character[c]["max"]]
        if not damaged:
            break
        target = min(
            damaged,
            key=lambda c: (character[c]["value"] > 0, character[c]["value"] - character[c]["max"]),
        )
        character[target]["value"] += 1
        restored[target] = restored.get(target, 0) + 1
    before = character["status"]
    character["status"] = status_of(character)
    ctx.emit(
        "CrewHealed",
        message(
            "crew_healed",
            character=character["name"],
            cause=cause,
            changes=[[c, n] for c, n in restored.items()],
            status=character["status"],
        )
        if restored
        else message(
            "crew_healed_nothing",
            character=character["name"],
            cause=cause,
            status=character["status"],
        ),
        character=character["id"],
        restored=restored,
        status=character["status"],
        was=before,
    )
    return restored
