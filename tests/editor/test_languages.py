"""The editor in the organisers' languages: every screen's own words come from the
catalogue, so a pseudo-localised render leaves no plain English word but the content's own."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.content import builtin_files
from app.settings import Settings
from tests.i18n.screens import catalogue_sources, data_strings, readable, without
from tests.i18n.test_screens import _ENGLISH

from .test_screens import _form, _post

# Three or more plain ASCII letters: no pseudo-translated text has them.
PLAIN_WORD = re.compile(r"\b[A-Za-z]{3,}\b")
# What the editor shows that is content or identifiers, not its own words: every built-in's
# text, the fields' paths in the problems (`stations[1].deck`), the kinds in the addresses.
CONTENT = (
    data_strings({k: {i: d for i, (d, _) in v.items()} for k, v in builtin_files().items()})
    - catalogue_sources()
) | {"testclient", "organiser", "TOML", "UTC", "new-ship", "New ship class"}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """A development server: the pseudo-language may be asked for."""
    return settings.model_copy(update={"pseudo_language": True})


def _pages(client: TestClient, settings: Settings, lang: str) -> dict[str, str]:
    client.get(f"/editor?organiser_token={settings.organiser_key}")
    accept = {"Accept-Language": lang, "Accept": "text/html"}
    pages = {}
    for kind, copy in (("ship", "frigate"), ("deck", "pilot"), ("character", "juno-pike")):
        page = client.get(f"/editor/{kind}/new?copy={copy}", headers=accept).text
        pages[f"{kind} form"] = page
        pages[f"{kind} preview"] = _post(
            client, f"/editor/{kind}/preview", _form(page), **accept
        ).text
    scenario = client.get("/editor/scenario/new?copy=nebula-ambush", headers=accept).text
    pages["scenario form"] = scenario
    pages["scenario preview"] = _post(
        client, "/editor/scenario/preview", _form(scenario), **accept
    ).text
    saved = _post(client, "/editor/ship/form", [*_form(pages["ship form"]), ("action", "save")])
    assert saved.status_code == 303
    pages["history"] = client.get("/editor/ship/frigate-copy/history", headers=accept).text
    pages["home"] = client.get("/editor", headers=accept).text
    client.cookies.clear()
    pages["refusal"] = client.get("/editor", headers=accept).text
    return pages


def _left(page: str) -> str:
    # A version's time and its changed fields' paths are data too.
    text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", " ", readable(page))
    return without(text, CONTENT | {"frigate-copy", "Kestrel-class Frigate 2", "defence"})


def test_every_editor_screen_is_german_for_a_german_browser(
    client: TestClient, settings: Settings
) -> None:
    problems = {
        name: sorted(set(_ENGLISH.findall(_left(page))))
        for name, page in _pages(client, settings, "de").items()
    }
    assert not {name: found for name, found in problems.items() if found}


def test_every_editor_screen_comes_from_the_catalogue(
    client: TestClient, settings: Settings
) -> None:
    problems = {
        name: sorted(set(PLAIN_WORD.findall(_left(page))))
        for name, page in _pages(client, settings, "en_XA").items()
    }
    assert not {name: found for name, found in problems.items() if found}
