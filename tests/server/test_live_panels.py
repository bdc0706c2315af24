"""The hub sends each screen only what changed of it: panels, entries of a panel's list, new lines
of a stream. Applied as htmx applies them, they must leave every screen exactly as a full render of
the new view draws it, round after round, for every viewer; and an order must send little."""

from __future__ import annotations

import random
import re
from html.parser import HTMLParser
from typing import Any

from app.content import load_catalogue
from app.rules import apply, new_game, shared_view, station_view
from app.rules import commands as c
from app.rules.bot import seat_table, table_command
from app.service import canonical, view_for
from app.web.render import Inputs, PanelCache, Reads, Screen, Shown, render_push

OOB = re.compile(r' hx-swap-oob="[^"]*"')


def seated(seed: int, scenario: str = "skirmish") -> tuple[dict[str, Any], list[str]]:
    catalogue = load_catalogue()
    state = canonical(new_game(catalogue.scenarios[scenario], catalogue, seed=seed))
    ship = next(s for s in state["ships"].values() if s["crew"] == "players")["id"]
    return seat_table(state, ship, 4, list(catalogue.characters), canonical)


def screens(seats: list[str]) -> list[tuple[str, Any]]:
    """(audience, viewer) of each screen of a bridge: every seat's phone, the GM, the projector."""
    return [*(("station", ("seat", s)) for s in seats), ("gm", "gm"), ("display", "display")]


def play(state: dict[str, Any], rng: random.Random, steps: int) -> list[tuple[Any, Any]]:
    """(command, state after it) along a game: turns, the bot's orders, allocation, a message,
    red alert, damage the GM sets."""
    out = []
    for step in range(steps):
        command = table_command(state, rng, step)
        if step % 13 == 6:
            enemy = next(s for s in state["ships"].values() if s["crew"] == "npc")["id"]
            command = c.SetTrack(ship=enemy, track="hull", damage=step % 3)
        try:
            state = canonical(apply(state, command)[0])
        except Exception:
            continue
        out.append((command, state))
        if step % 11 == 5:
            state = canonical(apply(state, c.SetRedAlert(on=not state["red_alert"]))[0])
            out.append((c.SetRedAlert(on=state["red_alert"]), state))
    return out


# A browser parses a message's elements as a body's (htmx: in a <template>, whose content takes
# the mode of its first element): a table's part found there is dropped, its cells spilt out.
TABLE_PARTS = {"tr", "td", "th", "tbody", "thead", "tfoot", "caption", "col", "colgroup"}
VOID = {"input", "br", "img", "meta", "link", "hr", "path", "rect", "line", "circle", "polygon"}


class _Spans(HTMLParser):
    """Where each element starts and ends in a piece of HTML: those with an id (unique), and
    those at the top level, in order."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=False)
        self.lines = [0]
        for line in html.splitlines(keepends=True):
            self.lines.append(self.lines[-1] + len(line))
        self.open: list[tuple[str, dict[str, str | None], int, int]] = []
        self.spans: dict[str, tuple[int, int, int]] = {}  # id: start, end of start tag, end
        self.top: list[tuple[dict[str, str | None], int, int, int]] = []
        self.feed(html)

    def _at(self) -> int:
        line, column = self.getpos()
        return self.lines[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        text = self.get_starttag_text() or ""
        if tag in VOID:
            return  # no end tag follows
        start = self._at()
        self.open.append((tag, dict(attrs), start, start + len(text)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass  # <x/>: nothing opens

    def handle_endtag(self, tag: str) -> None:
        while self.open:
            name, attrs, start, inner = self.open.pop()
            end = self._at() + len(f"</{tag}>")
            if attrs.get("id"):
                self.spans[str(attrs["id"])] = (start, inner, end)
            if not self.open:
                self.top.append((attrs, start, inner, end))
            if name == tag:
                return


class Page:
    """A screen's HTML as htmx leaves it: each element of a message replaces the element with its
    id; a stream's new lines go in at the top of their list, which keeps its data-keep newest."""

    def __init__(self, html: str) -> None:
        self.html = OOB.sub("", html)

    def apply(self, message: str) -> None:
        replaced: dict[str, str] = {}
        changed: list[tuple[str, str, str]] = []  # (how, target, HTML) in order
        for attrs, start, inner, end in _Spans(message).top:
            swap = str(attrs.get("hx-swap-oob") or "true")
            found = str(attrs.get("id"))
            tag = re.match(r"<([A-Za-z0-9]+)", message[start:])
            assert tag is not None and tag[1].lower() not in TABLE_PARTS, (
                f"#{found} is a <{tag[1] if tag else '?'}>: a browser drops it outside a table"
            )
            if found == "bc-version":
                continue
            if swap == "true":
                replaced[found] = OOB.sub("", message[start:end])
            elif swap == "delete":
                changed.append(("delete", found, ""))
            else:
                how, _, target = swap.partition(":#")
                changed.append((how, target, message[inner : end - len("</div>")]))
        spans = _Spans(self.html).spans
        for found in sorted(replaced, key=lambda found: -spans[found][0]):
            start, _, end = spans[found]
            self.html = self.html[:start] + replaced[found] + self.html[end:]
        for how, target, html in changed:
            start, inner, end = _Spans(self.html).spans[target]
            closing = self.html.rindex("</", start, end)
            if how == "delete":
                self.html = self.html[:start] + self.html[end:]
            elif how == "afterbegin":
                self.html = self.html[:inner] + html + self.html[inner:]
            else:
                assert how == "beforeend", how
                self.html = self.html[:closing] + html + self.html[closing:]


