"""What a token opens stays out of caches: a seat's hand, the GM's view and panels, the editor.
A browser or a proxy that kept such an answer would show it to whoever uses that device or cache
next (OWASP: `Cache-Control: no-store` on every answer that holds private data)."""

from fastapi.testclient import TestClient

from app.settings import Settings
from tests.server.conftest import Table


def test_every_answer_a_token_opens_says_no_store(
    client: TestClient, table: Table, settings: Settings
) -> None:
    seat = table.seat("weapons")
    game = table.game_id
    by_header = {
        f"/api/games/{game}/view": seat["headers"],  # the seat's hand
        f"/api/games/{game}/events": seat["headers"],  # its private draws
        f"/api/games/{game}/report": table.gm,
    }
    gm = {f"bc_gm_{game}": table.gm_token}
    phone = {f"bc_seat_{game}": seat["seat_token"]}
    by_cookie = {
        f"/play/{game}": phone,
        f"/play/{game}/panels": phone,
        f"/gm/{game}": gm,
        f"/gm/{game}/panels": gm,
        f"/gm/{game}/seats": gm,
        f"/gm/{game}/evening": gm,
        "/editor": {"bc_organiser": settings.organiser_key},
        "/editor/ship/new": {"bc_organiser": settings.organiser_key},
    }
    answers = {url: client.get(url, headers=headers) for url, headers in by_header.items()}
    for url, cookies in by_cookie.items():
        client.cookies.clear()
        client.cookies.update(cookies)
        answers[url] = client.get(url, headers={"Accept": "text/html"})
    for url, answer in answers.items():
        assert answer.status_code == 200, (url, answer.text[:200])
        assert answer.headers.get("cache-control") == "no-store", url


def test_static_files_may_be_kept(client: TestClient) -> None:
    """Scripts and styles hold nothing private: a phone may keep them between pages."""
    answer = client.get("/static/js/app.js")
    assert answer.status_code == 200 and "no-store" not in answer.headers.get("cache-control", "")
