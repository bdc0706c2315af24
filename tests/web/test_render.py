"""The screens render from engine views alone, push every panel out of band, and never show a
station what belongs to another."""

import re
from functools import partial
from typing import Any

import pytest

from app.rules import display_view, gm_view, station_view
from app.web.render import PANELS, render_page, render_push
from app.web.templating import qr_svg
from tests.web import games

PAGE = {
    "game_id": "00000000-0000-0000-0000-000000000001",
    "csrf": "token",
    "join_code": "K7QF",
    "join_url": "http://10.0.0.5:8000/join/K7QF",
    "join_qr": qr_svg("http://10.0.0.5:8000/join/K7QF"),
    "props_code": "5f0c3a9e1d7b4c28a6e9f1b3d5c7a902",  # a server with a broker shows it
}
MOMENTS = sorted(games.ALL)
PANEL_IDS = {
    "station": [
        "who",
        "status",
        "allocation",
        "combat-end",
        "messages",
        "me",
        "position",
        "hand",
        "pilot-map",
        "order-state",
        "order-body",
        "crew",
        "reveal",
        "ship-status",
        "contacts",
        "log",
    ],
    "gm": [
        "turn",
        "combat-end",
        "waiting",
        "orders-table",
        "allocation",
        "ships",
        "npc",
        "modifiers",
        "crew",
        "messages",
        "map",
        "reveal",
        "cues",
        "log",
    ],
    "display": [
        "alert",
        "sound",
        "combat-end",
        "timer",
        "ship-status",
        "map",
        "ready",
        "reveal",
        "log",
        "messages",
    ],
}


@pytest.fixture(scope="module", params=MOMENTS)
def state(request: pytest.FixtureRequest) -> dict[str, Any]:
    return games.ALL[request.param]()


