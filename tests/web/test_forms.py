"""Form fields become the commands the engine expects (and refusals stay the engine's words)."""

import uuid

import pytest
from starlette.datastructures import FormData

from app.rules import Actor, apply, parse_command
from app.service import SeatInfo, ServiceError
from app.web.gm import command_from_form
from app.web.station import allocation_data, order_data
from tests.web import games

SEAT = SeatInfo(uuid.uuid4(), uuid.uuid4(), "kestrel", "weapons", "Ann", None)


def form(*pairs: tuple[str, str]) -> FormData:
    return FormData(list(pairs))


def test_attack_reads_the_station_aimed_at_on_the_chosen_target_only() -> None:
    data = order_data(
        SEAT,
        form(
            ("action", "attack"),
            ("cards", "wpn-01"),
            ("cards", "wpn-02"),
            ("target", "rustjaw"),
            ("ts_rustjaw", "pilot"),
            ("ts_other", "comms"),
            ("weapons", "pdc"),
        ),
    )
    assert data == {
        "type": "SubmitOrder",
        "ship": "kestrel",
        "station": "weapons",
        "action": "attack",
        "cards": ["wpn-01", "wpn-02"],
        "target": "rustjaw",
        "weapons": ["pdc"],
        "target_station": "pilot",
    }


def test_a_tapped_square_becomes_x_and_y() -> None:
    pilot = SeatInfo(SEAT.id, SEAT.game_id, "kestrel", "pilot", "Bo", None)
    data = order_data(pilot, form(("action", "manoeuvre"), ("cards", "plt-01"), ("dest", "4,7")))
    assert (data["x"], data["y"]) == (4, 7)
    with pytest.raises(ServiceError):
        order_data(pilot, form(("action", "manoeuvre"), ("dest", "a,b")))


def test_shields_orders_drop_any_selected_cards() -> None:
    eng = SeatInfo(SEAT.id, SEAT.game_id, "kestrel", "engineering", "Cy", None)
    data = order_data(eng, form(("action", "shields_up"), ("cards", "eng-01")))
    assert data["cards"] == []


def test_allocation_keeps_only_stations_given_damage() -> None:
    data = allocation_data(
        SEAT,
        form(
            ("alloc_pilot", "2"), ("alloc_comms", "0"), ("alloc_weapons", ""), ("command_id", "x")
        ),
    )
    assert data == {"type": "AllocateDamage", "ship": "kestrel", "allocations": {"pilot": 2}}
    with pytest.raises(ServiceError):
        allocation_data(
            SEAT,
            form(
                ("alloc_pilot", "two"),
            ),
        )


@pytest.mark.parametrize(
    ("pairs", "expected"),
    [
        ([("type", "StartTurn"), ("seconds", "45")], {"type": "StartTurn", "seconds": 45}),
        ([("type", "StartTurn"), ("seconds", "")], {"type": "StartTurn"}),
        ([("type", "SetRedAlert"), ("on", "true")], {"type": "SetRedAlert", "on": True}),
        (
            [("type", "SetShipValue"), ("ship", "kestrel"), ("field", "defence"), ("value", "6")],
            {"type": "SetShipValue", "ship": "kestrel", "field": "defence", "value": 6},
        ),
        (
            [("type", "SetShipValue"), ("ship", "kestrel"), ("field", "name"), ("value", "Hawk")],
            {"type": "SetShipValue", "ship": "kestrel", "field": "name", "value": "Hawk"},
        ),
        (
            [("type", "SetSetting"), ("name", "close_when_all_ready"), ("value", "false")],
            {"type": "SetSetting", "name": "close_when_all_ready", "value": False},
        ),
        (
            [("type", "SetSetting"), ("name", "orders_seconds"), ("value", "90")],
            {"type": "SetSetting", "name": "orders_seconds", "value": 90},
        ),
        (
            [
                ("type", "AllocateDamage"),
                ("ship", "kestrel"),
                ("allocations.pilot", "1"),
                ("allocations.comms", ""),
            ],
            {"type": "AllocateDamage", "ship": "kestrel", "allocations": {"pilot": 1}},
        ),
        (
            [
                ("type", "SubmitOrder"),
                ("ship", "rustjaw"),
                ("station", "weapons"),
                ("action", "attack"),
                ("value", "4"),
                ("target", "kestrel"),
                ("target_station", ""),
            ],
            {
                "type": "SubmitOrder",
                "ship": "rustjaw",
                "station": "weapons",
                "action": "attack",
                "value": 4,
                "target": "kestrel",
                "cards": [],
                "weapons": [],
            },
        ),
    ],
)
def test_gm_forms_become_commands(
    pairs: list[tuple[str, str]], expected: dict[str, object]
) -> None:
    data = command_from_form(form(*pairs))
    assert data == expected
    parse_command(data, Actor.gm())  # and the engine reads it


def test_a_gm_npc_order_with_a_bare_value_is_accepted_by_the_engine() -> None:
    state = games.orders_phase()
    data = command_from_form(
        form(
            ("type", "SubmitOrder"),
            ("ship", "rustjaw"),
            ("station", "pilot"),
            ("action", "evasive"),
            ("value", "3"),
        )
    )
    state, _ = apply(state, parse_command(data, Actor.gm()))
    assert state["orders"]["rustjaw/pilot"]["value"] == 3


def test_gm_form_refuses_unknown_commands_and_bad_numbers() -> None:
    with pytest.raises(ServiceError) as unknown:
        command_from_form(
            form(
                ("type", "Explode"),
            )
        )
    assert unknown.value.code == "UNKNOWN_COMMAND"
    with pytest.raises(ServiceError) as bad:
        command_from_form(form(("type", "ExtendTimer"), ("seconds", "lots")))
    assert bad.value.code == "BAD_VALUE"
