"""On the screens: the phone's Discard, its out-of-reach warning, no stale "you can change
it" during damage allocation, and the end-of-combat panel with its report link (G-END-1/-2/-3)."""

from typing import Any

from starlette.datastructures import FormData

from app.rules import apply, display_view, gm_view, parse_command, station_view
from app.rules import commands as c
from app.web.gm import command_from_form
from app.web.render import render_page
from tests.web import games

from .test_render import PAGE


def after(state: dict[str, Any], *commands: c.Command) -> dict[str, Any]:
    for command in commands:
        state, _ = apply(state, command)
    return state


def phone(state: dict[str, Any], seat: str) -> str:
    return render_page("station", station_view(state, seat), **PAGE)


# rule: G-CARD-5
def test_g_card_5_the_phone_offers_discard_in_orders_only() -> None:
    orders = games.orders_phase()
    assert 'hx-post="discard"' in phone(orders, "seat-p")
    assert 'hx-post="discard"' not in phone(games.after_hit(), "seat-p")


def test_other_phones_do_not_offer_changes_while_engineering_allocates() -> None:
    state = games.allocation_phase()
    for seat in ("seat-w", "seat-p", "seat-c"):
        html = phone(state, seat)
        assert "You can change it until the reveal" not in html
        assert "Engineering is diverting damage" in html


# rule: G-TURN-4
def test_g_turn_4_the_phone_warns_of_a_target_out_of_reach_now() -> None:
    state = games.orders_phase()  # Rustjaw 7 squares off: only the torpedo reaches
    assert "out of reach now" not in phone(state, "seat-w")
    weapons = state["ships"]["kestrel"]["stations"]["weapons"]
    state = after(
        state,
        c.SetPosition(ship="rustjaw", x=15, y=9),  # 12 squares: beyond every weapon
        c.SubmitOrder(
            ship="kestrel",
            station="weapons",
            action="attack",
            cards=(weapons["hand"][0],),
            target="rustjaw",
            actor=c.Actor.for_seat("seat-w"),
        ),
    )
    html = phone(state, "seat-w")
    assert "out of reach now" in html  # beside the target
    assert "Out of reach now: it hits only if the range closes" in html  # on the sent order


# rule: G-END-1, G-END-2, G-END-3
def test_g_end_the_screens_say_a_side_is_beaten_then_link_the_report() -> None:
    state = after(games.orders_phase(), c.DestroyShip(ship="rustjaw"))
    for audience, view in (
        ("display", display_view(state)),
        ("gm", gm_view(state)),
        ("station", station_view(state, "seat-p")),
    ):
        html = render_page(audience, view, **PAGE)
        assert "Raiders can no longer fight (Rustjaw destroyed)" in html, audience
        assert 'href="report?lang=en"' not in html or audience == "gm"
    state = after(state, c.EndCombat())
    for audience, view in (
        ("display", display_view(state)),
        ("gm", gm_view(state)),
        ("station", station_view(state, "seat-p")),
    ):
        html = render_page(audience, view, **PAGE)
        assert "Combat 1 is over" in html and 'href="report?lang=en"' in html, audience
        assert ('name="type" value="StartNextCombat"' in html) is (audience == "gm")


# rule: G-END-1
def test_g_end_1_the_gm_marks_a_ship_fled_or_back_from_the_dashboard() -> None:
    state = games.orders_phase()
    assert 'name="type" value="SetShipOut"' in render_page("gm", gm_view(state), **PAGE)
    for out, marked in (("fled", "fled"), ("", None)):
        form = FormData([("type", "SetShipOut"), ("ship", "rustjaw"), ("out", out)])
        command = parse_command(command_from_form(form), c.Actor.gm())
        state = after(state, command)
        assert state["ships"]["rustjaw"]["out"] == marked
