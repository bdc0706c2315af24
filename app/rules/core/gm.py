"""The GM's corrections and adjudications: any track, any value, bonuses, first aid, seats."""

from __future__ import annotations

import re
from typing import Any

from ..content import MODULES, SHIPS_MAX, SOUNDS
from . import commands as c
from .cards import draw_up, enforce_limit, joins_orders, return_skill_cards
from .combat import check_open_to_players
from .context import Context
from .crew import CHARACTERISTICS, FIRST_AID_TARGET, heal, status_of
from .damage import destroy
from .errors import refuse
from .hooks import HOOKS
from .messages import message
from .names import CREW_NAME_LENGTH, SHIP_NAME_LENGTH, checked_name
from .resolve import add_modifier
from .sheets import build_ship
from .state import (
    get_character,
    get_ship,
    get_station,
    health,
    manned,
    role_label,
    seats_at,
    station_key,
)

MODIFIER_TARGETS = ("attack", "defence", "repair", "station")


def impose_modifier(ctx: Context, cmd: c.ImposeModifier) -> None:
    ship = get_ship(ctx.state, cmd.ship)
    if cmd.applies not in MODIFIER_TARGETS:
        raise refuse("BAD_MODIFIER", known=list(MODIFIER_TARGETS))
    if cmd.applies == "station":
        get_station(ship, cmd.station)
    if not -20 <= cmd.value <= 20 or cmd.value == 0:
        raise refuse("BAD_VALUE", "bad_modifier_value")
    reason = cmd.reason.strip()
    if not reason:
        raise refuse("NO_REASON")
    if cmd.lasting not in ("turn", "combat"):
        raise refuse("BAD_VALUE", "bad_modifier_lasting")
    until = None
    if cmd.lasting == "turn":
        phase = ctx.state["phase"]
        if phase == "downtime":  # the next turn is turn 1 of the next combat
            turn = 1
        else:
            turn = ctx.state["turn"] + (0 if phase in ("orders", "allocation") else 1)
        until = {"turn": turn, "step": "end"}
    modifier = add_modifier(
        ctx,
        ship["id"],
        cmd.applies,
        cmd.value,
        reason,
        until,
        station=cmd.station if cmd.applies == "station" else None,
    )
    imposed = {"value": cmd.value, "ship": ship["name"], "reason": reason}
    if cmd.applies == "station":
        imposed["station"] = cmd.station
        words = message(
            "modifier_on_station_for_combat"
            if cmd.lasting == "combat"
            else "modifier_on_station_for_turn",
            **imposed,
        )
    else:
        imposed["applies"] = cmd.applies
        words = message(
            "modifier_for_combat" if cmd.lasting == "combat" else "modifier_for_turn", **imposed
        )
    ctx.emit(
        "ModifierImposed",
        words,
        modifier=modifier,
    )


def remove_modifier(ctx: Context, cmd: c.RemoveModifier) -> None:
    kept = [m for m in ctx.state["modifiers"] if m["id"] != cmd.modifier]
    if len(kept) == len(ctx.state["modifiers"]):
        raise refuse("NO_SUCH_MODIFIER")
    ctx.state["modifiers"] = kept
    ctx.emit("ModifierRemoved", message("modifier_removed"), modifier=cmd.modifier)


def _track(ctx: Context, ship: dict[str, Any], name: str) -> dict[str, Any]:
    if name == "hull":
        return ship["hull"]  # type: ignore[no-any-return]
    if name == "shields":
        if ship["shields"]["boxes"] == 0:
            raise refuse("NO_SHIELDS", ship=ship["name"])
        return ship["shields"]  # type: ignore[no-any-return]
    return get_station(ship, name)


def set_track(ctx: Context, cmd: c.SetTrack) -> None:
    """A correction: sets the damage without the cascades a hit would set off."""
    ship = get_ship(ctx.state, cmd.ship)
    track = _track(ctx, ship, cmd.track)
    if not 0 <= cmd.damage <= track["boxes"]:
        raise refuse("BAD_VALUE", "bad_track_damage", most=track["boxes"])
    before = track["damage"]
    track["damage"] = cmd.damage
    if "suffered" in track and cmd.damage > before:
        track["suffered"] += cmd.damage - before
    if cmd.track == "shields" and health(track) == 0:
        track["active"] = False
    ctx.emit(
        "TrackSet",
        message(
            "track_set",
            ship=ship["name"],
            track=cmd.track,
            left=health(track),
            boxes=track["boxes"],
        ),
        ship=ship["id"],
        track=cmd.track,
        damage=cmd.damage,
    )
    if cmd.track not in ("hull", "shields"):
        enforce_limit(ctx, ship, track)
    if cmd.track == "hull" and health(track) == 0:
        destroy(ctx, ship, by_gm=True)


