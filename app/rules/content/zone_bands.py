"""Range bands on a zone map (G-ZONE-2), beside the grid's own in __init__.py."""

from __future__ import annotations

from . import RangeBand
from .zone_content import ZONES_MAX

# rule: G-ZONE-2: the bands of a zone map and their range values for G-HIT-2. Each is keyed by the
# grid band whose weapons just reach it, so a weapon's `max_range` compares with it as on a grid
# (band_index): Point Blank and Close weapons reach the same zone, Very Long reaches Extreme.
ZONE_BANDS = (
    RangeBand("point_blank", "close", 0, 0, 2),
    RangeBand("medium", "medium", 1, 1, 3),
    RangeBand("long", "long", 2, 2, 5),
    RangeBand("very_long", "extreme", 3, ZONES_MAX, 7),
)


def zone_band_for(steps: int) -> RangeBand:
    """The band for a number of zone steps: 3 or more is Extreme, never out of range."""
    if steps < 0:
        raise ValueError(f"zone steps cannot be negative: {steps}")
    return next((b for b in ZONE_BANDS if steps <= b.max_squares), ZONE_BANDS[-1])
