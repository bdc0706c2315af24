"""Downtime between games, day by day (G-CAMP-2 to G-CAMP-8).

Each day the ships are mended (G-CAMP-2), then every injured character recovers by what they do
that day (G-CAMP-4, G-CAMP-5), rolled with the campaign's own dice and recorded with the whole
breakdown (G-CAMP-8). A DM is read from the characteristic as it stands that morning (G-CAMP-3),
so where yesterday's points went matters: when a character's points could go more than one way,
the day waits for their player (or the GM) to place them before the next day is rolled.
"""

from __future__ import annotations

from typing import Any

from ..core.crew import CHARACTERISTICS, FIRST_AID_TARGET
from ..core.errors import refuse
from ..core.gm import SELF_FIRST_AID  # G-CAMP-6: first aid on oneself
from ..core.messages import Message, message
from .context import CampaignContext
from .state import (
    Character,
    able,
    alive,
    damaged,
    deficit,
    dm,
    restatus,
    seriously_wounded,
)

SELF_SURGERY = -4  # G-CAMP-5: surgery on oneself


def run_days(ctx: CampaignContext) -> None:
    """Roll day after day until one waits for a choice or the Downtime is over."""
    state = ctx.state
    downtime = state["downtime"]
    while not downtime["waiting"] and downtime["day"] < downtime["days"]:
        downtime["day"] += 1
        state["day"] += 1
        ctx.day = downtime["day"]
        _mend_ships(ctx)
        for character_id in sorted(downtime["plans"]):
            character = state["characters"][character_id]
            if alive(character) and damaged(character):
                _recover(ctx, character, downtime["plans"][character_id])
    if not downtime["waiting"] and downtime["day"] >= downtime["days"]:
        ctx.emit(
            "DowntimeEnded",
            message("downtime_ended", days=downtime["days"], day=state["day"]),
            days=downtime["days"],
        )
        state["downtime"] = None


# --- Ships (G-CAMP-2) -----------------------------------------------------------------------------


def _mend_ships(ctx: CampaignContext) -> None:
    settings = ctx.state["settings"]
    for ship_id, ship in sorted(ctx.state["ships"].items()):
        if ship["destroyed"]:
            continue
        mended: dict[str, int] = {}
        for name, track, per_day in (
            ("hull", ship["hull"], settings["hull_per_day"]),
            ("shields", ship["shields"], settings["station_per_day"]),
            *(
                (sid, station, settings["station_per_day"])
                for sid, station in sorted(ship["stations"].items())
            ),
        ):
            points = min(per_day, track["damage"])
            if points > 0:
                track["damage"] -= points
                mended[name] = points
        ship["counts"].update(_track_counts(ship))
        if mended:
            ctx.emit(
                "ShipMended",
                message(
                    "ship_mended",
                    ship=ship["name"],
                    changes=[[name, n] for name, n in mended.items()],
                    hull=ship["hull"]["boxes"] - ship["hull"]["damage"],
                    boxes=ship["hull"]["boxes"],
                ),
                ship=ship_id,
                mended=mended,
            )


def _track_counts(ship: dict[str, Any]) -> dict[str, int]:
    counts = {"hull": ship["hull"]["damage"], "shields": ship["shields"]["damage"]}
    counts.update({f"station.{sid}": st["damage"] for sid, st in ship["stations"].items()})
    return counts


# --- Characters (G-CAMP-4, G-CAMP-5) --------------------------------------------------------------


def _recover(ctx: CampaignContext, character: Character, plan: dict[str, Any]) -> None:
    care = plan["care"]
    doctor = ctx.state["characters"].get(plan.get("doctor") or "")
    if care in ("medical", "surgery") and (doctor is None or not able(doctor)):
        care = "rest"  # no doctor able to work today: a day in bed
    endurance = character["endurance"]["value"]
    modifier = dm(endurance)
    if seriously_wounded(character) and care == "surgery":
        _surgery(ctx, character, doctor or character)
        return
    if seriously_wounded(character):
        # G-CAMP-4: only the Endurance DM, whatever else the day held; G-CAMP-5: no medical
        # care before surgery.
        how = message("recovery_serious", endurance=endurance, points=modifier)
        _gain(ctx, character, modifier, how, "rest")
        return
    if care in ("medical", "surgery") and doctor is not None:
        medicine = int(doctor["medicine"])
        points = max(0, 2 + modifier + medicine)
        terms = [["care", 2], ["endurance_dm", modifier], ["medicine", medicine]]
        how = message("recovery_care", doctor=doctor["name"], terms=terms, points=points)
        _roll_event(ctx, character, how, points, care="medical")
        _spread_evenly(ctx, character, points, how)
        return
    if care == "rest":
        roll = ctx.dice.roll(6)
        points = roll + modifier
        terms = [["d6", roll], ["endurance_dm", modifier]]
        how = message("recovery_rest", terms=terms, points=points)
        _gain(ctx, character, points, how, "rest", rolls=[roll])
        return
    points = 1 + modifier
    how = message("recovery_active", terms=[["base", 1], ["endurance_dm", modifier]], points=points)
    _gain(ctx, character, points, how, "active")


