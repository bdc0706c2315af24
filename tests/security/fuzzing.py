"""Hostile requests against the whole app: schemathesis draws each request from /openapi.json, and
this module points a share of them at a real game, with real and wrong tokens, cookies, CSRF
tokens and well-typed command fields, so they get past the first check and reach the rules.

Every answer must be below 500, and a refused request must change nothing. Used by
tests/security/test_fuzz.py (a short run) and bench/fuzz_api.py (a long one).
"""

from __future__ import annotations

import dataclasses
import json
import re
import typing
import uuid
from collections import Counter
from typing import Any

import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from app.db.models import AppliedCommand, Game, Seat
from app.rules import COMMANDS

# Rate limits would refuse most of a fuzzer's requests before they reach anything interesting.
UNLIMITED = {
    "command_rate": 1e6,
    "command_burst": 10**6,
    "anonymous_rate": 1e6,
    "anonymous_burst": 10**6,
    "read_rate": 1e6,
    "read_burst": 10**6,
}
BASE = "http://testserver"
CSRF = "fuzz-csrf-token-0123456789"  # a valid double-submit pair when a case sends both halves


@dataclasses.dataclass
class Report:
    tried: int = 0
    server_errors: list[str] = dataclasses.field(default_factory=list)
    changed_when_refused: list[str] = dataclasses.field(default_factory=list)
    statuses: Counter[int] = dataclasses.field(default_factory=Counter)
    codes: Counter[str] = dataclasses.field(default_factory=Counter)  # the error bodies' codes
    skipped: int = 0  # cases the HTTP client itself could not send (e.g. unencodable headers)

    def summary(self) -> str:
        common = ", ".join(f"{status}: {n}" for status, n in sorted(self.statuses.items()))
        return (
            f"requests tried: {self.tried}, 5xx: {len(self.server_errors)}, "
            f"refused yet changed something: {len(self.changed_when_refused)}, "
            f"not sendable: {self.skipped}; by status: {common}"
        )


