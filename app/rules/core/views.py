"""The only ways state leaves the engine: one view per audience, with every secret stripped.

A station sees its own hand and its own unrevealed order, nobody else's; the display sees
nothing hidden; the GM sees everything.
"""

from __future__ import annotations

from typing import Any

from ..content import RANGE_BANDS, ROLES
from .combat import can_end
from .crew import CHARACTERISTICS
from .evening import standing_by
from .gm import SOUND_DEFAULTS
from .hooks import HOOKS
from .messages import message, said, term
from .orders import default_weapons, out_of_reach_now
from .phases import ACTIONS, RESOLVE_STEPS, actions_for
from .report import ATTACKS
from .resolve import describe_order
from .state import (
    State,
    card_of,
    distance,
    hand_limit,
    health,
    manned,
    operational,
    out_of_the_fight,
    players_side,
    range_band,
    role_label,
    seat_station,
    station_key,
)

View = dict[str, Any]
Viewer = Any  # "gm" | "display" | ("seat", seat_id)
# G-END-1: why a phone aboard a ship out of the fight gives no more orders.
SHIP_OUT_DOWN = {
    "destroyed": "down_ship_destroyed",
    "fled": "down_ship_fled",
    "surrendered": "down_ship_surrendered",
}


def ships_in_order(state: State) -> list[dict[str, Any]]:
    """Player ships first, then by id. Storage (JSONB) does not keep key order, so views fix
    their own, and every screen lists ships and stations the same way whatever the source."""
    return sorted(state["ships"].values(), key=lambda s: (s["crew"] != "players", s["id"]))


def stations_in_order(ship: dict[str, Any]) -> list[dict[str, Any]]:
    rank = {role: i for i, role in enumerate(ROLES)}
    return sorted(ship["stations"].values(), key=lambda st: (rank.get(st["role"], 99), st["id"]))


def _game(state: State) -> View:
    return {
        "scenario": state["scenario"],
        "turn": state["turn"],
        "combat": state["combat"],
        # A combat of this battle is over: not one fought before the table moved on (E-EVENING-1).
        "combat_over": state["phase"] == "downtime"
        and state["combat"] > state.get("combats_before", 0),
        "phase": state["phase"],
        "phase_label": term("phase", state["phase"]),
        "deadline": state["deadline"],
        "paused": state["paused"],
        "red_alert": state["red_alert"],
        "sound": {
            **{name: state["settings"].get(name, v) for name, v in SOUND_DEFAULTS.items()},
            "played": state.get("sound_played"),  # the last sound the GM or a cue played
        },
        "language": state["settings"].get("display_language", "en"),  # the projector's
        "modules": list(state["modules"]),
        "map": _map(state),
    }


def _map(state: State) -> View:
    drawn = HOOKS.map_view(state)
    if drawn is not None:
        return drawn
    settings = state["settings"]
    return {"kind": "grid", "width": settings["map_width"], "height": settings["map_height"]}


def _track(track: dict[str, Any]) -> View:
    return {
        "boxes": track["boxes"],
        "damage": track["damage"],
        "health": health(track),
        "red": list(track["red"]),
    }


def _ships(state: State) -> list[View]:
    ships = []
    ours = players_side(state)
    for ship in ships_in_order(state):
        stations = []
        for st in stations_in_order(ship):
            crew = st["crew"]
            stations.append(
                {
                    "id": st["id"],
                    "role": st["role"],
                    "label": role_label(st),
                    **_track(st),
                    "hand_limit": hand_limit(st),
                    "operational": operational(st),
                    "manned": manned(state, st),
                    "crew": crew["name"] if crew else None,
                    "character": crew.get("character") if crew else None,
                }
            )
        shields = ship["shields"]
        ships.append(
            {
                "id": ship["id"],
                "name": ship["name"],
                "class_name": ship["class_name"],
                "crew": ship["crew"],
                "side": ship["side"],
                "players_side": ship["side"] == ours,  # the side the players crew (G-SHIP-1)
                "x": ship["x"],
                "y": ship["y"],
                "defence": ship["defence"],
                "destroyed": ship["destroyed"],
                "out": ship.get("out"),
                "hull": _track(ship["hull"]),
                "shields": {**_track(shields), "active": shields["active"]},
                "stations": stations,
                "weapons": [dict(w) for w in ship["weapons"]],
            }
        )
        for part in HOOKS.ship_view(state, ship):
            ships[-1].update(part)
    return ships


