"""TOML in and out: the format and folders of `scenarios/`; every built-in exported
and imported again is the same content; an import names the file and field of every problem,
and saves all of its items or none."""

from __future__ import annotations

import dataclasses
import io
import zipfile
from html import unescape
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.content import builtin_files, load_catalogue, parse_item
from app.i18n_content import side_name
from app.service.library import ContentProblems, item_data, save_items
from app.service.library_files import file_name, read_files, to_toml
from app.settings import Settings

from .content import ship_copy, zone_scenario

PAGE = {"Accept": "text/html"}


def _same(kind: str, item: Any) -> Any:
    """The item without the file it came from, which parsing records but content is not."""
    return dataclasses.replace(item, source="")


@pytest.mark.parametrize("kind", ["ship", "deck", "character", "scenario"])
def test_every_built_in_exported_and_imported_again_is_the_same_content(kind: str) -> None:
    shipped = builtin_files()[kind]
    catalogue = load_catalogue()
    loaded = {
        "ship": catalogue.ships,
        "deck": catalogue.decks,
        "character": catalogue.characters,
        "scenario": catalogue.scenarios,
    }[kind]
    uploads = [
        (f"scenarios/{file_name(kind, item_id)}", to_toml(data).encode())
        for item_id, (data, _) in shipped.items()
    ]
    changes = read_files(uploads)
    assert {c.id for c in changes} == set(shipped) == set(loaded)
    for change in changes:
        assert change.kind == kind
        assert change.data == shipped[change.id][0]  # translations and all
        again = parse_item(kind, change.data, change.source)
        assert _same(kind, again) == _same(kind, loaded[change.id])


def test_a_file_outside_the_folders_is_known_by_what_it_holds() -> None:
    changes = read_files([("gunboat.toml", to_toml(ship_copy()).encode())])
    assert [(c.kind, c.id) for c in changes] == [("ship", "gunboat")]


def test_import_problems_name_the_file_and_the_field_and_nothing_is_saved() -> None:
    broken = ship_copy("broken")
    broken["stations"][0]["deck"] = 7
    uploads = [
        ("ships/gunboat.toml", to_toml(ship_copy()).encode()),
        ("ships/bad-syntax.toml", b"id = 'x\nname = "),
        ("notes.toml", b'title = "not content"'),
        ("ships/gunboat-again.toml", to_toml(ship_copy()).encode()),
    ]
    with pytest.raises(ContentProblems) as refused:
        read_files(uploads)
    found = {(p.file, p.field) for p in refused.value.problems}
    assert found == {
        ("ships/bad-syntax.toml", "(syntax)"),
        ("notes.toml", "(kind)"),
        ("ships/gunboat-again.toml", "id"),
    }


async def test_an_import_saves_all_its_items_or_none(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    good = ("ships/gunboat.toml", to_toml(ship_copy()).encode())
    scenario = zone_scenario()
    scenario["ships"][1]["ship_class"] = "dreadnought"  # nobody has one
    bad = ("ring-fight.toml", to_toml(scenario).encode())
    with pytest.raises(ContentProblems) as refused:
        await save_items(session_factory, read_files([good, bad]), "Ada")
    [problem] = refused.value.problems
    assert (problem.file, problem.field) == ("ring-fight.toml", "ships[1].ship_class")
    with pytest.raises(Exception, match="gunboat"):
        await item_data(session_factory, "ship", "gunboat")

    good_scenario = ("ring-fight.toml", to_toml(zone_scenario()).encode())
    assert await save_items(session_factory, read_files([good, good_scenario]), "Ada") == [1, 1]


def _open(client: TestClient, settings: Settings) -> str:
    client.get(f"/editor?organiser_token={settings.organiser_key}")
    return str(client.cookies["bc_csrf"])


def test_a_scenario_exports_as_its_folder_and_imports_again_unchanged(
    client: TestClient, settings: Settings
) -> None:
    csrf = _open(client, settings)
    files = [
        ("files", ("gunboat.toml", to_toml(ship_copy()).encode(), "application/toml")),
        ("files", ("ring-fight.toml", to_toml(zone_scenario()).encode(), "application/toml")),
    ]
    imported = client.post("/editor/import", data={"csrf": csrf}, files=files, headers=PAGE)
    assert imported.status_code == 200 and "Imported 2 items." in imported.text

    exported = client.get("/editor/scenario/ring-fight/export")
    assert exported.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(exported.content)) as archive:
        assert sorted(archive.namelist()) == [
            "scenarios/ring-fight.toml",
            "scenarios/ships/gunboat.toml",
        ]
    again = client.post(
        "/editor/import",
        data={"csrf": csrf},
        files=[("files", ("ring-fight.zip", exported.content, "application/zip"))],
        headers=PAGE,
    )
    assert again.status_code == 200
    # The same content: nothing changed, so no item got a new version.
    assert "custom · version 2" not in again.text and "custom · version 1" in again.text

    ship = client.get("/editor/ship/gunboat/export")
    assert ship.headers["content-disposition"] == 'attachment; filename="gunboat.toml"'
    assert 'name = "Gunboat"' in ship.text