def _surgery(ctx: CampaignContext, patient: Character, doctor: Character) -> None:
    """G-CAMP-5: restores as first aid does (twice the Effect); a failed check costs points equal
    to its Effect; on oneself −4."""
    how, effect, rolls = _medicine_check(ctx, doctor, patient, surgery=True)
    points = 2 * effect if effect >= 0 else effect
    _roll_event(ctx, patient, how, points, care="surgery", rolls=rolls)
    if points < 0:
        _lose(ctx, patient, -points, how)
    else:
        _offer(ctx, patient, points, how, "surgery")


def first_aid(ctx: CampaignContext, patient: Character, medic: Character) -> None:
    """G-CAMP-6: first aid given up to an hour after the evening's last injury (before the first
    day): only the Effect is restored, and on oneself the check is −2."""
    how, effect, rolls = _medicine_check(ctx, medic, patient, surgery=False)
    points = max(0, effect)
    _roll_event(ctx, patient, how, points, care="first_aid", rolls=rolls)
    _offer(ctx, patient, points, how, "first_aid")


def _medicine_check(
    ctx: CampaignContext, medic: Character, patient: Character, *, surgery: bool
) -> tuple[Message, int, list[int]]:
    """A Medicine check as first aid's (G-CREW-4): 2D6 + Medicine against 8, less a penalty
    when the medic is the patient (surgery −4, first aid −2). The words, the Effect, the dice."""
    a, b = ctx.dice.roll(6), ctx.dice.roll(6)
    own = (SELF_SURGERY if surgery else SELF_FIRST_AID) if medic is patient else 0
    total = a + b + int(medic["medicine"]) + own
    terms: list[list[Any]] = [["d6", a], ["d6", b], ["medicine", int(medic["medicine"])]]
    how = message(
        "surgery_rolled" if surgery else "late_first_aid_rolled",
        medic=medic["name"],
        terms=[*terms, ["on_oneself", own]] if own else terms,
        total=total,
        needed=FIRST_AID_TARGET,
        effect=total - FIRST_AID_TARGET,
    )
    return how, total - FIRST_AID_TARGET, [a, b]


def _roll_event(
    ctx: CampaignContext,
    character: Character,
    how: Message,
    points: int,
    *,
    care: str,
    rolls: list[int] | None = None,
) -> None:
    ctx.emit(
        "RecoveryRolled",
        message("recovery_rolled", character=character["name"], how=how),
        character=character["id"],
        care=care,
        rolls=rolls or [],
        points=points,
    )


def _gain(
    ctx: CampaignContext,
    character: Character,
    points: int,
    how: Message,
    care: str,
    rolls: list[int] | None = None,
) -> None:
    """Natural healing: a negative total is a loss (G-CAMP-4: a low DM makes one worse)."""
    _roll_event(ctx, character, how, points, care=care, rolls=rolls)
    if points < 0:
        _lose(ctx, character, -points, how)
    else:
        _offer(ctx, character, points, how, care)


def _offer(
    ctx: CampaignContext, character: Character, points: int, how: Message, care: str
) -> None:
    """Points the player places (G-CAMP-4): at once when they can go only one way, else the day
    waits for the choice, unless the GM placed this character's choices as suggested."""
    points = min(points, deficit(character))
    if points <= 0:
        return
    downtime = ctx.state["downtime"]
    if points == deficit(character) or len(damaged(character)) == 1:
        place(ctx, character, suggested(character, points), how)
    elif character["id"] in downtime["auto"]:
        place(ctx, character, suggested(character, points), how, by_gm=True)
    else:
        downtime["waiting"][character["id"]] = {"points": points, "care": care, "how": how}
        ctx.emit(
            "RecoveryWaiting",
            message("recovery_waiting", character=character["name"], count=points),
            character=character["id"],
            points=points,
        )


