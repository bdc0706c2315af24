"""As the server renders it: the tab's title travels with the status panel (a
push after a change of position names the new station), and the phone's open panels have ids, so
a push that redraws them keeps them open."""

from __future__ import annotations

import re
from typing import Any

from app.rules import commands as c
from app.rules import station_view
from app.web.render import render_page
from tests.web import games
from tests.web.test_end_screens import after
from tests.web.test_render import PAGE

State = dict[str, Any]


def test_the_phone_names_the_new_station_for_the_tab_after_a_move() -> None:
    state = after(games.seated(), c.SetModule(module="seats", on=True))
    state = after(state, c.UnseatCrew(ship="kestrel", station="comms"))
    state = after(
        state,
        c.ChangePosition(
            ship="kestrel", station="comms", actor=c.Actor.for_seat("seat-p"), now=games.NOW
        ),
    )
    html = render_page("station", station_view(state, "seat-p"), **PAGE)
    who = re.search(r'<span id="who"[^>]*>', html)
    assert who is not None and 'data-title="Comms · Kestrel"' in who.group(0)
    # The change-position panel has an id, so a push that redraws it keeps it open.
    assert '<details id="seat-change"' in html


# rule: M-SEATS-2
def test_m_seats_2_the_override_panels_have_ids_too() -> None:
    state = after(
        games.seated(),
        c.SetModule(module="seats", on=True),
        c.UnseatCrew(ship="kestrel", station="pilot"),
        c.StartTurn(seconds=0, now=games.NOW),
    )
    html = render_page("station", station_view(state, "seat-w"), **PAGE)
    assert '<details id="override-pilot" class="override"' in html
