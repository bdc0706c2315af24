"""Fixtures for the security tests: the server fixtures, reused, and an app whose limits are out
of the way for tests that send many requests on purpose."""

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from tests.server.conftest import (  # noqa: F401 - fixtures, found by pytest under these names
    client,
    live,
    settings,
    table,
)

from .fuzzing import UNLIMITED


@pytest.fixture
def unlimited_client(settings: Settings) -> Iterator[TestClient]:  # noqa: F811
    """The whole app with no rate limits, answering 500s instead of raising them."""
    app = create_app(settings.model_copy(update=UNLIMITED))
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client
