"""One error body for every 4xx and 5xx, `{code, message}`, and the request size limit.

Phones show `message` as a toast; scripts branch on `code`. A browser opening or posting to a
screen without htmx (a person, not a script) gets the same refusal as a page instead: JSON in
a browser tab tells a player nothing, and the outage page reloads by itself.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.routing import APIRoute
from sqlalchemy.exc import DataError, DBAPIError, OperationalError
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.i18n import gettext
from app.nesting import TooDeep, loads_json
from app.rules.core.messages import message
from app.service import ServiceError
from app.settings import Settings
from app.web.render import render_template
from app.web.words import request_words, say

log = logging.getLogger(__name__)


CODES = {413: "TOO_LARGE", 401: "UNAUTHENTICATED", 403: "FORBIDDEN"}


def error(status: int, code: str, message: str, **headers: str) -> JSONResponse:
    """`code` stays as it is; `message` is in the request's language where the catalogue has it."""
    body = {"code": code, "message": gettext(message)}
    return JSONResponse(body, status, headers=headers or None)


TITLES = {403: "Not for this device", 404: "Not found", 429: "Too many tries"}
RETRY_SECONDS = 3  # how soon the outage page reloads itself


def wants_page(scope: Scope) -> bool:
    """Whether a person's browser asked for a whole page: a screen's route (not the API),
    opened or posted to without htmx, accepting HTML."""
    if scope["type"] != "http" or scope["path"].startswith("/api/"):
        return False
    headers = Headers(scope=scope)
    return "text/html" in headers.get("accept", "") and "hx-request" not in headers


def refusal(
    scope: Scope, status: int, code: str, message: str | Mapping[str, Any], **headers: str
) -> Response:
    """The refusal as a page for a person's browser (`wants_page`), else as `{code, message}`,
    the message in the request's language. A 503 page says the server is reconnecting and
    reloads itself until it answers again."""
    if not wants_page(scope):
        return error(status, code, say(message, request_words(scope)), **headers)
    if status == 503:
        html = render_template("unavailable.html", retry=RETRY_SECONDS, csrf="")
    else:
        title = TITLES.get(status, "Cannot do this")
        html = render_template("error.html", title=title, message=message, code=code, csrf="")
    headers.setdefault("Cache-Control", "no-store")
    return HTMLResponse(html, status, headers=headers)


def readable(exc: RequestValidationError) -> str | Mapping[str, Any]:
    """pydantic's list of problems as one sentence, e.g. "ship: Field required"."""
    parts = []
    for problem in exc.errors()[:5]:
        where = ".".join(
            str(p) for p in problem.get("loc", ()) if p not in ("body", "query", "path")
        )
        parts.append(f"{where}: {problem.get('msg')}" if where else str(problem.get("msg")))
    return "; ".join(parts) if parts else message("request_malformed")


class BodyRefused(HTTPException):
    """A body too large, too slow or too deeply nested, refused while FastAPI reads it: the
    refusal as a message (`said`), for the reader's language; `detail` is its English. `code`
    is the status's unless given."""

    def __init__(
        self, status: int, said: Mapping[str, Any], code: str | None = None, **headers: str
    ) -> None:
        super().__init__(status, say(said), headers or None)
        self.said = said
        self.code = code


class NestingRequest(Request):
    """A request whose JSON body is read by `loads_json`: nested past NESTING_MAX it is refused
    with TOO_DEEP before anything (pydantic, the routes) walks it."""

    async def json(self) -> Any:
        try:
            return loads_json(await self.body())
        except TooDeep as deep:
            said = message("request_too_deep", most=deep.most)
            raise BodyRefused(400, said, "TOO_DEEP") from None


