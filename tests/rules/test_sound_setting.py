"""The projector's sound as a game setting: on at 80 % in a new game, muted and turned
down by the GM through SetSetting, refused when the value is not one, and in every view's game."""

from __future__ import annotations

from app.rules import commands as c
from app.rules.core.views import display_view

from .builders import game, refused, run


def test_a_new_game_has_sound_on_at_80_percent() -> None:
    sound = display_view(game())["game"]["sound"]
    assert sound == {"sound": True, "sound_volume": 80, "played": None}  # nothing played yet


def test_the_gm_mutes_and_sets_the_volume() -> None:
    state = run(
        game(),
        c.SetSetting(name="sound", value=False),
        c.SetSetting(name="sound_volume", value=30),
    )
    sound = display_view(state)["game"]["sound"]
    assert sound == {"sound": False, "sound_volume": 30, "played": None}


def test_bad_sound_values_are_refused() -> None:
    state = game()
    refused(state, c.SetSetting(name="sound", value=1), "BAD_VALUE")
    refused(state, c.SetSetting(name="sound_volume", value=101), "BAD_VALUE")
    refused(state, c.SetSetting(name="sound_volume", value=True), "BAD_VALUE")
