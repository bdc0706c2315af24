"""What `make test-fast` leaves out is said by markers, and what it runs starts no server process;
under CI, the browser tests fail rather than skip when Chromium is missing."""

from pathlib import Path

import pytest

from tests.browser.chromium import need_chromium
from tests.processes import Server


def test_a_test_not_marked_for_it_cannot_start_a_server_process(tmp_path: Path) -> None:
    server = Server("postgresql+asyncpg://nobody@127.0.0.1:1/none", tmp_path)
    try:
        with pytest.raises(AssertionError, match="mark it `processes`"):
            server.start()
        assert not server.running()
    finally:
        server.stop()


@pytest.mark.processes
def test_a_test_marked_processes_may_start_one(tmp_path: Path) -> None:
    # The interpreter alone, told to exit: the guard lets it start, and it is a real process.
    server = Server(None, tmp_path, launch=("-c", "import sys; sys.exit(int(sys.argv[1]) % 1)"))
    server.start()
    assert server.process.wait(30) == 0


def test_browser_tests_fail_under_ci_without_chromium(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="under CI"):
        need_chromium("/nonexistent/chromium")


@pytest.mark.parametrize("value", [None, "", "false", "0"])
def test_browser_tests_skip_without_chromium_elsewhere(
    monkeypatch: pytest.MonkeyPatch, value: str | None
) -> None:
    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        need_chromium("/nonexistent/chromium")
