"""Ids the editor makes for the organiser: from the names typed (umlauts and all), never asked
for; a zone's rename followed wherever the scenario names it; a link between zones set once."""

from __future__ import annotations

import io
import tomllib
import zipfile
from html import unescape

from fastapi.testclient import TestClient

from app.settings import Settings

from .test_screens import _form, _open, _post, _set

GERMAN = {"Accept-Language": "de"}


def _scenario_form(client: TestClient, settings: Settings) -> list[tuple[str, str]]:
    _open(client, settings)
    page = client.get("/editor/scenario/new", headers={"Accept": "text/html", **GERMAN})
    assert page.status_code == 200
    # Never asked for: no field of the form shows an id to type.
    assert 'name="id" value="neues-szenario"' in page.text
    assert '<input type="text" id="f-id"' not in page.text
    assert 'id="f-map-zones-0-id"' not in page.text
    return _form(page.text)


def test_ids_are_made_from_the_names_typed(client: TestClient, settings: Settings) -> None:
    fields = _scenario_form(client, settings)
    fields = _set(fields, "name", "Überfall am Asteroidenfeld")
    fields = _set(fields, "map.zones[1].name", "Größter Nebel")
    fields = _set(fields, "ships[1].side", "Plünderer")
    saved = _post(client, "/editor/scenario/form", [*fields, ("action", "save")], **GERMAN)
    assert saved.status_code == 303, unescape(saved.text)
    assert saved.headers["location"].startswith("/editor/scenario/ueberfall-am-asteroidenfeld?")
    page = client.get(saved.headers["location"], headers={"Accept": "text/html"}).text
    sent = dict(_form(page))
    assert sent["map.zones[1].id"] == "groesster-nebel"
    assert sent["ships[1].side"] == "pluenderer"
    # The ship that stood in the renamed zone stands there still, by its new id.
    assert sent["ships[1].zone"] == "groesster-nebel"


def test_a_link_between_zones_is_set_once_and_goes_both_ways(
    client: TestClient, settings: Settings
) -> None:
    fields = _scenario_form(client, settings)
    added = _post(client, "/editor/scenario/form", [*fields, ("action", "add:map.zones")])
    fields = _form(added.text)
    # Zone 3 touches nothing yet; tick it on Zone 2 only (the last zone offers no links).
    fields.append(("map.zones[1].touches|list", "zone-3"))
    assert not [k for k, _ in fields if k.startswith("map.zones[2].touches")]
    shown = _post(client, "/editor/scenario/form", [*fields, ("action", "refresh")])
    again = _form(shown.text)
    assert ("map.zones[1].touches|list", "zone-3") in again
    saved = _post(client, "/editor/scenario/form", [*again, ("action", "save")])
    assert saved.status_code == 303, unescape(saved.text)
    exported = client.get("/editor/scenario/neues-szenario/export")
    with zipfile.ZipFile(io.BytesIO(exported.content)) as files:
        text = next(files.read(n).decode() for n in files.namelist() if "neues-szenario" in n)
    zones = tomllib.loads(text)["map"]["zones"]
    assert {z["id"]: sorted(z["touches"]) for z in zones} == {
        "zone-1": ["zone-2"],
        "zone-2": ["zone-1", "zone-3"],
        "zone-3": ["zone-2"],
    }
