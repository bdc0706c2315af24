"""Commands: what a station, the GM or the server's clock asks the engine to do.

Each command is a small frozen dataclass named as a verb. `parse_command` builds one from JSON,
checking every field, so the web layer never hands the engine an ill-formed request.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from .errors import refuse


@dataclass(frozen=True)
class Actor:
    """Who gives a command: the GM, one seat, the server itself (timers), or a prop on the set
    (a button's signal over MQTT, which may only fire the cues a scenario gives its props)."""

    role: Literal["gm", "seat", "system", "prop"]
    seat: str | None = None

    @classmethod
    def gm(cls) -> Actor:
        return cls("gm")

    @classmethod
    def for_seat(cls, seat: str) -> Actor:
        return cls("seat", seat)

    @classmethod
    def system(cls) -> Actor:
        return cls("system")

    @classmethod
    def prop(cls) -> Actor:
        return cls("prop")

    @property
    def is_gm(self) -> bool:
        return self.role in ("gm", "system")


@dataclass(frozen=True)
class Command:
    """Base of every command. `now` is epoch seconds, set by the caller for anything timed."""

    actor: Actor = field(default_factory=Actor.gm, kw_only=True)
    now: float = field(default=0.0, kw_only=True)
    gm_only: ClassVar[bool] = True
    props_may: ClassVar[bool] = False  # a prop gives only the commands that say so

    @property
    def type(self) -> str:
        return type(self).__name__


# --- Station commands ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SubmitOrder(Command):
    """Give (or replace) this turn's secret order for one station."""

    gm_only: ClassVar[bool] = False
    ship: str
    station: str
    action: str
    cards: tuple[str, ...] = ()
    target: str | None = None
    target_station: str | None = None
    weapons: tuple[str, ...] = ()
    x: int | None = None
    y: int | None = None
    value: int | None = None  # only the GM may give a bare value (NPC ships have no hands)
    zone: str | None = None  # a manoeuvre's destination on a zone map (G-ZONE-3)
    override: str | None = None  # M-SEATS-2: give this other station's order from `station`


@dataclass(frozen=True)
class PassOrder(Command):
    gm_only: ClassVar[bool] = False
    ship: str
    station: str


@dataclass(frozen=True)
class WithdrawOrder(Command):
    gm_only: ClassVar[bool] = False
    ship: str
    station: str


@dataclass(frozen=True)
class DiscardCards(Command):
    """G-CARD-5: drop cards from the hand during Orders. A seat names only the cards (its own
    station is meant); the GM names the station too."""

    gm_only: ClassVar[bool] = False
    cards: tuple[str, ...]
    ship: str | None = None
    station: str | None = None


@dataclass(frozen=True)
class AllocateDamage(Command):
    """Engineering's reaction: divert part of the Hull damage to crew stations (G-DMG-4)."""

    gm_only: ClassVar[bool] = False
    ship: str
    allocations: dict[str, int] = field(default_factory=dict)


# --- GM: turn flow -------------------------------------------------------------------------------


@dataclass(frozen=True)
class StartTurn(Command):
    seconds: int | None = None  # None: the scenario's default; 0: no timer


@dataclass(frozen=True)
class CloseOrders(Command):
    """Reveal every order and resolve the turn."""


@dataclass(frozen=True)
class PauseTimer(Command):
    pass


@dataclass(frozen=True)
class ResumeTimer(Command):
    pass


@dataclass(frozen=True)
class ExtendTimer(Command):
    seconds: int


@dataclass(frozen=True)
class ExpireDeadline(Command):
    """Sent by the server's sweeper when a stored deadline passes; applies at most once."""

    kind: str
    at: float


@dataclass(frozen=True)
class ForceAllocation(Command):
    """End the wait for Engineering: unanswered Hull damage all goes to the Hull."""


@dataclass(frozen=True)
class UndoResolution(Command):
    pass


@dataclass(frozen=True)
class EndCombat(Command):
    pass


@dataclass(frozen=True)
class StartNextCombat(Command):
    """G-END-3: from Downtime, turn 1 of the next combat of this game, with the ships as they
    are and the last fight's messages, red alert and bonuses cleared."""

    seconds: int | None = None  # as StartTurn


@dataclass(frozen=True)
class SetShipOut(Command):
    """G-END-1: a ship that fled or surrendered is out of the fight ('' puts it back)."""

    ship: str
    out: str = ""


# --- GM: corrections and adjudication ------------------------------------------------------------


@dataclass(frozen=True)
class ImposeModifier(Command):
    """A bonus or penalty with a reason (G-HIT-5): on a ship's attacks, defence or repairs."""

    ship: str
    applies: str  # attack | defence | repair | station
    value: int
    reason: str
    station: str | None = None
    lasting: str = "turn"  # turn | combat


@dataclass(frozen=True)
class RemoveModifier(Command):
    modifier: int


@dataclass(frozen=True)
class SetTrack(Command):
    """Set the damage on a track directly: 'hull', 'shields' or a station id."""

    ship: str
    track: str
    damage: int


@dataclass(frozen=True)
class SetShields(Command):
    ship: str
    active: bool


@dataclass(frozen=True)
class SetPosition(Command):
    ship: str
    x: int
    y: int


@dataclass(frozen=True)
class SetShipValue(Command):
    ship: str
    field: str  # defence | name
    value: str | int


@dataclass(frozen=True)
class SetCharacteristic(Command):
    character: str
    field: str  # strength | dexterity | endurance | armour
    value: int


@dataclass(frozen=True)
class DowntimeRepair(Command):
    """Repair any track, Hull included, outside combat (G-REP-3)."""

    ship: str
    track: str
    points: int


@dataclass(frozen=True)
class FirstAid(Command):
    """G-CREW-4. Give `effect` to use the GM's own ruling, or a medic to roll for it."""

    character: str
    medic: str | None = None
    effect: int | None = None


@dataclass(frozen=True)
class DestroyShip(Command):
    ship: str


@dataclass(frozen=True)
class RestoreShip(Command):
    ship: str


@dataclass(frozen=True)
class AddShip(Command):
    """A whole ship of any class the game knows, brought in mid-game (a second wave)."""

    ship_class: str
    name: str
    side: str
    x: int
    y: int
    crew: str = "npc"  # npc | players
    zone: str | None = None  # where it arrives on a zone map (G-ZONE-1); x and y are then unused


@dataclass(frozen=True)
class SeatCrew(Command):
    ship: str
    station: str
    seat: str
    name: str
    character: str | None = None


@dataclass(frozen=True)
class UnseatCrew(Command):
    ship: str
    station: str


@dataclass(frozen=True)
class SendMessage(Command):
    text: str
    to: str = "all"  # "all", a ship id, or "ship/station"


@dataclass(frozen=True)
class SetRedAlert(Command):
    on: bool


@dataclass(frozen=True)
class PlaySound(Command):
    """The projector plays one of its sounds (gm.SOUNDS) now: the GM's, or a cue's action."""

    sound: str


@dataclass(frozen=True)
class SetModule(Command):
    module: str
    on: bool


@dataclass(frozen=True)
class SetSetting(Command):
    name: str
    value: int | bool


@dataclass(frozen=True)
class SetDisplayLanguage(Command):
    """The projector's language: a locale code; the web layer words the screen."""

    language: str


@dataclass(frozen=True)
class NextBattle(Command):
    """E-EVENING-1: the same table moves on to a scenario's opening. The service reads the
    scenario and builds the battle (core/evening.py); `apply` alone cannot, so it refuses it."""

    scenario: str


# Every command by its name, for parse_command: the core's, listed here, and each switchable
# module's, added as the module registers it (core/hooks.py).
COMMANDS: dict[str, type[Command]] = {
    cls.__name__: cls
    for cls in (
        SubmitOrder,
        PassOrder,
        WithdrawOrder,
        DiscardCards,
        AllocateDamage,
        StartTurn,
        CloseOrders,
        PauseTimer,
        ResumeTimer,
        ExtendTimer,
        ExpireDeadline,
        ForceAllocation,
        UndoResolution,
        EndCombat,
        StartNextCombat,
        SetShipOut,
        ImposeModifier,
        RemoveModifier,
        SetTrack,
        SetShields,
        SetPosition,
        SetShipValue,
        SetCharacteristic,
        DowntimeRepair,
        FirstAid,
        DestroyShip,
        RestoreShip,
        AddShip,
        SeatCrew,
        UnseatCrew,
        SendMessage,
        SetRedAlert,
        PlaySound,
        SetModule,
        SetSetting,
        SetDisplayLanguage,
        NextBattle,
    )
}

_MAX_TEXT = 500
# A field of plain JSON (typed `Any`): at most this deep, and this many items in all.
_JSON_DEPTH = 12
_JSON_ITEMS = 20_000


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """A command class's field types (resolving them is slow; the classes never change)."""
    found = _HINTS.get(cls)
    if found is None:
        found = _HINTS[cls] = typing.get_type_hints(cls)
    return found


def parse_command(
    data: dict[str, Any],
    actor: Actor,
    now: float = 0.0,
    table: Mapping[str, type[Command]] = COMMANDS,
) -> Command:
    """Build a command from JSON-like data, refusing unknown types and ill-typed fields. `table`
    is the commands known by name: a game's, or another engine's (a campaign's)."""
    if not isinstance(data, dict):
        raise refuse("BAD_COMMAND", "command_not_object")
    kind = data.get("type")
    cls = table.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise refuse("UNKNOWN_COMMAND", command=str(kind)[:60])
    hints = _hints(cls)
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name in ("actor", "now") or f.name not in data:
            continue
        values[f.name] = _coerce(data[f.name], hints[f.name], f.name)
    missing = [
        f.name
        for f in dataclasses.fields(cls)
        if f.name not in values
        and f.name not in ("actor", "now")
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise refuse("BAD_COMMAND", "field_missing", command=kind, field=missing[0])
    return cls(**values, actor=actor, now=now)


def _coerce(value: Any, hint: Any, name: str) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any:  # plain JSON that the command's handler reads and checks
        _check_json(value, name)
        return value
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for option in args:
            if option is type(None):
                continue
            try:
                return _coerce(value, option, name)
            except Exception as exc:  # try the next member of the union
                errors.append(exc)
        raise refuse("BAD_COMMAND", "field_wrong_type", field=name)
    if origin is tuple:
        if not isinstance(value, list | tuple) or len(value) > 50:
            raise refuse("BAD_COMMAND", "field_not_list", field=name)
        return tuple(_coerce(item, args[0], name) for item in value)
    if origin is dict:
        if not isinstance(value, dict) or len(value) > (_JSON_ITEMS if args[1] is Any else 50):
            raise refuse("BAD_COMMAND", "field_not_object", field=name)
        return {_coerce(k, args[0], name): _coerce(v, args[1], name) for k, v in value.items()}
    if hint is bool:
        if not isinstance(value, bool):
            raise refuse("BAD_COMMAND", "field_not_bool", field=name)
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int) or abs(value) > 1_000_000:
            raise refuse("BAD_COMMAND", "field_not_whole_number", field=name)
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise refuse("BAD_COMMAND", "field_not_number", field=name)
        return float(value)
    if hint is str:
        if not isinstance(value, str) or len(value) > _MAX_TEXT:
            raise refuse("BAD_COMMAND", "field_not_text", field=name, most=_MAX_TEXT)
        return value
    raise refuse("BAD_COMMAND", "field_unreadable", field=name)


def _check_json(value: Any, name: str) -> None:
    """Plain JSON, at most `_JSON_DEPTH` deep and `_JSON_ITEMS` items in all, walked without
    recursion."""
    waiting: list[tuple[Any, int]] = [(value, 1)]
    seen = 0
    while waiting:
        item, depth = waiting.pop()
        seen += 1
        if depth > _JSON_DEPTH or seen > _JSON_ITEMS:
            raise refuse("BAD_COMMAND", "field_unreadable", field=name)
        if isinstance(item, dict):
            if not all(isinstance(k, str) for k in item):
                raise refuse("BAD_COMMAND", "field_unreadable", field=name)
            waiting += [(v, depth + 1) for v in item.values()]
        elif isinstance(item, list):
            waiting += [(v, depth + 1) for v in item]
        elif item is not None and not isinstance(item, str | int | float | bool):
            raise refuse("BAD_COMMAND", "field_unreadable", field=name)