def set_shields(ctx: Context, cmd: c.SetShields) -> None:
    ship = get_ship(ctx.state, cmd.ship)
    shields = _track(ctx, ship, "shields")
    if cmd.active and health(shields) == 0:
        raise refuse("SHIELDS_EMPTY")
    shields["active"] = cmd.active
    ctx.emit(
        "ShieldsSet",
        message("shields_set_on" if cmd.active else "shields_set_off", ship=ship["name"]),
        ship=ship["id"],
        active=cmd.active,
    )


def set_position(ctx: Context, cmd: c.SetPosition) -> None:
    ship = get_ship(ctx.state, cmd.ship)
    settings = ctx.state["settings"]
    HOOKS.placing(ctx.state, ship)
    if not (0 <= cmd.x < settings["map_width"] and 0 <= cmd.y < settings["map_height"]):
        raise refuse("OFF_MAP")
    ship["x"], ship["y"] = cmd.x, cmd.y
    ctx.emit(
        "ShipPlaced",
        message("ship_placed", ship=ship["name"], x=cmd.x, y=cmd.y),
        ship=ship["id"],
        to=[cmd.x, cmd.y],
    )


def set_ship_value(ctx: Context, cmd: c.SetShipValue) -> None:
    ship = get_ship(ctx.state, cmd.ship)
    before = ship[cmd.field] if cmd.field in ("defence", "name") else None
    if cmd.field == "defence" and isinstance(cmd.value, int) and 0 <= cmd.value <= 20:
        ship["defence"] = cmd.value
    elif cmd.field == "name" and isinstance(cmd.value, str):
        ship["name"] = _new_ship_name(ctx.state["ships"], cmd.value, ship["id"])
    else:
        raise refuse("BAD_VALUE", "bad_ship_value")
    # Said by the name it had: after the change, "set Vengeance's name to Vengeance".
    if cmd.field == "name":
        words = message("ship_renamed", old=before, ship=ship["name"])
    else:
        words = message("ship_value_set", ship=ship["name"], field=cmd.field, value=cmd.value)
    ctx.emit(
        "ShipValueSet",
        words,
        log=ship[cmd.field] != before,  # setting what is already there is nothing to tell
        ship=ship["id"],
        field=cmd.field,
        value=ship[cmd.field],
    )


def set_characteristic(ctx: Context, cmd: c.SetCharacteristic) -> None:
    character = get_character(ctx.state, cmd.character)
    if cmd.field == "armour":
        if not 0 <= cmd.value <= 20:
            raise refuse("BAD_VALUE", "bad_armour")
        character["armour"] = cmd.value
    elif cmd.field in CHARACTERISTICS:
        top = character[cmd.field]["max"]
        if not 0 <= cmd.value <= top:
            raise refuse("BAD_VALUE", "bad_characteristic", field=cmd.field, most=top)
        character[cmd.field]["value"] = cmd.value
        character["status"] = status_of(character)
    else:
        raise refuse("BAD_VALUE", "bad_characteristic_field")
    ctx.emit(
        "CharacteristicSet",
        message(
            "characteristic_set", character=character["name"], field=cmd.field, value=cmd.value
        ),
        character=character["id"],
        field=cmd.field,
        value=cmd.value,
        status=character["status"],
    )


def downtime_repair(ctx: Context, cmd: c.DowntimeRepair) -> None:
    """G-REP-3: the Hull (and anything else) is mended in Downtime, by the GM."""
    ship = get_ship(ctx.state, cmd.ship)
    track = _track(ctx, ship, cmd.track)
    if cmd.points < 1:
        raise refuse("BAD_VALUE", "bad_repair_points")
    restored = min(cmd.points, track["damage"])
    if restored == 0:
        raise refuse("NOTHING_TO_REPAIR")
    track["damage"] -= restored
    ctx.emit(
        "DowntimeRepaired",
        message(
            "downtime_repaired",
            ship=ship["name"],
            track=cmd.track,
            points=restored,
            left=health(track),
            boxes=track["boxes"],
        ),
        ship=ship["id"],
        track=cmd.track,
        restored=restored,
    )


SELF_FIRST_AID = -2


