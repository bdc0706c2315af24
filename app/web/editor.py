"""The organisers' content editor: ship classes, decks, characters and scenarios
(with their zone maps) in the content library, which every game on this server can use.

Content is shared by the whole server, so the editor opens with the organiser key that
`bridgecrew serve` prints (settings.organiser_key), never with a game's GM or seat token. The key
rides in the printed link once, then in a cookie of its own. Who saves a version is the name the
organiser gives the editor (a cookie too); the key says only that they may.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.content import load_catalogue
from app.i18n import N_, SOURCE, translations
from app.i18n_content import speaking_content, words_of
from app.rules import display_view, gm_view
from app.rules.content import (
    CARD_KINDS,
    CREWS,
    KIND_REACH,
    MODULES,
    QUALITIES,
    RANGE_BANDS,
    ROLES,
    SOUNDS,
    SYSTEMS,
    Catalogue,
    ContentError,
)
from app.rules.content.advice import deck_warnings
from app.rules.content.zone_content import CANVAS_HEIGHT, CANVAS_WIDTH, MAP_KINDS, TERRAINS
from app.rules.core.messages import message
from app.rules.core.phases import kinds_played_by
from app.rules.modules.cues.cue_content import PHASES
from app.service import ServiceError
from app.service.library import (
    KINDS,
    NAME_MAX,
    ContentProblems,
    check_item,
    copy_of,
    game_catalogue,
    history,
    is_builtin,
    item_data,
    items,
    library,
    library_content,
    preview_state,
    restore,
    save_item,
    save_items,
)
from app.service.library_files import file_name, read_files, scenario_files, to_toml, zipped

from .deps import (
    EDITOR_NAME_COOKIE,
    ORGANISER_COOKIE,
    CsrfChecked,
    OrganiserOnly,
    SessionFactoryDep,
    csrf_token,
    organiser_caller,
    organiser_key_matches,
    set_cookie,
)
from .editor_form import (
    ACTION_KINDS,
    TRIGGER_KINDS,
    Data,
    apply_action,
    blank,
    cue_parts,
    cues_from_form,
    data_from_form,
    loose,
    settle_ids,
    translations_from_form,
    translations_shown,
)
from .editor_words import MODULE_WORDS, SAME_KIND, options
from .fields import checked_name, whole_number
from .render import render_template
from .screen import error_page, page

router = APIRouter(tags=["editor"])


def author(request: Request) -> str:
    """Who saves: the name this browser gave the editor, else 'organiser'."""
    return request.cookies.get(EDITOR_NAME_COOKIE, "") or "organiser"


def refused(request: Request, error: ServiceError) -> HTMLResponse:
    """A refusal as a page; the organiser key's refusal offers the key's form."""
    if error.code != "ORGANISER_ONLY":
        return error_page(request, error)
    token = csrf_token(request)
    html = render_template("editor_key.html", csrf=token, message=error.message, code=error.code)
    return page(html, token, error.status)


@router.get("/editor", response_class=HTMLResponse)
async def home(
    request: Request, session_factory: SessionFactoryDep, organiser_token: str | None = None
) -> Response:
    if organiser_token is not None:
        # The printed link: keep the key in a cookie and off the address bar.
        if not organiser_key_matches(request, organiser_token):
            return refused(
                request, ServiceError("ORGANISER_ONLY", message("organiser_key_wrong"), 403)
            )
        response = RedirectResponse("/editor", status_code=303)
        set_cookie(response, ORGANISER_COOKIE, organiser_token)
        return response
    try:
        await organiser_caller(request)
    except ServiceError as error:
        return refused(request, error)
    return await home_page(request, session_factory)


async def home_page(
    request: Request,
    session_factory: SessionFactoryDep,
    problems: ContentProblems | None = None,
    imported: int | None = None,
) -> HTMLResponse:
    """The home screen, with an import's problems (each naming its file and field) or count."""
    token = csrf_token(request)
    with speaking_content((await library(session_factory)).words):  # names as the lobby says them
        html = render_template(
            "editor.html",
            csrf=token,
            kinds=KINDS,
            items=await items(session_factory),
            author=author(request),
            problems=problems.problems if problems else [],
            imported=imported,
        )
    return page(html, token, 400 if problems else 200)


@router.post("/editor/key")
async def typed_key(
    request: Request, csrf: CsrfChecked, key: Annotated[str, Form()] = ""
) -> Response:
    """The key typed in, for an organiser who has it but not the printed link."""
    if not organiser_key_matches(request, key.strip()):
        return refused(request, ServiceError("ORGANISER_ONLY", message("organiser_key_wrong"), 403))
    response = RedirectResponse("/editor", status_code=303)
    set_cookie(response, ORGANISER_COOKIE, key.strip())
    return response


