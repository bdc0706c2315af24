"""The `bridgecrew` command prints where to point the GM's laptop, the projector and the phones."""

import asyncio
import ipaddress
import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


def _exported_demo(tmp_path: Path) -> dict[str, Any]:
    """The demo game's export with one seat taken, as a file to import under a new id."""
    runner = CliRunner()
    shown = runner.invoke(cli, ["demo"]).output
    code = next(line.split("/join/")[1].strip() for line in shown.splitlines() if "/join/" in line)
    out = tmp_path / "demo.json"
    assert runner.invoke(cli, ["export", code, "--out", str(out)]).exit_code == 0
    data: dict[str, Any] = json.loads(out.read_text())
    data["game"]["id"] = str(uuid.uuid4())
    data["seats"] = [
        {
            "id": str(uuid.uuid4()),
            "token_hash": "0" * 64,
            "ship": "kestrel",
            "station": "pilot",
            "name": "Ana",
            "created_at": data["game"]["created_at"],
            "revoked_at": None,
        }
    ]
    data["game"]["state"]["ships"]["kestrel"]["stations"]["pilot"]["crew"] = {
        "seat": data["seats"][0]["id"],
        "name": "Ana",
        "character": None,
    }
    return data


def test_import_prints_a_fresh_gm_link_and_the_join_code(server_env: None, tmp_path: Path) -> None:
    """The file's tokens open nothing here; the GM is shown the new link once."""
    data = _exported_demo(tmp_path)
    file = tmp_path / "game.json"
    file.write_text(json.dumps(data))
    result = CliRunner().invoke(cli, ["import", str(file)])
    assert result.exit_code == 0, result.output
    game_id = data["game"]["id"]
    assert f"Imported game {game_id}; join code " in result.output
    link = re.search(rf"http://127\.0\.0\.1:8000/gm/{game_id}\?token=(\S+)", result.output)
    assert link is not None
    assert re.search(r"http://127\.0\.0\.1:8000/join/[A-Z0-9]{6}", result.output)
    assert "1 seat was freed: their players join again with the code." in result.output
    assert _opens_as_gm(game_id, link.group(1))


def _opens_as_gm(game_id: str, token: str) -> bool:
    from app.db.session import create_engine, create_session_factory
    from app.service import is_gm_token

    async def ask() -> bool:
        engine = create_engine(get_settings().database_url or "")
        try:
            return await is_gm_token(create_session_factory(engine), game_id, token)
        finally:
            await engine.dispose()

    return asyncio.run(ask())


def test_import_keeps_tokens_only_when_asked(server_env: None, tmp_path: Path) -> None:
    data = _exported_demo(tmp_path)
    file = tmp_path / "game.json"
    file.write_text(json.dumps(data))
    result = CliRunner().invoke(cli, ["import", "--keep-tokens", str(file)])
    assert result.exit_code == 0, result.output
    assert "Tokens kept: the GM link and the phones' seats work as before." in result.output
    assert "?token=" not in result.output and "freed" not in result.output


def test_a_bad_file_is_refused_with_a_sentence_not_a_traceback(
    server_env: None, tmp_path: Path
) -> None:
    data = _exported_demo(tmp_path)
    del data["game"]["state"]["ships"]["kestrel"]["stations"]
    file = tmp_path / "game.json"
    file.write_text(json.dumps(data))
    runner = CliRunner()
    result = runner.invoke(cli, ["import", str(file)])
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)  # typer's exit, not an exception's traceback
    assert "error: The export's ship 'kestrel' has no stations; nothing was imported." in (
        result.output
    )
    del data["game"]
    file.write_text(json.dumps(data))
    result = runner.invoke(cli, ["import", str(file)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "error: The export has no 'game' section." in result.output


def test_a_file_too_deep_is_refused_with_a_sentence_not_the_parsers_traceback(
    server_env: None, tmp_path: Path
) -> None:
    """JSON 15,000 deep exhausts the parser's stack; the answer is still a sentence."""
    file = tmp_path / "game.json"
    file.write_text('{"format": "bridgecrew-game", "game": ' + "[" * 15_000 + "]" * 15_000 + "}")
    deep = CliRunner().invoke(cli, ["import", str(file)])
    assert deep.exit_code == 1 and isinstance(deep.exception, SystemExit), deep.exception
    assert f"error: {file} nests more than 32 levels deep: nothing was imported." in deep.output


def test_a_file_breaking_the_name_rule_is_refused_with_every_place_named(
    server_env: None, tmp_path: Path
) -> None:
    """A 5,000-character name with a right-to-left override, a control character in a
    ship's name: each named on its own line, nothing imported."""
    runner = CliRunner()
    file = tmp_path / "game.json"
    data = _exported_demo(tmp_path)
    data["seats"][0]["name"] = "\u202e" + "A" * 5_000
    data["game"]["state"]["ships"]["kestrel"]["name"] = "Kestrel\x07"
    file.write_text(json.dumps(data))
    refused = runner.invoke(cli, ["import", "--keep-tokens", str(file)])
    assert refused.exit_code == 1 and isinstance(refused.exception, SystemExit)
    lines = refused.output.splitlines()
    assert lines == [
        "error: The export breaks the rules for texts or seats (2 problems); nothing was imported.",
        "  seats [0].name: A name is 1 to 40 characters.",
        "  game state ships.kestrel.name: A name may not contain invisible or control characters "
        "(this one has U+0007); type it again.",
    ]


def test_serve_refuses_several_workers_before_starting_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Limits and the editor's content live in the server process's memory: a second worker would
    double every limit. Refused before any database is found or started (this one answers no one:
    a serve that went on would fail on it instead)."""
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://nobody@127.0.0.1:1/none")
    monkeypatch.setenv("BRIDGECREW_DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(cli, ["serve", "--workers", "2"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 1
    assert "runs one process" in result.output and "faster machine" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert list(tmp_path.iterdir()) == []