def _players(ship: dict[str, Any], side: str | None) -> bool:
    return bool(ship["side"] == side or ship["crew"] == "players")


def _distances(state: State) -> list[View]:
    """The distances the screens show, not every pair: from each players' ship to every other
    ship (the tables, a phone's contacts and targets, the GM's NPC orders against the players)."""
    ships = ships_in_order(state)
    side = players_side(state)
    return [
        _distance(a, b)
        for i, a in enumerate(ships)
        for b in ships[i + 1 :]
        if _players(a, side) or _players(b, side)
    ]


def _distance(a: dict[str, Any], b: dict[str, Any]) -> View:
    band = range_band(a, b)
    return {
        "a": a["id"],
        "b": b["id"],
        "squares": distance(a, b),  # zone steps on a zone map
        "band": term("band", band.label if band else "out_of_range"),
    }


def _ready(state: State) -> View:
    """Who has given orders, never what: each ship's stations with an order in, in their order.
    Apart from the ships, so that an order changes this part of every view and nothing else."""
    orders = state["orders"]
    return {
        ship["id"]: [st["id"] for st in stations_in_order(ship) if station_key(ship, st) in orders]
        for ship in ships_in_order(state)
    }


def _log(state: State) -> list[View]:
    """The log, each entry numbered (`n`, rising), so a screen can take the new ones alone. Entries
    logged before entries were numbered count back from the newest numbered one."""
    entries = [said(entry) for entry in state["log"]]
    for place, entry in enumerate(entries):
        if "n" not in entry:
            entries[place] = {**entry, "n": place - len(entries)}
    return entries


def _revealed(state: State) -> View | None:
    """Orders are public only once revealed; during Orders this is the previous turn's reveal."""
    revealed = state["revealed"]
    if revealed is None:
        return None
    orders = []
    steps = [step for step, _ in RESOLVE_STEPS]
    by_step = sorted(
        revealed["orders"].values(),
        key=lambda o: (
            steps.index(ACTIONS[o["action"]]["step"]) if o["action"] in ACTIONS else len(steps),
            o["ship"],
            o["station"],
        ),
    )
    for order in by_step:
        ship = state["ships"][order["ship"]]
        station = ship["stations"][order["station"]]
        orders.append({**order, **describe_order(state, ship, station, order)})
    results = [public_event(e) for e in revealed["results"]]
    return {
        "turn": revealed["turn"],
        "ships": _turn_tally(state, results),
        "orders": orders,
        "results": [said(e) for e in results],
    }


def _turn_tally(state: State, results: list[dict[str, Any]]) -> list[View]:
    """What the turn did to each ship, for the room to take in before the dice: its attacks and
    strikes and how many hit, the damage it dealt, the Hull and Shields it lost, whether it was
    destroyed. Ships that neither attacked nor were hit are left out."""
    tally = {
        ship_id: {
            "ship": ship_id,
            "name": ship["name"],
            "side": ship["side"],
            "attacks": 0,
            "hits": 0,
            "damage_dealt": 0,
            "hull_lost": 0,
            "shields_lost": 0,
            "destroyed": False,
        }
        for ship_id, ship in state["ships"].items()
    }
    for event in results:
        line = tally.get(str(event.get("ship")))
        if line is None:
            continue
        kind = event["type"]
        if kind == "HullHit":
            line["hull_lost"] += 1
        elif kind == "ShieldsHit":
            line["shields_lost"] += int(event["points"])
        elif kind == "ShipDestroyed":
            line["destroyed"] = True
        elif kind in ATTACKS or kind in HOOKS.report_attacks:
            line["attacks"] += 1
            if event.get("hit"):
                line["hits"] += 1
                line["damage_dealt"] += int(event.get("damage") or 0)
    return [
        line
        for line in tally.values()
        if line["attacks"] or line["hull_lost"] or line["shields_lost"] or line["destroyed"]
    ]


