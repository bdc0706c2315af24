"""Where a long word may break: soft hyphens at its syllables in the language being rendered.

Browsers hyphenate by the page's `lang` (CSS `hyphens: auto`) only where they carry that
language's dictionary, and many (Chromium on Linux, kiosk builds) carry none: a German compound
in a phone's narrow box would then spill out or be split between two letters. A soft hyphen
shows nothing until the browser breaks the line there, and then shows as a hyphen, in any
browser."""

from __future__ import annotations

import functools
import re

import pyphen

from app.i18n import speaking

SOFT_HYPHEN = "\u00ad"
# Words shorter than this fit every box they are drawn in.
LONG_WORD = 10
_WORD = re.compile(rf"\w{{{LONG_WORD},}}")


@functools.cache
def _dictionary(locale: str) -> pyphen.Pyphen | None:
    found = pyphen.language_fallback(locale)
    return pyphen.Pyphen(lang=found) if found else None


def hyphenated(text: str, locale: str | None = None) -> str:
    """`text` with soft hyphens where its long words may break, in `locale` (the language being
    rendered when not given); unchanged in a language with no dictionary."""
    dictionary = _dictionary(locale or speaking.get())
    if dictionary is None:
        return text
    return _WORD.sub(lambda word: dictionary.inserted(word[0], hyphen=SOFT_HYPHEN), text)
