"""How the tests start a real server process: uvicorn on loopback, quiet but for warnings."""

from __future__ import annotations

import sys

from app.web.wsprotocol import WS_PROTOCOL


def uvicorn_command(port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "uvicorn",
        "app.main:app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--ws",
        WS_PROTOCOL,
    ]
