"""The server tests run on the app fixtures of tests/conftest.py. The helpers they import from here
live in tests/tables.py and tests/processes.py."""

from tests.conftest import client, heard, live, settings, table
from tests.processes import LiveServer, next_message
from tests.tables import AsyncTable, Table

__all__ = [
    "AsyncTable",
    "LiveServer",
    "Table",
    "client",
    "heard",
    "live",
    "next_message",
    "settings",
    "table",
]
