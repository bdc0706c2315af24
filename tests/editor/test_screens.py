"""The editor's screens: copy, change and save through the form; problems beside
their fields; rows added and removed; the live preview; history and restore."""

from __future__ import annotations

import io
import re
import zipfile
from html import unescape
from urllib.parse import urlencode

import httpx
import pytest
from fastapi.testclient import TestClient

from app.settings import Settings

PAGE = {"Accept": "text/html"}
FIELD = re.compile(r'<(?:input|textarea|select)[^>]*name="([^"]+)"[^>]*>', re.S)


def _open(client: TestClient, settings: Settings) -> str:
    client.get(f"/editor?organiser_token={settings.organiser_key}")
    return str(client.cookies["bc_csrf"])


def _form(html: str) -> list[tuple[str, str]]:
    """The fields a browser would send from the item form (ticked boxes and chosen options)."""
    form = html[html.index('id="item-form"') : html.index("</form>", html.index('id="item-form"'))]
    sent: list[tuple[str, str]] = []
    for tag in re.finditer(
        r"<(input|textarea|select)\b([^>]*)>(.*?)(?=<(?:input|textarea|select)\b|$)", form, re.S
    ):
        kind, attrs, rest = tag.groups()
        name = re.search(r'name="([^"]+)"', attrs)
        if not name:
            continue
        if kind == "input":
            if 'type="checkbox"' in attrs and "checked" not in attrs:
                continue
            value = re.search(r"value=(?:\"([^\"]*)\"|'([^']*)')", attrs)
            sent.append(
                (name.group(1), unescape((value.group(1) or value.group(2) or "") if value else ""))
            )
        elif kind == "textarea":
            sent.append((name.group(1), unescape(rest.split("</textarea>")[0])))
        else:
            chosen = re.search(r'<option value="([^"]*)" selected', rest)
            sent.append((name.group(1), unescape(chosen.group(1) if chosen else "")))
    return sent


def _post(
    client: TestClient, url: str, fields: list[tuple[str, str]], **headers: str
) -> httpx.Response:
    """A form post as a browser sends it: every field in order, names repeated."""
    response: httpx.Response = client.post(
        url,
        content=urlencode(fields),
        headers={"Content-Type": "application/x-www-form-urlencoded", **PAGE, **headers},
        follow_redirects=False,
    )
    return response


def _set(fields: list[tuple[str, str]], name: str, value: str) -> list[tuple[str, str]]:
    """The form with the field at path `name` (whatever its type) set to `value`."""
    assert any(k.partition("|")[0] == name for k, _ in fields), name
    return [(k, value if k.partition("|")[0] == name else v) for k, v in fields]


def test_copy_change_save_and_restore_a_ship_class(client: TestClient, settings: Settings) -> None:
    csrf = _open(client, settings)
    copy = client.get("/editor/ship/new?copy=frigate", headers=PAGE)
    assert copy.status_code == 200
    fields = _form(copy.text)
    # The copy's id is made from its name, which says it is a copy.
    name = "Kestrel-class Frigate (copy)"
    assert ("id", "kestrel-class-frigate-copy") in fields and ("name", name) in fields
    # Every reference is a picker: the stations' decks are chosen, not typed.
    assert '<select id="f-stations-0-deck" name="stations[0].deck">' in copy.text
    fields = _set(fields, "defence", "6")
    saved = _post(client, "/editor/ship/form", [*fields, ("action", "save")])
    assert saved.status_code == 303, unescape(saved.text)
    edit = client.get(saved.headers["location"], headers=PAGE)
    assert "Saved as version 1." in edit.text and 'value="6"' in edit.text

    fields = _set(_set(_form(edit.text), "defence", "7"), "hull.red", "4, 30")
    refused = _post(client, "/editor/ship/form", [*fields, ("action", "save")])
    assert refused.status_code == 400
    beside = re.search(r'id="f-hull-red".*?<p class="field-error"[^>]*>([^<]*)', refused.text, re.S)
    assert beside and "beyond" in beside.group(1)

    fields = _set(_form(edit.text), "defence", "7")
    _post(client, "/editor/ship/form", [*fields, ("action", "save")])
    history = client.get("/editor/ship/kestrel-class-frigate-copy/history", headers=PAGE)
    assert "<code>defence</code>" in history.text and "organiser" in history.text
    client.post(
        "/editor/ship/kestrel-class-frigate-copy/restore", data={"csrf": csrf, "version": "1"}
    )
    again = client.get("/editor/ship/kestrel-class-frigate-copy", headers=PAGE)
    assert 'id="f-defence" name="defence|int" value="6"' in again.text


def test_rows_are_added_and_removed_by_the_form(client: TestClient, settings: Settings) -> None:
    _open(client, settings)
    new = client.get("/editor/scenario/new", headers=PAGE)
    fields = _form(new.text)
    assert sum(1 for k, _ in fields if k.endswith(".terrain")) == 2
    added = _post(client, "/editor/scenario/form", [*fields, ("action", "add:map.zones")])
    fields = _form(added.text)
    assert sum(1 for k, _ in fields if k.endswith(".terrain")) == 3
    removed = _post(client, "/editor/scenario/form", [*fields, ("action", "remove:map.zones[0]")])
    fields = _form(removed.text)
    assert [v for k, v in fields if k.endswith("].id") and k.startswith("map")] == [
        "zone-2",
        "zone-3",
    ]
    # The removed zone left the touches of the one it touched.
    assert ("map.zones[0].touches|list", "zone-1") not in fields


