"""The worst real table (scenarios/worst-case.toml), for every screen's browser test: a German
table, a five-station ship crewed by players with 40-character names, 60-character ship names, a
side not called "players", a wave that arrives as turn 2 begins, and the GM adding ships up to
eight. Each screen opens at the size it is used at (a phone 390x844, the GM 1366x768, the
projector 1920x1080 and 1280x720), and the probes below measure what the room would see: text
pushed off screen or cut, text too small to read from the back of the room, a word split across
two lines without a hyphen.

The table is set up and played through the JSON API, as quickly as a script can; the screens are
real pages in Chromium that follow it by their sockets."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
from playwright.sync_api import Page

SCENARIO = "worst-case"
SHIP = "hoffnung"  # the players' cruiser: five stations
STATIONS = ("weapons", "engineering", "pilot", "comms", "captain")
# 40 characters each, the longest name the join form takes.
CREW = {
    "weapons": "Friedrich-Wilhelm von Hohenzollern-Sigma",
    "engineering": "Maximiliane-Charlotte von Sachsen-Coburg",
    "pilot": "Bartholomäus-Konstantin Müller-Lüdenscha",
    "comms": "Anneliese-Kunigunde Freifrau von Thurnau",
    "captain": "Wolfgang-Amadeus Schwarzenberg-Hohenlohe",
}
# Ships the GM adds, 60 characters each, each of a class with the most stations it may have.
ADDED = (
    ("cruiser", "Eiserne Jungfrau der Vereinigten Kolonialflotte vom Südpolar"),
    ("corsair", "Sturmkrähe der Freien Handelsgilde vom Kometenschweif Westen"),
    ("cruiser", "Standhafte Zuversicht der Vereinigten Kolonialflotte Nordost"),
    ("raider", "Aasgeier der Freien Handelsgilde vom Asteroidenversteck Nord"),
    ("lancer", "Morgenröte der Vereinigten Kolonialflotte vom Sternentor Süd"),
    ("raider", "Knochenbrecher der Freien Handelsgilde vom Ionensturm Westen"),
)
ZONES = ("versteck", "ionensturm", "singularitaet", "aussenring", "truemmerfeld", "nebel")

PHONE = {"width": 390, "height": 844}
GM = {"width": 1366, "height": 768}
PROJECTORS = ({"width": 1920, "height": 1080}, {"width": 1280, "height": 720})
# The least text the back of the room reads, on a projector of any size: a smaller one draws less
# at once rather than smaller.
FLOOR = 24.0


def small_projector(viewport: dict[str, int]) -> bool:
    """Whether the projector draws its small layout (static/css/display.css): below 1880x1058 the
    full one cannot keep its text at FLOOR."""
    return viewport["width"] < 1880 or viewport["height"] < 1058


# The reveal of a turn on the projector, read in the quarter-minute a GM gives the room after it.
READABLE_PAGES = 4
WAIT = 15_000


@dataclass
class Table:
    base: str
    game_id: str
    join_code: str
    gm_token: str
    seats: dict[str, str] = field(default_factory=dict)  # station -> seat token
    http: httpx.Client = field(default_factory=httpx.Client)

    def command(self, type_: str, **fields: Any) -> dict[str, Any]:
        """A GM command through the API; its answer (a refusal fails the test)."""
        answer = self.http.post(
            f"{self.base}/api/games/{self.game_id}/commands",
            json={"command_id": uuid.uuid4().hex, "type": type_, **fields},
            headers={"Authorization": f"Bearer {self.gm_token}"},
        )
        assert answer.status_code == 200, (type_, fields, answer.text)
        body: dict[str, Any] = answer.json()
        return body

    def view(self, token: str | None = None) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        answer = self.http.get(f"{self.base}/api/games/{self.game_id}/view", headers=headers)
        assert answer.status_code == 200, answer.text
        view: dict[str, Any] = answer.json()["view"]
        return view

    def ships(self) -> int:
        return len(self.view()["ships"])

    def grow(self, count: int) -> None:
        """The GM adds ships (ADDED, in turn) until the table has `count`."""
        names = {ship["name"] for ship in self.view()["ships"]}
        waiting = [(n, added) for n, added in enumerate(ADDED) if added[1] not in names]
        for n, (ship_class, name) in waiting[: max(0, count - len(names))]:
            side = "allianz" if "Kolonialflotte" in name else "freibeuter"
            zone = ZONES[n % len(ZONES)]
            ship = {"ship_class": ship_class, "name": name, "side": side, "zone": zone}
            self.command("AddShip", x=0, y=0, **ship)
        assert self.ships() >= count

    def order_all(self, rng: random.Random, but: str | None = None) -> None:
        """Every crewed station gives an order it can (an attack, a repair...), or passes; all
        but the station `but`, which is left choosing (the turn stays open)."""
        for station, token in self.seats.items():
            if station == but:
                continue
            view = self.view(token)
            me = view["me"]
            if not me["can_order"]:
                continue
            others = [s["id"] for s in view["ships"] if s["id"] != me["ship"]]
            rng.shuffle(others)
            if not self._order(token, me, others):
                self._send(token, type="PassOrder", ship=me["ship"], station=me["station"])

    def _order(self, token: str, me: dict[str, Any], others: list[str]) -> bool:
        for action in me["actions"]:
            cards = [c["id"] for c in me["hand"] if c["kind"] in action["kinds"]]
            if not cards:
                continue
            for target in (None, *others):
                order = {"ship": me["ship"], "station": me["station"], "action": action["id"]}
                order |= {"cards": cards[:3]} | ({"target": target} if target else {})
                if self._send(token, type="SubmitOrder", **order, check=False):
                    return True
        return False

    def _send(self, token: str, check: bool = True, **command: Any) -> bool:
        answer = self.http.post(
            f"{self.base}/api/games/{self.game_id}/commands",
            json={"command_id": uuid.uuid4().hex, **command},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 200 or not check, answer.text
        return answer.status_code == 200


def worst_table(
    base: str, ships: int = 2, crew: dict[str, str] = CREW, seed: int | None = 43
) -> Table:
    """A game of the worst case made by a German GM, its cruiser crewed by `crew`, grown to
    `ships` ships by the GM; its dice from `seed`, so that a screen meets the same turns on
    every run."""
    http = httpx.Client(headers={"Accept-Language": "de-DE,de;q=0.9"}, timeout=30)
    made = http.post(f"{base}/api/games", json={"scenario": SCENARIO, "seed": seed})
    assert made.status_code == 201, made.text
    body = made.json()
    table = Table(base, body["game_id"], body["join_code"], body["gm_token"], http=http)
    for station, name in crew.items():
        seat = http.post(
            f"{base}/api/games/{table.game_id}/seats",
            json={"ship": SHIP, "station": station, "name": name},
        )
        assert seat.status_code == 201, seat.text
        table.seats[station] = seat.json()["seat_token"]
    table.command("SetDisplayLanguage", language="de")
    table.grow(ships)
    return table


def gm_page(browser: Any, table: Table, viewport: dict[str, int] = GM) -> Page:
    page: Page = browser.new_context(viewport=viewport, locale="de-DE").new_page()
    page.goto(f"{table.base}/gm/{table.game_id}?token={table.gm_token}")
    return page


def phone_page(browser: Any, table: Table, station: str) -> Page:
    context = browser.new_context(viewport=PHONE, locale="de-DE", has_touch=True, is_mobile=True)
    context.add_cookies(
        [{"name": f"bc_seat_{table.game_id}", "value": table.seats[station], "url": table.base}]
    )
    page: Page = context.new_page()
    page.goto(f"{table.base}/play/{table.game_id}")
    return page


def projector_page(browser: Any, table: Table, viewport: dict[str, int]) -> Page:
    """The projector as a venue's laptop opens it: its browser asks for nothing in particular."""
    page: Page = browser.new_context(viewport=viewport, locale="en-US").new_page()
    page.goto(f"{table.base}/display/{table.game_id}")
    return page


