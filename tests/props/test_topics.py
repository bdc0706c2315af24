"""Topic levels made from ids cannot change a topic's meaning, only a cue topic under a props
code is a press, and the sounds props hear are those the projector plays."""

import pytest

from app.props.topics import Press, game_topic, inbound_cue, level, ship_topic, sounds

from .conftest import made_up_code

CODE = made_up_code()


def test_an_id_with_a_topics_own_characters_stays_one_level() -> None:
    topic = ship_topic(CODE, "wing/2 #+", "hit")
    assert topic == f"bridgecrew/{CODE}/ship/wing%2F2%20%23%2B/hit"
    assert topic.count("/") == 4


def test_a_cue_topic_gives_back_the_props_code_and_cue_it_was_made_from() -> None:
    topic = game_topic(CODE, "in", "cue", level("wave/2"))
    assert inbound_cue(topic) == Press(CODE, "wave/2")


@pytest.mark.parametrize(
    "topic",
    [
        f"bridgecrew/{CODE}/red-alert",  # the server's own news, heard back
        f"bridgecrew/{CODE}/in/cue",
        f"bridgecrew/{CODE}/in/cue/",
        f"bridgecrew/{CODE}/in/cue/alarm/extra",
        f"bridgecrew/{CODE}/in/ship/alarm",
        f"other/{CODE}/in/cue/alarm",
        "bridgecrew/K7QX2M/in/cue/alarm",  # a join code
        f"bridgecrew/{CODE.upper()}/in/cue/alarm",
        f"bridgecrew/{CODE}0/in/cue/alarm",
    ],
)
def test_anything_but_a_cue_topic_under_a_props_code_presses_nothing(topic: str) -> None:
    assert inbound_cue(topic) is None


def event(kind: str, **fields: object) -> dict[str, object]:
    return {"type": kind, "turn": 2, **fields}


def test_a_commit_sounds_what_the_projector_plays_each_once_in_order() -> None:
    resolved = [
        event("ShieldsHit", ship="kestrel", points=2, shields=1),
        event("HullHit", ship="kestrel", box=3, red=False, hull=5),
        event("StationDamaged", ship="rustjaw", station="pilot", points=1),
        event("HullHit", ship="viper", box=8, red=False, hull=0),
        event("ShipDestroyed", ship="viper"),  # its hits sound as the wreck
        event("RedAlertSet", on=False),  # standing down sounds nothing
        event("SoundPlayed", sound="chime"),
    ]
    assert sounds(resolved, players={"kestrel"}) == [
        "hit-players",
        "hit-enemy",
        "destroyed",
        "chime",
    ]
    assert sounds([event("TurnStarted", seconds=60, deadline=None)], ()) == ["turn-start"]
    assert sounds([event("RedAlertSet", on=True)], ()) == ["red-alert"]
    assert sounds([event("OrderGiven", ship="kestrel")], {"kestrel"}) == []
