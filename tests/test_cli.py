"""The `bridgecrew` command prints where to point the GM's laptop, the projector and the phones."""

import ipaddress
import sys
import types
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from app.cli import base_url, call_service, cli, format_urls, lan_ip
from app.settings import Settings


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


def test_missing_service_function_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "app.service", types.ModuleType("app.service"))
    with pytest.raises(typer.Exit) as exit_:
        call_service("ensure_demo_game")
    assert exit_.value.exit_code == 1


def test_async_service_function_is_awaited(monkeypatch: pytest.MonkeyPatch) -> None:
    async def ensure_demo_game() -> dict[str, str]:
        return {"Join": "/join/K7QF"}

    service = types.ModuleType("app.service")
    service.ensure_demo_game = ensure_demo_game  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "app.service", service)
    assert call_service("ensure_demo_game") == {"Join": "/join/K7QF"}


def test_help_lists_the_commands() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for command in ("serve", "db", "demo"):
        assert command in result.output