# Every visible run of text under `root`: its font size as drawn (an SVG text's scaled by its
# drawing), its box, whether an element that clips (overflow other than visible) or the window
# cuts it, and whether it is cut short on purpose (an ellipsis, the whole text in a title).
TEXTS = """(root) => {
  const out = [];
  const top = document.querySelector(root);
  const walker = document.createTreeWalker(top, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const el = node.parentElement;
    if (!node.textContent.trim() || el.closest('.visually-hidden, title, script')) continue;
    if (!el.checkVisibility({visibilityProperty: true})) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    let size = parseFloat(getComputedStyle(el).fontSize);
    const svg = el.closest('svg');
    if (svg && el instanceof SVGElement) {
      const m = el.getScreenCTM();
      size *= Math.min(Math.hypot(m.a, m.b), Math.hypot(m.c, m.d));
    }
    const ellipsis = getComputedStyle(el).textOverflow === 'ellipsis';
    let clipped = r.left < -1 || r.top < -1 || r.right > innerWidth + 1
      || r.bottom > innerHeight + 1;
    for (let up = svg ? svg : el; up && !clipped; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.overflow === 'visible') continue;
      if (['auto', 'scroll'].includes(style.overflowY) && up !== document.documentElement)
        continue;
      const c = up.getBoundingClientRect();
      clipped = r.left < c.left - 1 || r.top < c.top - 1 || r.right > c.right + 1
        || r.bottom > c.bottom + 1;
    }
    out.push({text: node.textContent.trim().slice(0, 50), size, clipped, ellipsis,
              box: [r.left, r.top, r.right, r.bottom],
              title: el.closest('[title]')?.title
                || el.closest('g')?.querySelector(':scope > title')?.textContent || '',
              where: el.closest('[id]')?.id || ''});
  }
  return out;
}"""