@pytest.mark.parametrize(
    ("kind", "copy", "shows"),
    [
        ("ship", "frigate", 'class="ship '),
        ("scenario", "nebula-ambush", "zone-map"),
        ("scenario", "skirmish", 'class="map-svg"'),
        ("deck", "pilot", "Trim Thrusters"),
        ("character", "amara-lind", "Triage"),
    ],
)
def test_the_preview_shows_what_the_screens_will(
    client: TestClient, settings: Settings, kind: str, copy: str, shows: str
) -> None:
    _open(client, settings)
    fields = _form(client.get(f"/editor/{kind}/new?copy={copy}", headers=PAGE).text)
    shown = _post(client, f"/editor/{kind}/preview", fields)
    assert shown.status_code == 200 and shows in shown.text, shown.text[:3000]
    broken = _set(fields, "name", "Bad\x07name")
    problem = _post(client, f"/editor/{kind}/preview", broken)
    assert "U+0007" in problem.text


def test_a_copied_scenario_keeps_its_cues_through_the_form(
    client: TestClient, settings: Settings
) -> None:
    """A copy saved through the form keeps its cues whole: their ids follow their names, and
    what fires them follows too."""
    _open(client, settings)
    copy = client.get("/editor/scenario/new?copy=boarding-party", headers=PAGE)
    saved = _post(client, "/editor/scenario/form", [*_form(copy.text), ("action", "save")])
    assert saved.status_code == 303, unescape(saved.text)
    exported = client.get("/editor/scenario/boarding-party-copy/export")
    assert exported.status_code == 200
    with zipfile.ZipFile(io.BytesIO(exported.content)) as files:
        scenario = next(files.read(n).decode() for n in files.namelist() if "party-copy" in n)
    assert 'id = "the-boarding-alarm"' in scenario and 'sound = "alarm"' in scenario
    assert '[translations.de.cues.the-boarding-alarm]\nname = "Der Enteralarm"' in scenario


def test_the_form_names_the_players_side_and_the_preview_draws_it(
    client: TestClient, settings: Settings
) -> None:
    """G-SHIP-1: the players' side is the scenario's choice, any name: here "allianz", whose NPC
    escort the preview draws as the players' too."""
    _open(client, settings)
    fields = _form(client.get("/editor/scenario/new?copy=skirmish", headers=PAGE).text)
    fields = _set(_set(fields, "ships[0].side", "allianz"), "ships[1].side", "piraten")
    fields = _set(fields, "ships[1].crew", "npc")
    fields = _set(fields, "players_side", "allianz")
    shown = _post(client, "/editor/scenario/preview", fields)
    assert shown.status_code == 200, shown.text[:2000]
    kestrel = re.search(r'<article class="([^"]*)" id="ship-kestrel"', shown.text)
    rustjaw = re.search(r'<article class="([^"]*)" id="ship-rustjaw"', shown.text)
    assert kestrel and "players-side" in kestrel.group(1).split()
    assert rustjaw and "players-side" not in rustjaw.group(1).split()
    saved = _post(client, "/editor/scenario/form", [*fields, ("action", "save")])
    assert saved.status_code == 303, unescape(saved.text)
    copy_id = saved.headers["location"].split("/editor/scenario/")[1].split("?")[0]
    exported = client.get(f"/editor/scenario/{copy_id}/export")
    with zipfile.ZipFile(io.BytesIO(exported.content)) as files:
        scenario = next(files.read(n).decode() for n in files.namelist() if copy_id in n)
    assert 'players_side = "allianz"' in scenario


def test_a_deck_of_cards_its_role_cannot_play_is_saved_with_a_warning_beside_each(
    client: TestClient, settings: Settings
) -> None:
    """G-CARD-5: the captain's deck filled with repair cards checks (a deck may hold any kind),
    but no Captain's order plays them: the editor saves it and says so beside each such card's
    kind, in the reader's language, naming the station by its name."""
    _open(client, settings)
    fields = _form(client.get("/editor/deck/new?copy=captain", headers=PAGE).text)
    fields = _set(_set(fields, "cards[0].kind", "repair"), "cards[2].kind", "helm")
    saved = _post(client, "/editor/deck/form", [*fields, ("action", "save")])
    assert saved.status_code == 303, unescape(saved.text)  # a warning never refuses a save
    edit = client.get(saved.headers["location"], headers=PAGE)
    warned = dict(re.findall(r'class="field-warning"[^>]*data-field="([^"]+)">([^<]*)', edit.text))
    assert sorted(warned) == ["cards[0].kind", "cards[2].kind"]
    assert unescape(warned["cards[0].kind"]) == (
        "No Captain order plays a 'repair' card (Captain plays command): in this deck it can "
        "only be discarded."
    )
    german = client.get(saved.headers["location"], headers={**PAGE, "Accept-Language": "de"})
    said = re.findall(r'class="field-warning"[^>]*>([^<]*)', german.text)
    assert len(said) == 2 and "Kapitän" in unescape(said[0]) and "Captain" not in said[0]
    # Back to a deck it plays: no warning.
    fixed = _set(_set(_form(edit.text), "cards[0].kind", "command"), "cards[2].kind", "any")
    again = _post(client, "/editor/deck/form", [*fixed, ("action", "save")])
    assert "field-warning" not in client.get(again.headers["location"], headers=PAGE).text
