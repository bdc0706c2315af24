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

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sd]|\{[a-z_]+(?::[^{}]*)?\}|<[^>]+>")
TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE]
# Each domain's extraction config and keywords, as `make i18n` runs them.
DOMAINS = {
    "messages": (
        "babel.cfg",
        ("-k", "N_", "-k", "error:3", "-k", "refusal:4", "-k", "ServiceError:2"),
    ),
    "engine": (
        "babel-engine.cfg",
        ("--no-default-keywords", "-k", "N_", "-k", "Nn_:1,2", "-k", "Np_:1c,2"),
    ),
}


def _extracted(domain: str, tmp_path: Path) -> Catalog:
    config, keywords = DOMAINS[domain]
    out = tmp_path / "extracted.pot"
    pybabel = Path(sys.executable).with_name("pybabel")
    subprocess.run(
        [str(pybabel), "extract", "-F", config, *keywords, "-o", str(out), "."],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    with out.open("rb") as f:
        return read_po(f)


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("domain", DOMAINS)
def test_every_string_is_translated_and_checked(lang: str, domain: str, tmp_path: Path) -> None:
    source = _extracted(domain, tmp_path)
    with catalogue_path(lang, domain).open("rb") as f:
        catalogue = read_po(f)
    problems = []
    for message in source:
        if not message.id:
            continue
        found = catalogue.get(message.id, message.context)
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