@router.post("/editor/name")
async def my_name(
    request: Request, csrf: CsrfChecked, organiser: OrganiserOnly, name: Annotated[str, Form()]
) -> Response:
    """The name versions this browser saves are signed with."""
    try:
        chosen = checked_name(name)
    except ServiceError as error:
        return error_page(request, error)
    response = RedirectResponse("/editor", status_code=303)
    set_cookie(response, EDITOR_NAME_COOKIE, chosen)
    return response


@router.get("/editor/{kind}/{item_id}/export")
async def export(
    session_factory: SessionFactoryDep,
    organiser: OrganiserOnly,
    kind: str,
    item_id: str,
    version: int | None = None,
) -> Response:
    """One item as its TOML file; a scenario as a zip of its folder, with the library's ship
    classes and decks it uses."""
    data, _ = await item_data(session_factory, _kind(kind), item_id, version)
    if kind != "scenario":
        name = file_name(kind, item_id).rpartition("/")[2]
        return _download(to_toml(data).encode(), name, "application/toml")
    files = scenario_files(item_id, data, await library_content(session_factory))
    return _download(zipped(files, "scenarios"), f"{item_id}.zip", "application/zip")


def _download(body: bytes, name: str, media_type: str) -> Response:
    # Ids are plain (a-z, 0-9, - and _), so the file name needs no quoting beyond this.
    disposition = f'attachment; filename="{name}"'
    return Response(body, media_type=media_type, headers={"Content-Disposition": disposition})


@router.post("/editor/import")
async def import_files(
    request: Request,
    session_factory: SessionFactoryDep,
    csrf: CsrfChecked,
    organiser: OrganiserOnly,
    files: list[UploadFile],
) -> Response:
    """TOML files, a folder's files or a zip of a folder: all are saved, or none."""
    uploads = [(upload.filename or "(unnamed)", await upload.read()) for upload in files]
    try:
        changes = read_files(uploads)
        await save_items(session_factory, changes, author(request))
    except ContentProblems as problems:
        return await home_page(request, session_factory, problems)
    return await home_page(request, session_factory, imported=len(changes))


def _form_data(kind: str, pairs: list[tuple[str, str]]) -> Data:
    """The item a form describes: its fields, its cues as the file writes them, and the
    translations typed beside its fields."""
    return translations_from_form(kind, cues_from_form(data_from_form(pairs)), pairs)


def _kind(kind: str) -> str:
    if kind not in KINDS:
        raise ServiceError("NO_SUCH_CONTENT", message("content_kind_unknown", kind=kind), 404)
    return kind


# --- Editing one item ----------------------------------------------------------------------------


async def _choices(session_factory: SessionFactoryDep, data: Data) -> dict[str, Any]:
    """Every picker's options, (value, words): what the item may refer to, by name."""
    try:
        catalogue = await game_catalogue(session_factory)
    except ContentError:  # the library no longer fits the shipped content: pick from that
        catalogue = load_catalogue()
    zones = data.get("map", {}).get("zones") if isinstance(data.get("map"), dict) else None
    used = _kinds_used(catalogue)
    rows = (
        [s for s in data["ships"] if isinstance(s, dict)]
        if isinstance(data.get("ships"), list)
        else []
    )
    ships = [(str(s.get("id")), str(s.get("name")), str(s.get("ship_class"))) for s in rows]
    return {
        # The engine's own ids with their words (app/web/editor_words.py): the template says
        # them in the reader's language.
        "roles": ROLES,
        "card_kinds": CARD_KINDS,
        "systems": options("systems", SYSTEMS),
        "bands": [b.id for b in RANGE_BANDS],
        # A weapon's kind is any id; the modules know some (M-WEAPONS), the ships use others.
        "weapon_kinds": options(
            "weapon_kinds", sorted({SAME_KIND.get(k, k) for k in set(KIND_REACH) | used})
        ),
        "terrains": options("terrains", TERRAINS),
        "crews": options("crews", CREWS),
        "qualities": QUALITIES,
        "map_kinds": options("map_kinds", MAP_KINDS),
        "canvas": (CANVAS_WIDTH, CANVAS_HEIGHT),
        "modules": [(m, *MODULE_WORDS.get(m, (m, ""))) for m in MODULES],
        "decks": [
            (d.id, d.name, d.role, len(d.cards))
            for d in sorted(catalogue.decks.values(), key=lambda d: (d.role, d.name))
        ],
        "ship_classes": [
            (s.id, s.name, None, None)
            for s in sorted(catalogue.ships.values(), key=lambda s: s.name)
        ],
        "zones": [
            (str(z.get("id")), str(z.get("name")), None, None)
            for z in zones or []
            if isinstance(z, dict)
        ],
        # A scenario's cues pick from its own ships, their stations and its other cues.
        "triggers": options("triggers", TRIGGER_KINDS),
        "actions": options("actions", ACTION_KINDS),
        "phases": options("phases", PHASES),
        "sounds": options("sounds", SOUNDS),
        "scenario_ships": [(i, name, None, None) for i, name, _ in ships],
        "scenario_cues": _named(data.get("cues")),
        "recipients": [
            ("all", N_("Every screen")),
            *[(i, name, None, None) for i, name, _ in ships],
            *[
                (f"{i}/{station.id}", name, station.id, None)
                for i, name, ship_class in ships
                if ship_class in catalogue.ships
                for station in catalogue.ships[ship_class].stations
            ],
        ],
        # The sides the scenario's ships stand on, for the players' side (G-SHIP-1).
        "sides": [
            (side, side, None, None)
            for side in dict.fromkeys(str(s["side"]) for s in rows if s.get("side"))
        ],
    }