def test_an_import_refused_shows_every_problem_with_its_file(
    client: TestClient, settings: Settings
) -> None:
    csrf = _open(client, settings)
    bad: dict[str, Any] = {**ship_copy(), "name": "<script>alert(1)</script>\x07"}
    page = client.post(
        "/editor/import",
        data={"csrf": csrf},
        files=[("files", ("ships/evil.toml", to_toml(bad).encode(), "application/toml"))],
        headers=PAGE,
    )
    assert page.status_code == 400
    assert "<script>" not in page.text  # the name shows escaped
    assert "ships/evil.toml" in page.text and "U+0007" in unescape(page.text)


def test_exports_and_imports_need_the_organiser_key(client: TestClient) -> None:
    assert client.get("/editor/ship/frigate/export", headers=PAGE).status_code == 403
    assert client.post("/editor/import", headers=PAGE).status_code == 403


def _refused_in_german(client: TestClient, csrf: str, scenario: dict[str, Any]) -> str:
    """The editor's answer to importing a scenario it refuses, as a German organiser reads it."""
    page = client.post(
        "/editor/import",
        data={"csrf": csrf},
        files=[("files", ("ring-fight.toml", to_toml(scenario).encode(), "application/toml"))],
        headers={**PAGE, "Accept-Language": "de"},
    )
    assert page.status_code == 400
    return unescape(page.text)


def test_an_import_names_every_problem_at_once_in_the_readers_language(
    client: TestClient, settings: Settings
) -> None:
    """One answer names every problem of a file, not one per try, in German."""
    csrf = _open(client, settings)
    scenario = zone_scenario(ship_class="frigate")
    scenario["map"]["zones"][0]["touches"].append("nirgendwo")
    scenario["cues"] = [
        {
            "id": "jagd",
            "name": "Jagd",
            "trigger": {"destroyed": "schakall"},
            "actions": [{"red_alert": True}],
        },
        {"id": "gong", "name": "Gong", "trigger": {"turn": 2}, "actions": [{"sound": "gong"}]},
    ]
    said = _refused_in_german(client, csrf, scenario)
    assert "Auf der Karte gibt es keine Zone 'nirgendwo'" in said
    # Each problem names its field as the form labels it, not by its path in the file.
    assert "Zone 1 › Grenzt an (in beide Richtungen): Auf der Karte" in said
    assert "map.zones" not in said and "touches[" not in said
    assert "In diesem Szenario gibt es kein Schiff 'schakall'" in said
    assert '"gong" ist keins von' in said


def test_a_problem_names_what_exists_by_its_name_and_quotes_what_does_not(
    client: TestClient, settings: Settings
) -> None:
    """A dangling reference is quoted as typed, beside its field's label; the zones, ships, cues
    and sides it could have named are listed by their names (as the reader's language says
    them), and a ship that exists is named, never by its id."""
    csrf = _open(client, settings)
    scenario = zone_scenario(ship_class="frigate")
    names = ["Andockbucht", "Handelsroute", "Asteroidengürtel", "Riss im All", "Sprungtor"]
    for zone, name in zip(scenario["map"]["zones"], names, strict=True):
        zone["name"] = name
    scenario["map"]["zones"][0]["touches"].append("nirgendwo")
    scenario["ships"][0]["name"] = "Falke der Äußeren Kolonien"
    scenario["ships"][1]["name"] = "Würger"
    scenario["players_side"] = "allianz"
    scenario["cues"] = [
        {
            "id": "jagd",
            "name": "Jagd auf den Schakal",
            "trigger": {"destroyed": "schakall"},
            "actions": [{"red_alert": True}],
        },
        {"id": "enteralarm", "name": "Enteralarm", "trigger": {"gm": True},
         "actions": [{"fire": "gongschlag"}, {"npc": "hawk", "auto": True}]},
    ]  # fmt: skip
    said = _refused_in_german(client, csrf, scenario)
    assert (
        "Zone 1 › Grenzt an (in beide Richtungen): Auf der Karte gibt es keine Zone "
        "'nirgendwo'; ihre Zonen: Andockbucht, Handelsroute, Asteroidengürtel, Riss im All, "
        "Sprungtor." in said
    )
    assert (
        "gibt es kein Schiff 'schakall'; seine Schiffe: Falke der Äußeren Kolonien, Würger." in said
    )
    assert "keinen Cue 'gongschlag'; seine Cues: Jagd auf den Schakal, Enteralarm." in said
    sides = ", ".join(side_name(side, "de") for side in ("players", "raiders"))
    assert f"auf der Seite 'Allianz'; die Seiten hier: {sides}." in said
    assert "'Falke der Äußeren Kolonien' hat eine Spielercrew" in said
    assert "'hawk'" not in said and "dock, lane" not in said
