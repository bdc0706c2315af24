"""What waits for the bridge: only presses of a button's size under a props code, each game's up
to its burst, codes no game was seen with only a few between them, and nothing from a lost
connection's queue."""

import aiomqtt

from app.props.inbound import PAYLOAD_BYTES, WAITING_UNKNOWN, Gate

from .conftest import made_up_code

KNOWN = made_up_code()


def press(code: str, payload: bytes = b"pressed") -> aiomqtt.Message:
    return aiomqtt.Message(f"bridgecrew/{code}/in/cue/alarm", payload, 1, False, 1, None)


def test_each_game_waits_up_to_its_burst_and_strangers_codes_only_a_few() -> None:
    gate = Gate(lambda code: code == KNOWN, per_code=3)
    gate.queue_type()
    assert [gate.admit(press(KNOWN)) for _ in range(5)] == [True] * 3 + [False] * 2
    made_up = [made_up_code() for _ in range(WAITING_UNKNOWN + 10)]
    assert sum(gate.admit(press(code)) for code in made_up) == WAITING_UNKNOWN
    assert not gate.admit(press(KNOWN))  # still three of its own waiting
    assert gate.taken(press(KNOWN)).props_code == KNOWN
    assert gate.admit(press(KNOWN))  # room again, however many strangers wait
    assert gate.taken(press(made_up[0])).props_code == made_up[0]
    assert gate.admit(press(made_up_code()))


def test_what_is_not_a_press_of_a_buttons_size_never_waits() -> None:
    gate = Gate(lambda code: True, per_code=50)
    gate.queue_type()
    assert gate.admit(press(KNOWN, b"x" * PAYLOAD_BYTES))
    assert not gate.admit(press(KNOWN, b"x" * (PAYLOAD_BYTES + 1)))
    assert not gate.admit(press("K7QX2M"))
    other = aiomqtt.Message(f"bridgecrew/{KNOWN}/red-alert", b"{}", 1, False, 1, None)
    assert not gate.admit(other)
    assert gate.dropped == 3


def test_a_new_connection_starts_with_nothing_waiting() -> None:
    gate = Gate(lambda code: code == KNOWN, per_code=2)
    gate.queue_type()
    assert gate.admit(press(KNOWN)) and gate.admit(press(KNOWN))
    assert not gate.admit(press(KNOWN))
    gate.queue_type()  # the connection was lost with both still in its queue
    assert gate.admit(press(KNOWN))
