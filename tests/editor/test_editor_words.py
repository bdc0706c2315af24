"""The editor in the organiser's language: built-ins by their translated names, every picker's
option in words (what a kind of systems, terrain, map, crew, weapon or module is), new items and
copies named in words, problems named by the field as the form labels it."""

from __future__ import annotations

import re
from html import unescape

from fastapi.testclient import TestClient

from app.settings import Settings

from .test_screens import _form, _post, _set

GERMAN = {"Accept": "text/html", "Accept-Language": "de"}


def _german(client: TestClient, settings: Settings, url: str) -> str:
    """An editor page as a German organiser's browser gets it."""
    client.get(f"/editor?organiser_token={settings.organiser_key}")
    return str(client.get(url, headers=GERMAN).text)


def _options(page: str, name: str) -> list[str]:
    """The words of each option of the select named `name`."""
    select = re.search(rf'<select[^>]*name="{re.escape(name)}"[^>]*>(.*?)</select>', page, re.S)
    assert select, name
    return [unescape(o).strip() for o in re.findall(r"<option[^>]*>(.*?)</option>", select[1])]


def test_the_home_page_lists_the_built_ins_in_the_readers_language(
    client: TestClient, settings: Settings
) -> None:
    page = unescape(_german(client, settings, "/editor"))
    assert "Fregatte der Kestrel-Klasse" in page
    assert "Kestrel-class Frigate" not in page


def test_a_ship_class_form_words_its_options(client: TestClient, settings: Settings) -> None:
    page = _german(client, settings, "/editor/ship/new?copy=frigate")
    systems = _options(page, "systems")
    assert systems[1].startswith("Empfindliche Systeme"), systems
    kinds = _options(page, "weapons[0].kind")
    # The sheets spell it "rail_gun" and "railgun": the picker offers it once.
    assert len([k for k in kinds if "Railgun" in k]) == 1, kinds
    assert not {"fragile", "normal", "reinforced", "rail_gun", "railgun", "pdc"} & {
        *systems,
        *kinds,
    }
    assert "Technik" in _options(page, "stations[1].role")


def test_a_scenario_form_words_its_options_and_modules(
    client: TestClient, settings: Settings
) -> None:
    page = _german(client, settings, "/editor/scenario/new")
    assert _options(page, "map.kind") == ["Felder (ein Raster)", "Zonen (eine Zonenkarte)"]
    terrains = _options(page, "map.zones[0].terrain")
    assert terrains[0] == "Freier Raum" and terrains[1].startswith("Schwierig"), terrains
    assert _options(page, "ships[1].crew")[1].startswith("NSC-Crew"), page
    said = unescape(page)
    assert "Starmada-Schaden" in said and "Systemtreffer" in said
    assert "Jeder Treffer auf die Hülle würfelt einen W20" in said
    assert not re.search(r">\s*(starmada|syshit|npc|seats|grid|zones|difficult)\s*<", page)


def test_a_copy_is_named_as_one_and_keeps_the_translations(
    client: TestClient, settings: Settings
) -> None:
    page = unescape(_german(client, settings, "/editor/ship/new?copy=frigate"))
    assert 'name="name" value="Kestrel-class Frigate (copy)"' in page
    # The translations come along, each beside its field, the name's saying it is a copy in
    # its own language.
    assert 'name="_tr.de.name" value="Fregatte der Kestrel-Klasse (Kopie)"' in page
    assert 'name="_tr.de.weapons[0].name" value="Punktabwehrkanonen"' in page


def test_translations_are_edited_beside_their_fields(
    client: TestClient, settings: Settings
) -> None:
    page = _german(client, settings, "/editor/deck/new?copy=pilot")
    fields = _form(page)
    first = next(v for k, v in fields if k == "cards[0].name")
    # A card renamed keeps its translation (cards are translated by their words); another
    # translation typed in is kept too.
    fields = _set(fields, "cards[0].name", f"{first} II")
    fields = _set(fields, "_tr.de.name", "Steuerdeck der Gunboat")
    saved = _post(client, "/editor/deck/form", [*fields, ("action", "save")])
    assert saved.status_code == 303, unescape(saved.text)
    again = unescape(client.get(saved.headers["location"], headers=GERMAN).text)
    assert 'name="_tr.de.name" value="Steuerdeck der Gunboat"' in again
    original = next(v for k, v in _form(page) if k == "_tr.de.cards[0].name")
    assert f'name="_tr.de.cards[0].name" value="{original}"' in again