def first_aid(ctx: Context, cmd: c.FirstAid) -> None:
    """G-CREW-4: restores twice the Effect of the Medicine check (2D6 + skill, Effect over 8)."""
    patient = get_character(ctx.state, cmd.character)
    if patient["status"] == "dead":
        raise refuse("CHARACTER_DEAD", character=patient["name"])
    if patient["status"] == "healthy":
        raise refuse("NOT_INJURED", character=patient["name"])
    if cmd.effect is not None:
        if not 0 <= cmd.effect <= 12:
            raise refuse("BAD_VALUE", "bad_effect")
        effect, how = cmd.effect, message("first_aid_ruled", effect=cmd.effect)
    else:
        if cmd.medic is None:
            raise refuse("NO_MEDIC")
        medic = get_character(ctx.state, cmd.medic)
        if _at_station(ctx, medic["id"]):
            raise refuse("MEDIC_AT_STATION", character=medic["name"])
        if medic["status"] in ("unconscious", "dead"):
            raise refuse("MEDIC_INCAPACITATED", character=medic["name"])
        a, b = ctx.dice.roll(6), ctx.dice.roll(6)
        # G-CAMP-6: first aid on oneself is a Difficult (−2) check.
        own = SELF_FIRST_AID if medic is patient else 0
        total = a + b + medic["medicine"] + own
        effect = total - FIRST_AID_TARGET
        how = message(
            "first_aid_roll_self" if own else "first_aid_roll",
            medic=medic["name"],
            a=a,
            b=b,
            medicine=medic["medicine"],
            total=total,
            needed=FIRST_AID_TARGET,
            effect=effect,
        )
        ctx.emit(
            "FirstAidRolled",
            message("first_aid_rolled", character=patient["name"], how=how),
            purpose="first aid",
            character=patient["id"],
            medic=medic["id"],
            rolls=[a, b],
            total=total,
            effect=effect,
        )
    points = 2 * effect if effect > 0 else 0
    if points == 0:
        ctx.emit(
            "FirstAidFailed",
            message("first_aid_failed", character=patient["name"], how=how),
            character=patient["id"],
        )
        return
    heal(ctx, patient, points, how)


def _at_station(ctx: Context, character_id: str) -> bool:
    return any(
        st["crew"] and st["crew"].get("character") == character_id
        for ship in ctx.state["ships"].values()
        for st in ship["stations"].values()
    )


def destroy_ship(ctx: Context, cmd: c.DestroyShip) -> None:
    ship = get_ship(ctx.state, cmd.ship)
    if ship["destroyed"]:
        raise refuse("SHIP_DESTROYED", "ship_already_destroyed", ship=ship["name"])
    destroy(ctx, ship, by_gm=True)


def restore_ship(ctx: Context, cmd: c.RestoreShip) -> None:
    ship = get_ship(ctx.state, cmd.ship)
    if not ship["destroyed"]:
        raise refuse("NOT_DESTROYED", ship=ship["name"])
    ship["destroyed"] = False
    if health(ship["hull"]) == 0:
        ship["hull"]["damage"] = ship["hull"]["boxes"] - 1
    ctx.emit("ShipRestored", message("ship_restored", ship=ship["name"]), ship=ship["id"])
    joins_orders(ctx, ship)


SIDE = re.compile(r"[a-z0-9][a-z0-9-]{0,29}")
SHIP_CREWS = ("npc", "players")


