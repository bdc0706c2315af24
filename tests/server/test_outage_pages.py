"""While the database is away, a person's browser gets a page that says the server is
reconnecting and reloads itself (finding 10b); scripts, the API and htmx keep `{code, message}`.

The outage is real: the test's database stops taking connections and loses the ones it had.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import httpx
from fastapi.testclient import TestClient
from sqlalchemy import make_url

from tests.conftest import admin_sql
from tests.server.conftest import Table

PAGE = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@contextlib.contextmanager
def outage_of(pg_server_url: str, db_url: str) -> Iterator[None]:
    """The database refuses new connections and drops its open ones, until the block ends."""
    name = make_url(db_url).database
    admin_sql(
        pg_server_url,
        f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false',
        f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'",
    )
    try:
        yield
    finally:
        admin_sql(pg_server_url, f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')


def test_screens_answer_a_page_that_retries_by_itself_while_the_database_is_away(
    table: Table, pg_server_url: str, db_url: str
) -> None:
    client = table.client
    seat = table.seat("weapons")
    pages = {
        "projector": (f"/display/{table.game_id}", {}),
        "phone": (f"/play/{table.game_id}", {f"bc_seat_{table.game_id}": seat["seat_token"]}),
        "GM": (f"/gm/{table.game_id}", {f"bc_gm_{table.game_id}": table.gm_token}),
        "join": (f"/join/{table.join_code}", {}),
    }
    with outage_of(pg_server_url, db_url):
        for screen, (url, cookies) in pages.items():
            answer = opened(client, url, cookies)
            assert answer.status_code == 503, (screen, answer.text[:200])
            assert answer.headers["content-type"].startswith("text/html"), screen
            assert "reconnecting to its" in answer.text and "database" in answer.text, screen
            assert re.search(r'<meta http-equiv="refresh" content="\d+">', answer.text), screen
            # Everything it loads comes from this server: the venue may have no internet.
            assert not re.search(r'(src|href)="(https?:)?//', answer.text), screen
        api = client.get(f"/api/games/{table.game_id}", headers=PAGE)
        assert api.status_code == 503 and api.json()["code"] == "DATABASE_UNAVAILABLE"
        client.cookies[f"bc_seat_{table.game_id}"] = seat["seat_token"]
        htmx = client.get(f"/play/{table.game_id}/panels", headers={**PAGE, "HX-Request": "true"})
        assert htmx.status_code == 503 and htmx.json()["code"] == "DATABASE_UNAVAILABLE"
    back = opened(client, f"/display/{table.game_id}", {})
    assert back.status_code == 200 and "refresh" not in back.text


def opened(client: TestClient, url: str, cookies: dict[str, str]) -> httpx.Response:
    """The page as a browser opens it: by address, with the cookies it holds, not by htmx."""
    client.cookies.clear()
    for name, value in cookies.items():
        client.cookies[name] = value
    response: httpx.Response = client.get(url, headers=PAGE, follow_redirects=False)
    return response