# Every line break inside a word under `root` (two letters on two lines with no hyphen between):
# for each text node, the line each letter is drawn on.
SPLIT_WORDS = """(root) => {
  const out = [];
  const letter = /[\\p{L}\\p{N}]/u;
  const walker = document.createTreeWalker(document.querySelector(root), NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  while (walker.nextNode()) {
    const node = walker.currentNode, text = node.textContent;
    const el = node.parentElement;
    if (!text.trim() || el.closest('svg, .visually-hidden, script, title')) continue;
    if (!el.checkVisibility()) continue;
    let before = null;
    for (let i = 0; i < text.length; i++) {
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rects = range.getClientRects();
      if (!rects.length) { before = null; continue; }
      const r = rects[rects.length - 1];
      if (before && letter.test(text[i]) && letter.test(text[i - 1])
          && r.top > before.bottom - 2) {
        const start = text.lastIndexOf(' ', i) + 1, end = text.indexOf(' ', i);
        out.push(text.slice(start, end < 0 ? text.length : end).trim() + ' @ ' + (i - start)
                 + ' in ' + (el.closest('[id]')?.id || el.tagName));
      }
      before = r;
    }
  }
  return out;
}"""

# What a screen's page spills: the page wider than the window, a box whose content is wider than
# itself and does not scroll, a select or button whose words do not fit it.
SPILLS = """(root) => {
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > innerWidth + 1) out.push('page ' + doc.scrollWidth + ' px wide');
  const scrolls = (s) => ['auto', 'scroll'].includes(s.overflowX);
  for (const el of document.querySelector(root).querySelectorAll('*')) {
    const style = getComputedStyle(el);
    if (style.display === 'inline' || el.clientWidth === 0) continue;
    if (el.closest('svg, .visually-hidden, .map-scroll') || !el.checkVisibility()) continue;
    // A text field scrolls its own text; what it shows is the start of it, as typed.
    if (el.matches('input, textarea')) continue;
    if (el.scrollWidth > el.clientWidth + 1 && !scrolls(style)
        && !(style.textOverflow === 'ellipsis' && el.title))
      out.push('spills: ' + el.tagName + '#' + el.id + '.' + el.className + ' "' +
               el.textContent.trim().slice(0, 40) + '" ' + el.scrollWidth + '>' + el.clientWidth);
  }
  return out;
}"""


def texts(page: Page, root: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(TEXTS, root)
    return found


def split_words(page: Page, root: str = "body") -> list[str]:
    found: list[str] = page.evaluate(SPLIT_WORDS, root)
    return found


def spills(page: Page, root: str = "body") -> list[str]:
    found: list[str] = page.evaluate(SPILLS, root)
    return found


def shortened(text: dict[str, Any]) -> bool:
    """Cut short on purpose: an ellipsis, with the whole text in its title."""
    cut = text["text"].rstrip("…")
    return bool((text["ellipsis"] or text["text"].endswith("…")) and cut in text["title"])


def projector_problems(page: Page) -> list[str]:
    """Whatever the room could not read on the projector: text under the floor (24 px), text cut
    off or pushed off screen (a name may end in an ellipsis, its title whole; the log drops its
    oldest lines), a box whose content runs past its edge (a table wider than its panel), a word
    split without a hyphen, a ship or station not shown."""
    problems = []
    for text in texts(page, "main.display"):
        if text["size"] < FLOOR - 0.01:
            problems.append(f"{text['size']:.1f} px: {text['text']!r} in #{text['where']}")
        # The log drops its oldest lines out of sight.
        if text["clipped"] and not shortened(text) and not text["where"].startswith("log"):
            problems.append(f"cut: {text['text']!r} in #{text['where']}")
    problems += spills(page, "main.display")
    problems += [f"split: {word}" for word in split_words(page, "main.display")]
    problems += page.evaluate(
        """() => Array.from(document.querySelectorAll(
            '#ship-status article.ship, #ship-status [id^=station-]')).flatMap(el => {
          const r = el.getBoundingClientRect();
          const column = document.getElementById('ship-status').getBoundingClientRect();
          const out = r.top < column.top - 1 || r.bottom > Math.min(column.bottom, innerHeight) + 1
            || r.left < column.left - 1 || r.right > column.right + 1 || r.height === 0
            || !el.checkVisibility();
          return out ? ['off screen: #' + el.id] : [];
        })"""
    )
    return problems


def ready_marks_level(display: Page) -> dict[str, bool]:
    """On a small projector, the ready list's mark for each ship it lists (✓ or …): whether it is
    drawn on that ship's own line of the ships' table, after its name."""
    level: dict[str, bool] = display.evaluate(
        """() => Object.fromEntries(Array.from(document.querySelectorAll('#ready .d-ready-mark'))
          .filter(m => m.checkVisibility())
          .map(m => {
            const id = m.closest('.d-ready-ship').id.replace(/^ready-/, '');
            const row = document.getElementById('ship-' + id).getBoundingClientRect();
            const name = document.querySelector('#ship-' + id + ' h3').getBoundingClientRect();
            const r = m.getBoundingClientRect(), middle = (r.top + r.bottom) / 2;
            return [id, row.top < middle && middle < row.bottom && r.left >= name.right];
          }))"""
    )
    return level
