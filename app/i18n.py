"""The players' languages: which ones there are, which one a device gets, and its words.

Each device chooses its own language: the `bc_lang` cookie if set (the switchers set it), else
the browser's Accept-Language, else English. The projector follows its game's setting
(`display_language`), which the GM sets. Catalogues are the `.po` files under `translations/`,
compiled in memory the first time a language is asked for: no binary files in the repository.

Two gettext domains: `messages` (templates and the web layer's Python) and `engine` (the sentences
the rules engine's message ids stand for), merged into one `Translations` per language.

`en_XA` is a pseudo-language for tests and development, made on the fly from the English source:
every letter accented and every text about 40 % longer, so a hard-coded English word stands out
and a layout that only fits English shows. A device may ask for it (a link, its cookie, its
browser) only on a server started with `BRIDGECREW_PSEUDO_LANGUAGE=1`; elsewhere the asking is
ignored, and no cookie is set: a link cannot leave a phone in it.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import Translations
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

ROOT = Path(__file__).resolve().parents[1]
TRANSLATIONS_DIR = ROOT / "translations"
DOMAINS = ("messages", "engine")

SOURCE = "en"
PSEUDO = "en_XA"
# What the switchers offer, each in its own words. The pseudo-language is not offered.
LANGUAGES: dict[str, str] = {"en": "English", "de": "Deutsch"}
LOCALES = (*LANGUAGES, PSEUDO)
COOKIE = "bc_lang"
COOKIE_SECONDS = 400 * 24 * 3600  # browsers cap a cookie's life at 400 days
# Babel's locale for numbers and plural rules (the pseudo-language counts like English).
_BABEL_LOCALE = {PSEUDO: SOURCE}


def supported(code: str | None) -> str | None:
    """The supported locale a code names ("de", "de-AT", "DE_de"), or None."""
    if not code:
        return None
    code = code.strip().replace("-", "_")
    for locale in LOCALES:
        if code.lower() == locale.lower():
            return locale
    base = code.split("_")[0].lower()
    return base if base in LANGUAGES else None


def chosen(code: str | None, *, pseudo: bool = False) -> str | None:
    """The language a device may choose by this code: a supported one, the pseudo-language only
    where it is allowed (`pseudo`, the `pseudo_language` setting)."""
    found = supported(code)
    return found if found != PSEUDO or pseudo else None


def from_accept_language(header: str | None, *, pseudo: bool = False) -> str | None:
    """The best language of an Accept-Language header a device may choose, by its q-values."""
    wanted: list[tuple[float, int, str]] = []
    for index, part in enumerate((header or "").split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag and quality > 0:
            wanted.append((-quality, index, tag))
    for _, _, tag in sorted(wanted):
        found = chosen(tag, pseudo=pseudo)
        if found:
            return found
    return None


def negotiate(cookie: str | None, accept_language: str | None, *, pseudo: bool = False) -> str:
    """A device's language: its cookie, else its browser's languages, else English."""
    return (
        chosen(cookie, pseudo=pseudo)
        or from_accept_language(accept_language, pseudo=pseudo)
        or SOURCE
    )


def locale_of_scope(scope: Scope | None, *, pseudo: bool = False) -> str:
    """The language of an HTTP request or websocket handshake: as LanguageMiddleware chose it
    for the app (`scope["state"]["locale"]`), else by its cookie, then Accept-Language."""
    given = (scope or {}).get("state", {}).get("locale")
    if isinstance(given, str):
        return given
    headers = Headers(raw=list((scope or {}).get("headers") or ()))
    cookie = SimpleCookie()
    with contextlib.suppress(Exception):  # a malformed cookie header is simply no choice
        cookie.load(headers.get("cookie", ""))
    kept = cookie[COOKIE].value if COOKIE in cookie else None
    return negotiate(kept, headers.get("accept-language"), pseudo=pseudo)


# --- Catalogues ------------------------------------------------------------------------------


def catalogue_path(locale: str, domain: str) -> Path:
    return TRANSLATIONS_DIR / locale / "LC_MESSAGES" / f"{domain}.po"


def _compiled(path: Path, domain: str) -> Translations:
    """A .po file compiled to .mo in memory, as gettext reads it. Fuzzy entries are left out,
    as msgfmt leaves them out: an unchecked guess shows the English instead."""
    with path.open("rb") as source:
        catalog = read_po(source, domain=domain)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    buffer.seek(0)
    return Translations(buffer, domain=domain)


class PseudoTranslations(Translations):
    """Every message as its English source, accented and lengthened (see `pseudo`)."""

    def gettext(self, message: str) -> str:
        return pseudo(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return pseudo(singular if n == 1 else plural)

    def pgettext(self, context: str, message: str) -> str:
        return pseudo(message)

    def npgettext(self, context: str, singular: str, plural: str, num: int) -> str:
        return pseudo(singular if num == 1 else plural)


@cache
def translations(locale: str) -> Translations:
    """One language's words: both domains merged. English is the source: no catalogue."""
    if locale == PSEUDO:
        return PseudoTranslations()
    merged = Translations()
    if locale != SOURCE:
        for domain in DOMAINS:
            path = catalogue_path(locale, domain)
            if path.exists():
                merged.merge(_compiled(path, domain))
    return merged


