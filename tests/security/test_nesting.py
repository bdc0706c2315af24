"""Documents from outside nest at most NESTING_MAX levels: the editor's TOML files, its form paths
and JSON fields, and the API's JSON bodies. Deeper is refused with TOO_DEEP and a sentence in the
reader's language; a form that names one field both as a value and as a group of fields is
refused too. Never a 500, never a traceback in the log, nothing saved."""

from __future__ import annotations

from html import unescape
from urllib.parse import urlencode

import pytest
from fastapi.testclient import TestClient

from app.nesting import NESTING_MAX
from app.settings import Settings
from tests.editor.test_screens import _form, _open
from tests.server.conftest import Table

GERMAN = {"Accept-Language": "de", "Accept": "text/html"}
TOO_DEEP_DE = f"Eine Anfrage darf höchstens {NESTING_MAX} Ebenen tief verschachtelt sein."


def _no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []


DEEP_FILES = {
    "arrays 600 deep": b'id = "deep"\nname = "Deep"\nstations = ' + b"[" * 600 + b"]" * 600,
    "inline tables 1,200 deep": b'id = "deep"\nname = "Deep"\nstations = '
    + b"{a = " * 1200
    + b"1"
    + b"}" * 1200,
    # Dotted keys nest without the parser recursing: the content checks would.
    "dotted keys 20,000 deep": b'id = "deep"\nname = "Deep"\n'
    + b".".join([b"a"] * 20_000)
    + b" = 1",
    "just past the bound": b'id = "deep"\nname = "Deep"\nstations = '
    + b"[" * NESTING_MAX
    + b"]" * NESTING_MAX,
}


@pytest.mark.parametrize("body", list(DEEP_FILES.values()), ids=list(DEEP_FILES))
def test_a_deep_toml_file_is_refused_in_the_readers_language(
    client: TestClient, settings: Settings, caplog: pytest.LogCaptureFixture, body: bytes
) -> None:
    csrf = _open(client, settings)
    good = client.get("/editor/ship/frigate/export").content
    page = client.post(
        "/editor/import",
        data={"csrf": csrf},
        files=[
            ("files", ("ships/good.toml", good.replace(b'"frigate"', b'"good"'), "text/plain")),
            ("files", ("ships/deep.toml", body, "application/toml")),
        ],
        headers=GERMAN,
    )
    assert page.status_code == 400
    assert 'data-code="TOO_DEEP"' in page.text
    said = unescape(page.text)
    assert f"ships/deep.toml ist tiefer als {NESTING_MAX} Ebenen verschachtelt" in said
    _no_traceback(caplog)
    # Nothing of the import was saved, not even the good file.
    assert client.get("/editor/ship/good", headers=GERMAN).status_code == 404


def _post(client: TestClient, url: str, fields: list[tuple[str, str]]) -> str:
    response = client.post(
        url,
        content=urlencode(fields),
        headers={"Content-Type": "application/x-www-form-urlencoded", **GERMAN},
        follow_redirects=False,
    )
    assert response.status_code == 400, response.status_code
    return unescape(response.text)


FORMS = {
    "a path 20,000 deep": ("a" + ".a" * 20_000, "1", "TOO_DEEP"),
    "rows 5,000 deep": ("x" + "[0]" * 5_000, "1", "TOO_DEEP"),
    "a path one past the bound": (".".join(["a"] * (NESTING_MAX + 1)), "1", "TOO_DEEP"),
    "a JSON field 2,000 deep": ("x|json", "[" * 2_000 + "]" * 2_000, "TOO_DEEP"),
    "a JSON field past the bound with its path": (
        "translations.de|json",
        "[" * (NESTING_MAX - 1) + "]" * (NESTING_MAX - 1),
        "TOO_DEEP",
    ),
    "name beside name.x": ("name.x", "1", "BAD_FORM"),
    "a row beside a field": ("stations.x", "1", "BAD_FORM"),
}


@pytest.mark.parametrize(("field", "value", "code"), list(FORMS.values()), ids=list(FORMS))
@pytest.mark.parametrize("route", ["form", "preview"])
def test_a_form_too_deep_or_at_odds_with_itself_is_refused(
    client: TestClient,
    settings: Settings,
    caplog: pytest.LogCaptureFixture,
    route: str,
    field: str,
    value: str,
    code: str,
) -> None:
    _open(client, settings)
    fields = _form(client.get("/editor/ship/new?copy=frigate", headers=GERMAN).text)
    # Before and after the form's own fields: the clash is found whichever comes first.
    for sent in ([(field, value), *fields], [*fields, (field, value)]):
        said = _post(client, f"/editor/ship/{route}", [*sent, ("action", "save")])
        assert f'data-code="{code}"' in said or f'"code": "{code}"' in said, said[:300]
        if code == "TOO_DEEP":
            assert TOO_DEEP_DE in said
        else:
            assert "zugleich als Wert und als Gruppe von Feldern" in said
    _no_traceback(caplog)
    assert client.get("/editor/ship/frigate-copy", headers=GERMAN).status_code == 404


@pytest.mark.parametrize("depth", [NESTING_MAX + 1, 900, 15_000])
def test_an_api_body_too_deep_is_refused_in_the_readers_language(
    client: TestClient, caplog: pytest.LogCaptureFixture, depth: int
) -> None:
    table = Table(client)
    deep = "[" * depth + "]" * depth
    bodies = {
        "/api/games": f'{{"scenario": "skirmish", "modules": {deep}}}',
        f"/api/games/{table.game_id}/commands": (
            f'{{"type": "SendMessage", "command_id": "deep", "text": "hi", "extra": {deep}}}'
        ),
    }
    for url, body in bodies.items():
        answer = client.post(
            url,
            content=body.encode(),
            headers={"Content-Type": "application/json", "Accept-Language": "de", **table.gm},
        )
        assert answer.status_code == 400, (url, answer.text)
        assert answer.json() == {"code": "TOO_DEEP", "message": TOO_DEEP_DE}
    _no_traceback(caplog)
    assert client.get(f"/api/games/{table.game_id}/events", headers=table.gm).json()["events"] == []


def test_a_body_as_deep_as_the_bound_is_read(client: TestClient) -> None:
    table = Table(client)
    deep = "[" * (NESTING_MAX - 1) + "]" * (NESTING_MAX - 1)
    body = f'{{"type": "SendMessage", "command_id": "ok", "text": "hi", "extra": {deep}}}'
    answer = client.post(
        f"/api/games/{table.game_id}/commands",
        content=body.encode(),
        headers={"Content-Type": "application/json", **table.gm},
    )
    assert answer.status_code == 200, answer.text
