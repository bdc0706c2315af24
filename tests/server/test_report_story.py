"""G-END-2 with E-EVENING-1: the report tells the story of every battle of the evening: who won
and how, the players by their seats' names, each station's part, each ship's Hull and Shields by
turn (drawn on the server as SVG), and CSV beside the JSON."""

from __future__ import annotations

import csv
import io
import re
import uuid

from fastapi.testclient import TestClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.rules import Actor
from app.service import create_game, create_seat, load_state, run_command
from app.service.evening import move_table_on
from app.service.report import game_report
from app.web.report import CHART_HEIGHT, CHART_PAD, CHART_WIDTH, chart_lines, report_rows

from .conftest import Table
from .test_report import gm, play_turn

Sessions = async_sessionmaker[AsyncSession]


async def two_battles(sessions: Sessions) -> uuid.UUID:
    """A skirmish fought until Rustjaw is destroyed, then the table on to a torpedo run whose
    combat the GM ends with nobody beaten."""
    game_id, _, _ = await create_game(sessions, "skirmish", seed=5)
    await create_seat(sessions, game_id, "kestrel", "weapons", "Ada", "amara-lind")
    await create_seat(sessions, game_id, "kestrel", "pilot", "Bo")
    await gm(sessions, game_id, type="SetSetting", name="close_when_all_ready", value=False)
    for _ in range(12):
        await play_turn(sessions, game_id)
        _, state = await load_state(sessions, game_id)
        if state["ships"]["rustjaw"]["destroyed"]:
            break
    await gm(sessions, game_id, type="EndCombat")
    await move_table_on(sessions, game_id, "torpedo-run", "gm:on")
    await gm(sessions, game_id, type="StartTurn", seconds=0)
    await run_command(
        sessions,
        game_id,
        {"type": "PassOrder", "ship": "harrier", "station": "weapons"},
        Actor.for_seat(str(await seat_at(sessions, game_id, "harrier", "weapons"))),
        command_id="p",
    )
    await gm(sessions, game_id, type="CloseOrders")
    await gm(sessions, game_id, type="EndCombat")
    return game_id


async def seat_at(sessions: Sessions, game_id: uuid.UUID, ship: str, station: str) -> str:
    _, state = await load_state(sessions, game_id)
    return str(state["ships"][ship]["stations"][station]["crew"]["seat"])


# rule: G-END-2
async def test_g_end_2_the_report_names_the_winner_the_players_and_each_battle(
    session_factory: Sessions,
) -> None:
    game_id = await two_battles(session_factory)
    report = await game_report(session_factory, game_id, "display")

    first, second = report["battles"]
    assert (first["scenario"]["id"], second["scenario"]["id"]) == ("skirmish", "torpedo-run")
    assert (first["combats"], second["combats"]) == ([1], [2])
    # The players by their seats' names, at the stations they held in each battle.
    for battle, ship in ((first, "kestrel"), (second, "harrier")):
        crew = {(c["ship"], c["station"]): c for c in battle["crew"]}
        assert crew[(ship, "weapons")]["names"] == ["Ada"]
        assert crew[(ship, "weapons")]["character"] == "Dr Amara Lind"
        assert crew[(ship, "pilot")]["names"] == ["Bo"]

    won, drawn = report["combats"]
    assert won["outcome"]["beaten"] == "raiders" and won["outcome"]["winners"] == ["players"]
    assert won["outcome"]["why"] == [["Rustjaw", "destroyed"]]
    assert drawn["battle"] == 2 and drawn["outcome"]["beaten"] is None
    assert {s["id"] for s in drawn["ships"]} == {"harrier", "viper", "adder"}

    # Hull and Shields by turn, as each turn's end left them.
    chart = {c["ship"]: c for c in won["chart"]}
    rustjaw = chart["rustjaw"]
    assert [t["turn"] for t in rustjaw["turns"]] == list(range(1, won["turns"] + 1))
    assert rustjaw["turns"][-1]["hull"] == 0 and rustjaw["hull_boxes"] > 0
    hulls = [t["hull"] for t in rustjaw["turns"]]
    assert hulls == sorted(hulls, reverse=True)  # nobody repaired it

    # Each station's part: Kestrel's Weapons attacked every turn, its best order named.
    stations = {(s["ship"], s["station"]): s for s in won["stations"]}
    weapons = stations[("kestrel", "weapons")]
    assert weapons["orders"] == won["turns"] and weapons["crew"] == ["Ada"]
    assert weapons["best"]["action"] == "attack" and weapons["best"]["value"] == 9
    passed = {(s["ship"], s["station"]): s for s in drawn["stations"]}[("harrier", "weapons")]
    assert (passed["orders"], passed["passes"], passed["best"]) == (0, 1, None)


async def test_g_end_2_the_csv_has_a_row_per_ship_per_combat(session_factory: Sessions) -> None:
    game_id = await two_battles(session_factory)
    report = await game_report(session_factory, game_id, "gm")
    rows = list(csv.DictReader(io.StringIO(report_rows(report))))
    assert [(r["combat"], r["ship"]) for r in rows] == [
        ("1", "kestrel"), ("1", "rustjaw"), ("2", "adder"), ("2", "viper"), ("2", "harrier"),
    ]  # fmt: skip
    rustjaw = rows[1]
    assert (rustjaw["scenario"], rustjaw["won"], rustjaw["destroyed"]) == (
        "skirmish",
        "False",
        "True",
    )
    assert rustjaw["hull_left"] == "0"
    assert rows[0]["won"] == "True" and rows[4]["won"] == "False"