_ACCENTED = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "áƀçðéƒĝĥíĵķļɱñöþǫŕšţüṽŵẋýžÁƁÇÐÉƑĜĤÍĴĶĻṀÑÖÞǪŔŠŢÜṼŴẊÝŽ",
)
# Left as they are: placeholders (%(name)s, %%; the engine's {name} and {name:+d}), tags,
# character references.
_UNTOUCHED = re.compile(r"%\([a-z_]+\)[sd]|%%|\{[a-z_]+(:[^{}]*)?\}|<[^>]*>|&[#a-zA-Z0-9]+;")


def pseudo(text: str) -> str:
    """The pseudo-language's form of an English text: every letter accented, placeholders and
    markup left alone, and ~40 % more length so that layouts are tried with long words."""
    if not text:
        return text
    out, at, shown, letters = [], 0, 0, 0
    for found in _UNTOUCHED.finditer(text):
        plain = text[at : found.start()]
        shown += len(plain)
        letters += sum(ch.isalpha() for ch in plain)
        out += [plain.translate(_ACCENTED), found.group()]
        at = found.end()
    plain = text[at:]
    shown += len(plain)
    letters += sum(ch.isalpha() for ch in plain)
    out.append(plain.translate(_ACCENTED))
    if not letters:
        return text
    # The brackets count towards the 40 %: they show where a clipped text was cut.
    return "⟦" + "".join(out) + "·" * max(0, math.ceil(shown * 0.4) - 2) + "⟧"


# --- What each render is given ---------------------------------------------------------------


@dataclass(frozen=True)
class Language:
    """One language's callables for a template render: Jinja's newstyle `gettext`/`ngettext`
    (keyword placeholders, escaped in HTML), a number formatter, and the locale's name."""

    locale: str
    translations: Translations

    def context(self) -> dict[str, Any]:
        return {
            "_": self.underscore,
            "gettext": self.gettext,
            "ngettext": self.ngettext,
            "number": self.number,
            "lang": self.locale,
            "html_lang": self.locale.split("_")[0],
            "translations": self.translations,
        }

    @property
    def underscore(self) -> Any:
        """`_()` for templates, which all escape HTML. Jinja's own `_` resolves `gettext` from the
        context and calls it through the context again on every use, which showed in the push
        round's profile; this one is called once. Messages without values are kept as Markup."""
        words = self.translations
        kept: dict[str, Markup] = {}

        def underscore(message: str, **variables: Any) -> Markup:
            text = kept.get(message)
            if text is None:
                text = kept[message] = Markup(words.gettext(message))  # noqa: S704 - catalogue text
            if not variables and "%" not in text:
                return text
            # As newstyle gettext: always a format string ("%%" is "%"); values escaped (numbers
            # need not be). What Markup's own `%` does, without wrapping every value in a helper.
            shown = {k: v if isinstance(v, int) else escape(v) for k, v in variables.items()}
            return Markup(str.__mod__(text, shown))  # noqa: S704 - catalogue text, values escaped

        return underscore

    @property
    def gettext(self) -> Any:
        words = self.translations

        @pass_context
        def gettext(context: Context, message: str, **variables: Any) -> str:
            text = words.gettext(message)
            return _format(context, text, variables)

        return gettext

    @property
    def ngettext(self) -> Any:
        words = self.translations

        @pass_context
        def ngettext(context: Context, singular: str, plural: str, n: int, **variables: Any) -> str:
            variables.setdefault("num", self.number(n))
            return _format(context, words.ngettext(singular, plural, n), variables)

        return ngettext

    def number(self, value: float | int) -> str:
        return str(format_decimal(value, locale=_BABEL_LOCALE.get(self.locale, self.locale)))


def _format(context: Context, text: str, variables: Mapping[str, Any]) -> str:
    # As Jinja's own newstyle gettext: always a format string, Markup when autoescaping.
    if context.eval_ctx.autoescape:
        return Markup(text) % variables  # noqa: S704 - the catalogue's text; variables escaped
    return text % variables


