"""Who is connected to a game, as the hub counts its own sockets (app/web/live/presence.py): each
station socket for its seat, each display socket for the projector, and one that closed counts
for a grace, so a page reload never shows as gone."""

from __future__ import annotations

from app.web.live.presence import GRACE_SECONDS, PROJECTOR, Presence, with_presence

SEAT = "3f0c1a52-8d6e-4b1c-9a0e-6b1f2d7c4e55"


def test_a_phone_counts_while_its_socket_is_open_and_for_a_grace_after() -> None:
    presence = Presence()
    assert presence.came(SEAT)  # new: the GM's screens must hear of it
    assert presence.phones(0.0) == [SEAT] and not presence.projector(0.0)
    presence.went(SEAT, now=10.0)
    assert presence.phones(10.0 + GRACE_SECONDS - 0.1) == [SEAT]
    assert presence.phones(10.0 + GRACE_SECONDS) == []


def test_a_reload_within_the_grace_is_no_change() -> None:
    presence = Presence()
    presence.came(SEAT)
    presence.went(SEAT, now=10.0)
    assert not presence.came(SEAT)  # back before the grace ran out
    assert presence.phones(10.0 + GRACE_SECONDS * 2) == [SEAT]  # and it stays


def test_a_second_socket_closing_leaves_the_first_counted() -> None:
    presence = Presence()
    presence.came(SEAT)
    assert not presence.came(SEAT)  # a second tab: counted already
    presence.went(SEAT, now=10.0)
    assert presence.phones(10.0 + GRACE_SECONDS * 2) == [SEAT]


def test_the_projector_counts_apart_from_the_phones_with_the_same_grace() -> None:
    presence = Presence()
    presence.came(SEAT)
    assert presence.came(PROJECTOR)  # the first projector: the GM's screens must hear of it
    assert not presence.came(PROJECTOR)  # a second one, as a spare laptop: no change
    assert presence.projector(0.0) and presence.phones(0.0) == [SEAT]
    presence.went(PROJECTOR, now=10.0)
    assert presence.projector(10.0 + GRACE_SECONDS)  # the spare is still open
    presence.went(PROJECTOR, now=20.0)
    assert not presence.came(PROJECTOR)  # the projector's page reloaded within the grace
    presence.went(PROJECTOR, now=30.0)
    assert presence.projector(30.0 + GRACE_SECONDS - 0.1)
    assert not presence.projector(30.0 + GRACE_SECONDS)
    assert presence.phones(30.0 + GRACE_SECONDS) == [SEAT]


def test_the_gms_view_gets_the_phones_and_whether_a_projector_is_connected() -> None:
    presence = Presence()
    view = {"game": {"phase": "orders"}}
    assert with_presence(view, presence) == {**view, "phones": [], "projector": False}
    presence.came(SEAT)
    presence.came(PROJECTOR)
    assert with_presence(view, presence) == {**view, "phones": [SEAT], "projector": True}
