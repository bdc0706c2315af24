"""The long fuzz run: thousands of requests drawn from /openapi.json by schemathesis and aimed at
a real game (tests/security/fuzzing.py says how), against the whole app on a throwaway database.

    .venv/bin/python bench/fuzz_api.py [--requests 2000] [--seed 1]

Prints the requests tried and the 5xx count, and exits 1 if any request got a 5xx or a refused
one changed something. Uses TEST_DATABASE_URL's server if set, else a scratch embedded one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import make_url, pool, text
from sqlalchemy.ext.asyncio import create_async_engine

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from app.db.migrate import upgrade
from app.main import create_app
from app.settings import Settings, asyncpg_url
from tests.security.fuzzing import UNLIMITED, World, fuzz


@contextmanager
def scratch_database() -> Iterator[str]:
    """A fresh, migrated database, dropped (or its whole server stopped) afterwards."""
    given = os.environ.get("TEST_DATABASE_URL")
    scratch = Path(tempfile.mkdtemp(prefix="bridgecrew-fuzz-"))
    server = None
    if given:
        server_url = asyncpg_url(given)
    else:
        from app.db.embedded import start_embedded

        scratch.chmod(0o755)  # postgres runs as its own user
        server = start_embedded(scratch / "pgdata", database="postgres")
        server_url = server.url("postgres")
    name = f"bc_fuzz_{uuid.uuid4().hex[:12]}"
    admin(server_url, f'CREATE DATABASE "{name}"')
    url = make_url(server_url).set(database=name).render_as_string(hide_password=False)
    try:
        upgrade(url)
        yield url
    finally:
        admin(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if server is not None:
            server.stop()
        shutil.rmtree(scratch, ignore_errors=True)


def admin(server_url: str, statement: str) -> None:
    async def go() -> None:
        engine = create_async_engine(
            server_url, isolation_level="AUTOCOMMIT", poolclass=pool.NullPool
        )
        try:
            async with engine.connect() as connection:
                await connection.execute(text(statement))
        finally:
            await engine.dispose()

    asyncio.run(go())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with scratch_database() as url, tempfile.TemporaryDirectory() as data_dir:
        settings = Settings(database_url=url, data_dir=Path(data_dir))
        app = create_app(settings.model_copy(update=UNLIMITED))
        with TestClient(app, raise_server_exceptions=False) as client:
            started = time.perf_counter()
            report = fuzz(client, World(client), args.requests, seed=args.seed)
            seconds = time.perf_counter() - started
    print(report.summary())
    print(f"in {seconds:.0f} s; error codes: {dict(report.codes.most_common(12))}")
    for failure in [*report.server_errors, *report.changed_when_refused][:10]:
        print("FAILED:", failure)
    return 1 if report.server_errors or report.changed_when_refused else 0


if __name__ == "__main__":
    sys.exit(main())
