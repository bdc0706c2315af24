"""Every screen in German says nothing in English, and every screen in the pseudo-language shows
no interface word that was left out of the catalogue."""

import re

import pytest

from app.i18n import PSEUDO

from .screens import catalogue_sources, data_strings, readable, screens, without

# Interface words that are English, not German (so "Station", "Log", "Timer" are not here).
ENGLISH = (
    "Hull", "Shields", "Orders", "Turn", "Send", "Pass", "Join", "ready", "choosing", "Waiting",
    "waiting", "Health", "Contacts", "Repair", "Weapons", "Target", "Settings",
    "Messages", "Seats", "Characters", "Projector", "Downtime", "Reconnecting", "Connection",
    "cards", "Damage", "damage", "Allocation", "Discard", "Leave", "Choose", "Before", "free",
    "taken", "left", "the", "and", "your", "Your", "from", "with", "strikes", "guidance",
    "Combat", "combat", "report", "Report", "Start", "End", "Close", "Long", "Medium", "Force",
    "Undo", "Destroy", "Restore", "Rename", "Move", "Remove", "Impose", "First aid", "Message",
    "Everyone", "Volume", "sound", "unmanned", "Engineering", "Comms",
    "Captain", "Attack", "Manoeuvre", "Evasive", "Jam", "Point defence", "zone", "zones",
)  # fmt: skip
_ENGLISH = re.compile(r"\b(" + "|".join(re.escape(w) for w in ENGLISH) + r")\b")
# Three or more plain ASCII letters: no pseudo-translated text has them.
_PLAIN_WORD = re.compile(r"\b[A-Za-z]{3,}\b")

SCREENS = {"de": list(screens("de")), PSEUDO: list(screens(PSEUDO))}


@pytest.mark.parametrize("name", [name for name, _, _ in SCREENS["de"]])
def test_every_german_screen_is_without_english_interface_words(name: str) -> None:
    page, view = next((page, view) for n, page, view in SCREENS["de"] if n == name)
    assert '<html lang="de">' in page
    # Names, ids and the engine's sentences are data, not this layer's words.
    engine = data_strings(view) - catalogue_sources()
    text = without(readable(page), engine)
    found = sorted(set(_ENGLISH.findall(text)))
    assert not found, f"{name}: English on a German screen: {found}"


@pytest.mark.parametrize("name", [name for name, _, _ in SCREENS[PSEUDO]])
def test_every_pseudo_screen_has_no_string_left_out_of_the_catalogue(name: str) -> None:
    page, view = next((page, view) for n, page, view in SCREENS[PSEUDO] if n == name)
    text = without(readable(page), data_strings(view) - catalogue_sources())
    found = sorted(set(_PLAIN_WORD.findall(text)))
    assert not found, f"{name}: hard-coded, not from the catalogue: {found}"
