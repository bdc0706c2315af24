"""Run the Alembic migrations from code (server start-up, tests, the `bridgecrew db` commands)."""

import asyncio
import concurrent.futures
from collections.abc import Callable
from pathlib import Path

from alembic import command
from alembic.config import Config

# migrations/ sits beside app/ in the source tree (the app is installed editable, also in Docker).
MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    # Passed as an attribute, not an ini option, so a "%" in a password needs no escaping.
    cfg.attributes["url"] = url
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    _outside_event_loop(lambda: command.upgrade(alembic_config(url), revision))


def downgrade(url: str, revision: str) -> None:
    _outside_event_loop(lambda: command.downgrade(alembic_config(url), revision))


def current_head() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config("")).get_current_head()


def _outside_event_loop(run: Callable[[], None]) -> None:
    """env.py drives its async engine with asyncio.run, which cannot nest in a running loop.

    Called from async code, the migration runs in a worker thread and this call blocks until it is
    done; async callers that must not block can use `await asyncio.to_thread(upgrade, url)`.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        run()
        return
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(run).result()
