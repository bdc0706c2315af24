"""The after-action report (G-END-2): JSON and CSV for scripts and spreadsheets, a page for people
(a phone, the projector, paper). The GM reads it at any time; players and the projector once the
combat has ended. It covers every battle of the evening (E-EVENING-1)."""

from __future__ import annotations

import csv
import dataclasses
import gzip
import io
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from app.i18n import LANGUAGES, N_, gettext, requested
from app.rules.core.messages import message
from app.rules.core.report import build_report
from app.service import ServiceError, Viewer, game_info
from app.service.kept import Kept
from app.service.report import check_reader, fighting, report_ready, report_sources

from .deps import ApiCaller, GameId, ScreensCaller, SessionFactoryDep
from .reading import off_loop, speaking_game
from .render import render_template
from .screen import error_page

router = APIRouter(tags=["report"])
GZIP_LEVEL = 6  # as app.main's GZipMiddleware compresses every other answer

# The chart's drawing box: a turn per step across, a track's boxes up; the page scales it.
CHART_WIDTH = 320
CHART_HEIGHT = 120
CHART_PAD = 6
# One row per ship per combat; the columns are the JSON's keys, so scripts read both alike.
CSV_COLUMNS = (
    "battle", "scenario", "combat", "turns", "ship", "name", "side", "won", "damage_dealt",
    "damage_taken", "repaired", "attacks", "hits", "torpedoes_launched", "torpedoes_shot_down",
    "destroyed", "hull_left", "shields_left",
)  # fmt: skip
# A cell a spreadsheet would read as a formula (OWASP's CSV injection): names are the GM's and
# the players' own text, so one such as `=HYPERLINK(...)` is given a leading quote and stays text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


# A long evening's report is megabytes of HTML and seconds of work: each is built once per game
# version (off the event loop, in the reads' thread), kept for the last few games read, and each
# of its answers (JSON, CSV, the page per language) made and gzipped once.
REPORTS_KEPT = 4
ANSWERS_KEPT = 10  # per report: JSON, CSV, the spreadsheet and the page in each language, on a
# phone or the projector


@dataclasses.dataclass(frozen=True)
class KeptReport:
    ready: bool  # players and the projector may read it (app/service/report.py)
    combat: int  # the combat being fought after an earlier one ended, else 0
    report: dict[str, Any]
    answers: Kept[tuple[str, ...], tuple[bytes, bytes]]  # each answer, plain and gzipped


_reports: Kept[tuple[uuid.UUID, int], KeptReport] = Kept(REPORTS_KEPT)


async def kept_report(
    session_factory: SessionFactoryDep, game_id: uuid.UUID, viewer: Viewer
) -> KeptReport:
    """The game's report as it stands, if `viewer` may read it (REPORT_NOT_READY): built once
    for each version of the game, whoever asks, in any number at once."""
    version = (await game_info(session_factory, game_id)).version

    async def build() -> KeptReport:
        _, state, events = await report_sources(session_factory, game_id)
        report = await off_loop(build_report, state, events)
        return KeptReport(report_ready(state), fighting(state), report, Kept(ANSWERS_KEPT))

    kept = await _reports.get((game_id, version), build)
    check_reader(kept.ready, viewer, kept.combat)
    return kept


async def answer(
    request: Request,
    kept: KeptReport,
    variant: tuple[str, ...],
    make: Callable[[], bytes],
    media_type: str,
    headers: dict[str, str] | None = None,
) -> Response:
    """One of the report's answers, made once (in the reads' thread) and kept with the report;
    gzipped once too, for the clients that take it."""

    async def build() -> tuple[bytes, bytes]:
        plain = await off_loop(make)
        return plain, await off_loop(gzip.compress, plain, GZIP_LEVEL)

    plain, zipped = await kept.answers.get(variant, build)
    sent = {**(headers or {}), "Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", "").lower():
        return Response(zipped, media_type=media_type, headers={**sent, "Content-Encoding": "gzip"})
    return Response(plain, media_type=media_type, headers=sent)


