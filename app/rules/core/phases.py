"""The turn as data: what each phase allows and the order in which revealed orders resolve."""

from __future__ import annotations

from typing import TypedDict

# Commands the GM may give whatever the phase: corrections must never wait for the turn.
ANY_PHASE = frozenset(
    {
        "ImposeModifier",
        "RemoveModifier",
        "SetTrack",
        "SetShields",
        "SetPosition",
        "SetShipValue",
        "SetCharacteristic",
        "FirstAid",
        "DestroyShip",
        "RestoreShip",
        "AddShip",
        "SeatCrew",
        "UnseatCrew",
        "LeaveRoster",
        "SendMessage",
        "SetRedAlert",
        "PlaySound",
        "SetSetting",
        "SetDisplayLanguage",
        "EndCombat",
        "SetShipOut",
        # The sweeper's expiry names the deadline it saw; the handler judges that against the state,
        # so a repeated or stale expiry is NO_SUCH_DEADLINE whatever phase the game has moved on to.
        "ExpireDeadline",
    }
)

PHASES: dict[str, dict[str, object]] = {
    "downtime": {
        "allows": frozenset(
            {
                "StartTurn",
                "StartNextCombat",
                "DowntimeRepair",
                "SetModule",
                "NextBattle",
            }
        ),
        "next": "orders",
    },
    "orders": {
        "allows": frozenset(
            {
                "SubmitOrder",
                "PassOrder",
                "WithdrawOrder",
                "DiscardCards",
                "CloseOrders",
                "PauseTimer",
                "ResumeTimer",
                "ExtendTimer",
            }
        ),
        "next": "resolve",
    },
    "allocation": {
        "allows": frozenset(
            {
                "AllocateDamage",
                "ForceAllocation",
                "UndoResolution",
                "PauseTimer",
                "ResumeTimer",
                "ExtendTimer",
            }
        ),
        "next": "turn_end",
    },
    "turn_end": {
        "allows": frozenset({"StartTurn", "UndoResolution"}),
        "next": "orders",
    },
}

# The phases a game rests in: a command given whatever the phase is allowed in each of them.
ALL_PHASES = frozenset(PHASES)

# G-TURN-1 / the seven combat steps: (step, the role whose orders resolve in it).
# Modules add handlers to a step; they never fork the sequence.
RESOLVE_STEPS: tuple[tuple[str, str | None], ...] = (
    ("command", "captain"),
    ("manoeuvre", "pilot"),
    ("ewar", "comms"),
    ("repairs", "engineering"),
    ("attacks", "weapons"),
    ("damage", None),
    ("effects", None),
)


class Action(TypedDict):
    """What a station can order: its role, the card kinds that count towards it, its step."""

    role: str
    kinds: frozenset[str]
    step: str


# What each station can order, the card kinds that count towards it, and its step: the core's,
# listed here, and each switchable module's, added as the module registers it (core/hooks.py).
ACTIONS: dict[str, Action] = {
    "attack": {
        "role": "weapons",
        "kinds": frozenset({"attack", "any"}),
        "step": "attacks",
    },
    "manoeuvre": {
        "role": "pilot",
        "kinds": frozenset({"helm", "any"}),
        "step": "manoeuvre",
    },
    "evasive": {
        "role": "pilot",
        "kinds": frozenset({"helm", "any"}),
        "step": "manoeuvre",
    },
    "lock": {
        "role": "comms",
        "kinds": frozenset({"ewar", "any"}),
        "step": "ewar",
    },
    "jam": {"role": "comms", "kinds": frozenset({"ewar", "any"}), "step": "ewar"},
    "repair": {
        "role": "engineering",
        "kinds": frozenset({"repair", "any"}),
        "step": "repairs",
    },
    "shields_up": {
        "role": "engineering",
        "kinds": frozenset(),
        "step": "repairs",
    },
    "shields_down": {
        "role": "engineering",
        "kinds": frozenset(),
        "step": "repairs",
    },
    "command": {
        "role": "captain",
        "kinds": frozenset({"command", "any"}),
        "step": "command",
    },
}


def actions_for(role: str) -> list[str]:
    return [name for name, spec in ACTIONS.items() if spec["role"] == role]


def kinds_played_by(role: str) -> list[str]:
    """The card kinds some order of `role` counts (the modules' orders too, once registered)."""
    return sorted(
        {kind for spec in ACTIONS.values() if spec["role"] == role for kind in spec["kinds"]}
    )


def phase_allows(phase: str, command_type: str) -> bool:
    allows = PHASES[phase]["allows"]
    assert isinstance(allows, frozenset)
    return command_type in allows or command_type in ANY_PHASE
