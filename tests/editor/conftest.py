"""The editor's tests run on the server's fixtures (the whole app on a fresh database)."""

from tests.server.conftest import (  # noqa: F401 - fixtures, found by pytest under these names
    client,
    settings,
)
