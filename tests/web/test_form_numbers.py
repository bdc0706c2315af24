"""Numbers typed into forms (finding 8): every number field of every screen, sent a character
that str.isdigit() takes for a digit ('²'), a 5000-digit number and a negative number where
none is allowed, answers 4xx with the code BAD_VALUE, never a 500, and changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db.models import Game
from app.main import create_app
from app.settings import Settings
from tests.tables import Table

CSRF = "form-numbers-csrf-0123456789"
HUGE = "9" * 5000
SUPERSCRIPT = "\u00b2"  # '²': a digit to str.isdigit(), not to int()


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The whole app, answering 500s (the bug) instead of raising them."""
    with TestClient(create_app(settings), raise_server_exceptions=False) as test_client:
        test_client.cookies["bc_csrf"] = CSRF
        yield test_client


def version(table: Table) -> int:
    return int(table.client.get(f"/api/games/{table.game_id}").json()["version"])


def games(client: TestClient) -> int:
    async def count() -> int:
        async with client.app.state.session_factory() as session:  # type: ignore[attr-defined]
            return int(await session.scalar(select(func.count()).select_from(Game)) or 0)

    assert client.portal is not None
    return client.portal.call(count)


def refused_as_bad_value(answer: Any) -> None:
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text[:300])
    assert 'data-code="BAD_VALUE"' in answer.text, answer.text[:300]


def post_as(table: Table, cookie: str, token: str, url: str, data: dict[str, str]) -> Any:
    headers = {"X-CSRF-Token": CSRF, "HX-Request": "true"}
    table.client.cookies[cookie] = token
    try:
        return table.client.post(url, data=data, headers=headers)
    finally:
        del table.client.cookies[cookie]


def test_the_pilots_square_refuses_what_is_not_a_number_on_the_map(client: TestClient) -> None:
    table = Table(client)
    pilot = table.seat("pilot")
    table.gm_command(type="StartTurn", seconds=0)
    before = version(table)
    url = f"/play/{table.game_id}/order"
    for bad in (SUPERSCRIPT, HUGE, "-1", f"3{SUPERSCRIPT}"):
        dest = f"{bad},3" if len(bad) % 2 else f"3,{bad}"
        answer = post_as(
            table,
            f"bc_seat_{table.game_id}",
            pilot["seat_token"],
            url,
            {"action": "manoeuvre", "cards": "plt-01", "dest": dest},
        )
        refused_as_bad_value(answer)
    assert version(table) == before


def test_damage_allocation_refuses_what_is_not_a_count_of_points(client: TestClient) -> None:
    table = Table(client)
    engineer = table.seat("engineering")
    before = version(table)
    for bad in (SUPERSCRIPT, HUGE, "-1"):
        answer = post_as(
            table,
            f"bc_seat_{table.game_id}",
            engineer["seat_token"],
            f"/play/{table.game_id}/allocate",
            {"alloc_weapons": bad, "alloc_pilot": "1"},
        )
        refused_as_bad_value(answer)
    assert version(table) == before


def test_the_lobby_refuses_a_seed_that_is_not_a_whole_number(client: TestClient) -> None:
    """A seed it cannot read was once quietly replaced by a random one; now the GM is told."""
    before = games(client)
    for bad in (SUPERSCRIPT, HUGE, "-5", "1e9", str(2**63)):
        answer = client.post(
            "/gm",
            data={"scenario": "skirmish", "seed": bad, "csrf": CSRF},
            follow_redirects=False,
        )
        refused_as_bad_value(answer)
        assert "A seed must be a whole number" in answer.text
    assert games(client) == before


GM_FIELDS = [
    {"type": "ExtendTimer", "seconds": "{bad}"},  # int
    {"type": "StartTurn", "seconds": "{bad}"},  # int | None
    {"type": "SetSetting", "name": "orders_seconds", "value": "{bad}"},  # int | bool
    {"type": "SetPosition", "ship": "kestrel", "x": "{bad}", "y": "2"},
    {"type": "AllocateDamage", "ship": "kestrel", "allocations.weapons": "{bad}"},  # dict
    {"type": "ExpireDeadline", "at": "{bad}"},  # float
]


@pytest.mark.parametrize("fields", GM_FIELDS, ids=lambda f: f["type"])
def test_the_gm_forms_refuse_numbers_they_cannot_read(
    client: TestClient, fields: dict[str, str]
) -> None:
    """The GM may type a sign (the engine says which fields allow one); nothing else unread."""
    table = Table(client)
    before = version(table)
    for bad in (SUPERSCRIPT, HUGE, "--5", "nan", "1e400", "4" * 20):
        data = {name: value.format(bad=bad) for name, value in fields.items()}
        answer = post_as(
            table, f"bc_gm_{table.game_id}", table.gm_token, f"/gm/{table.game_id}/command", data
        )
        refused_as_bad_value(answer)
    assert version(table) == before


def test_a_number_or_a_word_field_takes_a_word_that_is_not_a_number(client: TestClient) -> None:
    """SetShipValue's value is a name or a number: '²' is not a number, so it is a name."""
    table = Table(client)
    answer = post_as(
        table,
        f"bc_gm_{table.game_id}",
        table.gm_token,
        f"/gm/{table.game_id}/command",
        {
            "type": "SetShipValue",
            "ship": "kestrel",
            "field": "name",
            "value": f"Kestrel{SUPERSCRIPT}",
        },
    )
    assert answer.status_code == 204
    view = client.get(f"/api/games/{table.game_id}/view").json()["view"]
    assert any(ship["name"] == f"Kestrel{SUPERSCRIPT}" for ship in view["ships"])


def test_numbers_in_forms_still_read_as_before(client: TestClient) -> None:
    table = Table(client)
    table.gm_command(type="StartTurn", seconds=0)
    before = version(table)
    url = f"/gm/{table.game_id}/command"
    gm = (f"bc_gm_{table.game_id}", table.gm_token)
    timer = post_as(table, *gm, url, {"type": "ExtendTimer", "seconds": " 30 "})
    moved = post_as(
        table, *gm, url, {"type": "SetPosition", "ship": "kestrel", "x": "+3", "y": "2"}
    )
    assert (timer.status_code, moved.status_code) == (204, 204), moved.text[:300]
    assert version(table) == before + 2
    ship = client.get(f"/api/games/{table.game_id}/view").json()["view"]["ships"]
    assert any(s["id"] == "kestrel" and (s["x"], s["y"]) == (3, 2) for s in ship)


def test_text_in_the_screens_forms_is_plain_text_as_in_the_api(client: TestClient) -> None:
    """A sibling of the numbers: the API refuses control characters in any text, the GM's and
    the phone's forms did not (a terminal escape went into the game's messages)."""
    table = Table(client)
    pilot = table.seat("pilot")
    table.gm_command(type="StartTurn", seconds=0)
    before = version(table)
    gm = (f"bc_gm_{table.game_id}", table.gm_token)
    message = {"type": "SendMessage", "text": "\x1b[2Jhello", "to": "all"}
    refused_as_bad_value(post_as(table, *gm, f"/gm/{table.game_id}/command", message))
    order = {"action": "attack", "cards": "wpn\x0701", "target": "rustjaw"}
    seat = (f"bc_seat_{table.game_id}", pilot["seat_token"])
    refused_as_bad_value(post_as(table, *seat, f"/play/{table.game_id}/order", order))
    assert version(table) == before