class NestingRoute(APIRoute):
    """A route whose handler is given a `NestingRequest` (FastAPI's custom route classes)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def bounded(request: Request) -> Response:
            return await handler(NestingRequest(request.scope, request.receive))

        return bounded


def install_error_handlers(app: FastAPI) -> None:
    async def on_service_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ServiceError)
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else {}
        return refusal(request.scope, exc.status, exc.code, exc.message, **headers)

    async def on_validation_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return refusal(request.scope, 422, "BAD_REQUEST", readable(exc))

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        known = exc.status_code in HTTPStatus._value2member_map_
        code = CODES.get(exc.status_code) or (
            HTTPStatus(exc.status_code).name if known else "HTTP_ERROR"
        )
        if isinstance(exc, BodyRefused):
            said: str | Mapping[str, Any] = exc.said
            code = exc.code or code
        else:
            said = exc.detail if isinstance(exc.detail, str) else message("request_refused")
        return refusal(request.scope, exc.status_code, code, said, **(exc.headers or {}))

    async def on_database_down(request: Request, exc: Exception) -> Response:
        if bad_value(exc):
            log.info("database refused a value: %s", exc)
            return refusal(
                request.scope,
                400,
                "BAD_VALUE",
                message("value_not_storable"),
            )
        log.warning("database unavailable: %s", exc)
        return refusal(
            request.scope,
            503,
            "DATABASE_UNAVAILABLE",
            message("database_unavailable"),
            **{"Retry-After": "2"},
        )

    async def on_crash(request: Request, exc: Exception) -> Response:
        log.error("unhandled error", exc_info=exc)
        return refusal(request.scope, 500, "INTERNAL", message("server_failed"))

    handlers: dict[Any, Callable[[Request, Exception], Any]] = {
        ServiceError: on_service_error,
        RequestValidationError: on_validation_error,
        HTTPException: on_http_error,
        OperationalError: on_database_down,
        DBAPIError: on_database_down,
        ConnectionError: on_database_down,
        Exception: on_crash,
    }
    for kind, handler in handlers.items():
        app.add_exception_handler(kind, handler)


class BodyLimit:
    """Refuse request bodies over `max_body_bytes` with 413, whether announced or streamed, and
    bodies still arriving `body_timeout_s` after the route first asked for them with 408."""

    def __init__(self, app: ASGIApp, settings: Callable[[], Settings]) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.settings().max_body_bytes
        timeout = self.settings().body_timeout_s
        declared = dict(scope["headers"]).get(b"content-length")
        # bytes.isdigit() is ASCII only; the length check spares int() a 5000-digit number.
        if (
            declared is not None
            and declared.isdigit()
            and (len(declared) > 18 or int(declared) > limit)
        ):
            await _too_large(scope, limit)(scope, receive, send)
            return
        seen = 0
        deadline: float | None = None
        whole = False  # the body has all come: later reads wait for the client to leave
        started = False

        async def counted_receive() -> Message:
            nonlocal seen, deadline, whole
            if whole:
                return await receive()
            if deadline is None:
                deadline = asyncio.get_running_loop().time() + timeout
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                raise BodyRefused(408, too_slow_message(timeout), Connection="close") from None
            seen += len(message.get("body", b""))
            whole = message["type"] != "http.request" or not message.get("more_body", False)
            if seen > limit:  # FastAPI passes HTTPException on while it reads the body
                raise BodyRefused(413, too_large_message(limit))
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except HTTPException as exc:  # raised outside FastAPI's routes (nothing else reads bodies)
            if started or exc.status_code not in (408, 413):
                raise
            refused = (
                _too_large(scope, limit) if exc.status_code == 413 else _too_slow(scope, timeout)
            )
            await refused(scope, receive, send)


def bad_value(exc: Exception) -> bool:
    """Whether the database refused a value the client sent (SQLSTATE class 22: a NUL in text,
    a number out of range) rather than failing: that is the caller's 400, not our 503."""
    if isinstance(exc, DataError):
        return True
    sqlstate = getattr(getattr(exc, "orig", None), "sqlstate", None)
    return isinstance(sqlstate, str) and sqlstate.startswith("22")


def too_large_message(limit: int) -> Mapping[str, Any]:
    return message("request_too_large", limit=limit)


def _too_large(scope: Scope, limit: int) -> Response:
    return refusal(scope, 413, "TOO_LARGE", too_large_message(limit))


def too_slow_message(timeout: float) -> Mapping[str, Any]:
    return message("request_too_slow", seconds=f"{timeout:g}")


def _too_slow(scope: Scope, timeout: float) -> Response:
    return refusal(scope, 408, "REQUEST_TIMEOUT", too_slow_message(timeout), Connection="close")