@cache
def language(locale: str) -> Language:
    """The render callables of a supported locale (an unknown one gets English)."""
    known = supported(locale) or SOURCE
    return Language(known, translations(known))


@cache
def render_context(locale: str) -> dict[str, Any]:
    return language(locale).context()


# The language being rendered: set around each render, so that macros (which see their own
# module's globals, not the render's context) speak the same language as the page.
speaking: ContextVar[str] = ContextVar("speaking", default=SOURCE)
# The language of the request being served (set by LanguageMiddleware).
requested: ContextVar[str] = ContextVar("requested", default=SOURCE)


@contextlib.contextmanager
def rendering(locale: str) -> Iterator[dict[str, Any]]:
    """Render in one language: gives the context entries, and lets macros follow."""
    locale = supported(locale) or SOURCE  # (the caches below hold one entry per language)
    token = speaking.set(locale)
    try:
        yield render_context(locale)
    finally:
        speaking.reset(token)


@pass_context
def macro_gettext(context: Context, message: str, **variables: Any) -> Any:
    """`gettext` where no render context gives one (inside a macro): the rendering language."""
    # Not str(): the answer is Markup when autoescaping, and must stay so.
    return context.call(render_context(speaking.get())["gettext"], message, **variables)


@pass_context
def macro_ngettext(context: Context, singular: str, plural: str, n: int, **variables: Any) -> Any:
    found = render_context(speaking.get())["ngettext"]
    return context.call(found, singular, plural, n, **variables)


def macro_underscore(message: str, **variables: Any) -> Markup:
    """`_()` where no render context gives one (inside a macro): the rendering language."""
    return render_context(speaking.get())["_"](message, **variables)  # type: ignore[no-any-return]


def macro_number(value: float | int) -> str:
    return language(speaking.get()).number(value)


def gettext(message: str) -> str:
    """A Python string in the language of the request being served (API messages)."""
    return str(translations(requested.get()).gettext(message))


class LanguageMiddleware:
    """Sets `requested` (and `scope["state"]["locale"]`) for each request and websocket. `?lang=de`
    on a page chooses a language and remembers it in the cookie: the switchers are plain links,
    working without scripts. The pseudo-language is chosen only where `pseudo()` allows it."""

    def __init__(self, app: ASGIApp, pseudo: Callable[[], bool] = lambda: False) -> None:
        self.app = app
        self.pseudo = pseudo

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        pseudo = self.pseudo()
        # A page's socket asks for the page's language (static/js/app.js): a browser may open a
        # socket with other Accept-Language than its pages.
        picked = _query_choice(scope, pseudo)
        state = scope.setdefault("state", {})
        state.pop("locale", None)  # chosen here, not by whatever the scope arrived with
        locale = picked or locale_of_scope(scope, pseudo=pseudo)
        state["locale"] = locale
        token = requested.set(locale)
        try:
            if picked is None or scope["type"] == "websocket":  # a socket sets no cookie
                await self.app(scope, receive, send)
                return

            async def send_with_cookie(message: Message) -> None:
                if message["type"] == "http.response.start":
                    cookie = f"{COOKIE}={picked}; Path=/; Max-Age={COOKIE_SECONDS}; SameSite=Lax"
                    message["headers"] = [
                        *message.get("headers", []),
                        (b"set-cookie", cookie.encode()),
                    ]
                await send(message)

            await self.app(scope, receive, send_with_cookie)
        finally:
            requested.reset(token)


def _query_choice(scope: Scope, pseudo: bool) -> str | None:
    query = scope.get("query_string", b"").decode("latin-1")
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        if name == "lang":
            return chosen(value, pseudo=pseudo)
    return None


def locale_of(words: object) -> str:
    """The locale whose words (`translations`) these are; English for any others."""
    for locale in LOCALES:
        if translations(locale) is words:
            return locale
    return SOURCE


def words() -> Translations:
    """Both domains in the language being rendered (for what has no render context: a macro)."""
    return translations(speaking.get())


def spoken(message: str) -> str:
    """A Python string in the language being rendered (text that Python helpers build for
    templates, e.g. a distance in words)."""
    return str(translations(speaking.get()).gettext(message))


def known(value: str, locale: str | None = None) -> str:
    """A word the engine or the content gives as English data (a range band, a card kind, a
    side), in the rendering language (or `locale`) when the catalogue has it, else as it is."""
    if not isinstance(value, str) or not value:
        return value
    return str(translations(locale or speaking.get()).gettext(value.replace("_", " ")))


def N_(message: str) -> str:
    """Marks a msgid for extraction where it is translated later, by its value."""
    return message