def add_ship(ctx: Context, cmd: c.AddShip) -> None:
    """G-SHIP-1: a ship of any class on the game's sheets, brought in whole: no damage, shields
    raised if it has a generator, its decks shuffled, nobody aboard until someone sits down."""
    sheets = ctx.state.get("sheets")
    if sheets is None:
        raise refuse("NO_SHIP_SHEETS")
    sheet = sheets["classes"].get(cmd.ship_class)
    if sheet is None:
        known = sorted(sheets["classes"])
        raise refuse("NO_SUCH_CLASS", ship_class=cmd.ship_class, known=known)
    ships = ctx.state["ships"]
    name = _new_ship_name(ships, cmd.name)
    if len(ships) >= SHIPS_MAX:  # destroyed ones too: they stay on every screen
        raise refuse("TOO_MANY_SHIPS", most=SHIPS_MAX)
    if not SIDE.fullmatch(cmd.side):
        raise refuse("BAD_SIDE")
    if cmd.crew not in SHIP_CREWS:
        raise refuse("BAD_CREW")
    arrival = HOOKS.arrival(ctx.state, cmd)
    if arrival is not None:
        where, to = arrival
    else:
        if cmd.zone is not None:
            raise refuse("NOT_A_ZONE_MAP", "squares_give_square")
        settings = ctx.state["settings"]
        if not (0 <= cmd.x < settings["map_width"] and 0 <= cmd.y < settings["map_height"]):
            raise refuse("OFF_MAP")
        where, to = message("square", x=cmd.x, y=cmd.y), [cmd.x, cmd.y]
    ship_id = _new_ship_id(ships, name, sheet["id"])
    ship = build_ship(
        sheet,
        sheets["decks"],
        ship_id=ship_id,
        name=name,
        crew=cmd.crew,
        side=cmd.side,
        x=cmd.x if arrival is None else 0,
        y=cmd.y if arrival is None else 0,
        shields_active=True,
    )
    if arrival is not None:
        HOOKS.arrived(ctx.state, ship, to)
    for station in ship["stations"].values():
        ctx.dice.shuffle(station["draw"])
    ships[ship_id] = ship
    ctx.emit(
        "ShipAdded",
        message("ship_added", ship=name, ship_class=sheet["name"], side=cmd.side, where=where),
        ship=ship_id,
        ship_class=sheet["id"],
        side=cmd.side,
        crew=cmd.crew,
        to=to,
    )
    joins_orders(ctx, ship)


def _new_ship_name(ships: dict[str, Any], typed: str, renamed: str | None = None) -> str:
    """A ship's name as the GM typed it, by the players' name rule, and no other ship's (two
    alike could not be told apart on the screens); `renamed` is the ship being renamed."""
    name = checked_name(typed, SHIP_NAME_LENGTH)
    if any(s["name"].casefold() == name.casefold() and s["id"] != renamed for s in ships.values()):
        raise refuse("NAME_TAKEN", ship=name)
    return name


def _new_ship_id(ships: dict[str, Any], name: str, fallback: str) -> str:
    """A slug of the name (ids name cards, `ship.station.card`, so no dots), unique in the game."""
    base = re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-")[:30] or fallback
    ship_id, n = base, 1
    while ship_id in ships:
        n += 1
        ship_id = f"{base}-{n}"
    return ship_id


def seat_crew(ctx: Context, cmd: c.SeatCrew) -> None:
    ship = get_ship(ctx.state, cmd.ship)
    station = get_station(ship, cmd.station)
    check_open_to_players(ship)
    if station["crew"] is not None:
        raise refuse("STATION_TAKEN", station=role_label(station), ship=ship["name"])
    name = checked_name(cmd.name, CREW_NAME_LENGTH)  # the join form's rule, for the GM's too
    for other in ctx.state["ships"].values():
        for st in other["stations"].values():
            if st["crew"] and st["crew"]["seat"] == cmd.seat:
                raise refuse("SEAT_TAKEN")
    if cmd.character is not None:
        character = get_character(ctx.state, cmd.character)
        if _at_station(ctx, character["id"]):
            raise refuse("CHARACTER_TAKEN", character=character["name"])
    station["crew"] = {"seat": cmd.seat, "name": name, "character": cmd.character}
    ctx.emit(
        "CrewSeated",
        message("crew_seated", crew=name, station=role_label(station), ship=ship["name"]),
        ship=ship["id"],
        station=station["id"],
        seat=cmd.seat,
        name=name,
        character=cmd.character,
    )
    if ctx.state["phase"] != "downtime" and not ship["destroyed"] and manned(ctx.state, station):
        draw_up(ctx, ship, station)  # G-CREW-3: an unconscious newcomer does not man it yet


def unseat_crew(ctx: Context, cmd: c.UnseatCrew) -> None:
    ship = get_ship(ctx.state, cmd.ship)
    station = get_station(ship, cmd.station)
    crew = station["crew"]
    if crew is None:
        raise refuse("STATION_EMPTY", station=role_label(station), ship=ship["name"])
    return_skill_cards(ctx, station)
    station["crew"] = None
    ctx.state["orders"].pop(station_key(ship, station), None)
    ctx.emit(
        "CrewUnseated",
        message("crew_unseated", crew=crew["name"], station=role_label(station), ship=ship["name"]),
        ship=ship["id"],
        station=station["id"],
        seat=crew["seat"],
    )
    HOOKS.seat_freed(ctx)  # M-SEATS-1: a player waiting for this station takes it now


