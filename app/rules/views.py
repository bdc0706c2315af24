"""The only ways state leaves the engine: one view per audience, with every secret stripped.

A station sees its own hand and its own unrevealed order, nobody else's; the display sees
nothing hidden; the GM sees everything.
"""

from __future__ import annotations

from typing import Any

from . import weapons as weapon_rules
from .combat import can_end
from .content import RANGE_BANDS, ROLES
from .crew import CHARACTERISTICS
from .gm import SOUND_DEFAULTS
from .npc import automated as npc_automated
from .npc import quality as npc_quality
from .orders import out_of_reach_now
from .phases import ACTIONS, PHASES, RESOLVE_STEPS, actions_for
from .resolve import describe_order
from .state import (
    State,
    card_of,
    distance,
    hand_limit,
    health,
    manned,
    operational,
    range_band,
    role_label,
    seat_station,
    station_key,
)
from .zone_views import map_view, ship_zone_view

View = dict[str, Any]
Viewer = Any  # "gm" | "display" | ("seat", seat_id)


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
        "phase": state["phase"],
        "phase_label": PHASES[state["phase"]]["label"],
        "deadline": state["deadline"],
        "paused": state["paused"],
        "red_alert": state["red_alert"],
        "sound": {name: state["settings"].get(name, v) for name, v in SOUND_DEFAULTS.items()},
        "language": state["settings"].get("display_language", "en"),  # the projector's
        "modules": list(state["modules"]),
        "map": map_view(state),
    }


def _track(track: dict[str, Any]) -> View:
    return {
        "boxes": track["boxes"],
        "damage": track["damage"],
        "health": health(track),
        "red": list(track["red"]),
    }


def _ships(state: State) -> list[View]:
    ships = []
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
                    "ready": station_key(ship, st) in state["orders"],
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
                "x": ship["x"],
                "y": ship["y"],
                "defence": ship["defence"],
                "destroyed": ship["destroyed"],
                "out": ship.get("out"),
                "hull": _track(ship["hull"]),
                "shields": {**_track(shields), "active": shields["active"]},
                "stations": stations,
                "weapons": [dict(w) for w in ship["weapons"]],
                **ship_zone_view(state, ship),
            }
        )
    return ships


def _distances(state: State) -> list[View]:
    ships = ships_in_order(state)
    out = []
    for i, a in enumerate(ships):
        for b in ships[i + 1 :]:
            band = range_band(a, b)
            out.append(
                {
                    "a": a["id"],
                    "b": b["id"],
                    "squares": distance(a, b),  # zone steps on a zone map
                    "band": band.label if band else "Out of range",
                }
            )
    return out


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
        orders.append({**order, "text": describe_order(state, ship, station, order)})
    return {
        "turn": revealed["turn"],
        "orders": orders,
        "results": [public_event(e) for e in revealed["results"]],
    }


def public_event(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k not in ("secret", "secret_for", "secret_seats")}


def _cards(state: State, ids: list[str]) -> list[View]:
    return [dict(card_of(state, c)) for c in ids]


def shared_view(state: State) -> View:
    """What every audience's view shows of this state: made once, it can be handed to each view
    function when several views of one state are wanted together. Those views then share its
    parts, so they are for reading only."""
    return {
        "game": _game(state),
        "ships": _ships(state),
        "distances": _distances(state),
        "revealed": _revealed(state),
        "log": list(state["log"]),
        "weapons": weapon_rules.public_view(state),  # M-WEAPONS-3: torpedoes in flight, holds
        "combat_can_end": can_end(state),  # G-END-1: public, as what it rests on is
        "range_bands": [
            {"label": b.label, "squares": f"{b.min_squares}–{b.max_squares}", "to_hit": b.to_hit}
            for b in RANGE_BANDS
        ],
    }


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


def station_view(state: State, seat: str, shared: View | None = None) -> View:
    view = _common(state, shared)
    view["viewer"] = {"role": "seat", "seat": seat}
    found = seat_station(state, seat)
    if found is None:
        view["me"] = None
        view["messages"] = [m for m in state["messages"] if m["to"] == "all"]
        return view
    ship, station = found
    key = station_key(ship, station)
    order = state["orders"].get(key)
    allocation = None
    if state["allocation"] and station["role"] == "engineering":
        prompt = state["allocation"]["ships"].get(ship["id"])
        if prompt is not None:
            allocation = {**prompt, "deadline": state["deadline"]}
    down = None
    if not operational(station):
        down = (
            "Engineering is at zero: you may only repair Engineering."
            if station["role"] == "engineering"
            else "Your station is at zero health: no cards until Engineering repairs it."
        )
    elif not manned(state, station):
        # G-CREW-3 / M-SEATS-3: the phone says why the station no longer answers to them.
        status = state["characters"][station["crew"]["character"]]["status"]
        down = f"Your character is {status}: the station is unmanned" + (
            " until first aid." if status == "unconscious" else "."
        )
        if "seats" in state["modules"]:
            down += " Another crew member may take it."
    if ship["destroyed"]:
        down = f"{ship['name']} has been destroyed."
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
        "operational": operational(station),
        "down": down,
        "actions": [
            {"id": a, "label": ACTIONS[a]["label"], "kinds": sorted(ACTIONS[a]["kinds"])}
            for a in actions_for(station["role"])
            if weapon_rules.offers(state, ship, a)
        ],
        "order": order,
        "allocation": allocation,
        "weapons": weapon_rules.station_part(state, ship, view["weapons"]),
        # M-SEATS-1: the station this player waits to move to, if any.
        "moving_to": (state.get("seat_moves") or {}).get(seat, {}).get("to"),
        # G-TURN-4: enemies none of this ship's weapons reach from where the ships stand now
        # (an attack on them is accepted; it hits only if the range closes first).
        "out_of_reach_now": sorted(
            other["id"]
            for other in state["ships"].values()
            if other["side"] != ship["side"]
            and ship["weapons"]
            and out_of_reach_now(ship, other, [w["id"] for w in ship["weapons"]])
        ),
    }
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
    view["hands"] = {
        station_key(ship, st): _cards(state, st["hand"])
        for ship in ships_in_order(state)
        for st in stations_in_order(ship)
    }
    view["orders"] = dict(state["orders"])
    view["characters"] = [_character(state, cid) for cid in state["characters"]]
    view["modifiers"] = list(state["modifiers"])
    view["allocation"] = state["allocation"]
    view["can_undo"] = bool(state["undo"] and state["undo"]["turn"] == state["turn"])
    view["settings"] = dict(state["settings"])
    view["messages"] = list(state["messages"])
    # M-NPC-1/2: each NPC ship's Crew Quality and automation, for the GM only.
    view["npc"] = {
        s["id"]: {"quality": npc_quality(s), "auto": npc_automated(s)}
        for s in ships_in_order(state)
        if s["crew"] == "npc"
    }
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
    if not event.get("text"):
        return None
    return public_event(event)
