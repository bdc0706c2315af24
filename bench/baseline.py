"""The floor for bench/load.py: a bare FastAPI websocket broadcaster, no database, no rendering.

Each socket joins a room with an audience; POST /rooms/{room}/broadcast sends every socket of the
room one fragment of its audience's size (set by POST /setup from what the real server pushed),
exactly as the live hub would after a command, but with nothing else to do. It runs under the same
uvicorn (uvloop, httptools, websockets-sansio with permessage-deflate) as the real server.

    .venv/bin/python -m uvicorn bench.baseline:app --port 8100     (bench/load.py starts it)
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse

app = FastAPI(title="broadcast baseline")

fragments: dict[str, str] = {"station": "x" * 10_000, "gm": "x" * 30_000, "display": "x" * 9_000}
rooms: dict[str, list[tuple[WebSocket, str]]] = {}
version = 0


@app.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@app.post("/setup")
async def setup(request: Request) -> dict[str, Any]:
    body = await request.json()
    fragments.update(body["fragments"])
    return {"sizes": {k: len(v) for k, v in fragments.items()}}


@app.post("/rooms/{room}/broadcast")
async def broadcast(room: str, request: Request) -> JSONResponse:
    """What a command costs when it costs nothing but the fan-out."""
    global version
    await request.body()  # read it, as the real server reads a command
    version += 1
    for websocket, audience in list(rooms.get(room, ())):
        try:
            await websocket.send_text(fragments[audience])
        except Exception:  # noqa: S112 - a socket that went away
            continue
    return JSONResponse({"version": version, "events": []})


@app.websocket("/ws/{room}/{audience}")
async def socket(websocket: WebSocket, room: str, audience: str) -> None:
    await websocket.accept()
    entry = (websocket, audience)
    members = rooms.setdefault(room, [])
    members.append(entry)
    try:
        await websocket.send_text(fragments[audience])  # the welcome, like the hub's full view
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
    finally:
        members.remove(entry)
