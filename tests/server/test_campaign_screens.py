"""A campaign through PostgreSQL and every screen (G-CAMP-1 to G-CAMP-8): an evening in which the
Hull is damaged and characters are wounded, written back; seven days of Downtime (one character
resting, one in medical care, one seriously wounded needing surgery), the players placing their
points from their phones; the next evening started from the roster; and every screen showing
the state the campaign's dice left, which a replay of its commands gives again."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from app.web.words import say
from tests.web.test_routes import csrf_of

CAMPAIGN = "Die Unerschütterliche Zuversicht der Äußeren Kolonien: Teil"  # 60 characters
SHIP = "Unerschütterliche Zuversicht der Äußeren Kolonien, Patrouill"  # 60
PLAYERS = {  # 40-character names, each phone its character
    "amara-lind": "Friederike Großkopf-Überlingen vom Rhein",
    "kofi-adeyemi": "Maximiliane Schwarzenberg-Hohenlohe-Weiß",
    "tomas-reyes": "Anneliese Katharina von Württemberg-Ulme",
}
STATIONS = {
    "amara-lind": "resolute/captain",
    "kofi-adeyemi": "resolute/comms",
    "tomas-reyes": "kestrel/engineering",
}
# Endurance first (G-CREW-2), then the stronger of the other two.
WOUNDS = {
    "amara-lind": {"endurance": 5},  # wounded: full rest
    "kofi-adeyemi": {"endurance": 3, "strength": 5},  # wounded: medical care by Dr Amara Lind
    "tomas-reyes": {"endurance": 2, "strength": 6, "dexterity": 5},  # seriously: surgery
}


@pytest.fixture
def app(db_url: str, tmp_path: Path) -> Iterator[TestClient]:
    # Every device here speaks from the test client's one address, which a venue's phones do not
    # share, and the GM's clicks come faster than a person's: the paces are set for a room.
    settings = Settings(
        database_url=db_url,
        data_dir=tmp_path,
        read_burst=1000,
        anonymous_burst=1000,
        command_burst=1000,
    )
    with TestClient(create_app(settings)) as client:
        yield client  # the lifespan runs: hub, listener, sweeper


class Device:
    """A phone or laptop: its own cookies, over the app's one client (one event loop)."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.cookies: dict[str, str] = {}

    def _send(self, method: str, url: str, **kwargs: Any) -> Any:
        self.client.cookies.clear()
        headers = dict(kwargs.pop("headers", {}))
        if self.cookies:
            headers["cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        answer = self.client.request(method, url, headers=headers, **kwargs)
        for step in [*answer.history, answer]:
            self.cookies.update({k: v for k, v in step.cookies.items()})
        self.client.cookies.clear()
        assert answer.status_code != 429, f"{url}: paced"
        return answer

    def get(self, url: str, **kwargs: Any) -> Any:
        return self._send("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> Any:
        return self._send("POST", url, **kwargs)


def device(app: TestClient) -> Device:
    return Device(app)


def form(client: Device, url: str, page_url: str, **data: str) -> Any:
    page = client.get(page_url)
    return client.post(url, data={**data, "csrf": csrf_of(page.text)}, follow_redirects=False)


def gm_command(gm: Device, game_id: str, **data: Any) -> None:
    page = gm.get(f"/gm/{game_id}")
    answer = gm.post(
        f"/gm/{game_id}/command",
        data={k: str(v) for k, v in data.items()},
        headers={"X-CSRF-Token": csrf_of(page.text), "HX-Request": "true"},
    )
    assert answer.status_code in (200, 204), answer.text


def join_code(gm: Device, game_id: str) -> str:
    found = re.search(r'class="d-code">(\w+)<', gm.get(f"/gm/{game_id}").text)
    assert found is not None
    return found.group(1)


def join(phone: Device, code: str, seat: str, name: str, character: str) -> Any:
    return form(
        phone,
        f"/join/{code}",
        f"/join/{code}",
        seat=seat,
        name=name,
        character=character,
    )


def text_of(page: str) -> str:
    """A page's text as people read it: no tags, "5 /12" in a box read as "5/12"."""
    return re.sub(r"\s+/", "/", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def test_g_camp_two_evenings_and_seven_days_of_downtime_on_every_screen(app: TestClient) -> None:
    gm = device(app)
    made = form(gm, "/gm/campaigns", "/gm", name=CAMPAIGN)
    assert made.status_code == 303, made.text
    campaign = made.headers["location"].split("/")[2]
    gm_page = f"/campaign/{campaign}/gm"
    # G-CAMP-1: the first evening (a convoy: a frigate and a five-station cruiser).
    started = form(gm, f"{gm_page}/evening", gm_page, scenario="convoy")
    assert started.status_code == 303, started.text
    first = started.headers["location"].rsplit("/", 1)[1]
    code = join_code(gm, first)
    phones = {character: device(app) for character in PLAYERS}
    for character, phone in phones.items():
        joined = join(phone, code, STATIONS[character], PLAYERS[character], character)
        assert joined.status_code == 303, joined.text
    gm_command(gm, first, type="SetShipValue", ship="kestrel", field="name", value=SHIP)
    gm_command(gm, first, type="StartTurn", seconds=0)
    gm_command(gm, first, type="SetTrack", ship="kestrel", track="hull", damage=10)
    gm_command(gm, first, type="SetTrack", ship="resolute", track="weapons", damage=3)
    for character, wounds in WOUNDS.items():
        for field, value in wounds.items():
            gm_command(gm, first, type="SetCharacteristic", character=character, field=field,
                       value=value)  # fmt: skip
    # Written back only in Downtime, from the evening's dashboard.
    panel = gm.get(f"/gm/{first}/campaign")
    assert "Evening 1 of the campaign" in html.unescape(panel.text)
    refused = gm.post(
        f"/gm/{first}/campaign/end",
        headers={"X-CSRF-Token": csrf_of(gm.get(f"/gm/{first}").text), "HX-Request": "true"},
    )
    assert refused.status_code == 409 and "End the combat first" in html.unescape(refused.text)
    gm_command(gm, first, type="EndCombat")
    written = gm.post(
        f"/gm/{first}/campaign/end",
        headers={"X-CSRF-Token": csrf_of(gm.get(f"/gm/{first}").text), "HX-Request": "true"},
    )
    assert written.status_code == 200 and "Written back" in written.text

    # G-CAMP-2: seven days; Dr Amara Lind rests, Kofi in her sickbay, Tomas under her knife.
    downtime = form(
        gm,
        f"{gm_page}/downtime",
        gm_page,
        days="7",
        **{
            "care.amara-lind": "rest",
            "care.kofi-adeyemi": "medical",
            "doctor.kofi-adeyemi": "amara-lind",
            "care.tomas-reyes": "surgery",
            "doctor.tomas-reyes": "amara-lind",
        },
    )
    assert downtime.status_code == 303, downtime.text
    # G-CAMP-4: each player places their points on their phone, day by day, as suggested there;
    # nobody else's phone may.
    waiting = app_state(gm, campaign)["campaign"]["downtime"]["waiting"]
    someone = sorted(waiting)[0]
    other = next(c for c in PLAYERS if c != someone)
    refused = form(
        phones[other],
        f"/campaign/{campaign}/place",
        f"/campaign/{campaign}",
        character=someone,
        **{"points.endurance": "1"},
    )
    assert refused.status_code == 403 and 'data-code="NOT_YOUR_CHARACTER"' in refused.text
    placed = 0
    while True:
        state = app_state(gm, campaign)
        if state["campaign"]["downtime"] is None:
            break
        waiting = state["campaign"]["downtime"]["waiting"]
        assert waiting, "a Downtime that waits waits for someone"
        character = sorted(waiting)[0]
        phone = phones[character]
        page = phone.get(f"/campaign/{campaign}").text
        assert 'id="campaign-yours"' in page and f'data-character="{character}"' in page
        values = dict(re.findall(r'name="points\.(\w+)"[^>]*value="(\d+)"', page))
        answer = form(
            phone,
            f"/campaign/{campaign}/place",
            f"/campaign/{campaign}",
            character=character,
            **{f"points.{k}": v for k, v in values.items()},
        )
        assert answer.status_code == 303, answer.text
        placed += 1
    assert placed >= 1
    # A phone cannot place another character's points.
    state = app_state(gm, campaign)["campaign"]
    # G-CAMP-8: what the screens show is what a replay of the campaign's commands gives.
    from app.service.campaign_files import replay_campaign

    assert app_replay(app, replay_campaign, campaign) == app_state_raw(app, campaign)

    # A page left open asks every few seconds: nothing to swap until the campaign moves on.
    version = app_state(gm, campaign)["version"]
    assert gm.get(f"/campaign/{campaign}/main?v={version}").status_code == 204
    moved_on = gm.get(f"/campaign/{campaign}/main?v={version - 1}")
    assert moved_on.status_code == 200 and 'id="campaign"' in moved_on.text
    # Every screen of the campaign shows the state the rolls left, and each roll's breakdown.
    events = gm.get(f"/api/campaigns/{campaign}").json()["story"]["downtimes"][0]["entries"]
    rolled = [e for e in events if e["type"] == "RecoveryRolled"]
    assert {e["day"] for e in rolled} >= {1}
    for url, client in (
        (f"/campaign/{campaign}", phones["kofi-adeyemi"]),
        (f"/campaign/{campaign}?screen=display", device(app)),
        (gm_page, gm),
    ):
        page = text_of(client.get(url).text)
        for entry in events:
            assert say(entry["words"]) in page, (url, entry)
        for ch in state["characters"]:
            for field in ("strength", "dexterity", "endurance"):
                assert f"{ch[field]['value']}/{ch[field]['max']}" in page
        # G-CAMP-2: a day in the yard mends one Hull box and one box of each station.
        kestrel = next(s for s in state["ships"] if s["id"] == "kestrel")
        assert kestrel["hull"]["left"] == 12 - 10 + 7
        assert f"Hull {kestrel['hull']['left']}/12" in page
        assert SHIP in page
    # Each character's days went as the GM planned them, rolled with the campaign's dice.
    care = {
        entry["words"]["character"]: entry["words"]["how"]["msg"]
        for entry in rolled
        if entry["words"]["how"]["msg"] != "late_first_aid_rolled"
    }
    assert care["Dr Amara Lind"] == "recovery_rest"
    assert care["Kofi Adeyemi"] == "recovery_care"
    assert any(e["words"]["how"]["msg"] == "surgery_rolled" for e in rolled)

    # G-CAMP-1: the next evening starts from the roster; the phones find their characters.
    started = form(gm, f"{gm_page}/evening", gm_page, scenario="convoy")
    second = started.headers["location"].rsplit("/", 1)[1]
    code = join_code(gm, second)
    # A new phone asking for a character another phone plays waits for the GM, who refuses.
    stranger = device(app)
    asked = join(stranger, code, "kestrel/pilot", "Neu im Team", "kofi-adeyemi")
    assert asked.status_code == 409 and 'data-code="CHARACTER_ASKED"' in asked.text
    panel = gm.get(f"/gm/{second}/campaign").text
    ask = re.search(r'hx-post="campaign/asks/(\d+)"', panel)
    assert ask is not None and "Neu im Team asks to play Kofi Adeyemi" in html.unescape(panel)
    answered = gm.post(
        f"/gm/{second}/campaign/asks/{ask.group(1)}",
        data={"approve": "0"},
        headers={"X-CSRF-Token": csrf_of(gm.get(f"/gm/{second}").text), "HX-Request": "true"},
    )
    assert answered.status_code == 200 and "asks to play" not in answered.text
    for character, phone in phones.items():
        page = phone.get(f"/join/{code}").text
        first_choice = re.search(r'name="character" value="([\w-]*)"[^>]*checked', page)
        assert first_choice is not None and first_choice.group(1) == character
        assert "Welcome back" in page
        # The form comes filled in: the station this phone held, the name it played under.
        station = re.search(r'name="seat" value="([\w/-]+)"[^>]*checked', page)
        assert station is not None and station.group(1) == STATIONS[character]
        assert f'value="{PLAYERS[character]}"' in html.unescape(page)
        joined = join(phone, code, STATIONS[character], PLAYERS[character], character)
        assert joined.status_code == 303, joined.text
    dashboard = text_of(gm.get(f"/gm/{second}").text)
    projector = text_of(device(app).get(f"/display/{second}").text)
    assert SHIP in dashboard and SHIP in projector
    hull = f"{kestrel['hull']['left']}/12"
    assert hull in projector.replace(" ", "")
    for character, phone in phones.items():
        ch = next(c for c in state["characters"] if c["id"] == character)
        seen = text_of(phone.get(f"/play/{second}").text)
        if ch["status"] != "healthy":
            endurance = ch["endurance"]
            assert f"END {endurance['value']}/{endurance['max']}" in seen
        gm_values = re.findall(
            rf'name="character" value="{character}"><input type="hidden" name="field" '
            r'value="(\w+)">\s*<label>\w+ <input type="number" name="value" value="(\d+)"',
            gm.get(f"/gm/{second}").text,
        )
        assert {f: int(v) for f, v in gm_values} == {
            f: ch[f]["value"] for f in ("strength", "dexterity", "endurance")
        }
    # The campaign page shows both evenings.
    page = text_of(phones["amara-lind"].get(f"/campaign/{campaign}").text)
    assert "Evening 1" in page and "Evening 2" in page and "tonight" in page


def app_state(client: Device, campaign: str) -> dict[str, Any]:
    answer = client.get(f"/api/campaigns/{campaign}")
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def _run(app: TestClient, work: Any) -> Any:
    """An async job on the app's own database connections, in the app's own event loop."""

    async def go() -> Any:
        return await work(app.app.state.session_factory)  # type: ignore[attr-defined]

    assert app.portal is not None
    return app.portal.call(go)


def app_replay(app: Any, replay: Any, campaign: str) -> Any:
    return _run(app, lambda sessions: replay(sessions, campaign))


def app_state_raw(app: Any, campaign: str) -> Any:
    from app.service.campaign_reads import load_campaign

    async def read(sessions: Any) -> Any:
        return (await load_campaign(sessions, campaign))[1]

    return _run(app, read)


def test_a_campaigns_next_evening_shows_its_projector_in_the_gms_language(app: TestClient) -> None:
    """The evening's game speaks the language of the GM who began it on the projector from the
    start, as a game made in the lobby does, whatever the venue's laptop asks for."""
    gm = device(app)
    german = {"Accept-Language": "de-DE,de;q=0.9"}
    lobby = gm.get("/gm", headers=german)
    made = gm.post(
        "/gm/campaigns",
        data={"name": CAMPAIGN, "csrf": csrf_of(lobby.text)},
        headers=german,
        follow_redirects=False,
    )
    gm_page = made.headers["location"].split("?")[0]
    page = gm.get(gm_page, headers=german)
    started = gm.post(
        f"{gm_page}/evening",
        data={"scenario": "convoy", "csrf": csrf_of(page.text)},
        headers=german,
        follow_redirects=False,
    )
    assert started.status_code == 303, started.text
    game = started.headers["location"].rsplit("/", 1)[1]
    shown = device(app).get(f"/display/{game}", headers={"Accept-Language": "en-US,en;q=0.9"})
    assert '<html lang="de"' in shown.text and "Mit dem Handy beitreten" in shown.text
