"""Every translatable string has a German translation that is checked (not fuzzy) and keeps the
source's placeholders. The strings are extracted afresh, as `make i18n` does, so a string added
to a template without running `make i18n` fails here too."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from app.i18n import LANGUAGES, SOURCE, catalogue_path
from app.i18n_words import ACTIONS, PHASES, RANGE_BANDS

ROOT = Path(__file__).resolve().parents[2]
KEYWORDS = ("-k", "N_", "-k", "error:3", "-k", "refusal:4", "-k", "ServiceError:2")
PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sd]|\{[a-z_]+\}|<[^>]+>")
TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE]
DOMAINS = {"messages": "babel.cfg", "engine": "babel-engine.cfg"}


def _extracted(config: str, tmp_path: Path) -> Catalog:
    out = tmp_path / "extracted.pot"
    pybabel = Path(sys.executable).with_name("pybabel")
    subprocess.run(
        [str(pybabel), "extract", "-F", config, *KEYWORDS, "-o", str(out), "."],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    with out.open("rb") as f:
        return read_po(f)


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("domain", DOMAINS)
def test_every_string_is_translated_and_checked(lang: str, domain: str, tmp_path: Path) -> None:
    if not (ROOT / DOMAINS[domain]).exists():
        pytest.skip(f"no {DOMAINS[domain]}: the {domain} domain is not in this tree")
    source = _extracted(DOMAINS[domain], tmp_path)
    with catalogue_path(lang, domain).open("rb") as f:
        catalogue = read_po(f)
    problems = []
    for message in source:
        if not message.id:
            continue
        found = catalogue.get(message.id)
        text = found.string if found else None
        if found is None or not text or (isinstance(text, tuple) and not all(text)):
            problems.append(f"untranslated: {message.id!r}")
        elif found.fuzzy:
            problems.append(f"fuzzy: {message.id!r}")
        else:
            sources = tuple(message.id) if isinstance(message.id, tuple | list) else (message.id,)
            texts = tuple(text) if isinstance(text, tuple | list) else (text,)
            wanted = sorted(set(PLACEHOLDER.findall(sources[-1])) - {"%(num)s"})
            for form in texts:
                if sorted(set(PLACEHOLDER.findall(form)) - {"%(num)s"}) != wanted:
                    problems.append(f"placeholders or markup differ: {message.id!r} -> {form!r}")
    assert not problems, f"{lang}/{domain}.po:\n" + "\n".join(problems)


def test_the_engine_words_shown_translated_are_all_listed() -> None:
    """Range bands, phases and actions come from the engine as English words; the screens
    translate them by value, so each must be in app/i18n_words.py (and so in the catalogue)."""
    from app.rules.content import RANGE_BANDS as BANDS
    from app.rules.phases import ACTIONS as ENGINE_ACTIONS
    from app.rules.phases import PHASES as ENGINE_PHASES

    assert {b.label for b in BANDS} <= set(RANGE_BANDS)
    assert {str(p["label"]) for p in ENGINE_PHASES.values()} <= set(PHASES)
    assert {str(a["label"]) for a in ENGINE_ACTIONS.values()} <= set(ACTIONS)
