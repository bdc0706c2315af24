"""The `bridgecrew` command prints where to point the GM's laptop, the projector and the phones."""

import ipaddress
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import base_url, cli, format_urls
from app.network import lan_ip
from app.settings import Settings, get_settings


def test_urls_are_aligned_and_joined_to_the_base() -> None:
    text = format_urls(
        "http://192.168.1.20:8000",
        {"GM dashboard": "/gm/abc?token=t", "Join": "join/K7QF", "Docs": "https://x.org/d"},
    )
    assert text.splitlines() == [
        "  GM dashboard  http://192.168.1.20:8000/gm/abc?token=t",
        "  Join          http://192.168.1.20:8000/join/K7QF",
        "  Docs          https://x.org/d",
    ]


def test_public_base_url_wins_over_the_lan_address(tmp_path: Path) -> None:
    settings = Settings(public_base_url="https://bridge.example.org/", data_dir=tmp_path)
    assert base_url(settings, 8000) == "https://bridge.example.org"


def test_server_bound_to_one_address_is_announced_on_it(tmp_path: Path) -> None:
    settings = Settings(host="127.0.0.1", data_dir=tmp_path)
    assert base_url(settings, 9000) == "http://127.0.0.1:9000"


def test_lan_ip_is_an_ipv4_address() -> None:
    assert ipaddress.ip_address(lan_ip()).version == 4


@pytest.fixture
def server_env(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DATABASE_URL", db_url)
    monkeypatch.setenv("BRIDGECREW_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("BRIDGECREW_HOST", "127.0.0.1")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_demo_makes_a_new_game_each_time_and_prints_its_urls(server_env: None) -> None:
    runner = CliRunner()
    printed = [runner.invoke(cli, ["demo"]) for _ in range(2)]
    for result in printed:
        assert result.exit_code == 0, result.output
        assert "http://127.0.0.1:8000/gm/" in result.output
        assert "http://127.0.0.1:8000/display/" in result.output
    joins = [line.split()[-1] for result in printed for line in result.output.splitlines()]
    joins = [url for url in joins if "/join/" in url]
    assert len(joins) == 2 and joins[0] != joins[1]


def test_help_lists_the_commands() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for command in ("serve", "db", "demo"):
        assert command in result.output