def test_what_the_hub_sends_leaves_every_screen_as_a_full_render() -> None:
    """Round after round, for each screen: what `Screen.changes` sends, applied as htmx does,
    gives the full render's HTML; a screen of the same viewer that was brought along with it
    gets the same message."""
    for scenario, seed in (("skirmish", 3), ("torpedo-run", 4), ("nebula-ambush", 5)):
        state, seats = seated(seed, scenario)
        viewers = screens(seats)
        pages = {
            viewer: Page(render_push(audience, view_for(state, viewer)))
            for audience, viewer in viewers
        }
        shown: dict[Any, Shown] = {}
        reads: Reads = {}
        for audience, viewer in viewers:
            shown[viewer] = Screen(audience, view_for(state, viewer)).everything()[1]
        checked = 0
        for _, step in play(state, random.Random(seed), 45):
            cache: PanelCache = {}
            common, parts = shared_view(step), Inputs(reads)
            reads = parts.reads
            for audience, viewer in viewers:
                screen = Screen(audience, view_for(step, viewer, common), parts)
                send, after = screen.changes(shown[viewer])
                assert screen.changes(shown[viewer]) == (send, after)  # shared by alike screens
                shown[viewer] = after
                if send:
                    pages[viewer].apply(screen.message(1, send, cache))
                whole = OOB.sub("", render_push(audience, view_for(step, viewer)))
                assert pages[viewer].html == whole, (scenario, audience, viewer, send)
                checked += 1
        assert checked > 150


def test_an_order_sends_little_to_the_other_screens() -> None:
    """A station's order changes who is ready: the other screens get a ship's line of it, well
    under a kilobyte, not their panels."""
    state, seats = seated(9)
    viewers = screens(seats)
    while state["phase"] != "orders":
        state = canonical(apply(state, c.StartTurn())[0])
    known = {viewer: Screen(a, view_for(state, viewer)).everything()[1] for a, viewer in viewers}
    ship = state["ships"][next(iter(state["ships"]))]["id"]
    order = c.PassOrder(ship=ship, station="comms")
    after = canonical(apply(state, order)[0])
    assert after["phase"] == "orders"
    common, parts = shared_view(after), Inputs()
    sizes = {}
    for audience, viewer in viewers:
        screen = Screen(audience, view_for(after, viewer, common), parts)
        send, _ = screen.changes(known[viewer])
        sizes[(audience, viewer)] = len(screen.message(1, send, {}).encode())
    comms = next(
        ("station", viewer)
        for _, viewer in viewers[:-2]
        if station_view(after, viewer[1])["me"]["station"] == "comms"
    )
    others = {who: size for who, size in sizes.items() if who != comms}
    assert max(others.values()) < 1024, others
