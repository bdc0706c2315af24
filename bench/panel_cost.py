"""What the live hub spends rendering fragments, command by command, per screen and fragment.

Plays bot games in the engine alone (no database, no server), the way
tests/server/test_live_panels.py does: skirmish, four seated stations plus the bot's choices,
StartTurn / the bot's orders / CloseOrders / AllocateDamage / EndCombat, a message and red alert
now and then. With `--table load`, the table bench/load.py plays instead (every seat's order each
turn, Engineering's allocation, the GM cleaning up after a lost ship): the mix behind the peer
bench's figures. After each command every screen (each seat's station, the GM, the projector) is
brought up to date as a push round does (app/web/live/hub.py, `Screen.changes`): each fragment
that changed is rendered unless another screen had it, each render counted and timed (a panel
by its name, an entry of a panel's list as `name[]`). "same HTML" counts the pushes that brought
a screen the very fragment it showed: one that declares inputs it does not show. The last lines
give, per audience, the push messages and their mean size.

    .venv/bin/python bench/panel_cost.py                    # 6 games x 150 commands
    .venv/bin/python bench/panel_cost.py --games 2 --steps 80 --top 15
    .venv/bin/python bench/panel_cost.py --games 4 --rounds 4   # whole push rounds, for A/B
    .venv/bin/python bench/panel_cost.py --games 4 --rounds 4 --locales en,de   # a mixed table
    .venv/bin/python bench/panel_cost.py --games 4 --steps 300 --table load   # load.py's table
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from app.content import load_catalogue
from app.rules import apply, new_game, shared_view
from app.rules import commands as c
from app.rules.bot import seat_table, table_command
from app.service import canonical, view_for
from app.web import render as push
from app.web.render import Fragment, Inputs, Reads, Screen, Shown
from app.web.render import PanelCache as Cache
from app.web.words import said

State = dict[str, Any]
Counts = collections.Counter[tuple[str, str]]  # per (audience, panel)


def seated(seed: int) -> tuple[State, list[str]]:
    catalogue = load_catalogue()
    state = canonical(new_game(catalogue.scenarios["skirmish"], catalogue, seed=seed))
    return seat_table(state, "kestrel", 4, list(catalogue.characters), canonical)


def play(state: State, rng: random.Random, steps: int) -> list[tuple[str, State]]:
    """(command name, state after it) along one game."""
    out: list[tuple[str, State]] = []
    for step in range(steps):
        command = table_command(state, rng, step)
        try:
            state = canonical(apply(state, command)[0])
        except Exception:  # noqa: S112 - the bot may propose what the engine refuses
            continue
        out.append((type(command).__name__, state))
        if step % 11 == 5:
            state = canonical(apply(state, c.SetRedAlert(on=not state["red_alert"]))[0])
            out.append(("SetRedAlert", state))
    return out


def game(table: str, index: int, steps: int) -> tuple[State, list[str], list[tuple[str, State]]]:
    """One game of `steps` commands: its seated start, its seats, (command name, state after)."""
    if table == "bot":
        state, seats = seated(100 + index)
        return state, seats, play(state, random.Random(index), steps)
    import load  # bench/load.py: its Mirror plays the load bench's table

    mirror = load.Mirror("skirmish", 1000 + index, index)
    mirror.seated([str(uuid.UUID(int=index * 8 + seat)) for seat in range(4)])
    start, out = mirror.state, []
    for _ in range(steps):
        _, data = mirror.step()
        out.append((data["type"], mirror.state))
    return start, mirror.seats, out


def screens(seats: list[str]) -> list[tuple[str, Any]]:
    """(audience, viewer) of every screen of one bridge: each seat's station, the GM, the
    projector."""
    return [*(("station", ("seat", s)) for s in seats), ("gm", "gm"), ("display", "display")]


class Bridge:
    """One bridge's screens as a room holds them: what each shows. Screens take the `locales` in
    turn (each socket is rendered in its own language)."""

    def __init__(self, viewers: list[tuple[str, Any]], locales: tuple[str, ...] = ("en",)) -> None:
        self.viewers = viewers
        self.locales = locales
        self.shown: dict[Any, Shown] = {}
        self.reads: Reads = {}
        self.html: dict[tuple[Any, Fragment], bytes] = {}  # what each screen's fragment shows
        # Fragments pushed to a screen as the very HTML it showed: inputs declared wider than shown.
        self.same: Counts = collections.Counter()
        self.sent: Counts = collections.Counter()  # bytes pushed, all screens
        self.messages: Counts = collections.Counter()  # push messages, by audience
        self.bytes: Counts = collections.Counter()  # their bytes, by audience

    def push_round(self, state: State) -> None:
        """Every screen brought up to this state, as the hub's push round does: a fragment
        changed for several screens is rendered once in the round."""
        common = shared_view(state)
        rendered: Cache = {}
        parts = Inputs(self.reads)
        self.reads = parts.reads
        for index, (audience, viewer) in enumerate(self.viewers):
            locale = self.locales[index % len(self.locales)]
            screen = Screen(audience, view_for(state, viewer, common), parts, locale)
            send, self.shown[viewer] = screen.changes(self.shown.get(viewer))
            if not send:
                continue
            size = len(push.version_marker(1, locale))
            for fragment in send:
                html = screen.html(fragment, rendered)
                size += len(html)
                name = fragment[1] if fragment[0] == "panel" else f"{fragment[1]}[]"
                if self.html.get((viewer, fragment)) == html:
                    self.same[(audience, name)] += 1
                self.html[(viewer, fragment)] = html
                self.sent[(audience, name)] += len(html)
            self.messages[(audience, "")] += 1
            self.bytes[(audience, "")] += size


def measure(
    games: int, steps: int, table: str = "bot"
) -> tuple[dict[tuple[str, str], list[float]], int, Any, Counts, Counts]:
    """Per (audience, panel): [renders, seconds]; the number of commands; per command type; per
    (audience, panel), the pushes that brought a screen the very HTML it showed, and the bytes
    pushed to all screens."""
    same: Counts = collections.Counter()
    sent: Counts = collections.Counter()
    cost: dict[tuple[str, str], list[float]] = collections.defaultdict(lambda: [0, 0.0])
    by_command: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0, 0.0])
    original = Screen._render

    def timed(self: Screen, fragment: Fragment) -> str:
        start = time.perf_counter()
        html = original(self, fragment)
        name = fragment[1] if fragment[0] == "panel" else f"{fragment[1]}[]"  # [] an entry
        row = cost[(self.audience, name)]
        row[0] += 1
        row[1] += time.perf_counter() - start
        return html

    Screen._render = timed  # type: ignore[method-assign]
    commands = 0
    try:
        for index in range(games):
            state, seats, played = game(table, index, steps)
            bridge = Bridge(screens(seats))
            bridge.push_round(state)  # the screens connect: not counted
            cost.clear()
            for name, after in played:
                before_n = sum(int(r[0]) for r in cost.values())
                before_t = sum(r[1] for r in cost.values())
                bridge.push_round(after)
                row = by_command[name]
                row[0] += 1
                row[1] += sum(int(r[0]) for r in cost.values()) - before_n
                row[2] += sum(r[1] for r in cost.values()) - before_t
                commands += 1
            if index == 0:
                totals = {k: list(v) for k, v in cost.items()}
            else:
                for k, v in cost.items():
                    t = totals.setdefault(k, [0, 0.0])
                    t[0] += v[0]
                    t[1] += v[1]
            cost.clear()
            same.update(bridge.same)
            sent.update(bridge.sent)
            sent.update({(a, "#messages"): n for (a, _), n in bridge.messages.items()})
            sent.update({(a, "#bytes"): n for (a, _), n in bridge.bytes.items()})
    finally:
        Screen._render = original  # type: ignore[method-assign]
    return totals, commands, by_command, same, sent


def whole_rounds(
    games: int, steps: int, repeats: int, locales: tuple[str, ...] = ("en",), table: str = "bot"
) -> tuple[float, int]:
    """A push round's CPU time per command, all of it (views, panel checks, renders), untimed
    inside: the best of `repeats` passes over the same games, each with a fresh hub. CPU time, not
    wall time, so that other processes on a shared machine weigh less in a comparison."""
    played = []
    for index in range(games):
        state, seats, steps_played = game(table, index, steps)
        played.append((state, screens(seats), [after for _, after in steps_played]))
    best, commands = float("inf"), 0
    for _ in range(repeats):
        said.cache_clear()  # each pass says its messages afresh, as a new process would
        total, commands = 0.0, 0
        for state, viewers, states in played:
            bridge = Bridge(viewers, locales)
            for index, after in enumerate([state, *states]):
                start = time.process_time()
                bridge.push_round(after)
                if index:  # the screens' first render (their connecting) is not a command's
                    total += time.process_time() - start
                    commands += 1
        best = min(best, total / commands)
    return best, commands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument(
        "--rounds",
        type=int,
        default=0,
        metavar="N",
        help="only time whole push rounds per command, the best of N passes (for before/after)",
    )
    parser.add_argument(
        "--locales",
        default="en",
        help="the screens' languages, taken in turn, e.g. de or en,de (with --rounds)",
    )
    parser.add_argument(
        "--table",
        choices=("bot", "load"),
        default="bot",
        help="who plays: the random bot, or bench/load.py's table (the peer bench's mix)",
    )
    args = parser.parse_args()
    if args.rounds:
        locales = tuple(args.locales.split(","))
        per_command, commands = whole_rounds(
            args.games, args.steps, args.rounds, locales, args.table
        )
        print(
            f"push round: {per_command * 1000:.3f} ms of CPU per command (best of {args.rounds}, "
            f"{commands} commands)"
        )
        return
    measure(1, 10)  # warm up: templates compiled, caches filled
    totals, commands, by_command, same, sent = measure(args.games, args.steps, args.table)
    all_n = sum(int(v[0]) for v in totals.values())
    all_t = sum(v[1] for v in totals.values())
    print(f"{args.games} games, {commands} commands, {all_n} panel renders, {all_t * 1000:.0f} ms")
    print(f"per command: {all_n / commands:.2f} renders, {all_t * 1000 / commands:.2f} ms\n")
    print(
        f"{'audience':9} {'panel':12} {'renders':>8} {'/cmd':>6} {'ms':>8} {'ms/cmd':>7}"
        f" {'ms/render':>9} {'share':>6} {'same HTML':>9} {'KB/cmd':>6}"
    )
    for (audience, name), (n, t) in sorted(totals.items(), key=lambda kv: -kv[1][1])[: args.top]:
        if name.startswith("#"):
            continue
        print(
            f"{audience:9} {name:12} {int(n):8d} {n / commands:6.2f} {t * 1000:8.1f}"
            f" {t * 1000 / commands:7.3f} {t * 1000 / max(n, 1):9.3f} {t / all_t:6.1%}"
            f" {same[(audience, name)]:9d} {sent[(audience, name)] / 1000 / commands:6.2f}"
        )
    print("\nby audience (per command)")
    audiences: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0])
    for (audience, _), (n, t) in totals.items():
        audiences[audience][0] += n
        audiences[audience][1] += t
    for audience, (n, t) in sorted(audiences.items(), key=lambda kv: -kv[1][1]):
        pushes = sent[(audience, "#messages")]
        mean = sent[(audience, "#bytes")] / max(pushes, 1)
        print(
            f"{audience:9} {n / commands:6.2f} renders {t * 1000 / commands:7.3f} ms,"
            f" {pushes} pushes to screens of {mean:,.0f} bytes on average"
        )
    print("\nby command (per command of that type)")
    for name, (count, n, t) in sorted(by_command.items(), key=lambda kv: -kv[1][2]):
        print(f"{name:16} x{int(count):4d} {n / count:6.2f} renders {t * 1000 / count:7.3f} ms")


if __name__ == "__main__":
    main()
