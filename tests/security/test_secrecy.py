"""Secrets stay secret: a whole random game through the service, two player ships fully crewed,
and after every command every screen every viewer can reach is searched for what they must not
know (see secrets.py): pages, panels, pushes, JSON views, event logs and error answers. The dice
generator's key is searched for on every screen, the GM's too (G-TURN-3)."""

import functools
import json
import random
import uuid
from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app import service
from app.content import load_catalogue
from app.rules import Actor, gm_view
from app.rules.bot import propose, stations_to_order
from app.rules.core.phases import ACTIONS, actions_for
from app.service.commands import command_fields
from app.web.live import Audience
from app.web.render import render_push
from app.web.render import screen_message as live_render

from .secrets import Knowledge, Secrets, foreign_orders, hand, leaks

SCENARIO = "convoy"
# Two player ships, so secrets between ships are tested too; six seats keep the run short.
CREWED: tuple[str, ...] = (
    "kestrel/weapons",
    "kestrel/engineering",
    "kestrel/pilot",
    "kestrel/comms",
)
CREWED += ("resolute/weapons", "resolute/engineering")
TURNS = 5
# Every kind of thing that happens in a fight must have been through the checks.
MUST_SEE = {
    "AttackResolved",
    "AllocationRequested",
    "DamageAllocated",
    "RepairResolved",
    "MessageSent",
    "CardsDrawn",
    "OrderGiven",
    "OrderWithdrawn",
    "OrdersRevealed",
    "ResolutionUndone",
}


