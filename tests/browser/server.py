"""The server for browser tests: `python -m tests.browser.server PORT`, the app as
tests/processes.py serves it, with the tests' own scenarios (tests/browser/scenarios, e.g. eight
ships for the projector) beside the shipped ones."""

from __future__ import annotations

import sys
from pathlib import Path

from app import content, i18n_content
from app.settings import get_settings
from tests.processes import serve

TEST_SCENARIOS = Path(__file__).resolve().parent / "scenarios"
LAUNCH = ("-m", "tests.browser.server")


def add_test_scenarios(data_dir: Path) -> None:
    """Serve the shipped scenarios plus the tests' own: a folder of links to both, read in place
    of the shipped one, for the content and its translations alike."""
    merged = data_dir / "scenarios"
    merged.mkdir(parents=True, exist_ok=True)
    for source in [*content.SCENARIOS_DIR.iterdir(), *TEST_SCENARIOS.glob("*.toml")]:
        link = merged / source.name
        if not link.exists():
            link.symlink_to(source)
    content.SCENARIOS_DIR = merged
    i18n_content.SCENARIOS_DIR = merged  # and their translations beside the shipped ones'


if __name__ == "__main__":
    add_test_scenarios(get_settings().data_dir)
    serve(int(sys.argv[1]), timeout_graceful_shutdown=2)
