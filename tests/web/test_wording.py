"""A zone move says why it costs what it costs, an NPC crew's roll is one clear
term of the attack, and the log and reveal never read "set Vengeance's name to Vengeance" or
"…order instead., Engineering…". In English and German."""

from __future__ import annotations

import html as markup
import re
from typing import Any

import pytest

from app.rules import commands as c
from app.rules import display_view, gm_view, station_view
from app.web.render import render_page
from tests.web import games
from tests.web.test_end_screens import after
from tests.web.test_render import PAGE

State = dict[str, Any]


def text_of(html: str, section: str) -> str:
    found = re.search(rf'<section id="{section}".*?</section>', html, re.S)
    assert found is not None, section
    return re.sub(r"\s+", " ", markup.unescape(re.sub(r"<[^>]+>", " ", found.group(0))))


# rule: G-ZONE-3, G-ZONE-4
def test_g_zone_a_pilot_sees_why_each_zone_costs_what_it_costs() -> None:
    state = after(games.seated("nebula-ambush"), c.StartTurn(now=games.NOW))
    pilot = station_view(state, "seat-p")
    moves = next(s for s in pilot["ships"] if s["id"] == pilot["me"]["ship"])["moves"]
    html = render_page("station", pilot, **PAGE)
    settings = state["settings"]
    terrain = {z["id"]: z for z in state["map"]["zones"].values()}
    checked = 0
    for dest, move in moves.items():
        choice = re.search(rf'zone-choice" data-zone="{dest}".*?</label>', html, re.S)
        assert choice is not None
        why = markup.unescape(re.sub(r"<[^>]+>|\s+", " ", choice.group(0)))
        base = settings["zone_move_one" if move["steps"] == 1 else "zone_move_two"]
        assert f"{base} for the move" in why
        for left in move["terrain"]:
            kind = "difficult" if left["terrain"] == "difficult" else "hazard"
            assert f"+{left['cost']} to leave {left['zone']} ({kind}" in why, why
            checked += 1
        # The parts add up to what the move needs (and to what leaves no hazard unpaid).
        must = sum(t["cost"] for t in move["terrain"] if t["terrain"] == "difficult")
        assert move["need"] == base + must
        assert move["full"] == base + sum(t["cost"] for t in move["terrain"])
    assert checked, "no move in nebula-ambush leaves a difficult or hazardous zone"
    assert all(z["terrain"] in ("open", "difficult", "hazardous") for z in terrain.values())


# rule: M-NPC-1
def test_m_npc_1_an_npc_attack_shows_the_crew_roll_as_one_term() -> None:
    state = after(
        games.seated(),
        c.SetModule(module="npc", on=True),
        c.SetPosition(ship="rustjaw", x=2, y=4),
        c.StartTurn(seconds=0, now=games.NOW),
        c.SubmitOrder(ship="rustjaw", station="weapons", action="attack", target="kestrel"),
        c.CloseOrders(now=games.NOW),
    )
    attack = next(e for e in state["revealed"]["results"] if e["type"] == "AttackResolved")
    (_, rating), (_, crew_roll) = attack["breakdown"]["value"]
    reveal = text_of(render_page("gm", gm_view(state), **PAGE), "reveal")
    value = rating + crew_roll
    assert f"value {value} (Proficient crew {rating} + crew's d6 {crew_roll})" in reveal
    # The attack's own die is the only bare d6.
    assert reveal.count("d6") == 2 and f"d6 {attack['breakdown']['d6']}" in reveal


@pytest.mark.parametrize(
    ("language", "renamed"),
    [("en", "GM renamed Kestrel to Vengeance."), ("de", "SL hat Kestrel in Vengeance umbenannt.")],
)
def test_a_rename_says_the_old_name_and_a_rename_to_the_same_name_says_nothing(
    language: str, renamed: str
) -> None:
    state = after(games.seated(), c.SetDisplayLanguage(language=language))
    state = after(state, c.SetShipValue(ship="kestrel", field="name", value="Vengeance"))
    log = text_of(render_page("display", display_view(state), **PAGE), "log")
    assert renamed in log
    again = after(state, c.SetShipValue(ship="kestrel", field="name", value="Vengeance "))
    assert again["log"] == state["log"]
    assert "Vengeance in Vengeance" not in log and "Vengeance to Vengeance" not in log


# rule: M-SEATS-2
def test_m_seats_2_an_override_is_said_in_full_not_joined_into_the_passes() -> None:
    state = after(
        games.seated(),
        c.SetModule(module="seats", on=True),
        c.UnseatCrew(ship="kestrel", station="pilot"),
        c.StartTurn(seconds=0, now=games.NOW),
    )
    hand = state["ships"]["kestrel"]["stations"]["weapons"]["hand"]
    wild = [card for card in hand if state["cards"][card]["kind"] in ("any", "manoeuvre")]
    assert wild, "the seeded Weapons hand holds no card a Pilot's order can use"
    state = after(
        state,
        c.SubmitOrder(
            ship="kestrel",
            station="weapons",
            action="evasive",
            cards=tuple(wild),
            override="pilot",
            actor=c.Actor.for_seat("seat-w"),
            now=games.NOW,
        ),
        c.CloseOrders(now=games.NOW),
    )
    for audience, view in (("gm", gm_view(state)), ("display", display_view(state))):
        reveal = text_of(render_page(audience, view, **PAGE), "reveal")
        assert "Weapons of Kestrel gave Pilot's order instead." in reveal, audience
        if audience == "display":
            continue  # the room is told what the orders did, not who passed
        passed = reveal.split("Passed:")[1]
        assert "Weapons of Kestrel" not in passed and "instead" not in passed
        assert ".," not in reveal