def send_message(ctx: Context, cmd: c.SendMessage) -> None:
    text = cmd.text.strip()
    if not 1 <= len(text) <= 280:
        raise refuse("BAD_MESSAGE")
    if cmd.to != "all":
        ship_id, _, station_id = cmd.to.partition("/")
        ship = get_ship(ctx.state, ship_id)
        if station_id:
            get_station(ship, station_id)
    sent = {"id": ctx.next_id(), "to": cmd.to, "text": text, "turn": ctx.state["turn"]}
    if cmd.actor.role == "system":  # a cue's: the scenario's words, which screens translate
        sent["scripted"] = True
    if cmd.to != "all":  # for whoever is there now; a player who takes the station later is not
        sent["seats"] = seats_at(ctx.state, cmd.to)
    ctx.state["messages"].append(sent)
    del ctx.state["messages"][:-20]
    if cmd.to == "all":
        words = (
            message("scripted_message_to_all", line=text)
            if sent.get("scripted")
            else message("message_to_all", text=text)
        )
        ctx.emit("MessageSent", words, message=sent)
    else:
        ctx.emit(
            "MessageSent", None, log=False, to=cmd.to, secret_for=cmd.to, secret={"message": sent}
        )


def set_red_alert(ctx: Context, cmd: c.SetRedAlert) -> None:
    ctx.state["red_alert"] = cmd.on
    ctx.emit("RedAlertSet", message("red_alert_on" if cmd.on else "red_alert_off"), on=cmd.on)


def play_sound(ctx: Context, cmd: c.PlaySound) -> None:
    """The sound is numbered, so the projector plays it again when it comes again."""
    if cmd.sound not in SOUNDS:
        raise refuse("UNKNOWN_SOUND", sound=cmd.sound, known=list(SOUNDS))
    played = ctx.state.get("sound_played") or {"n": 0}
    ctx.state["sound_played"] = {"sound": cmd.sound, "n": played["n"] + 1}
    ctx.emit("SoundPlayed", message("sound_played", sound=cmd.sound), sound=cmd.sound)


def set_module(ctx: Context, cmd: c.SetModule) -> None:
    if cmd.module not in MODULES:
        raise refuse("UNKNOWN_MODULE", module=cmd.module, known=list(MODULES))
    modules = set(ctx.state["modules"])
    modules.add(cmd.module) if cmd.on else modules.discard(cmd.module)
    ctx.state["modules"] = sorted(modules)
    ctx.emit(
        "ModuleSet",
        message("module_on" if cmd.on else "module_off", module=cmd.module),
        module=cmd.module,
        on=cmd.on,
    )


# The settings the GM may change mid-game, and their bounds; a module adds its own (HOOKS.settings).
SETTINGS_RANGES = {
    "orders_seconds": (0, 3600),
    "allocation_seconds": (5, 600),
    "sound_volume": (0, 100),
}
# The projector's sound: not in scenarios, so games start with these and older saved
# games read them as set.
SOUND_DEFAULTS: dict[str, int | bool] = {"sound": True, "sound_volume": 80}


_LOCALE_CODE = re.compile(r"[a-z]{2,3}(_[A-Z]{2})?")


def set_display_language(ctx: Context, cmd: c.SetDisplayLanguage) -> None:
    if not _LOCALE_CODE.fullmatch(cmd.language):
        raise refuse("BAD_VALUE", "bad_display_language")
    ctx.state["settings"]["display_language"] = cmd.language
    name, value = "display_language", cmd.language
    words = message("display_language_set", language=value)
    ctx.emit("SettingSet", words, name=name, value=value)


def set_setting(ctx: Context, cmd: c.SetSetting) -> None:
    if cmd.name in ("close_when_all_ready", "sound"):
        if not isinstance(cmd.value, bool):
            raise refuse("BAD_VALUE", "setting_true_or_false", setting=cmd.name)
    elif cmd.name in SETTINGS_RANGES or cmd.name in HOOKS.settings:
        low, high = SETTINGS_RANGES.get(cmd.name) or HOOKS.settings[cmd.name]
        if isinstance(cmd.value, bool) or not low <= cmd.value <= high:
            raise refuse(
                "BAD_VALUE", "setting_out_of_range", setting=cmd.name, least=low, most=high
            )
    else:
        raise refuse("UNKNOWN_SETTING", setting=cmd.name)
    ctx.state["settings"][cmd.name] = cmd.value
    ctx.emit(
        "SettingSet",
        message("setting_set", setting=cmd.name, value=cmd.value),
        name=cmd.name,
        value=cmd.value,
    )
