"""Module `weapons` on the screens (M-WEAPONS-2..6): the projector shows torpedoes in flight
with their target and turns to impact, and each interception and strike with its dice; the
target's Pilot and Weapons are warned; a held ship's Pilot is told why; Weapons sees its
magazines and the Point defence order; the GM sets magazines and orders NPC launches."""

from __future__ import annotations

import re
from typing import Any

from starlette.datastructures import FormData

from app.content import load_catalogue
from app.i18n import requested
from app.rules import commands as c
from app.rules import display_view, gm_view, new_game, station_view
from app.web.render import render_page
from app.web.station import order_data
from tests.rules.builders import NOW, close, give, npc, order, run, seat_of, set_rolls
from tests.rules.test_module_mix import torpedo_at
from tests.rules.test_weapons import torpedo_run, viper_launches

PAGE = {
    "game_id": "g",
    "csrf": "token",
    "join_code": "K7QF",
    "join_url": "u",
    "join_qr": "",
    "props_code": None,
}


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def pages(state: dict[str, Any]) -> dict[str, str]:
    found = {
        "display": render_page("display", display_view(state), **PAGE),
        "gm": render_page("gm", gm_view(state), **PAGE),
    }
    for role in ("pilot", "weapons", "engineering"):
        view = station_view(state, seat_of("harrier", role))
        found[role] = render_page("station", view, **PAGE)
    return found


def after_turn_one() -> dict[str, Any]:
    """Viper launched at Harrier from Medium (strikes next turn) and from Close two more, of which
    Harrier's point defence shot one down and let one through."""
    state = viper_launches(torpedo_run(viper=(6, 5), adder=(8, 5)), "tube-a", "tube-b")
    state = run(state, npc("adder", "weapons", "attack", 3, target="harrier", weapons=("tube-a",)))
    state = run(
        state, order("harrier", "weapons", "point_defence", give(state, "harrier", "weapons", 2))
    )
    state, _ = close(set_rolls(state, 2, 1, 2))
    return run(state, c.ForceAllocation(now=NOW))


# rule: M-WEAPONS-3, M-WEAPONS-4
def test_m_weapons_every_screen_shows_the_torpedo_in_flight_and_the_dice_of_the_reveal() -> None:
    shown = {name: text(html) for name, html in pages(after_turn_one()).items()}
    for name, page in shown.items():
        assert "Adder → Harrier · strikes next turn" in page, name
        assert "SHOT DOWN" in page and "= 4 ≥ guidance 4" in page, name
        assert "TORPEDO HIT · 3 dmg" in page, name
    assert "torpedo-mark" in pages(after_turn_one())["display"]  # on the projector's map


# rule: M-WEAPONS-3
def test_m_weapons_the_targets_pilot_and_weapons_are_warned_and_weapons_sees_magazines() -> None:
    shown = {name: text(html) for name, html in pages(after_turn_one()).items()}
    for role in ("pilot", "weapons"):
        assert "TORPEDO INCOMING from Adder: strikes next turn" in shown[role], role
    assert "TORPEDO INCOMING" not in shown["engineering"]
    assert "Torpedo Launcher: 4 /4 torpedoes" in shown["weapons"]
    # The order form is there while orders are open: in the next turn's.
    assert 'value="point_defence"' in pages(run(after_turn_one(), c.StartTurn(now=NOW)))["weapons"]


# rule: M-WEAPONS-2
def test_m_weapons_a_held_ships_pilot_is_told_why_it_cannot_fly_off() -> None:
    state = torpedo_run(viper=(6, 5))
    grapple = npc("viper", "weapons", "attack", 5, target="harrier", weapons=("grappler",))
    state, _ = close(set_rolls(run(state, grapple), 6))
    shown = text(pages(state)["pilot"])
    assert "HELD by Viper's grapple: you cannot end a manoeuvre beyond Close of Viper" in shown
    assert "manoeuvre over 7" in shown


# rule: M-WEAPONS-6
def test_m_weapons_the_gm_sets_magazines_and_picks_npc_weapons() -> None:
    html = pages(run(after_turn_one(), c.StartTurn(now=NOW)))["gm"]  # NPC orders are open
    assert re.search(r'name="type" value="SetMagazine".*?name="weapon" value="tube-a"', html)
    assert 'name="weapons" value="tube-b"' in html
    assert '<option value="point_defence">Point defence</option>' in html


# rule: M-WEAPONS-2
def test_m_weapons_a_release_order_from_the_phone_names_the_held_ship_and_plays_no_cards() -> None:
    class Form(dict[str, Any]):
        def getlist(self, key: str) -> list[str]:
            value = self.get(key, [])
            return value if isinstance(value, list) else [value]

    class Seat:
        ship, station = "harrier", "weapons"

    data = order_data(Seat(), Form(action="release", target="viper", cards=["x"]))  # type: ignore[arg-type]
    assert (data["target"], data["cards"]) == ("viper", [])


# rule: G-ZONE-6, M-WEAPONS-3
def test_g_zone_6_the_zone_map_marks_each_ship_with_torpedoes_coming_and_their_turns() -> None:
    catalogue = load_catalogue()
    state = new_game(catalogue.scenarios["nebula-ambush"], catalogue, seed=1)
    state = run(state, c.SetModule(module="weapons", on=True))
    players = [s["id"] for s in state["ships"].values() if s["side"] == "players"]
    raider = next(s["id"] for s in state["ships"].values() if s["side"] != "players")
    state["torpedoes"] = [torpedo_at(raider, players[0], state["turn"] + 2)]
    html = render_page("display", display_view(state), **PAGE)
    target = re.search(rf'data-ship="{players[0]}">(.*?)</g>', html, re.S)
    other = re.search(rf'data-ship="{players[1]}">(.*?)</g>', html, re.S)
    assert target and other
    assert re.search(r'class="zone-torpedo zone-torpedo-turns">2<', target.group(1))
    assert "strikes" in target.group(1)
    assert "zone-torpedo" not in other.group(1)


