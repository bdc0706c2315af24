"""Seat and GM tokens never reach the server's logs.

Tokens may ride in a URL: the printed GM link (`/gm/<game>?token=`) and websockets opened by
scripts (`/ws/station/<game>?token=`). uvicorn logs each request's path with its query string,
in the access log for HTTP and in its error log for websockets; these filters blank the values.
"""

from __future__ import annotations

import logging
import re

# Any query parameter whose name holds "token" (token, gm_token, seat_token, ...).
_TOKEN_PARAMETER = re.compile(r"([?&][^=&#\s\"]*token[^=&#\s\"]*=)[^&#\s\"]*", re.IGNORECASE)
REDACTED = "[redacted]"
LOGGERS = ("uvicorn.access", "uvicorn.error")


def redact(text: str) -> str:
    return _TOKEN_PARAMETER.sub(lambda found: found.group(1) + REDACTED, text)


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
