"""Scenario content in German: every shipped file translates what people read, and the content
checks refuse a translation of a field, entry or language that does not exist, naming the file
and the field."""

import shutil
import tomllib
from pathlib import Path

import pytest

from app.content import load_catalogue
from app.i18n import LANGUAGES, SOURCE, rendering
from app.i18n_content import TRANSLATABLE, Entries, content_words
from app.rules.content import ContentError
from app.web.templating import environment

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
FOLDERS = {"ships": "ship class", "decks": "deck", "characters": "character", ".": "scenario"}
# Characters' and ships' names are their own, in every language (a title may be translated, not
# required).
OPTIONAL = {("character", "name"), ("scenario", "ships")}


def _files() -> list[tuple[Path, str]]:
    return [
        (path, kind)
        for folder, kind in FOLDERS.items()
        for path in sorted((SCENARIOS / folder).glob("*.toml"))
    ]


@pytest.mark.parametrize("lang", [code for code in LANGUAGES if code != SOURCE])
@pytest.mark.parametrize(("path", "kind"), _files(), ids=lambda p: getattr(p, "name", p))
def test_every_shipped_file_is_translated_whole(path: Path, kind: str, lang: str) -> None:
    data = tomllib.loads(path.read_text())
    given = data.get("translations", {}).get(lang, {})
    missing = []
    for field, entries in TRANSLATABLE[kind].items():
        if entries is None:
            if field in data and field not in given and (kind, field) not in OPTIONAL:
                missing.append(field)
            continue
        assert isinstance(entries, Entries)
        if (kind, field) in OPTIONAL:
            continue
        for key, row in entries.of(data).items():
            done = given.get(field, {}).get(key, {})
            missing += [
                f"{field}.{key}.{name}"
                for name in entries.fields
                if entries.texts_of(row, name) and name not in done
            ]
    assert not missing, f"{path.name}: no {lang} for {missing}"


@pytest.fixture
def scenarios(tmp_path: Path) -> Path:
    root = tmp_path / "scenarios"
    shutil.copytree(SCENARIOS, root)
    return root


@pytest.mark.parametrize(
    ("file", "added", "field"),
    [
        (
            "ships/frigate.toml",
            '[translations.de]\nhull_size = "zwölf"\n',
            "translations.de.hull_size",
        ),
        (
            "decks/pilot.toml",
            '[translations.de.cards."No Such Card"]\nname = "Keine"\n',
            "translations.de.cards.No Such Card",
        ),
        (
            "decks/pilot.toml",
            '[translations.de.cards."Redline"]\nvalue = "fünf"\n',
            "translations.de.cards.Redline.value",
        ),
        ("skirmish.toml", '[translations.fr]\nname = "Escarmouche"\n', "translations.fr"),
        ("characters/juno-pike.toml", "[translations.de]\nblurb = 3\n", "translations.de.blurb"),
    ],
)
def test_a_translation_of_what_does_not_exist_is_refused_naming_file_and_field(
    scenarios: Path, file: str, added: str, field: str
) -> None:
    path = scenarios / file
    text = path.read_text()
    # A fresh file's translations, so that the one under test is the only table of its name.
    path.write_text(text.split("\n# German (")[0] + "\n" + added)
    with pytest.raises(ContentError) as refused:
        load_catalogue(scenarios)
    assert refused.value.file == f"scenarios/{file}"
    assert refused.value.field == field


def test_a_scenario_translates_the_messages_its_cues_send() -> None:
    words = content_words("de")
    sent = "Boarding alarm! Every hand to the bridge!"  # boarding-party.toml, cue "alarm"
    assert words[sent] == "Enteralarm! Alle Mann auf die Brücke!"
    assert words["The boarding alarm"] == "Der Enteralarm"


def test_a_scenario_may_translate_its_ships_names(scenarios: Path) -> None:
    path = scenarios / "skirmish.toml"
    path.write_text(path.read_text() + '\n[translations.de.ships."kestrel"]\nname = "Turmfalke"\n')
    load_catalogue(scenarios)  # the loader takes it
    assert content_words("de", scenarios)["Kestrel"] == "Turmfalke"


CUE = """
[[cues]]
id = "twice"
name = "Twice"
trigger = { turn = 2 }
actions = [{ message = "Brace!" }, { red_alert = true }, { message = "Hold on!" }]

[translations.de.cues."twice"]
name = "Zweimal"
"""


def test_a_cue_with_several_messages_translates_them_in_their_order(scenarios: Path) -> None:
    path = scenarios / "skirmish.toml"
    path.write_text(path.read_text() + CUE + 'message = ["Festhalten!", "Durchhalten!"]\n')
    load_catalogue(scenarios)  # the loader takes it
    words = content_words("de", scenarios)
    assert (words["Brace!"], words["Hold on!"]) == ("Festhalten!", "Durchhalten!")


@pytest.mark.parametrize(
    ("cues", "field"),
    [
        (CUE + 'message = "Festhalten!"\n', "translations.de.cues.twice.message"),
        (
            CUE.replace('{ message = "Hold on!" }', "{ red_alert = false }")
            + 'message = ["Festhalten!", "Durchhalten!"]\n',
            "translations.de.cues.twice.message",
        ),
        (
            CUE.replace('{ message = "Brace!" }, ', "").replace('{ message = "Hold on!" }', "")
            + 'message = "Festhalten!"\n',
            "translations.de.cues.twice.message",
        ),
    ],
)
def test_a_cues_messages_translated_by_a_wrong_count_are_refused(
    scenarios: Path, cues: str, field: str
) -> None:
    path = scenarios / "skirmish.toml"
    path.write_text(path.read_text() + cues)
    with pytest.raises(ContentError) as refused:
        load_catalogue(scenarios)
    assert refused.value.file == "scenarios/skirmish.toml"
    assert refused.value.field == field


def test_german_screens_show_translated_content() -> None:
    words = content_words("de")
    assert words["Trim Thrusters"] == "Feinschub" and words["Jump Point"] == "Sprungpunkt"
    template = environment.from_string("{{ 'Helm Deck'|content }} · {{ 'Weapons'|content }}")
    with rendering("de") as context:
        assert template.render(**context) == "Steuerdeck · Waffen"
    with rendering("en") as context:
        assert template.render(**context) == "Helm Deck · Weapons"
