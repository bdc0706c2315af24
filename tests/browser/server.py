"""The real server for browser tests, in its own process so a test can kill and restart it.

`python -m tests.browser.server PORT DATABASE_URL DATA_DIR`. The UI routers are added here when
app.main does not include them yet.
"""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn
from fastapi import FastAPI

from app import content
from app.main import create_app
from app.settings import Settings
from app.web import display, gm, join, station
from app.web.serving import server_options


def build_app(settings: Settings) -> FastAPI:
    app = create_app(settings)
    paths = {getattr(route, "path", None) for route in app.routes}
    for router in (station.router, gm.router, display.router, join.router):
        if not any(getattr(r, "path", None) in paths for r in router.routes):
            app.include_router(router)
    return app


TEST_SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def add_test_scenarios(data_dir: Path) -> None:
    """Serve the shipped scenarios plus the tests' own (tests/browser/scenarios, e.g. eight ships
    for the projector): a folder of links to both, read in place of the shipped one."""
    merged = data_dir / "scenarios"
    merged.mkdir(parents=True, exist_ok=True)
    for source in [*content.SCENARIOS_DIR.iterdir(), *TEST_SCENARIOS.glob("*.toml")]:
        link = merged / source.name
        if not link.exists():
            link.symlink_to(source)
    content.SCENARIOS_DIR = merged


def main() -> None:
    port, url, data_dir = int(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    add_test_scenarios(data_dir)
    settings = Settings(database_url=url, data_dir=data_dir, host="127.0.0.1", port=port)
    options = {**server_options(settings), "timeout_graceful_shutdown": 2}
    uvicorn.run(build_app(settings), host="127.0.0.1", port=port, log_level="warning", **options)


if __name__ == "__main__":
    main()
