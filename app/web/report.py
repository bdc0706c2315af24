"""The after-action report (G-END-2): JSON and CSV for scripts and spreadsheets, a page for people
(a phone, the projector, paper). The GM reads it at any time; players and the projector once the
combat has ended. It covers every battle of the evening (E-EVENING-1)."""

from __future__ import annotations

import csv
import io
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.rules.core.messages import message
from app.service import ServiceError
from app.service.report import game_report

from .render import render_template
from .screen import ApiCaller, GameId, ScreenCaller, SessionFactoryDep, csrf_token, error_page, page

router = APIRouter(tags=["report"])

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


@router.get("/api/games/{game_id}/report", tags=["api"])
async def report_json(
    game_id: GameId, caller: ApiCaller, session_factory: SessionFactoryDep
) -> dict[str, Any]:
    """Every battle of the evening and every combat in it: who won and how, the players, turns
    played; per ship damage dealt, taken and repaired, attacks made and hit, torpedoes launched
    and shot down, Hull and Shields by turn; per station its orders and best one; crew injuries;
    the biggest hit; the log."""
    return await game_report(session_factory, game_id, caller.viewer)


@router.get("/report/{game_id}.csv", response_class=Response)
async def report_csv(
    request: Request, game_id: GameId, caller: ScreenCaller, session_factory: SessionFactoryDep
) -> Response:
    try:
        report = await game_report(session_factory, game_id, caller.viewer)
    except ServiceError as error:
        return error_page(request, error)
    return Response(
        report_rows(report),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="report.csv"'},
    )


def report_rows(report: dict[str, Any]) -> str:
    """The report as CSV: one row per ship per combat, its scenario and whether its side won."""
    scenarios = {b["battle"]: b["scenario"]["id"] for b in report["battles"]}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
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
            writer.writerow([plain_cell(row[column]) for column in CSV_COLUMNS])
    return out.getvalue()


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
    caller: ScreenCaller,
    session_factory: SessionFactoryDep,
    screen: str | None = None,
) -> Response:
    try:
        report = await game_report(session_factory, game_id, caller.viewer)
    except ServiceError as error:
        return error_page(request, error)
    token = csrf_token(request)
    html = render_template(
        "report.html",
        report=report,
        game_id=str(game_id),
        csrf=token,
        projector=screen == "display",
        chart_lines=chart_lines,
    )
    return page(html, token)


# Every screen links to "report" relative to its own <base href> (/play/<id>/, /gm/<id>/,
# /display/<id>/), so the panels pushed to a whole audience need no game id. The projector's
# page is set in its large type.
@router.get("/{screen}/{game_id}/report", include_in_schema=False)
async def report_from_screen(screen: str, game_id: GameId) -> Response:
    if screen not in ("play", "gm", "display"):
        raise ServiceError("NOT_FOUND", message("no_such_page"), 404)
    to = f"/report/{game_id}?screen=display" if screen == "display" else f"/report/{game_id}"
    return RedirectResponse(to, status_code=303)
