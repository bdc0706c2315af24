"""Players' names (finding 10c): the join form and the JSON API refuse the same names, with the
same sentence: control characters, bidi overrides and isolates (which turn the text after them
around on every screen) and invisible characters. Names in any script still work."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.server.conftest import Table

REFUSED = {
    "right-to-left override": "Ann\u202e",
    "override in the middle": "Cap\u202etain",
    "left-to-right override": "\u202dAnn",
    "isolate": "A\u2066nn\u2069",
    "pop directional": "Ann\u202c",
    "right-to-left mark": "\u200fAnn",
    "zero-width space": "An\u200bn",
    "word joiner": "An\u2060n",
    "byte order mark": "\ufeffAnn",
    "escape (terminal colours)": "\x1b[31mAnn",
    "NUL": "A\x00nn",
    "newline": "Ann\nBo",
    "tab": "Ann\tBo",
    "line separator": "Ann\u2028Bo",
    "only a joiner": "\u200d",
}


def join_form(client: TestClient, code: str, name: str, station: str) -> tuple[int, str]:
    client.get(f"/join/{code}")
    answer = client.post(
        f"/join/{code}",
        data={"seat": f"kestrel/{station}", "name": name, "csrf": client.cookies["bc_csrf"]},
        follow_redirects=False,
    )
    return answer.status_code, answer.text


def crew(table: Table) -> list[str]:
    view = table.client.get(f"/api/games/{table.game_id}/view").json()["view"]
    ship = next(s for s in view["ships"] if s["id"] == "kestrel")
    return [st["crew"] for st in ship["stations"] if st["crew"]]


def test_the_join_form_and_the_api_refuse_names_that_hide_or_turn_text(table: Table) -> None:
    sentence = "A name may not contain invisible or control characters"
    for what, name in REFUSED.items():
        status, page = join_form(table.client, table.join_code, name, "weapons")
        assert status == 400 and 'data-code="BAD_NAME"' in page, what
        api = table.client.post(
            f"/api/games/{table.game_id}/seats",
            json={"ship": "kestrel", "station": "pilot", "name": name},
        )
        assert api.status_code == 422 and api.json()["code"] == "BAD_REQUEST", what
        message = api.json()["message"]
        assert message.startswith("name: "), what
        if what != "only a joiner":  # that one is told it needs a visible character
            assert sentence in page and sentence in message, what
    assert crew(table) == []


def test_names_in_any_script_and_emoji_are_welcome(table: Table) -> None:
    """Right-to-left scripts need no override, and an emoji's joiner sits between two visible
    characters: both are fine."""
    by_form, by_api = ["Zoë", "محمد"], ["👩\u200d🚀 Ada", "Ann-Marie O'Neil"]
    for name, station in zip(by_form, ["weapons", "pilot"], strict=True):
        table.client.cookies.clear()  # another phone: a phone crews one station
        assert join_form(table.client, table.join_code, name, station)[0] == 303, name
    for name, station in zip(by_api, ["engineering", "comms"], strict=True):
        seat = table.client.post(
            f"/api/games/{table.game_id}/seats",
            json={"ship": "kestrel", "station": station, "name": name},
        )
        assert seat.status_code == 201, seat.text
    assert sorted(crew(table)) == sorted(by_form + by_api)


def test_a_name_over_40_characters_is_refused_in_words_never_cut_unseen(table: Table) -> None:
    """The form must not cut a long name without a word (an input's maxlength does, as the
    player types or pastes): it says the limit, and a longer name comes back refused, as typed."""
    page = table.client.get(f"/join/{table.join_code}").text
    field = page[page.index('<input id="name"') :]
    field = field[: field.index(">")]
    assert "maxlength" not in field
    assert "At most 40 characters." in page
    fits = "Friedrich-Wilhelm von Hohenzollern-Sigma"
    status, page = join_form(table.client, table.join_code, fits + "-Omega", "weapons")
    assert status == 400 and 'data-code="BAD_NAME"' in page
    assert "A name is 1 to 40 characters." in page and f'value="{fits}-Omega"' in page
    assert join_form(table.client, table.join_code, fits, "weapons")[0] == 303
    assert crew(table) == [fits]