@router.get(
    "/api/games/{game_id}/report",
    tags=["api"],
    response_class=JSONResponse,
    responses={200: {"content": {"application/json": {}}}},
)
async def report_json(
    request: Request, game_id: GameId, caller: ApiCaller, session_factory: SessionFactoryDep
) -> Response:
    """Every battle of the evening and every combat in it: who won and how, the players, turns
    played; per ship damage dealt, taken and repaired, attacks made and hit, torpedoes launched
    and shot down, Hull and Shields by turn; per station its orders and best one; crew injuries;
    the biggest hit; the log."""
    kept = await kept_report(session_factory, game_id, caller.viewer)
    return await answer(
        request, kept, ("json",), lambda: bytes(JSONResponse(kept.report).body), "application/json"
    )


@router.get("/report/{game_id}.csv", response_class=Response)
async def report_csv(
    request: Request, game_id: GameId, caller: ScreensCaller, session_factory: SessionFactoryDep
) -> Response:
    return await _sheet_answer(
        request, game_id, caller, session_factory, ("csv",), "report.csv",
        lambda report: report_rows(report).encode(),
    )  # fmt: skip


async def _sheet_answer(
    request: Request,
    game_id: uuid.UUID,
    caller: Any,
    session_factory: Any,
    variant: tuple[str, ...],
    filename: str,
    make: Callable[[dict[str, Any]], bytes],
) -> Response:
    """A CSV download of the report, made once per game version and `variant`."""
    try:
        kept = await kept_report(session_factory, game_id, caller.viewer)
    except ServiceError as error:
        return error_page(request, error)
    return await answer(
        request,
        kept,
        variant,
        lambda: make(kept.report),
        "text/csv; charset=utf-8",
        {"Content-Disposition": f'attachment; filename="{filename}"'},
    )


