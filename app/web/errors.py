"""One error body for every 4xx and 5xx, `{code, message}`, and the request size limit.

Phones show `message` as a toast; scripts branch on `code`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DataError, DBAPIError, OperationalError
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.service import ServiceError

log = logging.getLogger(__name__)


CODES = {413: "TOO_LARGE", 401: "UNAUTHENTICATED", 403: "FORBIDDEN"}


def error(status: int, code: str, message: str, **headers: str) -> JSONResponse:
    return JSONResponse({"code": code, "message": message}, status, headers=headers or None)


def readable(exc: RequestValidationError) -> str:
    """pydantic's list of problems as one sentence, e.g. "ship: Field required"."""
    parts = []
    for problem in exc.errors()[:5]:
        where = ".".join(
            str(p) for p in problem.get("loc", ()) if p not in ("body", "query", "path")
        )
        parts.append(f"{where}: {problem.get('msg')}" if where else str(problem.get("msg")))
    return "; ".join(parts) or "The request is not well formed."


def install_error_handlers(app: FastAPI) -> None:
    async def on_service_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ServiceError)
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else {}
        return error(exc.status, exc.code, exc.message, **headers)

    async def on_validation_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return error(422, "BAD_REQUEST", readable(exc))

    async def on_http_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        known = exc.status_code in HTTPStatus._value2member_map_
        code = CODES.get(exc.status_code) or (
            HTTPStatus(exc.status_code).name if known else "HTTP_ERROR"
        )
        message = exc.detail if isinstance(exc.detail, str) else "The request was refused."
        return error(exc.status_code, code, message, **(exc.headers or {}))

    async def on_database_down(_: Request, exc: Exception) -> JSONResponse:
        if bad_value(exc):
            return on_bad_value(exc)
        log.warning("database unavailable: %s", exc)
        return error(
            503,
            "DATABASE_UNAVAILABLE",
            "The game's database is not answering; try again in a moment.",
            **{"Retry-After": "2"},
        )

    async def on_crash(_: Request, exc: Exception) -> JSONResponse:
        log.error("unhandled error", exc_info=exc)
        return error(500, "INTERNAL", "Something went wrong on the server.")

    def on_bad_value(exc: Exception) -> JSONResponse:
        log.info("database refused a value: %s", exc)
        return error(400, "BAD_VALUE", "A value in this request cannot be stored; change it.")

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
    """Refuse request bodies over `max_bytes` with 413, whether announced or streamed."""

    def __init__(self, app: ASGIApp, max_bytes: Callable[[], int]) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_bytes()
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await _too_large(limit)(scope, receive, send)
            return
        seen = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > limit:  # FastAPI passes HTTPException on while it reads the body
                raise HTTPException(413, too_large_message(limit))
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except HTTPException as exc:  # raised outside FastAPI's routes (nothing else reads bodies)
            if started or exc.status_code != 413:
                raise
            await _too_large(limit)(scope, receive, send)


def bad_value(exc: Exception) -> bool:
    """Whether the database refused a value the client sent (SQLSTATE class 22: a NUL in text,
    a number out of range) rather than failing: that is the caller's 400, not our 503."""
    if isinstance(exc, DataError):
        return True
    sqlstate = getattr(getattr(exc, "orig", None), "sqlstate", None)
    return isinstance(sqlstate, str) and sqlstate.startswith("22")


def too_large_message(limit: int) -> str:
    return f"A request may carry at most {limit} bytes."


def _too_large(limit: int) -> JSONResponse:
    return error(413, "TOO_LARGE", too_large_message(limit))
