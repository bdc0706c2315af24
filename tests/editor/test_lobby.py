"""The lobby: built-in and custom scenarios together, with their descriptions; a
custom one starts a game like a built-in."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.service.library_files import to_toml
from app.settings import Settings

from .content import ship_copy, zone_scenario

PAGE = {"Accept": "text/html"}


def test_custom_scenarios_are_listed_with_the_built_ins_and_start(
    client: TestClient, settings: Settings
) -> None:
    client.get(f"/editor?organiser_token={settings.organiser_key}")
    csrf = client.cookies["bc_csrf"]
    scenario = {**zone_scenario(), "description": "Circle the <ring> & win."}
    files = [
        ("files", ("ships/gunboat.toml", to_toml(ship_copy()).encode(), "application/toml")),
        ("files", ("ring-fight.toml", to_toml(scenario).encode(), "application/toml")),
    ]
    assert client.post("/editor/import", data={"csrf": csrf}, files=files).status_code == 200

    lobby = client.get("/gm", headers=PAGE)
    assert "Skirmish at the Gate" in lobby.text and "Ring Fight" in lobby.text
    assert "Circle the &lt;ring&gt; &amp; win." in lobby.text
    assert lobby.text.count('class="badge"') == 1  # only the custom one is marked

    made = client.post(
        "/gm",
        data={"csrf": csrf, "scenario": "ring-fight", "choose_modules": "1"},
        follow_redirects=False,
    )
    assert made.status_code == 303, made.text
    dashboard = client.get(made.headers["location"], headers=PAGE)
    assert dashboard.status_code == 200 and "Hawk" in dashboard.text


def test_the_api_lists_custom_scenarios_too(client: TestClient, settings: Settings) -> None:
    client.get(f"/editor?organiser_token={settings.organiser_key}")
    csrf = client.cookies["bc_csrf"]
    files = [
        ("files", ("ships/gunboat.toml", to_toml(ship_copy()).encode(), "application/toml")),
        ("files", ("ring-fight.toml", to_toml(zone_scenario()).encode(), "application/toml")),
    ]
    client.post("/editor/import", data={"csrf": csrf}, files=files)
    listed = {s["id"]: s for s in client.get("/api/scenarios").json()["scenarios"]}
    assert "skirmish" in listed and listed["ring-fight"]["ships"][0]["class"] == "gunboat"


def test_custom_content_speaks_the_translations_it_carries(
    client: TestClient, settings: Settings
) -> None:
    """A custom item's `[translations.de]` (in the players' languages) shows on a
    German screen of a game made of it, as a shipped file's does."""
    client.get(f"/editor?organiser_token={settings.organiser_key}")
    csrf = client.cookies["bc_csrf"]
    ship = {**ship_copy(), "translations": {"de": {"name": "Kanonenboot"}}}
    scenario = {**zone_scenario(), "translations": {"de": {"name": "Ringkampf"}}}
    files = [
        ("files", ("ships/gunboat.toml", to_toml(ship).encode(), "application/toml")),
        ("files", ("ring-fight.toml", to_toml(scenario).encode(), "application/toml")),
    ]
    assert client.post("/editor/import", data={"csrf": csrf}, files=files).status_code == 200
    made = client.post(
        "/gm",
        data={"csrf": csrf, "scenario": "ring-fight", "choose_modules": "1"},
        follow_redirects=False,
    )
    game_id = made.headers["location"].rsplit("/", 1)[1]
    dashboard = client.get(f"/gm/{game_id}", headers={**PAGE, "Accept-Language": "de"}).text
    assert '<html lang="de">' in dashboard
    assert "Ringkampf" in dashboard and "Ring Fight" not in dashboard
    assert "Kanonenboot" in dashboard