def views(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found = {"gm": gm_view(state), "display": display_view(state)}
    for seat in games.SEATS.values():
        found[seat] = station_view(state, seat)
    return found


def test_every_screen_renders_as_a_page_and_as_a_push(state: dict[str, Any]) -> None:
    for who, view in views(state).items():
        audience = who if who in ("gm", "display") else "station"
        page = render_page(audience, view, **PAGE)
        assert page.startswith("<!doctype html>")
        assert "hx-swap-oob" not in page
        assert f'ws-connect="/ws/{audience}/{PAGE["game_id"]}"' in page
        assert render_push(audience, view)


@pytest.mark.parametrize("audience", ["station", "gm", "display"])
def test_push_carries_every_panel_out_of_band(audience: str) -> None:
    state = games.after_hit()
    view = {
        "station": station_view(state, "seat-e"),
        "gm": gm_view(state),
        "display": display_view(state),
    }[audience]
    push = render_push(audience, view)
    roots = re.findall(r'<(\w+) id="([\w-]+)"[^>]*?hx-swap-oob="true"', push)
    assert [panel_id for _, panel_id in roots] == PANEL_IDS[audience]
    assert len(PANELS[audience]) == len(PANEL_IDS[audience])


def test_push_is_deterministic() -> None:
    state = games.orders_phase()
    for audience, view in [
        ("station", station_view(state, "seat-w")),
        ("gm", gm_view(state)),
        ("display", display_view(state)),
    ]:
        assert render_push(audience, view) == render_push(audience, view)


def test_full_page_and_push_render_the_same_panels() -> None:
    state = games.allocation_phase()
    view = station_view(state, "seat-e")
    page = render_page("station", view, **PAGE)
    for panel in re.findall(r'<\w+ id="([\w-]+)"[^>]*hx-swap-oob', render_push("station", view)):
        assert f'id="{panel}"' in page


def hand(state: dict[str, Any], seat: str) -> list[dict[str, Any]]:
    me = station_view(state, seat)["me"]
    return list(me["hand"]) if me else []


def test_a_station_never_sees_another_stations_hand(state: dict[str, Any]) -> None:
    for seat in games.SEATS.values():
        view = station_view(state, seat)
        html = render_page("station", view, **PAGE) + render_push("station", view)
        # Names this page may show for its own reasons: its own hand, and cards already revealed.
        allowed = {c["name"] for c in hand(state, seat)}
        for order in (view["revealed"] or {}).get("orders", []):
            allowed |= {c["name"] for c in order.get("played", [])}
        for other in games.SEATS.values():
            if other == seat:
                continue
            for card in hand(state, other):
                assert f'"{card["id"]}"' not in html, (seat, other, card["id"])
                assert card["id"] not in html, (seat, other, card["id"])
                if card["name"] not in allowed:
                    assert card["name"] not in html, (seat, other, card["name"])


def test_a_station_never_sees_another_stations_unrevealed_order() -> None:
    state = games.orders_phase()
    order = state["orders"]["kestrel/weapons"]
    assert order["cards"]
    for seat in ("seat-e", "seat-p", "seat-c"):
        html = render_page("station", station_view(state, seat), **PAGE)
        for card_id in order["cards"]:
            assert card_id not in html
        assert "Sent:" not in html
        assert "Attack (" not in html  # the order's words and value
    own = render_page("station", station_view(state, "seat-w"), **PAGE)
    assert "✓ Sent: Attack" in own


def test_the_projector_shows_no_card_at_all() -> None:
    for make in games.ALL.values():
        state = make()
        html = render_page("display", display_view(state), **PAGE)
        for seat in games.SEATS.values():
            for card in hand(state, seat):
                assert card["id"] not in html


def test_the_projector_shows_who_is_ready_but_not_what_they_ordered() -> None:
    state = games.orders_phase()
    html = render_page("display", display_view(state), **PAGE)
    assert "✓ ready" in html
    assert "Attack (" not in html


def test_red_boxes_differ_in_shape_markup_and_fill_when_hit() -> None:
    state = games.after_hit()
    html = render_push("display", display_view(state))
    # Kestrel's Hull took 4 (1 of 5 diverted): box 4, a red one, is filled.
    hull = re.search(
        r'aria-label="Hull: 8 of 12 left; red boxes 4, 8, 11">(.*?)</span>\n', html, re.S
    )
    assert hull is not None
    boxes = re.findall(r'class="box([^"]*)"', hull.group(1))
    assert boxes[3].split() == ["hit", "red"]
    assert boxes[7].split() == ["red"]


def test_station_down_notice_gives_the_reason() -> None:
    from app.rules import apply
    from app.rules import commands as c

    state, _ = apply(games.orders_phase(), c.SetTrack(ship="kestrel", track="pilot", damage=5))
    html = render_push("station", station_view(state, "seat-p"))
    assert "STATION DOWN" in html
    assert "no cards until Engineering repairs it" in html


def test_engineering_gets_the_allocation_prompt_with_a_countdown() -> None:
    state = games.allocation_phase()
    html = render_push("station", station_view(state, "seat-e"))
    assert "Incoming: 5 Hull damage" in html
    assert f'data-deadline="{state["deadline"]["at"]}"' in html
    assert 'name="alloc_pilot"' in html
    assert "Incoming" not in render_push("station", station_view(state, "seat-w"))


def test_skill_cards_are_marked_apart_from_station_cards() -> None:
    state = games.orders_phase()
    html = render_push("station", station_view(state, "seat-p"))
    assert 'class="card card-skill"' in html
    assert 'class="card card-station"' in html
    assert ">SKILL</span>" in html


def test_red_alert_shows_on_every_screen() -> None:
    state = games.after_hit()
    assert state["red_alert"]
    assert "RED ALERT" in render_push("display", display_view(state))
    assert "RED ALERT" in render_push("station", station_view(state, "seat-c"))
    assert "Stand down red alert" in render_push("gm", gm_view(state))


def test_the_reveal_shows_the_dice_term_by_term() -> None:
    state = games.after_hit()
    html = render_push("display", display_view(state))
    assert "Turn 1 revealed" in html
    assert '<span class="term die">d6 <b>' in html
    assert "HIT · 5 dmg" in html


def test_a_phone_whose_seat_was_freed_still_renders_and_says_so() -> None:
    view = station_view(games.orders_phase(), "seat-that-was-freed")
    assert view["me"] is None
    push = render_push("station", view)
    assert "You no longer hold a station" in push
    assert 'name="cards"' not in push


def test_an_order_changes_only_the_small_panels_that_show_who_has_ordered() -> None:
    """A station's order must leave the big panels (the GM's ships and turn, the projector's
    ships) byte for byte as they were: the hub then re-renders only #orders, #waiting and #ready."""
    from app.rules import apply
    from app.rules import commands as c
    from app.web.render import render_panels

    before = games.orders_phase()
    after, _ = apply(before, c.PassOrder(ship="kestrel", station="comms"))
    assert after["phase"] == "orders"
    for audience, make, changed in [
        ("gm", gm_view, {"orders", "waiting"}),
        ("display", display_view, {"ready"}),
    ]:
        for panel in PANELS[audience]:
            same = render_panels(audience, make(before), [panel]) == render_panels(
                audience, make(after), [panel]
            )
            assert same == (panel not in changed), (audience, panel)
    assert "Comms" in render_panels("gm", gm_view(after), ["orders"])


def test_reading_views_key_first_renders_what_jinja_would(
    state: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from jinja2 import Environment

    from app.web.templating import environment

    def screens() -> dict[str, str]:
        return {
            who: render_push(who if who in ("gm", "display") else "station", view)
            for who, view in views(state).items()
        }

    ours = screens()
    # Jinja's own lookup, attribute first, for the same templates and views
    monkeypatch.setattr(environment, "getattr", partial(Environment.getattr, environment))
    assert screens() == ours


def test_the_key_first_lookup_keeps_jinjas_answers() -> None:
    from jinja2 import Environment, UndefinedError

    from app.web.templating import environment

    class Noted(dict[str, Any]):  # instances may carry attributes of their own
        pass

    noted = Noted(label="key")
    noted.label = "attribute"  # type: ignore[attr-defined]
    view = {"me": {"label": "Weapons"}, "items": "a key", "get": 3}
    cases = [
        (view, "me"),  # a field: the key
        (view, "items"),  # a dict method's name: still the method, as in Jinja
        (view, "get"),
        (noted, "label"),  # an instance attribute wins, as in Jinja
        ("text", "upper"),  # not a dict at all
    ]
    for obj, name in cases:
        assert environment.getattr(obj, name) == Environment.getattr(environment, obj, name)
    assert environment.getattr(view, "me") == {"label": "Weapons"}
    assert environment.getattr(noted, "label") == "attribute"
    assert environment.getattr(view, "items") == view.items
    with pytest.raises(UndefinedError):  # StrictUndefined: a typo still fails
        environment.from_string("{{ view.nope }}").render(view=view)


def test_every_phone_gets_the_same_reveal_and_marks_its_own_order_itself() -> None:
    """The reveal is one render for every phone: each order names its station, and a phone's
    own panel carries the style that marks its own order."""
    from app.rules import apply
    from app.rules import commands as c
    from app.web.render import render_panels

    state, _ = apply(games.orders_phase(), c.CloseOrders(now=games.NOW))  # Weapons attacked
    reveals = {
        render_panels("station", station_view(state, seat), ["reveal"])
        for seat in games.SEATS.values()
    }
    assert len(reveals) == 1
    ordered = re.findall(r'data-order="kestrel/(\w+)"', reveals.pop())
    assert ordered
    seat = games.SEATS[ordered[0]]
    me = render_panels("station", station_view(state, seat), ["me"])
    assert f'.orders-revealed li[data-order="kestrel/{ordered[0]}"]' in me


def test_a_phone_answers_the_allocation_first_and_old_messages_age_out() -> None:
    """What Engineering must answer now (the damage allocation, on a clock) comes before the
    GM's messages; messages from before the last turn are gone, and each can be put away."""
    from app.rules import apply
    from app.rules import commands as c

    state = games.allocation_phase()
    for turn, text in ((state["turn"] - 2, "Old news from long ago"), (state["turn"], "Fresh")):
        state, _ = apply({**state, "turn": turn}, c.SendMessage(to="all", text=text))
    state = {**state, "turn": games.allocation_phase()["turn"]}
    page = render_page("station", station_view(state, "seat-e"), **PAGE)
    assert page.index('id="allocation"') < page.index('id="messages"')
    messages = page[
        page.index('id="messages"') : page.index("</section>", page.index('id="messages"'))
    ]
    assert "Fresh" in messages and "message-dismiss" in messages
    assert "Old news" not in messages
