"""Chaos run: a long scripted game while the server is SIGKILLed and restarted again and again.

The bot crew plays through the JSON API (seat tokens and the GM token, one command id per command,
the same id again after a connection error); a display, the GM's screen, a seat's phone and an
event-stream prop follow it over websockets and reconnect by themselves. After every restart the
stored state must be the replay of the stored commands, every acknowledged command must be stored
exactly once at the version it was acknowledged with, and every screen's first message must be the
game as it is. Exits 1 if anything was lost, applied twice or wrong.

    .venv/bin/python bench/chaos.py [--turns 100] [--kills 50] [--seed 1] [--database-url URL]

Without --database-url it runs its own embedded PostgreSQL in a temporary directory.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import make_url, text  # noqa: E402
from sqlalchemy.ext.asyncio import create_async_engine  # noqa: E402

from app.db.migrate import upgrade  # noqa: E402
from tests.faults.harness import run_chaos  # noqa: E402


async def fresh_database(server_url: str) -> str:
    """A new, migrated database on the server at server_url."""
    name = f"bc_chaos_{uuid.uuid4().hex[:10]}"
    engine = create_async_engine(server_url, isolation_level="AUTOCOMMIT")
    async with engine.connect() as conn:
        await conn.execute(text(f'CREATE DATABASE "{name}"'))
    await engine.dispose()
    url = make_url(server_url).set(database=name).render_as_string(hide_password=False)
    await asyncio.to_thread(upgrade, url)
    return url


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    parser.add_argument("--database-url", help="a server to make a scratch database on")
    parser.add_argument("--quiet", action="store_true", help="no line per kill")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    scratch = Path(tempfile.mkdtemp(prefix="bridgecrew-chaos-"))
    os.chmod(scratch, 0o755)  # noqa: S103 - as root, postgres runs as its own user and must reach pgdata
    embedded = None
    failed = True
    try:
        if args.database_url:
            from app.settings import asyncpg_url

            server_url = asyncpg_url(args.database_url)
        else:
            from app.db.embedded import start_embedded

            embedded = await asyncio.to_thread(start_embedded, scratch / "pgdata", "postgres")
            server_url = embedded.url("postgres")
        db_url = await fresh_database(server_url)
        data_dir = scratch / "server"
        data_dir.mkdir()
        print(f"chaos: {args.turns} turns, {args.kills} kills, seed {args.seed}", flush=True)
        try:
            report = await run_chaos(
                db_url,
                data_dir,
                turns=args.turns,
                kills=args.kills,
                seed=args.seed,
                log=(lambda _: None) if args.quiet else (lambda line: print(line, flush=True)),
            )
        finally:
            print(f"server log: {data_dir / 'chaos.log'}", flush=True)
        print(report.summary())
        for line in (report.lost + report.duplicates + report.problems)[:20]:
            print("  ", line)
        failed = bool(report.lost or report.duplicates or report.problems)
        return 1 if failed else 0
    finally:
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)
        if failed:
            print(f"kept {scratch} for a look", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