# rule: G-END-2
def test_g_end_2_the_page_tells_the_story_on_a_phone_the_projector_and_paper(
    client: TestClient, table: Table
) -> None:
    table.seat("weapons", name="Ada")
    table.gm_command(type="StartTurn", seconds=0)
    table.gm_command(type="CloseOrders")  # a turn of passes: the chart has its first point
    table.gm_command(type="DestroyShip", ship="rustjaw")
    table.gm_command(type="EndCombat")
    page = client.get(f"/report/{table.game_id}").text
    assert "Won by" in page and "Players" in page
    assert "Ada" in page and "Battle 1: Skirmish" in page
    assert page.count('<figure class="report-chart"') == 2  # Kestrel's and Rustjaw's
    assert '<polyline class="chart-hull"' in page and '<circle class="chart-shields dot"' in page
    assert 'href="/static/css/report.css"' in page  # the phone's stacked rows and print CSS
    assert "report-projector" not in page
    projector = client.get(f"/display/{table.game_id}/report").text
    assert 'class="screen-report report-projector"' in projector
    # The log is for reading at leisure: on a phone and paper, not on the room's screen.
    assert '<ol class="report-log">' in page and "report-log" not in projector
    german = client.get(f"/report/{table.game_id}?lang=de").text
    assert "Gewonnen von" in german and "Gefecht 1: " in german
    sheet = client.get(f"/report/{table.game_id}.csv")
    assert sheet.status_code == 200 and sheet.headers["content-type"].startswith("text/csv")
    assert sheet.text.splitlines()[0].startswith("battle,scenario,combat,turns,ship")


def test_g_end_2_the_chart_spans_the_combat_s_turns_and_the_track_s_boxes() -> None:
    entry = {
        "hull_boxes": 10,
        "shields_boxes": 0,
        "turns": [{"turn": 1, "hull": 10, "shields": 0}, {"turn": 3, "hull": 0, "shields": 0}],
    }
    lines = chart_lines(entry, turns=3)
    assert lines["hull"] == [
        (f"{CHART_PAD:.1f}", f"{CHART_PAD:.1f}"),  # turn 1, every box: top left
        (f"{CHART_WIDTH - CHART_PAD:.1f}", f"{CHART_HEIGHT - CHART_PAD:.1f}"),  # none: bottom right
    ]
    assert lines["shields"] == []  # a ship without shields draws no Shields line


def test_g_end_2_a_name_a_spreadsheet_would_run_comes_out_of_the_csv_as_text(
    client: TestClient, table: Table
) -> None:
    """OWASP's CSV injection: a cell that begins with = + - or @ is a formula to a spreadsheet,
    so the GM's ship names come out with a leading quote, read as the text they are."""
    names = ['=HYPERLINK("http://evil.example","Open")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)"]
    for n, name in enumerate(names):
        table.gm_command(
            type="AddShip", ship_class="raider", name=name, side="raiders", x=3 + n, y=8
        )
    table.gm_command(type="StartTurn", seconds=0)
    table.gm_command(type="CloseOrders")
    table.gm_command(type="EndCombat")
    sheet = client.get(f"/report/{table.game_id}.csv")
    rows = list(csv.DictReader(io.StringIO(sheet.text)))
    cells = [row["name"] for row in rows]
    assert {"'" + name for name in names} <= set(cells)
    assert "Kestrel" in cells  # a plain name as it is


# rule: G-END-2
def test_the_projectors_report_link_opens_the_report_in_the_projectors_language(
    client: TestClient, table: Table
) -> None:
    """The venue laptop's browser asks for English; the table plays in German: the projector's
    "after-action report" opens in German, in the projector's large type."""
    table.gm_command(type="SetDisplayLanguage", language="de")
    table.gm_command(type="StartTurn", seconds=0)
    table.gm_command(type="DestroyShip", ship="rustjaw")
    table.gm_command(type="EndCombat")
    venue = {"Accept-Language": "en-US,en;q=0.9"}
    screen = client.get(f"/display/{table.game_id}", headers=venue).text
    link = re.search(r'class="btn report-link" href="([^"]+)"', screen)
    assert link is not None
    report = client.get(f"/display/{table.game_id}/{link.group(1)}", headers=venue).text
    assert "Gewonnen von" in report
    assert 'class="screen-report report-projector"' in report


# rule: G-END-2
def test_the_spreadsheet_opens_in_a_german_spreadsheet(client: TestClient, table: Table) -> None:
    """Beside the plain CSV for programs: UTF-8 with a byte order mark, the reader's headers and
    yes/no, and the separator the locale expects (a semicolon in German)."""
    table.seat("weapons", name="Jörg Müller")
    table.gm_command(type="StartTurn", seconds=0)
    table.gm_command(type="DestroyShip", ship="rustjaw")
    table.gm_command(type="EndCombat")
    page = client.get(f"/report/{table.game_id}?lang=de").text
    link = re.search(r'href="(/report/[^"]+/spreadsheet\.csv[^"]*)"', page)
    assert link is not None
    sheet = client.get(link.group(1).replace("&amp;", "&"))
    assert sheet.status_code == 200 and sheet.headers["content-type"].startswith("text/csv")
    assert sheet.content.startswith("\ufeff".encode())
    rows = list(csv.reader(io.StringIO(sheet.content.decode("utf-8-sig")), delimiter=";"))
    assert rows[0][:4] == ["Gefecht", "Szenario", "Kampf", "Runden"]
    assert {row[7] for row in rows[1:]} == {"ja", "nein"}
    english = client.get(f"/report/{table.game_id}/spreadsheet.csv?lang=en").content
    assert english.decode("utf-8-sig").splitlines()[0].startswith("Battle,Scenario,Combat")
    plain = client.get(f"/report/{table.game_id}.csv").text
    assert plain.splitlines()[0].startswith("battle,scenario,combat,turns,ship")
