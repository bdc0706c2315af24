"""Beside the app fixtures of tests/conftest.py: an app whose limits are out of the way, for tests
that send many requests on purpose."""

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings

from .fuzzing import UNLIMITED


@pytest.fixture
def unlimited_client(settings: Settings) -> Iterator[TestClient]:
    """The whole app with no rate limits, answering 500s instead of raising them."""
    app = create_app(settings.model_copy(update=UNLIMITED))
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client