def _named(rows: Any) -> list[tuple[str, str, None, None]]:
    """A list's rows as a picker's options: (id, name)."""
    found = rows if isinstance(rows, list) else []
    return [
        (str(r.get("id")), str(r.get("name")), None, None) for r in found if isinstance(r, dict)
    ]


def _kinds_used(catalogue: Catalogue) -> set[str]:
    return {w.kind for ship in catalogue.ships.values() for w in ship.weapons if w.kind}


async def _item_page(
    request: Request,
    session_factory: SessionFactoryDep,
    kind: str,
    data: Data,
    version: int,
    problems: list[ContentError] | None = None,
    saved: int | None = None,
) -> HTMLResponse:
    token = csrf_token(request)
    choices = await _choices(session_factory, data)
    # Likely slips, beside their fields; a field with a problem shows that alone.
    shown = {problem.field for problem in problems or []}
    warnings = deck_warnings(data, kind, kinds_played_by) if kind == "deck" else []
    with speaking_content((await library(session_factory)).words):  # the pickers' names
        html = render_template(
            "editor_item.html",
            csrf=token,
            kind=kind,
            data=loose(data),
            empty=loose({}),
            version=version,
            problems=problems or [],
            warnings=[warning for warning in warnings if warning.field not in shown],
            saved=saved,
            choices=choices,
            cues=loose(cue_parts(data)) if kind == "scenario" else [],
            tr=translations_shown(kind, data),
        )
    return page(html, token, 400 if problems else 200)


@router.get("/editor/{kind}/new", response_class=HTMLResponse)
async def new_item(
    request: Request,
    session_factory: SessionFactoryDep,
    organiser: OrganiserOnly,
    kind: str,
    copy: str | None = None,
) -> Response:
    """A new item: a copy of a built-in or custom one, or a blank one to fill in."""
    kind = _kind(kind)
    taken = await _taken(session_factory, kind)
    if copy:
        original, _ = await item_data(session_factory, kind, copy)
        data = copy_named(copy_of(kind, original, taken))
    else:
        data = blank(kind, taken)
    return await _item_page(request, session_factory, kind, settle_ids(kind, data, taken), 0)


def copy_named(data: Data) -> Data:
    """A copy's name says it is one, in the source's words and in each of its translations."""
    if isinstance(data.get("name"), str):
        data["name"] = copy_name(data["name"], SOURCE)
    for language, words in (data.get("translations") or {}).items():
        if isinstance(words, dict) and isinstance(words.get("name"), str):
            words["name"] = copy_name(words["name"], language)
    return data


def copy_name(name: str, language: str) -> str:
    pattern = translations(language).gettext(N_("%(name)s (copy)"))
    room = NAME_MAX - len(pattern % {"name": ""})
    return str(pattern % {"name": name[:room]})


async def _taken(session_factory: SessionFactoryDep, kind: str) -> set[str]:
    """The ids of a kind already in the library, built-in or custom."""
    return {info.id for info in (await items(session_factory))[kind]}