def report_table(report: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per ship per combat (CSV_COLUMNS), its scenario and whether its side won."""
    scenarios = {b["battle"]: b["scenario"]["id"] for b in report["battles"]}
    rows = []
    for combat in report["combats"]:
        outcome = combat["outcome"] or {"winners": []}
        last = {c["ship"]: c["turns"][-1] for c in combat["chart"] if c["turns"]}
        for ship in combat["ships"]:
            row = {
                **ship,
                "ship": ship["id"],
                "battle": combat["battle"],
                "scenario": scenarios[combat["battle"]],
                "combat": combat["combat"],
                "turns": combat["turns"],
                "won": ship["side"] in outcome["winners"],
                "hull_left": last.get(ship["id"], {}).get("hull", ""),
                "shields_left": last.get(ship["id"], {}).get("shields", ""),
            }
            rows.append({column: row[column] for column in CSV_COLUMNS})
    return rows


def report_rows(report: dict[str, Any]) -> str:
    """The report as CSV for programs: ids, True/False, commas."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in report_table(report):
        writer.writerow([plain_cell(row[column]) for column in CSV_COLUMNS])
    return out.getvalue()


# The spreadsheet's headers, in the reader's language.
SHEET_HEADERS = {
    "battle": N_("Battle"), "scenario": N_("Scenario"), "combat": N_("Combat"),
    "turns": N_("Turns"), "ship": N_("Ship id"), "name": N_("Ship"), "side": N_("Side"),
    "won": N_("Won"), "damage_dealt": N_("Damage dealt"), "damage_taken": N_("Damage taken"),
    "repaired": N_("Repaired"), "attacks": N_("Attacks"), "hits": N_("Hits"),
    "torpedoes_launched": N_("Torpedoes launched"),
    "torpedoes_shot_down": N_("Torpedoes shot down"), "destroyed": N_("Destroyed"),
    "hull_left": N_("Hull left"), "shields_left": N_("Shields left"),
}  # fmt: skip
# The separator a spreadsheet expects in each language: where the comma is the decimal mark
# (German), it reads a semicolon.
SHEET_SEPARATORS = {"de": ";"}


def _sheet_cell(value: Any) -> Any:
    if isinstance(value, bool):
        return gettext(N_("yes")) if value else gettext(N_("no"))
    return value


def report_sheet(report: dict[str, Any], locale: str) -> bytes:
    """The report for a spreadsheet in `locale`: headers and yes/no in its words, its separator,
    UTF-8 with a byte order mark (without one a German spreadsheet reads umlauts as Latin-1)."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=SHEET_SEPARATORS.get(locale, ","), lineterminator="\r\n")
    writer.writerow([gettext(SHEET_HEADERS[column]) for column in CSV_COLUMNS])
    for row in report_table(report):
        writer.writerow([plain_cell(_sheet_cell(row[column])) for column in CSV_COLUMNS])
    return out.getvalue().encode("utf-8-sig")


@router.get("/report/{game_id}/spreadsheet.csv", response_class=Response)
async def report_spreadsheet(
    request: Request, game_id: GameId, caller: ScreensCaller, session_factory: SessionFactoryDep
) -> Response:
    """The report for a spreadsheet in the reader's language (report_sheet)."""
    locale = requested.get()
    return await _sheet_answer(
        request, game_id, caller, session_factory, ("sheet", locale), f"report-{locale}.csv",
        lambda report: report_sheet(report, locale),
    )  # fmt: skip


def plain_cell(value: Any) -> Any:
    """A text cell that a spreadsheet would take for a formula, quoted so it reads as text."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def chart_lines(entry: dict[str, Any], turns: int) -> dict[str, Any]:
    """One ship's Hull and Shields by turn as (x, y) points in the chart's box: turn 1 at the
    left, the combat's last turn at the right, no boxes left at the bottom."""
    top = max(entry["hull_boxes"], entry["shields_boxes"], 1)
    across = (CHART_WIDTH - 2 * CHART_PAD) / max(turns - 1, 1)
    up = (CHART_HEIGHT - 2 * CHART_PAD) / top

    def points(track: str) -> list[tuple[str, str]]:
        return [
            (
                f"{CHART_PAD + (t['turn'] - 1) * across:.1f}",
                f"{CHART_HEIGHT - CHART_PAD - t[track] * up:.1f}",
            )
            for t in entry["turns"]
        ]

    return {
        "hull": points("hull"),
        "shields": points("shields") if entry["shields_boxes"] else [],
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "first_turn": entry["turns"][0]["turn"] if entry["turns"] else 1,
    }


@router.get("/report/{game_id}", response_class=HTMLResponse)
async def report_page(
    request: Request,
    game_id: GameId,
    caller: ScreensCaller,
    session_factory: SessionFactoryDep,
    screen: str | None = None,
) -> Response:
    try:
        kept = await kept_report(session_factory, game_id, caller.viewer)
    except ServiceError as error:
        return error_page(request, error)
    projector = screen == "display"
    locale = requested.get()

    def page_html() -> bytes:
        # The same bytes for every reader: the page sends nothing back, so it needs no CSRF
        # token of the reader's own.
        html = render_template(
            "report.html",
            report=kept.report,
            game_id=str(game_id),
            csrf="",
            projector=projector,
            chart_lines=chart_lines,
        )
        return html.encode()

    async with speaking_game(session_factory, game_id):
        variant = ("page", locale, "projector" if projector else "")
        return await answer(request, kept, variant, page_html, "text/html; charset=utf-8")


# Every screen links to "report" relative to its own <base href> (/play/<id>/, /gm/<id>/,
# /display/<id>/), so the panels pushed to a whole audience need no game id. The projector's
# page is set in its large type.
# The link carries the screen's language (`lang`), so the projector's report is in the room's
# language, not the language of the venue laptop's browser.
@router.get("/{screen}/{game_id}/report", include_in_schema=False)
async def report_from_screen(screen: str, game_id: GameId, lang: str | None = None) -> Response:
    if screen not in ("play", "gm", "display"):
        raise ServiceError("NOT_FOUND", message("no_such_page"), 404)
    query = {"screen": "display"} if screen == "display" else {}
    if lang in LANGUAGES:
        query["lang"] = str(lang)
    to = f"/report/{game_id}" + (f"?{urlencode(query)}" if query else "")
    return RedirectResponse(to, status_code=303)