def weapons_page(state: dict[str, Any], locale: str = "en") -> str:
    token = requested.set(locale)  # as a phone in this language asks
    try:
        return render_page("station", station_view(state, seat_of("harrier", "weapons")), **PAGE)
    finally:
        requested.reset(token)


def block(html: str, pattern: str) -> str:
    found = re.search(pattern, html, re.S)
    assert found is not None, pattern
    return found.group(0)


# rule: M-WEAPONS-4
def test_m_weapons_4_the_phone_advises_point_defence_only_in_the_turn_a_torpedo_strikes() -> None:
    """An "order Point defence" for a torpedo a turn out lost the order and its cards."""
    state = after_turn_one()  # Adder's torpedo strikes next turn
    page = text(weapons_page(state))
    assert "TORPEDO INCOMING from Adder: strikes next turn" in page
    assert "Order Point defence" not in page
    assert "Point defence can shoot at it only in the turn it strikes" in page
    state = run(state, c.StartTurn(now=NOW))
    html = weapons_page(state)
    builder = text(block(html, r'<div class="group" data-for="point_defence">.*?</div>'))
    assert "Order Point defence now to shoot it down." in text(html)
    assert "1 torpedo strikes Harrier this turn." in builder
    assert "No torpedo strikes" not in builder
    german = text(weapons_page(state, "de"))
    assert "1 Torpedo trifft Harrier in dieser Runde." in german


# rule: M-WEAPONS-4
def test_m_weapons_4_the_point_defence_builder_warns_when_nothing_strikes_this_turn() -> None:
    html = weapons_page(torpedo_run(viper=(6, 5)))  # turn 1's orders: no torpedo in flight
    builder = text(block(html, r'<div class="group" data-for="point_defence">.*?</div>'))
    assert "No torpedo strikes Harrier this turn" in builder and "cards are lost" in builder
    assert 'class="pd-idle warn" role="alert"' in html


def checked(html: str, target: str) -> list[str]:
    group = block(html, rf'<div class="fire-group" data-target="{target}">.*?</p>\s*</div>')
    return re.findall(rf'name="weapons_{target}" value="([\w-]+)" checked', group)


# rule: G-HIT-4, M-WEAPONS-3
def test_g_hit_4_the_phone_ticks_the_guns_that_reach_and_never_a_launcher_or_grappler() -> None:
    state = torpedo_run(viper=(6, 5))  # Close: all four Harrier weapons reach Viper
    html = weapons_page(state)
    assert checked(html, "viper") == ["pdc", "rail-gun"]
    assert checked(html, "adder") == ["pdc", "rail-gun"]  # none reaches: every gun
    page = text(html)
    assert "launches a torpedo: only when ticked" in page
    assert "grapples the ship: only when ticked" in page
    # What the phone sends with those ticks fires no torpedo.
    form = FormData([("action", "attack"), ("target", "viper")])
    sent = order_data(_Seat(), FormData([*form.multi_items(), *_ticks("viper", html)]))  # type: ignore[arg-type]
    assert sent["weapons"] == ["pdc", "rail-gun"]
    # Medium: the PDC does not reach, so only the rail gun is ticked.
    assert checked(weapons_page(torpedo_run(viper=(8, 5))), "viper") == ["rail-gun"]


# rule: G-HIT-4
def test_g_hit_4_the_order_says_what_will_fire_before_it_is_sent_in_english_and_german() -> None:
    state = torpedo_run(viper=(6, 5))
    for locale, words in (("en", "Fires at Viper:"), ("de", "Feuert auf Viper:")):
        html = weapons_page(state, locale)
        group = block(html, r'<div class="fire-group" data-target="viper">.*?</p>')
        summary = block(group, r'<p class="fire-summary".*?</p>')
        assert words in text(summary), locale
        names = re.findall(r'class="fires" data-weapon="([\w-]+)"', summary)
        assert names == ["pdc", "rail-gun", "launcher", "grappler"]
        # Each name shows when (and only when) its box is ticked: a rule per weapon.
        for weapon in names:
            assert (
                f'.fire-group[data-target="viper"]:has(input[value="{weapon}"]:checked) '
                f'.fires[data-weapon="{weapon}"]'
            ) in html
    german = text(weapons_page(state, "de"))
    assert "startet einen Torpedo: nur wenn angekreuzt" in german


class _Seat:
    ship, station = "harrier", "weapons"


def _ticks(target: str, html: str) -> list[tuple[str, str]]:
    return [(f"weapons_{target}", w) for w in checked(html, target)]


# rule: G-HIT-4
def test_g_hit_4_the_sent_order_names_the_weapons_that_will_fire() -> None:
    state = torpedo_run(viper=(6, 5))
    cards = give(state, "harrier", "weapons", 4)
    chosen = ("rail-gun", "launcher")
    state = run(state, order("harrier", "weapons", "attack", cards, target="viper", weapons=chosen))
    sent = text(weapons_page(state))
    assert "Sent: Attack (4) → Viper with Spinal Rail Gun, Torpedo Launcher." in sent
    assert "→ Viper mit Rückgrat-Railgun, Torpedowerfer." in text(weapons_page(state, "de"))