@router.get("/editor/{kind}/{item_id}", response_class=HTMLResponse)
async def edit_item(
    request: Request,
    session_factory: SessionFactoryDep,
    organiser: OrganiserOnly,
    kind: str,
    item_id: str,
    saved: int | None = None,
) -> Response:
    kind = _kind(kind)
    if is_builtin(kind, item_id):  # built-ins are files on the server: edit a copy
        return RedirectResponse(f"/editor/{kind}/new?copy={item_id}", status_code=303)
    data, version = await item_data(session_factory, kind, item_id)
    return await _item_page(request, session_factory, kind, data, version, saved=saved)


@router.post("/editor/{kind}/form", response_class=HTMLResponse)
async def item_form(
    request: Request,
    session_factory: SessionFactoryDep,
    csrf: CsrfChecked,
    organiser: OrganiserOnly,
    kind: str,
) -> Response:
    """The form sent: saved, or shown again with a row added or taken out, or with every
    problem beside its field (nothing saved)."""
    kind = _kind(kind)
    form = await request.form()
    data = _form_data(kind, [(key, str(value)) for key, value in form.multi_items()])
    version = whole_number(str(form.get("version", "0")), "version", 0, 1_000_000)
    taken = await _taken(session_factory, kind) if version == 0 else None
    action = str(form.get("action", "save"))
    if action != "save":
        changed = settle_ids(kind, apply_action(kind, settle_ids(kind, data, taken), action), taken)
        return await _item_page(request, session_factory, kind, changed, version)
    settle_ids(kind, data, taken)
    try:
        saved = await save_item(
            session_factory, kind, data, author(request), expected_version=version
        )
    except ContentProblems as refused:
        return await _item_page(request, session_factory, kind, data, version, refused.problems)
    return RedirectResponse(f"/editor/{kind}/{data['id']}?saved={saved}", status_code=303)


@router.post("/editor/{kind}/preview", response_class=HTMLResponse)
async def preview(
    request: Request,
    session_factory: SessionFactoryDep,
    csrf: CsrfChecked,
    organiser: OrganiserOnly,
    kind: str,
) -> Response:
    """The item as the screens will show it, or what keeps it from checking."""
    kind = _kind(kind)
    form = await request.form()
    data = _form_data(kind, [(key, str(value)) for key, value in form.multi_items()])
    new = str(form.get("version", "0")) == "0"
    settle_ids(kind, data, await _taken(session_factory, kind) if new else None)
    found = await library(session_factory)
    try:
        state = preview_state(kind, data, found.items)
        item = check_item(kind, data, kind)
    except ContentProblems as refused:
        html = render_template("editor_preview.html", problems=refused.problems, kind=kind)
        return HTMLResponse(html)
    view = display_view(state) if state is not None else None
    # A scenario's cues as the GM will read them: each trigger and what it does, in words.
    cues = gm_view(state).get("cues", {}).get("list", []) if state is not None else []
    # The screens as they will show the item: the library's words, and the item's own.
    with speaking_content(words_of(found.items, {kind: {item.id: data}})):
        html = render_template(
            "editor_preview.html", problems=[], kind=kind, view=view, item=item, cues=cues
        )
    return HTMLResponse(html)


# --- Versions -------------------------------------------------------------------------------------


@router.get("/editor/{kind}/{item_id}/history", response_class=HTMLResponse)
async def item_history(
    request: Request,
    session_factory: SessionFactoryDep,
    organiser: OrganiserOnly,
    kind: str,
    item_id: str,
) -> Response:
    kind = _kind(kind)
    data, version = await item_data(session_factory, kind, item_id)
    token = csrf_token(request)
    html = render_template(
        "editor_history.html",
        csrf=token,
        kind=kind,
        data=data,
        current=version,
        versions=await history(session_factory, kind, item_id),
    )
    return page(html, token)


@router.post("/editor/{kind}/{item_id}/restore")
async def restore_version(
    request: Request,
    session_factory: SessionFactoryDep,
    csrf: CsrfChecked,
    organiser: OrganiserOnly,
    kind: str,
    item_id: str,
    version: Annotated[int, Form()],
) -> Response:
    """An earlier version as the newest again, if it still fits the library as it is now."""
    kind = _kind(kind)
    try:
        saved = await restore(session_factory, kind, item_id, version, author(request))
    except ContentProblems as refused:
        data, _ = await item_data(session_factory, kind, item_id, version)
        current = (await item_data(session_factory, kind, item_id))[1]
        return await _item_page(request, session_factory, kind, data, current, refused.problems)
    return RedirectResponse(f"/editor/{kind}/{item_id}?saved={saved}", status_code=303)
