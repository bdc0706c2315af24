"""Tokens stay out of the server's logs (finding 10a): the printed GM link and scripts' websockets
carry a token in the query string, and uvicorn logs every path with its query string."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
import uvicorn
from websockets.asyncio.client import connect

from app.settings import Settings
from app.web.logs import redact
from app.web.protocols import WS_PROTOCOL
from tests.server.conftest import AsyncTable, LiveServer, next_message

LOGGERS = ("uvicorn.access", "uvicorn.error")


class Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


class LoggingServer(LiveServer):
    """A live server with uvicorn's access log on, as `bridgecrew serve` runs it."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        config = uvicorn.Config(
            self.app, host="127.0.0.1", port=0, log_level="info", lifespan="on", ws=WS_PROTOCOL
        )
        self.server = uvicorn.Server(config)


@pytest.fixture
def captured(logging_server: LoggingServer) -> Iterator[Captured]:
    """What uvicorn logs, from the moment the server has configured its logging on."""
    handler = Captured()
    loggers = [logging.getLogger(name) for name in LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)


@pytest.fixture
async def logging_server(settings: Settings) -> AsyncIterator[LoggingServer]:
    async with LoggingServer(settings) as server:
        yield server


async def test_tokens_in_query_strings_never_reach_the_logs(
    logging_server: LoggingServer, captured: Captured
) -> None:
    server = logging_server
    async with httpx.AsyncClient(base_url=server.http, timeout=10) as http:
        table = await AsyncTable(http).create()
        seat = await table.seat("weapons")
        gm_link = await http.get(f"/gm/{table.game_id}?token={table.gm_token}")
        assert gm_link.status_code == 303  # the token moves into a cookie
        await http.get(f"/api/games/{table.game_id}/view?seat_token={seat['seat_token']}&x=1")
    socket_url = f"{server.ws}/ws/station/{table.game_id}?format=json&token={seat['seat_token']}"
    async with connect(socket_url) as socket:
        assert (await next_message(socket))["type"] == "view"
    async with connect(f"{server.ws}/ws/gm/{table.game_id}?token={table.gm_token}") as socket:
        panels = await socket.recv()
        assert isinstance(panels, str) and panels.startswith("<")  # the GM screen's panels
    logged = "\n".join(captured.lines)
    assert f"/gm/{table.game_id}?token=[redacted]" in logged  # the request is still logged
    assert "/ws/station/" in logged and "&token=[redacted]" in logged
    assert "seat_token=[redacted]&x=1" in logged
    for secret in (table.gm_token, seat["seat_token"]):
        assert secret not in logged


async def test_a_token_parameter_spelled_any_way_the_server_reads_is_redacted(
    logging_server: LoggingServer, captured: Captured
) -> None:
    """The server decodes a parameter's name before it reads it: `tok%65n` is `token`."""
    server = logging_server
    async with httpx.AsyncClient(base_url=server.http, timeout=10) as http:
        table = await AsyncTable(http).create()
        seat = await table.seat("pilot")
        gm_link = await http.get(f"/gm/{table.game_id}?tok%65n={table.gm_token}")
        assert gm_link.status_code == 303, "the server read the token under its encoded name"
    spelled = f"{server.ws}/ws/station/{table.game_id}?format=json&%74ok%65n={seat['seat_token']}"
    async with connect(spelled) as socket:
        assert (await next_message(socket))["type"] == "view"
    logged = "\n".join(captured.lines)
    assert f"/gm/{table.game_id}?tok%65n=[redacted]" in logged
    assert "&%74ok%65n=[redacted]" in logged
    for secret in (table.gm_token, seat["seat_token"]):
        assert secret not in logged


@pytest.mark.parametrize(
    "query",
    [
        "?tok%65n=SECRET",
        "?TOKEN=SECRET",
        "?x=1&Seat%5FToken=SECRET",
        "?gm+token=SECRET",
        "?%2574oken=SECRET",
        "?a=b&%54%4f%4b%45%4e=SECRET&c=d",
    ],
)
def test_every_spelling_of_a_token_name_is_blanked(query: str) -> None:
    line = f'127.0.0.1:5000 - "GET /gm/g{query} HTTP/1.1" 303'
    assert "SECRET" not in redact(line)
    assert "[redacted]" in redact(line)


def test_other_parameters_are_left_as_they_are() -> None:
    line = '"GET /api/games/g/view?format=json&after=3 HTTP/1.1" 200'
    assert redact(line) == line
