"""Topic levels made from ids cannot change a topic's meaning, and only a cue topic fires a cue."""

import pytest

from app.props.topics import game_topic, inbound_cue, level, ship_topic


def test_an_id_with_a_topics_own_characters_stays_one_level() -> None:
    topic = ship_topic("K7QX2M", "wing/2 #+", "hit")
    assert topic == "bridgecrew/K7QX2M/ship/wing%2F2%20%23%2B/hit"
    assert topic.count("/") == 4


def test_a_cue_topic_gives_back_the_join_code_and_cue_it_was_made_from() -> None:
    topic = game_topic("K7QX2M", "in", "cue", level("wave/2"))
    assert inbound_cue(topic) == ("K7QX2M", "wave/2")


@pytest.mark.parametrize(
    "topic",
    [
        "bridgecrew/K7QX2M/red-alert",  # the server's own news, heard back
        "bridgecrew/K7QX2M/in/cue",
        "bridgecrew/K7QX2M/in/cue/",
        "bridgecrew/K7QX2M/in/cue/alarm/extra",
        "bridgecrew/K7QX2M/in/ship/alarm",
        "other/K7QX2M/in/cue/alarm",
    ],
)
def test_anything_but_a_cue_topic_fires_nothing(topic: str) -> None:
    assert inbound_cue(topic) is None
