"""A scenario's cues in the editor's form (module cues, M-CUES-6): every cue shown with its
trigger and actions, added, changed, reordered and removed with pickers, checked as the loader
checks them, and previewed in words."""

from __future__ import annotations

import io
import json
import re
import tomllib
import zipfile
from html import unescape
from typing import Any

from fastapi.testclient import TestClient

from app.content import builtin_files
from app.settings import Settings

from .test_screens import _form, _open, _post, _set

GERMAN = {"Accept-Language": "de"}


def _exported(client: TestClient, scenario_id: str) -> dict[str, Any]:
    exported = client.get(f"/editor/scenario/{scenario_id}/export")
    with zipfile.ZipFile(io.BytesIO(exported.content)) as files:
        name = next(n for n in files.namelist() if n.endswith(f"/{scenario_id}.toml"))
        return tomllib.loads(files.read(name).decode())


def _act(client: TestClient, fields: list[tuple[str, str]], action: str) -> str:
    shown = _post(client, "/editor/scenario/form", [*fields, ("action", action)], **GERMAN)
    assert shown.status_code == 200, unescape(shown.text)
    return str(shown.text)


def test_every_cue_is_shown_and_kept_through_the_form(
    client: TestClient, settings: Settings
) -> None:
    _open(client, settings)
    page = client.get("/editor/scenario/new?copy=boarding-party", headers=GERMAN).text
    shipped = builtin_files()["scenario"]["boarding-party"][0]["cues"]
    # Each cue with its trigger's kind chosen and each of its actions.
    assert page.count('class="row-box cue-box"') == len(shipped)
    assert page.count('class="cue-action"') == sum(len(c["actions"]) for c in shipped)
    assert "Nur wenn die SL ihn auslöst" in unescape(page)
    saved = _post(client, "/editor/scenario/form", [*_form(page), ("action", "save")])
    assert saved.status_code == 303, unescape(saved.text)
    copied = _exported(client, "boarding-party-copy")
    # Ship ids follow the ships' names; the cues name the ships by their new ids.
    renamed = {
        old["id"]: new["id"]
        for old, new in zip(
            builtin_files()["scenario"]["boarding-party"][0]["ships"], copied["ships"], strict=True
        )
    }
    as_copied = json.loads(
        re.sub(r'"([a-z0-9-]+)"', lambda m: f'"{renamed.get(m[1], m[1])}"', json.dumps(shipped))
    )
    assert [c["trigger"] for c in copied["cues"]] == [c["trigger"] for c in as_copied]
    # A message to no one in particular goes to every screen: the form says so.
    for action in (a for c in as_copied for a in c["actions"] if "message" in a):
        action.setdefault("to", "all")
    assert [c["actions"] for c in copied["cues"]] == [c["actions"] for c in as_copied]


def test_a_cue_is_added_changed_reordered_and_previewed_in_words(
    client: TestClient, settings: Settings
) -> None:
    _open(client, settings)
    fields = _form(client.get("/editor/scenario/new", headers=GERMAN).text)
    fields = _form(_act(client, fields, "add:cues"))
    fields = _set(fields, "cues[0].name", "Der Gong")
    fields = _set(fields, "cues[0].trigger.kind", "turn")
    page = _act(client, fields, "refresh")
    # The kind chosen anew shows its own field, started at a value that fits it.
    assert 'name="cues[0].trigger.value|int" value="2"' in page
    fields = _set(_form(page), "cues[0].trigger.value", "3")
    fields = _set(fields, "cues[0].actions[0].kind", "sound")
    fields = _form(_act(client, _set(fields, "cues[0].actions[0].kind", "sound"), "refresh"))
    fields = _form(_act(client, fields, "add:cues[0].actions"))
    fields = _set(fields, "cues[0].actions[1].kind", "message")
    fields = _form(_act(client, fields, "refresh"))
    fields = _set(fields, "cues[0].actions[1].value", "Alle Mann auf Station!")
    fields = _form(_act(client, fields, "up:cues[0].actions[1]"))
    preview = _post(client, "/editor/scenario/preview", fields, **GERMAN).text
    said = " ".join(unescape(re.sub(r"<[^>]+>", " ", preview)).split())
    assert "Der Gong : Zu Beginn von Runde 3: eine Nachricht, der Projektor spielt: Alarm." in said
    saved = _post(client, "/editor/scenario/form", [*fields, ("action", "save")], **GERMAN)
    assert saved.status_code == 303, unescape(saved.text)
    cue = _exported(client, "neues-szenario")["cues"][0]
    assert cue == {
        "id": "der-gong",
        "name": "Der Gong",
        "repeat": False,
        "trigger": {"turn": 3},
        "actions": [{"message": "Alle Mann auf Station!", "to": "all"}, {"sound": "alarm"}],
    }


def test_a_cue_is_checked_as_the_loader_checks_it(client: TestClient, settings: Settings) -> None:
    _open(client, settings)
    fields = _form(client.get("/editor/scenario/new", headers=GERMAN).text)
    fields = _form(_act(client, fields, "add:cues"))
    fields = _set(fields, "cues[0].actions[0].kind", "fire")
    fields = _form(_act(client, fields, "refresh"))
    refused = _post(client, "/editor/scenario/form", [*fields, ("action", "save")], **GERMAN)
    assert refused.status_code == 400
    said = unescape(refused.text)
    assert (
        "Cue 1 › Was geschieht</a>: Dieser Cue löst sich im Kreis selbst aus: Cue 1, Cue 1" in said
    )