class World:
    """Two games with seats: one the fuzzer aims at, one whose tokens must not work in it."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.game_id, self.join_code, self.gm_token = self._game()
        self.seats = [self._seat(self.game_id, st) for st in ("weapons", "engineering", "pilot")]
        other_game, _, self.other_gm = self._game()
        self.other_seat = self._seat(other_game, "weapons")
        client.post(
            f"/api/games/{self.game_id}/commands",
            json={"command_id": "fuzz-start", "type": "StartTurn", "seconds": 0},
            headers={"Authorization": f"Bearer {self.gm_token}"},
        )
        scenario = client.get("/api/scenarios").json()["scenarios"][0]
        self.words = sorted(
            {
                "all",
                "kestrel",
                "rustjaw",
                "hull",
                "shields",
                "attack",
                "repair",
                "manoeuvre",
                "pass",
                *(ship["id"] for ship in scenario["ships"]),
                *(st["id"] for ship in scenario["ships"] for st in ship["stations"]),
            }
        )
        view = client.get(
            f"/api/games/{self.game_id}/view", headers={"Authorization": f"Bearer {self.gm_token}"}
        ).json()["view"]
        self.cards = sorted(
            {
                card["id"]
                for stations in view["hands"].values()
                for hand in stations.values()
                for card in hand
            }
        )

    def _game(self) -> tuple[str, str, str]:
        made = self.client.post("/api/games", json={"scenario": "skirmish", "seed": 3}).json()
        return made["game_id"], made["join_code"], made["gm_token"]

    def _seat(self, game_id: str, station: str) -> dict[str, str]:
        made = self.client.post(
            f"/api/games/{game_id}/seats",
            json={"ship": "kestrel", "station": station, "name": station},
        )
        return dict(made.json())

    def tokens(self) -> dict[str, str | None]:
        return {
            "none": None,
            "gm": self.gm_token,
            "seat": self.seats[0]["seat_token"],
            "seat2": self.seats[1]["seat_token"],
            "other game's gm": self.other_gm,
            "other game's seat": self.other_seat["seat_token"],
            "garbage": "x" * 43,
        }

    async def snapshot(self) -> tuple[int, int, int]:
        """(the game's version less the sweeper's own commands, live seats, games): what a
        refused request must leave as it was."""
        factory = self.client.app.state.session_factory  # type: ignore[attr-defined]
        key = uuid.UUID(self.game_id)
        async with factory() as session:
            version = await session.scalar(select(Game.version).where(Game.id == key))
            swept = await session.scalar(
                select(func.count())
                .select_from(AppliedCommand)
                .where(
                    AppliedCommand.game_id == key,
                    AppliedCommand.sender == "system",
                    AppliedCommand.command_id.like("deadline:%"),
                )
            )
            seats = await session.scalar(
                select(func.count())
                .select_from(Seat)
                .where(Seat.game_id == key, Seat.revoked_at.is_(None))
            )
            games = await session.scalar(select(func.count()).select_from(Game))
        return (version or 0) - (swept or 0), seats or 0, games or 0


# --- What gets sent -------------------------------------------------------------------------------


def value_for(hint: Any, world: World) -> st.SearchStrategy[Any]:
    """Values of roughly the right type for a command field, and now and then the wrong one."""
    origin = typing.get_origin(hint)
    wrong = st.one_of(st.none(), st.booleans(), st.text(max_size=5), st.integers(), st.floats())
    if origin is tuple:
        right: st.SearchStrategy[Any] = st.lists(
            st.sampled_from(world.cards + world.words), max_size=4
        )
    elif origin is dict:
        right = st.dictionaries(st.sampled_from(world.words), st.integers(-2, 9), max_size=3)
    elif hint is bool or hint == (bool | None):
        right = st.booleans()
    elif hint in (int, float, int | None, float | None, str | int, int | bool):
        right = st.one_of(st.integers(-3, 12), st.integers(), st.floats(allow_nan=False))
    else:
        right = st.one_of(st.sampled_from(world.words + world.cards), st.text(max_size=30))
    return st.one_of(right, right, right, wrong)


@st.composite
def command_body(draw: st.DrawFn, world: World, kind: str) -> dict[str, Any]:
    cls = COMMANDS[kind]
    hints = typing.get_type_hints(cls)
    body: dict[str, Any] = {"type": kind, "command_id": draw(st.uuids()).hex}
    for f in dataclasses.fields(cls):
        if f.name not in ("actor", "now") and draw(st.integers(0, 5)):
            body[f.name] = draw(value_for(hints[f.name], world))
    return body


def form_of(body: dict[str, Any]) -> dict[str, Any]:
    """A command as the screens' forms send it: strings, lists repeated, dicts as name.key."""
    form: dict[str, Any] = {}
    for key, value in body.items():
        if isinstance(value, dict):
            form.update({f"{key}.{k}": str(v) for k, v in value.items()})
        elif isinstance(value, list):
            form[key] = [str(v) for v in value]
        elif value is not None:
            form[key] = str(value).lower() if isinstance(value, bool) else str(value)
    return form


def screen_form(operation: Any) -> bool:
    return bool(
        operation.method.upper() == "POST" and operation.path.startswith(("/gm/", "/play/"))
    )