class Table:
    """The game, played through the service in the app's own event loop, and read through the
    app's routes as each viewer reads it."""

    def __init__(self, client: TestClient, seed: int) -> None:
        self.client = client
        self.rng = random.Random(seed)
        self.factory = client.app.state.session_factory  # type: ignore[attr-defined]
        # The GM orders the raiders (its NPC orders are secrets this test watches for).
        self.game_id, self.join_code, self.gm_token = self.call(
            service.create_game, self.factory, SCENARIO, seed, modules_off=["npc"]
        )
        characters = list(load_catalogue().characters)
        self.tokens: dict[str, str] = {}  # seat id -> token
        station_of: dict[str, str] = {}
        for n, (ship, _, station) in enumerate(key.partition("/") for key in CREWED):
            character = characters[n] if n < len(characters) else None
            seat_id, token = self.call(
                service.create_seat,
                self.factory,
                self.game_id,
                ship,
                station,
                f"Crew {n}",
                character,
            )
            self.tokens[str(seat_id)] = token
            station_of[str(seat_id)] = f"{ship}/{station}"
        self.knowledge = Knowledge(station_of)
        self.dice_key = Secrets(set(), set(), {self.state()[1]["rng"]["key"]})
        self.events_seen: Counter[str] = Counter()
        self.log_read: dict[str, int] = {}  # viewer -> version its event log was read up to
        self.checked = 0

    def call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        assert self.client.portal is not None  # inside the client's `with`: the app's loop
        return self.client.portal.call(functools.partial(fn, *args, **kwargs))

    def state(self) -> tuple[int, dict[str, Any]]:
        version, state = self.call(service.load_state, self.factory, self.game_id)
        return int(version), state

    # --- Playing ----------------------------------------------------------------------------------

    def act(self, data: dict[str, Any], actor: Actor) -> bool:
        """One command through the service, then every check. False when the rules refused it."""
        try:
            result = self.call(
                service.run_command,
                self.factory,
                self.game_id,
                data,
                actor,
                command_id=uuid.uuid4().hex,
            )
        except service.ServiceError:
            return False
        self.events_seen.update(event["type"] for event in result.events)
        if data["type"] == "SendMessage":
            self.knowledge.message_sent(data.get("to", "all"), data["text"])
        self.check_everyone()
        return True

    def gm(self, **data: Any) -> bool:
        return self.act(data, Actor.gm())

    def play_turn(self, turn: int) -> None:
        self.gm(type="StartTurn", seconds=0)
        self.send_messages(turn)
        _, state = self.state()
        for ship, station, actor in stations_to_order(state):
            _, state = self.state()
            if state["phase"] != "orders":
                break
            order = command_fields(propose(state, ship, station, self.rng, actor))
            if actor.role == "seat" and self.rng.random() < 0.25:
                self.act(order, actor)  # given, then taken back, then given again
                self.act({"type": "WithdrawOrder", "ship": ship, "station": station}, actor)
                _, state = self.state()
                order = command_fields(propose(state, ship, station, self.rng, actor))
            self.act(order, actor)
        _, state = self.state()
        if state["phase"] == "orders":
            self.gm(type="CloseOrders")
        if turn == 2 and self.gm(type="UndoResolution"):
            self.gm(type="CloseOrders")  # the same orders again: the reveal they had stays public
        self.answer_allocations()

    def send_messages(self, turn: int) -> None:
        seats = list(self.knowledge.station_of.values())
        to_station = self.rng.choice(seats)
        for to in ("all", to_station.split("/")[0], to_station):
            self.gm(
                type="SendMessage", text=f"canary {turn} for {to} {uuid.uuid4().hex[:6]}", to=to
            )

    def answer_allocations(self) -> None:
        for _ in range(10):
            _, state = self.state()
            if state["phase"] != "allocation":
                return
            ship_id, prompt = next(
                (k, p) for k, p in state["allocation"]["ships"].items() if not p["answered"]
            )
            ship = state["ships"][ship_id]
            engineering = next(s for s in ship["stations"].values() if s["role"] == "engineering")
            actor = (
                Actor.for_seat(engineering["crew"]["seat"]) if engineering["crew"] else Actor.gm()
            )
            target = self.rng.choice(list(ship["stations"]))
            split = {target: 1} if prompt["hull_damage"] > 1 else {}
            command = {"type": "AllocateDamage", "ship": ship_id, "allocations": split}
            if not self.act(command, actor):
                self.act({**command, "allocations": {}}, actor)

    # --- Checking ---------------------------------------------------------------------------------

    def get(self, url: str, headers: dict[str, str] | None = None) -> str:
        self.client.cookies.clear()  # each viewer with its own credentials only
        answer = self.client.get(url, headers=headers or {})
        assert answer.status_code == 200, (url, answer.status_code, answer.text[:300])
        return str(answer.text)

    def check_everyone(self) -> None:
        version, state = self.state()
        self.knowledge.observe(state)
        game = self.game_id
        gm_cookie = {"Cookie": f"bc_gm_{game}={self.gm_token}"}
        gm_bearer = {"Authorization": f"Bearer {self.gm_token}"}
        # The GM may see every card and order, but not the dice key; the GM's screens must still
        # render, every time.
        gm = service.view_for(state, "gm")
        for where, text in {
            "page": self.get(f"/gm/{game}", gm_cookie),
            "panels": self.get(f"/gm/{game}/panels", gm_cookie),
            "view": self.get(f"/api/games/{game}/view", gm_bearer),
            "events": self.get(f"/api/games/{game}/events?after=0", gm_bearer),
            "live json": live_render("gm", gm, version, "json"),
            "push": render_push("gm", gm),
        }.items():
            assert not leaks(text, self.dice_key), f"the GM sees the dice key in its {where}"
        viewers: list[tuple[Any, dict[str, str], dict[str, str]]] = [("display", {}, {})]
        for seat, token in self.tokens.items():
            cookie = {"Cookie": f"bc_seat_{game}={token}"}
            viewers.append((("seat", seat), cookie, {"Authorization": f"Bearer {token}"}))
        for viewer, cookie, bearer in viewers:
            self.check_viewer(state, version, viewer, cookie, bearer)
        self.probe_errors(state, version)
        self.checked += 1

    def check_viewer(
        self,
        state: dict[str, Any],
        version: int,
        viewer: Any,
        cookie: dict[str, str],
        bearer: dict[str, str],
    ) -> None:
        game = self.game_id
        secrets = self.knowledge.secrets_for(state, viewer)
        mine = self.knowledge.station_of.get(viewer[1]) if viewer != "display" else None
        audience: Audience = "display" if viewer == "display" else "station"
        screen = "display" if viewer == "display" else "play"
        name = "display" if viewer == "display" else mine
        seen: dict[str, str] = {
            "page": self.get(f"/{screen}/{game}", cookie),
            "panels": self.get(f"/{screen}/{game}/panels", cookie),
        }
        view_body = json.loads(self.get(f"/api/games/{game}/view", bearer))
        after = self.log_read.get(str(viewer), 0)
        events_body = json.loads(self.get(f"/api/games/{game}/events?after={after}", bearer))
        self.log_read[str(viewer)] = version
        view = service.view_for(state, viewer)
        seen["view"] = json.dumps(view_body)
        seen["events"] = json.dumps(events_body)
        seen["push"] = render_push(audience, view)
        seen["live json"] = live_render(audience, view, version, "json")
        for where, text in seen.items():
            found = leaks(text, secrets) + leaks(text, self.dice_key)
            assert not found, f"{name} sees in its {where} at version {version}: {found[:5]}"
        for where, data in (("view", view_body), ("events", events_body)):
            strays = foreign_orders(data, mine)
            assert not strays, f"{name}'s {where} at version {version}: {strays[:3]}"
        assert view_body["view"] == json.loads(json.dumps(view))  # the pushes show the same

    def probe_errors(self, state: dict[str, Any], version: int) -> None:
        """A seat trying cards from another hand gets the answer a made-up card gets: no oracle
        for what others hold, and nothing it did not send comes back."""
        seat = self.rng.choice(list(self.tokens))
        mine = self.knowledge.station_of[seat]
        ship, _, station = mine.partition("/")
        others = [
            c for k in self.knowledge.station_of.values() if k != mine for c in hand(state, k)
        ]
        if not others:
            return
        theirs = self.rng.choice(others)
        bearer = {"Authorization": f"Bearer {self.tokens[seat]}"}
        role = state["ships"][ship]["stations"][station]["role"]
        action = next(a for a in actions_for(role) if ACTIONS[a]["kinds"])
        csrf = "probe-csrf-token-0123456789"
        phone = {
            "Cookie": f"bc_seat_{self.game_id}={self.tokens[seat]}; bc_csrf={csrf}",
            "X-CSRF-Token": csrf,
        }
        order = {"type": "SubmitOrder", "ship": ship, "station": station, "action": action}
        answers = []
        for card in (theirs, "zz-00"):
            self.client.cookies.clear()
            by_api = self.client.post(
                f"/api/games/{self.game_id}/commands",
                json={
                    **order,
                    "cards": [card],
                    "target": "jackal-1",
                    "command_id": uuid.uuid4().hex,
                },
                headers=bearer,
            )
            by_phone = self.client.post(  # the phone's form: the refusal comes back as a toast
                f"/play/{self.game_id}/order",
                data={"action": action, "cards": card, "target": "jackal-1"},
                headers=phone,
            )
            secrets = self.knowledge.secrets_for(state, ("seat", seat))
            secrets = Secrets(secrets.ids - {card}, secrets.names, secrets.texts)
            for answer in (by_api, by_phone):
                assert 400 <= answer.status_code < 500, answer.text
                found = leaks(answer.text, secrets)
                assert not found, f"{mine}'s error answer: {found}"
            answers.append(
                [(a.status_code, a.text.replace(card, "<card>")) for a in (by_api, by_phone)]
            )
        assert answers[0] == answers[1]
        assert self.state()[0] == version  # refused: nothing changed


