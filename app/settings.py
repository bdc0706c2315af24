"""Server settings, read once from the environment (prefix BRIDGECREW_, plus plain DATABASE_URL)."""

import os
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Self
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="BRIDGECREW_", populate_by_name=True)

    # Plain DATABASE_URL because that is what hosting platforms and docker-compose set. When it is
    # unset, the server starts its own PostgreSQL under data_dir (see app.db.embedded).
    database_url: str | None = Field(default=None, validation_alias="DATABASE_URL")
    data_dir: Path = Path("./data")
    host: str = "0.0.0.0"  # noqa: S104 - phones on the venue's network must reach the server
    port: int = 8000
    # Signs seat and GM cookies. Empty means: use the key persisted in data_dir/secret_key.
    secret_key: str = Field(default="", repr=False)
    # Opens the content editor (/editor), whose ship classes, decks, characters and scenarios
    # every game on this server can use: for the event's organisers, not a game's GM or players.
    # Empty means: use the key persisted in data_dir/organiser_key. `bridgecrew serve` prints it.
    organiser_key: str = Field(default="", repr=False)
    # Where phones reach the server, e.g. "https://bridge.example.org". Unset: the LAN address.
    public_base_url: str | None = None
    # A phone sends small forms; anything bigger is a mistake or an attack.
    max_body_bytes: int = 64 * 1024
    # A request's body must arrive within this of its first read (408 otherwise): a client that
    # trickles a body holds a connection no longer than one that trickles its headers.
    body_timeout_s: float = Field(default=20.0, gt=0)
    # A request's first line and headers (h11 counts them while they are incomplete; see
    # app.web.serving). Browsers send 1-2 KB; the cookies of many games fit easily.
    max_header_bytes: int = 32 * 1024
    # A request's first line and headers must arrive within this, counted from the connection's
    # opening or the request's first byte: a client that trickles them (slowloris) is cut off.
    # Generous, because phones on venue Wi-Fi lose and resend packets.
    header_timeout_s: float = 20.0
    ws_max_frame_bytes: int = 64 * 1024
    # permessage-deflate on websockets (uvicorn's own, with its per-socket zlib state): off,
    # because pushes are a few KB of HTML on a local network, where compressing them costs the
    # server CPU and memory per socket and saves the phones nothing they notice
    # (docs/performance.md has the figures both ways).
    ws_deflate: bool = False
    # Open connections and websockets per client address, per process: one address cannot take
    # every file descriptor. Generous, because a whole venue may reach the server through one
    # address (a hosted server behind the venue's router). A websocket counts against the second
    # only, so a screen over the cap is told why (app.web.limits) instead of seeing a bare close.
    connections_per_address: int = Field(default=1000, gt=0)
    sockets_per_address: int = Field(default=800, gt=0)
    # Every open websocket gets a heartbeat this often (the hub), to keep venue proxies and phone
    # radios from idling it out. Pages read it too: a page that hears nothing for three heartbeats'
    # worth takes its socket for dead and reconnects (static/js/app.js), so this bounds how long a
    # stalled phone shows an old turn (under 20 s). bench/heartbeat.py has the cost.
    heartbeat_s: float = Field(default=5.0, gt=0)
    # Frames a websocket client may send, per second and at once after a quiet spell; pings count
    # (in their own bucket). Clients say nothing but a rare ping, so this is only ever a flood.
    ws_frame_rate: float = 20.0
    ws_frame_burst: int = 60
    # Commands per second (and burst) per seat or GM token, and per address for callers without
    # one: a stuck button or a curious player cannot flood a game. Per process.
    command_rate: float = 10.0
    command_burst: int = 20
    anonymous_rate: float = 5.0
    anonymous_burst: int = 40
    # Pages and reads (GET) per second and burst per client address: a screen asks for a page
    # when it opens and its panels when it wakes, so only a script reading in a loop meets this.
    # Static files and /healthz are not counted.
    read_rate: float = 5.0
    read_burst: int = 40
    # Seats one client address may hold in one game (a phone holds one). On the venue's own
    # network every phone has its own address; behind a NAT (a hosted server) raise it to the
    # table's size. Enough for one ship's crew and a spare pair, never a whole 18-station game.
    seats_per_address: int = Field(default=6, ge=1)
    # Games nobody changes are deleted: out of combat (never started, or back in Downtime) after
    # `finished_game_hours`, any game after `idle_game_days`. Never a game a phone is connected
    # to. With `expired_games_dir` set, each is exported there first (bridgecrew import reads it).
    finished_game_hours: float = Field(default=24.0, gt=0)
    idle_game_days: float = Field(default=7.0, gt=0)
    expired_games_dir: Path | None = None
    # Unknown join codes per address: what guessing codes makes. A right code never counts, so a
    # phone scanning again gets in at once; a room of players mistyping now and then stays well
    # below this.
    join_miss_rate: float = 0.2
    join_miss_burst: int = 30
    # The pseudo-language en_XA (app/i18n.py), for tests and development: a link (?lang=en_XA),
    # a cookie or a browser may choose it only where this is on. Off, the asking is ignored.
    pseudo_language: bool = False
    # An MQTT broker for the room's props (lights, sirens, buttons; docs/props.md), as
    # mqtt://[user:password@]host[:port] or mqtts:// for TLS. Unset: nothing is published.
    mqtt_url: str | None = Field(default=None, repr=False)
    # Props' presses per game: one every two seconds, three at once after a pause. A button
    # pressed faster (or a board gone wrong) fires no more cues; the others are dropped.
    props_press_rate: float = Field(default=0.5, gt=0)
    props_press_burst: int = Field(default=3, ge=1)

    @field_validator("database_url")
    @classmethod
    def _use_asyncpg(cls, url: str | None) -> str | None:
        return asyncpg_url(url) if url else None

    @field_validator("public_base_url")
    @classmethod
    def _strip_slash(cls, url: str | None) -> str | None:
        return url.rstrip("/") if url else None

    @field_validator("mqtt_url")
    @classmethod
    def _mqtt_broker(cls, url: str | None) -> str | None:
        if not url:
            return None
        parts = urlsplit(url)
        try:
            port_ok = parts.port is None or parts.port > 0
        except ValueError:
            port_ok = False
        if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname or not port_ok:
            raise ValueError("give the broker as mqtt://host[:port] (or mqtts:// for TLS)")
        return url

    @model_validator(mode="after")
    def _persist_secret_key(self) -> Self:
        if not self.secret_key:
            self.secret_key = load_or_create_secret_key(self.data_dir / "secret_key")
        if not self.organiser_key:
            self.organiser_key = load_or_create_secret_key(self.data_dir / "organiser_key")
        return self


def asyncpg_url(url: str) -> str:
    """Platforms hand out postgres:// or postgresql:// URLs; the app talks through asyncpg only."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+asyncpg://" + url.removeprefix(prefix)
    return url


def load_or_create_secret_key(path: Path) -> str:
    """Read the key at path, creating it first if needed, so cookies survive a restart.

    The server and a command line tool may start at once: the key is written to a private temporary
    file and linked into place, which fails if another process won the race; both then read the
    winner.
    """
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_urlsafe(48))
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        tmp.unlink()
    return path.read_text().strip()


@lru_cache
def get_settings() -> Settings:
    return Settings()