def public_event(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k not in ("secret", "secret_for", "secret_seats")}


def _cards(state: State, ids: list[str]) -> list[View]:
    return [dict(card_of(state, c)) for c in ids]


def shared_view(state: State) -> View:
    """What every audience's view shows of this state: made once, it can be handed to each view
    function when several views of one state are wanted together. Those views then share its
    parts, so they are for reading only."""
    shared: View = {
        "game": _game(state),
        "ships": _ships(state),
        "distances": _distances(state),
        "revealed": _revealed(state),
        "ready": _ready(state),
        "log": _log(state),
        "combat_can_end": can_end(state),  # G-END-1: public, as what it rests on is
        "range_bands": [
            {
                "label": term("band", b.label),
                "squares": f"{b.min_squares}–{b.max_squares}",
                "to_hit": b.to_hit,
            }
            for b in RANGE_BANDS
        ],
    }
    for name, part in HOOKS.shared_views.items():  # M-WEAPONS-3: torpedoes in flight, holds
        shared[name] = part(state)
    return shared


def _common(state: State, shared: View | None) -> View:
    return shared_view(state) if shared is None else dict(shared)


def display_view(state: State, shared: View | None = None) -> View:
    view = _common(state, shared)
    view["viewer"] = {"role": "display"}
    view["messages"] = [m for m in state["messages"] if m["to"] == "all"]
    return view


def _character(state: State, character_id: str | None) -> View | None:
    if character_id is None:
        return None
    ch = state["characters"][character_id]
    return {
        "id": ch["id"],
        "name": ch["name"],
        "armour": ch["armour"],
        "status": ch["status"],
        "medicine": ch["medicine"],
        **{c: dict(ch[c]) for c in CHARACTERISTICS},
    }


def _standing_by(state: State, seat: str) -> View | None:
    """E-EVENING-1: a player this battle has no station for stays on the table's roster; their
    phone says so, with the name and character they come back with."""
    entry = standing_by(state, seat)
    if entry is None:
        return None
    character = state["characters"].get(entry.get("character") or "")
    return {
        "name": entry["name"],
        "character": character["name"] if character else None,
        "role": term("station", entry["role"]),
    }


def station_view(state: State, seat: str, shared: View | None = None) -> View:
    view = _common(state, shared)
    view["viewer"] = {"role": "seat", "seat": seat}
    view["standing_by"] = None
    found = seat_station(state, seat)
    if found is None:
        view["me"] = None
        view["messages"] = [m for m in state["messages"] if m["to"] == "all"]
        view["standing_by"] = _standing_by(state, seat)
        return view
    ship, station = found
    side = players_side(state)
    if not _players(ship, side):  # a seat kept from before NPC ships were closed to players
        npc_ships = [s for s in ships_in_order(state) if s is not ship and not _players(s, side)]
        view["distances"] = [*view["distances"], *(_distance(ship, s) for s in npc_ships)]
    key = station_key(ship, station)
    order = state["orders"].get(key)
    allocation = None
    if state["allocation"] and station["role"] == "engineering":
        prompt = state["allocation"]["ships"].get(ship["id"])
        if prompt is not None:
            allocation = {**prompt, "deadline": state["deadline"]}
    down = None
    if not operational(station):
        down = message("down_engineering" if station["role"] == "engineering" else "down_station")
    elif not manned(state, station):
        # G-CREW-3 / M-SEATS-3: the phone says why the station no longer answers to them.
        status = state["characters"][station["crew"]["character"]]["status"]
        others = HOOKS.others_may_take(state)
        if status == "unconscious":
            down = message("down_unconscious_others" if others else "down_unconscious")
        else:
            down = message("down_dead_others" if others else "down_dead")
    out = out_of_the_fight(ship)
    if out is not None:  # G-END-1: a ship out of the fight gives no more orders
        down = message(SHIP_OUT_DOWN[out], ship=ship["name"])
    view["me"] = {
        "ship": ship["id"],
        "ship_name": ship["name"],
        "station": station["id"],
        "role": station["role"],
        "label": role_label(station),
        "name": station["crew"]["name"],
        "character": _character(state, station["crew"].get("character")),
        "hand": _cards(state, station["hand"]),
        "hand_limit": hand_limit(station),
        "health": health(station),
        "boxes": station["boxes"],
        "damage": station["damage"],
        "red": list(station["red"]),
        "operational": operational(station),
        "down": down,
        "actions": [
            {"id": a, "label": term("action", a), "kinds": sorted(ACTIONS[a]["kinds"])}
            for a in actions_for(station["role"])
            if HOOKS.offers(state, ship, a)
        ],
        "order": order,
        # Whether the phone may give an order now: in Orders, from a ship still there, and from
        # a station that is not down but for Engineering's (G-DMG-7, G-DMG-8).
        "can_order": state["phase"] == "orders"
        and out is None
        and (down is None or station["role"] == "engineering"),
        "allocation": allocation,
        # G-TURN-4: enemies none of this ship's weapons reach from where the ships stand now
        # (an attack on them is accepted; it hits only if the range closes first).
        "out_of_reach_now": sorted(
            other["id"]
            for other in state["ships"].values()
            if other["side"] != ship["side"]
            and ship["weapons"]
            and out_of_reach_now(ship, other, [w["id"] for w in ship["weapons"]])
        ),
        # G-HIT-4: per enemy ship, what an attack on it fires when the player ticks nothing
        # else, so the phone ticks the same weapons.
        "default_weapons": {
            other["id"]: default_weapons(state, ship, other)
            for other in state["ships"].values()
            if other["side"] != ship["side"] and not other["destroyed"]
        }
        if station["role"] == "weapons"
        else {},
    }
    for name, part in HOOKS.station_views.items():
        view["me"][name] = part(state, ship, seat, view)
    # Private messages are for the seats they were sent to: a player who takes the station later
    # does not read the one before them's (a message kept from before seats were recorded has
    # none, and shows to nobody but the GM).
    view["messages"] = [
        m for m in state["messages"] if m["to"] == "all" or seat in m.get("seats", ())
    ]
    return view


