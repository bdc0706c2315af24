"""A venue laptop without an emoji font drew empty boxes for 🔊 and 🚀. No template,
script or style sheet of ours may carry an emoji; icons are inline SVG or CSS. Symbols that fonts
such as DejaVu Sans draw as text (▲ ◆ ✓ ⚠ ⚙ →) are allowed."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Characters Unicode draws as emoji by default (Emoji_Presentation=Yes) in the Basic Multilingual
# Plane, from emoji-data.txt; every pictograph from U+1F000 up is one too.
EMOJI_BMP = set(
    "⌚⌛⏩⏪⏫⏬⏰⏳◽◾☔☕♈♉♊♋♌♍♎♏♐♑♒♓♿⚓⚡⚪⚫⚽⚾⛄⛅⛎⛔⛪⛲⛳⛵⛺⛽✅✊✋✨❌❎❓❔❕❗➕➖➗➰➿⬛⬜⭐⭕"
)
EMOJI_VARIATION = "\ufe0f"  # asks for the emoji form of the symbol before it


def emoji_in(text: str) -> list[str]:
    return [ch for ch in text if ch in EMOJI_BMP or ch == EMOJI_VARIATION or ord(ch) >= 0x1F000]


def our_files() -> list[Path]:
    static = [
        p
        for p in (ROOT / "static").rglob("*")
        if p.suffix in (".js", ".css", ".html", ".svg") and "vendor" not in p.parts
    ]
    return sorted([*(ROOT / "templates").rglob("*.html"), *static])


def test_no_template_script_or_style_sheet_carries_an_emoji() -> None:
    files = our_files()
    assert any(p.name == "display.html" for p in files)
    found = {
        str(p.relative_to(ROOT)): emoji_in(p.read_text(encoding="utf-8"))
        for p in files
        if emoji_in(p.read_text(encoding="utf-8"))
    }
    assert found == {}


def test_the_check_sees_the_emoji_the_venue_could_not_draw() -> None:
    assert emoji_in("🔊 Click to enable sound · 🚀 Viper → Kestrel · ⚓") == ["🔊", "🚀", "⚓"]
    assert emoji_in("▲ Kestrel ◆ Gutter Knife ✓ ready ⚠ hazard ⚙ → ≥ − …") == []
