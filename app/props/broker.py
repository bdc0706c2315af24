"""The props' broker's logins and rights (`bridgecrew props-broker`, deploy/mosquitto.conf): a
Mosquitto password file and ACL file for two users, the server and the props, and the address the
server connects with.

The server alone publishes the game topics and reads the presses; the props read the game topics
and publish only presses. Anyone else cannot connect (`allow_anonymous false`).

The password file is written here, in Mosquitto's own `$7$` format (PBKDF2-SHA512, 101 rounds,
a 12-byte salt, as `mosquitto_passwd` writes it), rather than by calling `mosquitto_passwd`: the
machine that runs the server (or its container) seldom has Mosquitto's tools, and hashlib has all
it takes.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import os
import secrets
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from .topics import GAME_TOPICS, ROOT

SERVER_USER = "bridgecrew-server"
PROPS_USER = "bridgecrew-props"
ROUNDS = 101  # what mosquitto_passwd uses
SALT_BYTES = 12

PASSWORDS = "passwords"  # read by Mosquitto: hashes only
ACL = "acl"
SERVER_ENV = "server.env"  # the server's address with its password (docker-compose.yml reads it)
PROPS_LOGIN = "props.env"  # the props' login, for the boards' firmware


@dataclasses.dataclass(frozen=True)
class Logins:
    server: str
    props: str

    @classmethod
    def new(cls) -> Logins:
        return cls(secrets.token_urlsafe(24), secrets.token_urlsafe(24))


def password_line(user: str, password: str, salt: bytes | None = None) -> str:
    """One line of a Mosquitto password file."""
    salt = salt if salt is not None else secrets.token_bytes(SALT_BYTES)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, ROUNDS)
    encode = base64.b64encode
    return f"{user}:$7${ROUNDS}${encode(salt).decode()}${encode(digest).decode()}"


def acl() -> str:
    """The rights of the two users. Mosquitto checks read rights when it delivers a message, so a
    props login that subscribes to everything still hears no press; it does not check who joins
    a shared subscription, which is why the server's group has a name only it knows."""
    lines = [
        "# Written by `bridgecrew props-broker`; run it again rather than editing this.",
        f"user {SERVER_USER}",
        f"topic write {ROOT}/#",
        f"topic read {ROOT}/+/in/cue/+",
        "",
        f"user {PROPS_USER}",
        f"topic write {ROOT}/+/in/cue/+",
        *(f"topic read {ROOT}/+/{topic}" for topic in GAME_TOPICS),
    ]
    return "\n".join(lines) + "\n"


def server_url(password: str, host: str, port: int) -> str:
    return f"mqtt://{SERVER_USER}:{quote(password, safe='')}@{host}:{port}"


def read_logins(folder: Path) -> Logins | None:
    """The logins written there before, so writing the files again changes no board's login."""
    try:
        url = _env(folder / SERVER_ENV)["BRIDGECREW_MQTT_URL"]
        props = _env(folder / PROPS_LOGIN)["MQTT_PASSWORD"]
    except (OSError, KeyError):
        return None
    server = urlsplit(url).password
    return Logins(unquote(server), props) if server and props else None


def write_files(folder: Path, logins: Logins, host: str, port: int) -> None:
    """The broker's files (readable by the broker's own user) and the two logins (this user's
    alone). Each file is written whole under another name, then moved into place."""
    folder.mkdir(parents=True, exist_ok=True)
    passwords = [password_line(SERVER_USER, logins.server), password_line(PROPS_USER, logins.props)]
    _write(folder / PASSWORDS, "\n".join(passwords) + "\n", 0o644)
    _write(folder / ACL, acl(), 0o644)
    url = server_url(logins.server, host, port)
    _write(folder / SERVER_ENV, f"BRIDGECREW_MQTT_URL={url}\n", 0o600)
    props = f"MQTT_USER={PROPS_USER}\nMQTT_PASSWORD={logins.props}\n"
    _write(folder / PROPS_LOGIN, props, 0o600)


def _env(path: Path) -> dict[str, str]:
    pairs = (line.partition("=") for line in path.read_text().splitlines())
    return {key.strip(): value.strip() for key, _, value in pairs if key.strip()}


def _write(path: Path, text: str, mode: int) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(descriptor, "w") as file:
        file.write(text)
    os.chmod(temporary, mode)  # whatever the umask took away: the broker's user must read it
    temporary.replace(path)
