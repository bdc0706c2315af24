"""A game speaks its own copy of the content (the library's promise, for words): the organisers'
library changing, or holding words that are the interface's own, never renames anything on a
running game's phones, GM page or projector."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from app.service.library_files import to_toml
from app.settings import Settings
from tests.server.conftest import Table

from .content import builtin, ship_copy, zone_scenario

GERMAN = {"Accept-Language": "de", "Accept": "text/html"}


def _import(client: TestClient, settings: Settings, *files: tuple[str, dict[str, Any]]) -> None:
    """The organisers import files through the editor, each saved as its item's next version."""
    client.get(f"/editor?organiser_token={settings.organiser_key}")
    sent = [("files", (name, to_toml(data).encode(), "application/toml")) for name, data in files]
    answer = client.post("/editor/import", data={"csrf": client.cookies["bc_csrf"]}, files=sent)
    assert answer.status_code == 200, answer.text


def _gunboat(german: str, deck: str = "weapons") -> dict[str, Any]:
    ship = ship_copy()
    ship["stations"][0]["deck"] = deck  # its Weapons station
    return {**ship, "translations": {"de": {"name": german}}}


def _screens(client: TestClient, table: Table, ship: str = "hawk") -> dict[str, str]:
    """The German GM page, a German phone at a ship's Weapons and the projector in German."""
    if not table.seats:
        table.seat("weapons", ship=ship)
        table.gm_command(type="SetDisplayLanguage", language="de")
    game, seat = table.game_id, table.seats["weapons"]["seat_token"]
    return {
        "gm": _page(client, f"/gm/{game}", f"bc_gm_{game}={table.gm_token}"),
        "phone": _page(client, f"/play/{game}", f"bc_seat_{game}={seat}"),
        "projector": _page(client, f"/display/{game}", ""),
    }


def _page(client: TestClient, url: str, cookie: str) -> str:
    answer = client.get(url, headers={**GERMAN, "Cookie": cookie})
    assert answer.status_code == 200, answer.text
    return str(answer.text)


def test_content_named_like_the_interface_never_renames_a_station(
    client: TestClient, settings: Settings
) -> None:
    """A deck whose cards are called "Weapons" and "Engineering", with German names of their
    own: the stations keep the interface's German names, in every game."""
    deck = {**builtin("deck", "weapons"), "id": "odd-guns", "prefix": "odd", "name": "Odd Guns"}
    deck["cards"] = [
        {**deck["cards"][0], "name": "Weapons", "copies": 4},
        {**deck["cards"][1], "name": "Engineering", "copies": 4},
    ]
    deck["translations"] = {
        "de": {"cards": {"Weapons": {"name": "Kaffeemaschine"}, "Engineering": {"name": "Toaster"}}}
    }
    _import(
        client,
        settings,
        ("decks/odd-guns.toml", deck),
        ("ships/gunboat.toml", _gunboat("Kanonenboot", deck="odd-guns")),
        ("ring-fight.toml", zone_scenario()),
    )
    for scenario, ship in (("ring-fight", "hawk"), ("skirmish", "kestrel")):
        for name, page in _screens(client, Table(client, scenario), ship).items():
            assert "Kaffeemaschine" not in page and "Toaster" not in page, (scenario, name)
            assert "Waffen" in page and "Technik" in page, (scenario, name)


def test_a_running_game_keeps_its_words_when_the_library_changes(
    client: TestClient, settings: Settings
) -> None:
    _import(
        client,
        settings,
        ("ships/gunboat.toml", _gunboat("Kanonenboot")),
        ("ring-fight.toml", zone_scenario()),
    )
    running = Table(client, "ring-fight")
    assert all("Kanonenboot" in page for page in _screens(client, running).values())

    _import(client, settings, ("ships/gunboat.toml", _gunboat("Schaluppe")))
    # A game begun now takes the library as it is now...
    fresh = Table(client, "ring-fight")
    assert all("Schaluppe" in page for page in _screens(client, fresh).values())
    # ...and the one already running keeps the words it began with, pushes included.
    for name, page in _screens(client, running).items():
        assert "Kanonenboot" in page and "Schaluppe" not in page, name
    with client.websocket_connect(f"/ws/display/{running.game_id}") as projector:
        welcome = projector.receive_text()
        assert "Kanonenboot" in welcome and "Schaluppe" not in welcome
