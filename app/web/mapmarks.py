"""Where each ship's marker and name go on the battle map (templates/_ui.html's map_svg), so that
ships on the same or neighbouring squares never hide one another.

Ships sharing a square shrink and split it; then each name takes the first free spot near its
marker (above for the players, below for the others, then further out, then beside), with a thin
line back to the marker when it had to move away. Names are measured by an estimate of the width
of bold sans-serif text, on the generous side, since the browser alone knows the true width. A
long name is shortened (short_name) so that eight of them still fit; the map's <title> and the
screens' lists have it whole.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from app.i18n_content import content

View = dict[str, Any]
Box = tuple[float, float, float, float]  # left, top, right, bottom in map squares

CHAR_WIDTH = 0.66  # of the font size: wider than the average bold sans-serif letter
LINE_HEIGHT = 1.2  # a name's box, top of ascenders to bottom of descenders, per font size
MARKER = 0.42  # a lone ship's marker reaches this far from its square's centre
# Where ships sharing a square sit, from its centre, by how many share it (four at most; a fifth
# and more sit on the centre, which the rules allow but no scenario does).
TORPEDO = 0.42  # a torpedo's badge reaches this far from its centre (templates/_weapons.html)
TORPEDO_STEP = 0.9  # and each torpedo's sits this far left of the one before
SHORT_NAME = 14  # characters a map shows of a ship's name (a GM may type 60), the "…" included
SPLITS: dict[int, list[tuple[float, float]]] = {
    1: [(0.0, 0.0)],
    2: [(-0.25, 0.0), (0.25, 0.0)],
    3: [(-0.25, -0.25), (0.25, -0.25), (0.0, 0.25)],
    4: [(-0.25, -0.25), (0.25, -0.25), (-0.25, 0.25), (0.25, 0.25)],
}


def short_name(name: str, limit: int = SHORT_NAME) -> str:
    """`name` in at most `limit` characters: whole words where it can, then "…"."""
    if len(name) <= limit:
        return name
    cut = name[: limit - 1]
    if name[limit - 1] != " " and " " in cut.strip():
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip() + "…"


def said_name(name: str, limit: int) -> str:
    """`name` shortened as a sentence says it: not "Sturmkrähe der…", for a short lower-case
    word (an article, a preposition) says nothing before the ellipsis."""
    short = short_name(name, limit)
    if not short.endswith("…") or short == name:
        return short
    words = short[:-1].split()
    while len(words) > 1 and len(words[-1]) <= 3 and words[-1].islower():
        words.pop()
    return " ".join(words) + "…"


# Where a message names a ship, by the parameter's name (app/web/words.py says them).
SHIP_PARAMS = frozenset({"ship", "target", "holder"})


def short_names(value: Any, limit: int) -> Any:
    """`value` (an event, or a message and those inside it) with the ships its messages name
    shortened to `limit` characters, for a screen that shows the full names elsewhere."""
    if isinstance(value, list):
        return [short_names(item, limit) for item in value]
    if not isinstance(value, dict):
        return value
    message = "msg" in value
    return {
        key: said_name(content(item), limit)
        if message and key in SHIP_PARAMS and isinstance(item, str)
        else short_names(item, limit)
        for key, item in value.items()
    }


def map_marks(view: View, label_size: float) -> list[View]:
    """One entry per ship: marker centre (cx, cy) and scale; its name as drawn (label), the name's
    centre (lx, ly) and whether a leader line joins them. `label_size` is the names' font size in
    squares."""
    game_map = view["game"]["map"]
    bounds = (-0.6, -0.6, game_map["width"] + 0.6, game_map["height"] + 0.6)
    ships = view["ships"]
    sharing: dict[tuple[int, int], list[int]] = defaultdict(list)
    for index, ship in enumerate(ships):
        sharing[(ship["x"], ship["y"])].append(index)
    marks: list[View] = [{} for _ in ships]
    markers: list[Box] = []
    for indices in sharing.values():
        split = SPLITS.get(len(indices), [(0.0, 0.0)] * len(indices))
        scale = 1.0 if len(indices) == 1 else 0.5
        for index, (dx, dy) in zip(indices, split, strict=False):
            ship = ships[index]
            cx, cy = ship["x"] + 0.5 + dx, ship["y"] + 0.5 + dy
            reach = MARKER * scale
            marks[index] = {
                "ship": ship,
                "label": short_name(content(ship["name"])),
                "cx": cx,
                "cy": cy,
                "scale": scale,
            }
            markers.append((cx - reach, cy - reach, cx + reach, cy + reach))
    placed: list[Box] = list(markers) + _torpedo_badges(view)
    for mark in marks:
        width = len(mark["label"]) * CHAR_WIDTH * label_size
        height = LINE_HEIGHT * label_size
        box = _free_spot(mark, width, height, placed, bounds)
        placed.append(box)
        mark["lx"] = (box[0] + box[2]) / 2
        # SVG places text by its baseline: about a fifth of the box above the bottom.
        mark["ly"] = box[3] - 0.22 * height
        near = abs(mark["lx"] - mark["cx"]) < 0.01 and abs((box[1] + box[3]) / 2 - mark["cy"]) < (
            MARKER * mark["scale"] + height / 2 + 0.15
        )
        mark["leader"] = not near
        mark["ty"] = box[1] if box[1] > mark["cy"] else box[3]
    return marks


def _torpedo_badges(view: View) -> list[Box]:
    torpedoes = (view.get("weapons") or {}).get("torpedoes") or []
    boxes = []
    for index, torpedo in enumerate(torpedoes):
        x = torpedo["x"] + 0.5 - 0.9 - index * TORPEDO_STEP
        y = torpedo["y"] + 0.5 - 0.6
        boxes.append((x - TORPEDO, y - TORPEDO, x + TORPEDO, y + TORPEDO))
    return boxes


def _free_spot(mark: View, width: float, height: float, taken: list[Box], bounds: Box) -> Box:
    cx, cy = mark["cx"], mark["cy"]
    reach = MARKER * mark["scale"] + 0.04
    first = -1 if mark["ship"]["players_side"] else 1
    beside = reach + width / 2 + 0.04
    spots: list[tuple[float, float]] = []
    for step in range(8):
        away = reach + height / 2 + step * height
        spots += [(cx, cy + first * away), (cx, cy - first * away)]
        # Then beside the marker, level with it and a line further each time.
        level = step * height
        spots += [(cx + beside, cy + level), (cx - beside, cy + level)]
        if step:
            spots += [(cx + beside, cy - level), (cx - beside, cy - level)]
    boxes = []
    for x, y in spots:
        box = (x - width / 2, y - height / 2, x + width / 2, y + height / 2)
        # Inside the map, slid sideways from an edge rather than given up.
        shift = max(0.0, bounds[0] - box[0]) - max(0.0, box[2] - bounds[2])
        box = (box[0] + shift, box[1], box[2] + shift, box[3])
        if box[1] < bounds[1] or box[3] > bounds[3]:
            continue
        if not any(_overlap(box, other) for other in taken):
            return box
        boxes.append(box)
    if not boxes:
        y = cy + first * (reach + height / 2)
        return (cx - width / 2, y - height / 2, cx + width / 2, y + height / 2)
    # A map too crowded for every name: the spot that hides the least.
    return min(boxes, key=lambda box: sum(_shared(box, other) for other in taken))


def _shared(a: Box, b: Box) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