def gm_view(state: State, shared: View | None = None) -> View:
    view = _common(state, shared)
    view["viewer"] = {"role": "gm"}
    # By ship, then station: a screen draws each ship apart (app/web/render.py).
    view["hands"] = {
        ship["id"]: {st["id"]: _cards(state, st["hand"]) for st in stations_in_order(ship)}
        for ship in ships_in_order(state)
    }
    view["orders"] = {ship["id"]: {} for ship in ships_in_order(state)}
    # Which seat holds each crewed station: the web layer knows which seats' phones are connected.
    view["seats"] = {
        ship["id"]: {st["id"]: st["crew"]["seat"] for st in stations_in_order(ship) if st["crew"]}
        for ship in ships_in_order(state)
    }
    for order in state["orders"].values():
        view["orders"].setdefault(order["ship"], {})[order["station"]] = order
    view["characters"] = [_character(state, cid) for cid in state["characters"]]
    view["modifiers"] = list(state["modifiers"])
    view["allocation"] = state["allocation"]
    view["can_undo"] = bool(state["undo"] and state["undo"]["turn"] == state["turn"])
    view["settings"] = dict(state["settings"])
    view["messages"] = list(state["messages"])
    for name, part in HOOKS.gm_views.items():  # M-NPC-1/2: Crew Quality, for the GM only
        view[name] = part(state)
    classes = state["sheets"]["classes"] if "sheets" in state else {}
    view["ship_classes"] = sorted(
        ({"id": k, "name": v["name"]} for k, v in classes.items()), key=lambda c: c["name"]
    )
    return view


def event_view(event: dict[str, Any], viewer: Viewer) -> dict[str, Any] | None:
    """An event as one viewer may see it: its secret only for the GM and the seats that held its
    station (or ship) when it happened (`secret_seats`), never for whoever holds it later. An
    event stored before seats were recorded has none: only the GM sees its secret.

    Returns None for a private event that says nothing to this viewer (e.g. another station's
    message).
    """
    if viewer == "gm" or "secret" not in event:
        return event
    seats = event.get("secret_seats", ())
    if isinstance(viewer, tuple) and viewer[0] == "seat" and viewer[1] in seats:
        return event
    if "words" not in event:
        return None
    return public_event(event)