@pytest.mark.slow
def test_no_viewer_ever_sees_another_hand_an_unrevealed_order_or_a_private_message(
    unlimited_client: TestClient,
) -> None:
    table = Table(
        unlimited_client, seed=8
    )  # a fight that reaches every event of MUST_SEE with today's rules
    table.check_everyone()
    # Close quarters with the shields down, so the Hull is hit, Engineering diverts damage and
    # stations need repairs; one raider fewer keeps the turns short. The raiders get the GM's
    # largest attack bonus, so their shots land whatever the dice and the players' evasion (the
    # fight must show every kind of event, and the dice are the game's secret).
    table.gm(type="DestroyShip", ship="jackal-3")
    for ship, (x, y) in {"jackal-1": (6, 3), "jackal-2": (6, 6)}.items():
        table.gm(type="SetPosition", ship=ship, x=x, y=y)
    for ship in ("kestrel", "resolute"):
        table.gm(type="SetShields", ship=ship, active=False)
    for ship in ("jackal-1", "jackal-2"):
        table.gm(
            type="ImposeModifier",
            ship=ship,
            applies="attack",
            value=20,
            reason="ace gunners",
            lasting="combat",
        )
    for turn in range(1, TURNS + 1):
        table.play_turn(turn)
        _, state = table.state()
        if any(s["destroyed"] for s in state["ships"].values() if s["crew"] == "players"):
            break
    table.gm(type="EndCombat")
    table.gm(type="DowntimeRepair", ship="kestrel", track="hull", points=1)
    # The whole history once more, as each viewer reads it now.
    table.log_read.clear()
    table.check_everyone()
    assert len(table.tokens) >= 4 and table.checked >= 80
    assert set(table.events_seen) >= MUST_SEE, MUST_SEE - set(table.events_seen)
    assert len(table.events_seen) >= 25, sorted(table.events_seen)


def test_the_search_finds_secrets_shown_to_the_wrong_viewer(unlimited_client: TestClient) -> None:
    """The check above passes only because nothing leaks, not because it cannot see."""
    table = Table(unlimited_client, seed=6)
    table.gm(type="StartTurn", seconds=0)
    seats = list(table.tokens)  # in the order of CREWED
    weapons, pilot = seats[0], seats[2]
    table.gm(type="SendMessage", text="for weapons alone", to="kestrel/weapons")
    _, state = table.state()
    ship, station, actor = next(
        (s, st, a) for s, st, a in stations_to_order(state) if a.seat == weapons
    )
    table.act(command_fields(propose(state, ship, station, table.rng, actor)), actor)
    _, state = table.state()
    knowledge = table.knowledge
    display = knowledge.secrets_for(state, "display")
    everything = json.dumps(gm_view(state))
    found = leaks(everything, display)
    assert any(f.startswith("card id") for f in found)
    assert "secret 'for weapons alone'" in found
    assert foreign_orders(gm_view(state), None)
    weapons_screen = render_push("station", service.view_for(state, ("seat", weapons)))
    assert leaks(weapons_screen, knowledge.secrets_for(state, ("seat", pilot)))
    assert not leaks(weapons_screen, knowledge.secrets_for(state, ("seat", weapons)))
    # The dice key, were it anywhere in what the GM is shown (it is in the state it comes from).
    assert leaks(json.dumps({**gm_view(state), "rng": state["rng"]}), table.dice_key)
