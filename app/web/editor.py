"""The organisers' content editor (issue 33): ship classes, decks, characters and scenarios
(with their zone maps) in the content library, which every game on this server can use.

Content is shared by the whole server, so the editor opens with the organiser key that
`bridgecrew serve` prints (settings.organiser_key), never with a game's GM or seat token. The key
rides in the printed link once, then in a cookie of its own. Who saves a version is the name the
organiser gives the editor (a cookie too); the key says only that they may.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.deps import SessionFactoryDep
from app.rules.core.messages import message
from app.service import ServiceError
from app.service.library import (
    KINDS,
    ContentProblems,
    item_data,
    items,
    library_content,
    save_items,
)
from app.service.library_files import file_name, read_files, scenario_files, to_toml, zipped

from .fields import checked_name
from .render import render_template
from .screen import CsrfChecked, csrf_token, error_page, page, set_cookie

router = APIRouter(tags=["editor"])

KEY_COOKIE = "bc_organiser"
NAME_COOKIE = "bc_editor_name"


def _key_matches(request: Request, key: str) -> bool:
    wanted = request.app.state.settings.organiser_key
    return bool(key) and hmac.compare_digest(key.encode(), wanted.encode())


async def organiser_only(request: Request) -> None:
    """The organiser key's cookie, or a refusal (a page: people open these URLs)."""
    if not _key_matches(request, request.cookies.get(KEY_COOKIE, "")):
        raise ServiceError("ORGANISER_ONLY", message("organiser_key_needed"), 403)


OrganiserOnly = Annotated[None, Depends(organiser_only)]


def author(request: Request) -> str:
    """Who saves: the name this browser gave the editor, else 'organiser'."""
    return request.cookies.get(NAME_COOKIE, "") or "organiser"


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
        if not _key_matches(request, organiser_token):
            return refused(
                request, ServiceError("ORGANISER_ONLY", message("organiser_key_wrong"), 403)
            )
        response = RedirectResponse("/editor", status_code=303)
        set_cookie(response, KEY_COOKIE, organiser_token)
        return response
    try:
        await organiser_only(request)
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
async def typed_key(request: Request, csrf: CsrfChecked, key: Annotated[str, Form()]) -> Response:
    """The key typed in, for an organiser who has it but not the printed link."""
    if not _key_matches(request, key.strip()):
        return refused(request, ServiceError("ORGANISER_ONLY", message("organiser_key_wrong"), 403))
    response = RedirectResponse("/editor", status_code=303)
    set_cookie(response, KEY_COOKIE, key.strip())
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
    set_cookie(response, NAME_COOKIE, chosen)
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


def _kind(kind: str) -> str:
    if kind not in KINDS:
        raise ServiceError("NO_SUCH_CONTENT", message("content_kind_unknown", kind=kind), 404)
    return kind
