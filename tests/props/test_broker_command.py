"""`bridgecrew props-broker` writes the shipped broker's logins and rights, keeps the logins when
run again (boards keep working after an update), and makes new ones only when asked."""

from pathlib import Path

from typer.testing import CliRunner

from app.cli import cli


def written(folder: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(folder.iterdir())}


def test_the_command_writes_the_files_and_keeps_the_logins_unless_renewed(tmp_path: Path) -> None:
    folder = tmp_path / "broker"
    runner = CliRunner()
    first = runner.invoke(cli, ["props-broker", str(folder), "--host", "props.local"])
    assert first.exit_code == 0, first.output
    before = written(folder)
    assert sorted(before) == ["acl", "passwords", "props.env", "server.env"]
    assert before["server.env"].startswith("BRIDGECREW_MQTT_URL=mqtt://bridgecrew-server:")
    assert before["server.env"].rstrip().endswith("@props.local:1883")
    assert "bridgecrew-props" in first.output and "props.env" in first.output

    again = runner.invoke(cli, ["props-broker", str(folder), "--host", "props.local"])
    assert again.exit_code == 0 and "as before" in again.output
    after = written(folder)
    assert after["server.env"] == before["server.env"] and after["props.env"] == before["props.env"]
    assert after["acl"] == before["acl"]

    renewed = runner.invoke(cli, ["props-broker", str(folder), "--renew", "--host", "props.local"])
    assert renewed.exit_code == 0
    assert written(folder)["props.env"] != before["props.env"]
    assert written(folder)["server.env"] != before["server.env"]