@st.composite
def request_for(draw: st.DrawFn, operations: list[Any], world: World) -> dict[str, Any]:
    # Hypothesis favours the first of every choice; the routing choices below should be even.
    rnd = draw(st.randoms(use_true_random=False))
    operation = rnd.choice(operations)
    case = draw(operation.as_strategy())
    path = dict(case.path_parameters or {})
    if "game_id" in path and rnd.random() < 0.85:
        path["game_id"] = world.game_id
    if "code" in path and rnd.random() < 0.6:
        path["code"] = world.join_code
    if "seat_id" in path and rnd.random() < 0.7:
        path["seat_id"] = rnd.choice(world.seats)["seat_id"]
    case.path_parameters = path
    kwargs = case.as_transport_kwargs(base_url=BASE)
    headers = {k: v for k, v in kwargs.get("headers", {}).items() if k.lower() != "cookie"}
    # Mostly callers who may act, so requests get past the door and into the rules.
    who = rnd.choice(["schemathesis", "gm", "gm", "gm", "seat", *world.tokens()])
    if who != "schemathesis":
        headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
        token = world.tokens()[who]
        as_bearer = operation.path.startswith("/api/") == (rnd.random() < 0.85)
        if token is not None and as_bearer:
            headers["Authorization"] = f"Bearer {token}"
        elif token is not None:  # the same token as a browser holds it
            game = world.game_id
            headers["Cookie"] = f"bc_gm_{game}={token}; bc_seat_{game}={token}"
    if rnd.random() < 0.7:
        cookie = headers.get("Cookie")
        headers["Cookie"] = f"{cookie}; bc_csrf={CSRF}" if cookie else f"bc_csrf={CSRF}"
        headers["X-CSRF-Token"] = CSRF
    send: dict[str, Any] = {
        "method": kwargs["method"],
        "url": kwargs["url"].removeprefix(BASE),
        "headers": headers,
        "params": kwargs.get("params") or None,
    }
    for key in ("json", "data"):
        if key in kwargs and kwargs[key] is not None:
            send["content" if isinstance(kwargs[key], bytes | str) else key] = kwargs[key]
    kind = rnd.choice(sorted(COMMANDS))
    if operation.path.endswith("/commands") and rnd.random() < 0.7:
        send.pop("data", None)
        send.pop("content", None)
        send["json"] = draw(command_body(world, kind))
    elif screen_form(operation) and rnd.random() < 0.7:  # the screens read their forms themselves
        send.pop("json", None)
        send.pop("content", None)
        send["data"] = form_of(draw(command_body(world, kind)))
        send["headers"] = {k: v for k, v in headers.items() if k.lower() != "content-type"}
    return send


# --- The run --------------------------------------------------------------------------------------


def fuzz(client: TestClient, world: World, requests: int, seed: int = 0) -> Report:
    """Send `requests` generated requests; collect what broke instead of stopping at it."""
    report = Report()
    schema = schemathesis.openapi.from_dict(client.get("/openapi.json").json())
    operations = []
    for result in schema.get_all_operations():
        operation = result.ok()  # type: ignore[union-attr]  # our own schema: no errors in it
        # Where commands go in is where the rules are: give those routes more of the draws.
        weight = 8 if operation.path.endswith(("/commands", "/command", "/order")) else 1
        operations += [operation] * weight
    portal = client.portal
    assert portal is not None, "call inside the TestClient's `with` block"

    @settings(
        max_examples=requests,
        deadline=None,
        database=None,
        derandomize=False,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def one(data: st.DataObject) -> None:
        send = data.draw(request_for(operations, world))
        before = portal.call(world.snapshot)
        client.cookies.clear()  # cookies come only from the case, never from earlier answers
        try:
            response = client.request(**send)
        except (UnicodeError, ValueError, TypeError):
            report.skipped += 1
            return
        report.tried += 1
        report.statuses[response.status_code] += 1
        if response.headers.get("content-type", "").startswith("application/json"):
            body = response.json()
            if isinstance(body, dict) and "code" in body:
                report.codes[str(body["code"])] += 1
        elif 'id="toast"' in response.text:  # the screens answer a refusal with a toast
            report.codes.update(re.findall(r'data-code="([A-Z_]+)"', response.text)[:1])
        what = f"{send['method']} {send['url']} -> {response.status_code} {response.text[:200]}"
        if response.status_code >= 500:
            report.server_errors.append(what + f"\n    sent: {json.dumps(send, default=str)[:400]}")
        elif response.status_code >= 400 and portal.call(world.snapshot) != before:
            report.changed_when_refused.append(what)

    seeded = one
    if seed:
        from hypothesis import seed as hypothesis_seed

        seeded = hypothesis_seed(seed)(one)
    seeded()
    return report