def suggested(character: Character, points: int) -> dict[str, int]:
    """Where the screens suggest a character's points go: a characteristic at zero first (it
    wakes them), then Endurance (its DM drives healing), then the most damaged."""
    values = {c: int(character[c]["value"]) for c in CHARACTERISTICS}
    placed = dict.fromkeys(CHARACTERISTICS, 0)
    for _ in range(points):
        open_ = [c for c in CHARACTERISTICS if values[c] < character[c]["max"]]
        if not open_:
            break
        target = min(
            open_,
            key=lambda c: (
                values[c] > 0,
                c != "endurance",
                values[c] - character[c]["max"],
                CHARACTERISTICS.index(c),
            ),
        )
        values[target] += 1
        placed[target] += 1
    return placed


def check_placing(character: Character, points: dict[str, int], owed: int) -> dict[str, int]:
    """G-CAMP-4: every owed point placed, none above a characteristic's maximum."""
    unknown = sorted(set(points) - set(CHARACTERISTICS))
    if unknown:
        raise refuse("BAD_VALUE", "bad_characteristic_field")
    placed = {c: int(points.get(c, 0)) for c in CHARACTERISTICS}
    for c, n in placed.items():
        room = character[c]["max"] - character[c]["value"]
        if n < 0 or n > room:
            raise refuse("ABOVE_MAXIMUM", field=c, most=room)
    if sum(placed.values()) != owed:
        raise refuse("PLACE_EVERY_POINT", count=owed)
    return placed


def place(
    ctx: CampaignContext,
    character: Character,
    placed: dict[str, int],
    how: Message,
    *,
    by_gm: bool = False,
) -> None:
    was = character["status"]
    was_serious = seriously_wounded(character)
    for c, n in placed.items():
        character[c]["value"] += n
    status = restatus(character)
    changes = [[c, n] for c, n in placed.items() if n]
    ctx.emit(
        "CharacteristicsRestored",
        message(
            "characteristics_restored", character=character["name"], changes=changes, status=status
        ),
        character=character["id"],
        restored={c: n for c, n in placed.items() if n},
        status=status,
        was=was,
        how=how,
        by_gm=by_gm,
    )
    if was_serious and not seriously_wounded(character):
        # G-CAMP-7: one characteristic back at its maximum ends serious wounds.
        ctx.emit(
            "SeriousWoundsEnded",
            message("serious_wounds_ended", character=character["name"]),
            character=character["id"],
        )


def _spread_evenly(ctx: CampaignContext, character: Character, points: int, how: Message) -> None:
    """G-CAMP-5: medical care's points divided evenly among the damaged characteristics; what
    cannot be divided goes to the most damaged first, and nothing above a maximum."""
    placed = dict.fromkeys(CHARACTERISTICS, 0)
    left = min(points, deficit(character))
    while left > 0:
        open_ = [
            c for c in CHARACTERISTICS if character[c]["value"] + placed[c] < character[c]["max"]
        ]
        share, extra = divmod(left, len(open_))
        by_need = sorted(
            open_,
            key=lambda c: (
                character[c]["value"] + placed[c] - character[c]["max"],
                CHARACTERISTICS.index(c),
            ),
        )
        for rank, c in enumerate(by_need):
            room = character[c]["max"] - character[c]["value"] - placed[c]
            give = min(room, share + (1 if rank < extra else 0))
            placed[c] += give
            left -= give
    if any(placed.values()):
        place(ctx, character, placed, how)


def _lose(ctx: CampaignContext, character: Character, points: int, how: Message) -> None:
    """Points lost (a bad day, a failed surgery) come off as damage does (G-CREW-2): Endurance
    first, then the higher of Strength and Dexterity."""
    was = character["status"]
    lost: dict[str, int] = {}
    for _ in range(points):
        if character["endurance"]["value"] > 0:
            target = "endurance"
        else:
            options = [c for c in ("strength", "dexterity") if character[c]["value"] > 0]
            if not options:
                break
            target = max(options, key=lambda c: character[c]["value"])
        character[target]["value"] -= 1
        lost[target] = lost.get(target, 0) + 1
    status = restatus(character)
    ctx.emit(
        "CharacteristicsLost",
        message(
            "characteristics_lost",
            character=character["name"],
            changes=[[c, -n] for c, n in lost.items()],
            status=status,
        ),
        character=character["id"],
        lost=lost,
        status=status,
        was=was,
        how=how,
    )
    if status == "dead" and was != "dead":
        character["died"] = {"day": ctx.state["day"]}
        ctx.emit(
            "CharacterDied",
            message("character_died_in_downtime", character=character["name"], day=ctx.day),
            character=character["id"],
        )
