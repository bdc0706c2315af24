"""Seat and GM tokens never reach the server's logs.

Tokens may ride in a URL: the printed GM link (`/gm/<game>?token=`) and websockets opened by
scripts (`/ws/station/<game>?token=`). uvicorn logs each request's path with its query string,
in the access log for HTTP and in its error log for websockets; these filters blank the values.
A parameter's name is judged as the server reads it, after decoding (`tok%65n`, `+`, any case),
so no spelling of it carries a token past the filter.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import unquote_plus

# One query parameter: its name and, after the `=`, its value.
_PARAMETER = re.compile(r"([?&])([^=&#\s\"]*)=([^&#\s\"]*)")
REDACTED = "[redacted]"
LOGGERS = ("uvicorn.access", "uvicorn.error")


def decoded_name(name: str) -> str:
    """The name as a server reads it, decoded until nothing changes (an encoding of an encoding
    may be decoded again by a proxy or a script), in lower case."""
    for _ in range(5):
        plain = unquote_plus(name)
        if plain == name:
            break
        name = plain
    return name.casefold()


def redact(text: str) -> str:
    """`text` with the value of every query parameter whose name holds "token" (token,
    gm_token, seat_token, ...) blanked."""

    def blank(found: re.Match[str]) -> str:
        if "token" not in decoded_name(found.group(2)):
            return found.group(0)
        return f"{found.group(1)}{found.group(2)}={REDACTED}"

    return _PARAMETER.sub(blank, text)


class RedactTokens(logging.Filter):
    """Rewrites a record's message and arguments with token values blanked; drops nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        return True


_FILTER = RedactTokens()


def redact_server_logs() -> None:
    """Install the filter on uvicorn's loggers (again is harmless: a logger holds it once).
    Called when the app starts, after uvicorn has configured its logging."""
    for name in LOGGERS:
        logging.getLogger(name).addFilter(_FILTER)
