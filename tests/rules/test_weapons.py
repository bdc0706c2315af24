"""Module `weapons` (M-WEAPONS-1..6, seed 002): reach by kind, grapplers, torpedoes in flight,
point defence, torpedo strikes and magazines, played through `apply` on the `torpedo-run`
scenario (the players' Harrier against the NPC torpedo boats Viper and Adder)."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import apply, station_view
from app.rules import commands as c
from app.rules.content import ContentError, parse_ship_class

from .builders import (
    CAT,
    NOW,
    State,
    close,
    game,
    give,
    npc,
    of_type,
    one,
    order,
    place,
    refused,
    run,
    run_events,
    said,
    seat_of,
    set_rolls,
    shields,
    started,
)


def torpedo_run(**placing: tuple[int, int]) -> State:
    """Turn 1's orders are open; Harrier at (3, 5) with its shields down, Adder parked far off
    (so only the ships a test names are near each other), others where `placing` says."""
    state = shields(game("torpedo-run"), "harrier", False)
    state = place(state, "adder", 15, 0)
    for ship, (x, y) in placing.items():
        state = place(state, ship, x, y)
    return started(state)


def viper_launches(state: State, *tubes: str, value: int = 4) -> State:
    return run(state, npc("viper", "weapons", "attack", value, target="harrier", weapons=tubes))


def next_turn(state: State) -> State:
    assert state["phase"] == "turn_end", state["phase"]
    return started(state)


def loaded(state: State, ship: str, weapon: str) -> int:
    found = next(w for w in state["ships"][ship]["weapons"] if w["id"] == weapon)
    return int(found["loaded"])


def hull_damage(state: State, ship: str) -> int:
    """After Engineering's allocation window (if any) closes with everything on the Hull."""
    if state["phase"] == "allocation":
        state = run(state, c.ForceAllocation(now=NOW))
    return int(state["ships"][ship]["hull"]["damage"])


# --- M-WEAPONS-1: reach by kind ------------------------------------------------------------------


# rule: M-WEAPONS-1
def test_m_weapons_1_a_weapons_kind_sets_its_reach_unless_the_sheet_says_otherwise() -> None:
    reach = {w.kind: w.max_range for w in CAT.ships["lancer"].weapons}
    assert reach == {"pdc": "close", "rail_gun": "medium", "torpedo": "long", "grappler": "close"}
    # The raider's sheet names its grapnel's reach: the sheet wins over the kind.
    grapnel = next(w for w in CAT.ships["raider"].weapons if w.kind == "grappler")
    assert grapnel.max_range == "point_blank"


# rule: M-WEAPONS-1
def test_m_weapons_1_a_weapon_of_no_known_kind_needs_its_reach_written() -> None:
    sheet = {
        "id": "x",
        "name": "X",
        "hull_size": 5,
        "defence": 3,
        "hull": {"boxes": 5},
        "shields": {"boxes": 0},
        "stations": [{"role": "engineering", "deck": "engineering", "track": {"boxes": 3}}],
        "weapons": [{"id": "gun", "name": "Gun", "damage": 2, "kind": "laser"}],
    }
    with pytest.raises(ContentError) as caught:
        parse_ship_class(sheet, "ships/x.toml")
    assert "weapons[0].max_range" in str(caught.value)
    sheet["weapons"] = [{"id": "g", "name": "G", "damage": 2, "kind": "pdc", "magazine": 3}]
    with pytest.raises(ContentError) as caught:
        parse_ship_class(sheet, "ships/x.toml")
    assert "weapons[0].magazine" in str(caught.value)


# rule: M-WEAPONS-1
def test_m_weapons_1_a_rail_gun_does_not_reach_long_range_but_a_launcher_does() -> None:
    state = torpedo_run(viper=(10, 5))  # 7 squares: Long
    cards = give(state, "harrier", "weapons", 3)
    attack = order("harrier", "weapons", "attack", cards, target="viper", weapons=("rail-gun",))
    # G-TURN-4: range is judged at the reveal; the order says it is out of reach now.
    assert apply(state, attack)[0]["orders"]["harrier/weapons"]["out_of_reach_now"] is True
    launch = order("harrier", "weapons", "attack", cards, target="viper", weapons=("launcher",))
    given = apply(state, launch)[0]["orders"]["harrier/weapons"]
    assert given["weapons"] == ["launcher"] and given["out_of_reach_now"] is False


# --- M-WEAPONS-3: torpedoes in flight ------------------------------------------------------------


# rule: M-WEAPONS-3
@pytest.mark.parametrize(
    ("squares", "band", "turns"),
    [(1, "point_blank", 0), (3, "close", 0), (5, "medium", 1), (7, "long", 2)],
)
def test_m_weapons_3_a_torpedo_strikes_after_0_1_or_2_turns_by_launch_band(
    squares: int, band: str, turns: int
) -> None:
    state = viper_launches(torpedo_run(viper=(3 + squares, 5)), "tube-a")
    state, events = close(state)
    launched = one(events, "TorpedoLaunched")
    assert (launched["band"], launched["strikes"], launched["guidance"]) == (band, 1 + turns, 4)
    for _ in range(turns):
        assert of_type(events, "TorpedoStruck") + of_type(events, "TorpedoMissed") == []
        assert [t["target"] for t in state["torpedoes"]] == ["harrier"]
        state, events = close(next_turn(state))
    struck = of_type(events, "TorpedoStruck") + of_type(events, "TorpedoMissed")
    assert [e["torpedo"] for e in struck] == [launched["torpedo"]]
    assert struck[0]["turn"] == 1 + turns
    assert state["torpedoes"] == []


# rule: M-WEAPONS-3
def test_m_weapons_3_a_torpedo_follows_its_target_wherever_it_flies() -> None:
    state = viper_launches(torpedo_run(viper=(8, 5)), "tube-a", value=6)  # Medium
    state, _ = close(state)
    state = next_turn(state)
    state = run(state, c.SetPosition(ship="harrier", x=0, y=0))  # far beyond any reach now
    state = set_rolls(state, 4)
    state, events = close(state)
    struck = one(events, "TorpedoStruck")
    assert (struck["target"], struck["roll"], struck["score"]) == ("harrier", 4, 6 + 4 - 4)
    assert hull_damage(state, "harrier") == 3


# rule: M-WEAPONS-3
def test_m_weapons_3_a_torpedo_is_gone_when_its_target_is_destroyed() -> None:
    state = viper_launches(torpedo_run(viper=(10, 5)), "tube-a", "tube-b")  # Long
    state, _ = close(state)
    assert len(state["torpedoes"]) == 2
    state, events = run_events(state, c.DestroyShip(ship="harrier"))
    assert [e["target"] for e in of_type(events, "TorpedoLost")] == ["harrier", "harrier"]
    assert state["torpedoes"] == []


# rule: M-WEAPONS-3
def test_m_weapons_3_a_torpedo_is_gone_when_the_gm_marks_its_target_fled() -> None:
    state = viper_launches(torpedo_run(viper=(10, 5)), "tube-a")  # Long: strikes in two turns
    state, _ = close(state)
    state, events = run_events(state, c.SetShipOut(ship="harrier", out="fled"))
    assert one(events, "TorpedoLost")["target"] == "harrier"
    assert state["torpedoes"] == []
    # Brought back into the fight, nothing is still coming at it.
    state = run(state, c.SetShipOut(ship="harrier", out=""))
    state, events = close(next_turn(state))
    assert not of_type(events, "TorpedoStruck") and not of_type(events, "TorpedoMissed")


# rule: M-WEAPONS-3
def test_m_weapons_3_a_torpedo_still_strikes_a_ship_that_surrendered() -> None:
    state = viper_launches(torpedo_run(viper=(8, 5)), "tube-a")  # Medium: strikes next turn
    state, _ = close(state)
    state = run(state, c.SetShipOut(ship="harrier", out="surrendered"))
    assert len(state["torpedoes"]) == 1
    state, events = close(set_rolls(next_turn(state), 4))
    assert one(events, "TorpedoStruck")["target"] == "harrier"


# rule: M-WEAPONS-3
def test_m_weapons_3_a_torpedo_is_lost_with_a_target_destroyed_by_gunfire() -> None:
    # Harrier's rail gun finishes Viper in the same turn Adder's torpedo is on its way to it.
    state = torpedo_run(viper=(8, 5), adder=(8, 0))
    state = run(state, c.SetTrack(ship="viper", track="hull", damage=8))
    state = run(state, npc("adder", "weapons", "attack", 4, target="viper", weapons=("tube-a",)))
    cards = give(state, "harrier", "weapons", 5, 4)
    state = run(
        state, order("harrier", "weapons", "attack", cards, target="viper", weapons=("rail-gun",))
    )
    state = set_rolls(state, 6)
    state, events = close(state)
    assert state["ships"]["viper"]["destroyed"]
    assert one(events, "TorpedoLost")["target"] == "viper"
    assert state["torpedoes"] == []


# rule: M-WEAPONS-3
def test_m_weapons_3_the_targets_pilot_and_weapons_are_warned_of_an_incoming_torpedo() -> None:
    state = viper_launches(torpedo_run(viper=(8, 5)), "tube-a")  # Medium
    state, _ = close(state)
    for station in ("pilot", "weapons"):
        me = station_view(state, seat_of("harrier", station))["me"]
        incoming = me["weapons"]["incoming"]
        assert [(t["ship_name"], said({"words": t["when"]})) for t in incoming] == [
            ("Viper", "next turn")
        ]
    state = next_turn(state)
    view = station_view(state, seat_of("harrier", "pilot"))
    assert said({"words": view["weapons"]["torpedoes"][0]["when"]}) == "this turn"


# rule: M-WEAPONS-3
# rule: M-WEAPONS-2
def test_m_weapons_3_an_attack_naming_no_weapon_launches_no_torpedo_and_grapples_nothing() -> None:
    """A torpedo and a grapple are decisions: ticking nothing fires the guns only."""
    state = torpedo_run(viper=(6, 5))  # Close: every Harrier weapon reaches
    cards = give(state, "harrier", "weapons", 5)
    state = run(state, order("harrier", "weapons", "attack", cards, target="viper"))
    assert state["orders"]["harrier/weapons"]["weapons"] == ["pdc", "rail-gun"]
    state, events = close(set_rolls(state, 6))
    assert one(events, "AttackResolved")["hit"]
    assert not of_type(events, "TorpedoLaunched") and not of_type(events, "GrappleCaught")
    assert loaded(state, "harrier", "launcher") == 4 and state["grapples"] == []


# rule: G-HIT-4
def test_g_hit_4_naming_no_weapon_fires_the_guns_that_reach_now_else_every_gun() -> None:
    """Viper's guns: a PDC to Close, a rail gun to Medium; its tubes and grappler never fire
    unless named."""
    for at, fired in (((6, 5), ["pdc", "rail-gun"]), ((8, 5), ["rail-gun"])):
        state = run(torpedo_run(viper=at), npc("viper", "weapons", "attack", 4, target="harrier"))
        assert state["orders"]["viper/weapons"]["weapons"] == fired, at
    # G-TURN-4: none reaches from Long now, so every gun, in case the range closes first.
    state = run(torpedo_run(viper=(10, 5)), npc("viper", "weapons", "attack", 4, target="harrier"))
    assert state["orders"]["viper/weapons"]["weapons"] == ["pdc", "rail-gun"]
    assert state["orders"]["viper/weapons"]["out_of_reach_now"]
    view = station_view(torpedo_run(viper=(8, 5)), seat_of("harrier", "weapons"))
    assert view["me"]["default_weapons"] == {"viper": ["rail-gun"], "adder": ["pdc", "rail-gun"]}


# rule: G-HIT-4
def test_g_hit_4_a_ship_with_only_launchers_must_name_the_one_it_fires() -> None:
    state = torpedo_run(viper=(10, 5))
    viper = state["ships"]["viper"]
    viper["weapons"] = [w for w in viper["weapons"] if w["kind"] == "torpedo"]
    refused(state, npc("viper", "weapons", "attack", 4, target="harrier"), "NO_WEAPON_CHOSEN")
    state = run(state, npc("viper", "weapons", "attack", 4, target="harrier", weapons=("tube-a",)))
    assert state["orders"]["viper/weapons"]["weapons"] == ["tube-a"]


# --- M-WEAPONS-4: point defence ------------------------------------------------------------------


# rule: M-WEAPONS-4
def test_m_weapons_4_point_defence_shoots_at_each_of_two_torpedoes_before_they_strike() -> None:
    state = viper_launches(torpedo_run(viper=(6, 5)), "tube-a", "tube-b")  # Close: this turn
    cards = give(state, "harrier", "weapons", 2)
    state = run(state, order("harrier", "weapons", "point_defence", cards))
    # d6 2 → 2 + 2 ≥ 4: the first is shot down; d6 1 → 3 < 4: the second gets through and
    # strikes with d6 2 → 4 + 2 − 4 = 2 ≥ 2.
    state = set_rolls(state, 2, 1, 2)
    state, events = close(state)
    down, missed = one(events, "TorpedoIntercepted"), one(events, "PointDefenceMissed")
    assert (down["roll"], down["score"], down["needed"]) == (2, 4, 4)
    assert (missed["roll"], missed["score"]) == (1, 3)
    assert down["breakdown"] == {"value": [["cards", 2]], "d6": 2}
    struck = one(events, "TorpedoStruck")
    assert struck["torpedo"] == missed["torpedo"] != down["torpedo"]
    assert [e["type"] for e in events].index("TorpedoIntercepted") < [
        e["type"] for e in events
    ].index("TorpedoStruck")
    assert hull_damage(state, "harrier") == 3


# rule: M-WEAPONS-4
def test_m_weapons_4_point_defence_is_an_order_only_for_a_ship_with_a_pdc() -> None:
    state = run(
        started(game("skirmish", modules=("weapons",))), c.SetPosition(ship="rustjaw", x=4, y=5)
    )
    refused(state, npc("rustjaw", "weapons", "point_defence", 3), "NO_PDC")
    view = station_view(state, seat_of("kestrel", "weapons"))
    assert "point_defence" in [a["id"] for a in view["me"]["actions"]]
    off = started(game("skirmish"))
    refused(off, npc("kestrel", "weapons", "point_defence", 3), "MODULE_OFF")
    view = station_view(off, seat_of("kestrel", "weapons"))
    assert "point_defence" not in [a["id"] for a in view["me"]["actions"]]


# --- M-WEAPONS-5: strikes ------------------------------------------------------------------------


def _strike_against_evasion(squares: int) -> dict[str, Any]:
    """Viper launches from `squares`; in the turn it strikes, Harrier's Pilot flies evasive 3."""
    state = viper_launches(torpedo_run(viper=(3 + squares, 5)), "tube-a", value=5)
    state, events = close(state)
    while not of_type(events, "TorpedoStruck") + of_type(events, "TorpedoMissed"):
        state = next_turn(state)
        cards = give(state, "harrier", "pilot", 3)
        state = run(state, order("harrier", "pilot", "evasive", cards))
        state = set_rolls(state, 3)
        state, events = close(state)
    return (of_type(events, "TorpedoStruck") + of_type(events, "TorpedoMissed"))[0]


# rule: M-WEAPONS-5
def test_m_weapons_5_a_torpedo_from_long_ignores_evasive_one_from_medium_does_not() -> None:
    medium = _strike_against_evasion(5)
    assert medium["score"] == 5 + 3 - (4 + 3)  # guidance + d6 − (Defence + evasive)
    assert (medium["hit"], medium["breakdown"]["ignored"]) == (False, [])
    long = _strike_against_evasion(7)
    assert long["score"] == 5 + 3 - 4
    assert long["hit"]
    assert long["breakdown"]["ignored"] == [["evasive", 3]]
    assert "Evasive does not count" in said(long)


# rule: M-WEAPONS-5
def test_m_weapons_5_a_torpedo_hits_the_hull_never_a_station() -> None:
    state = torpedo_run(viper=(6, 5))  # Harrier's shields are down: its stations can be aimed at
    aimed = npc(
        "viper",
        "weapons",
        "attack",
        5,
        target="harrier",
        target_station="weapons",
        weapons=("tube-a",),
    )
    state, events = close(set_rolls(run(state, aimed), 1))
    assert one(events, "TorpedoStruck")["damage"] == 3
    state = run(state, c.ForceAllocation(now=NOW))
    assert hull_damage(state, "harrier") == 3  # boxes 1-3: no red box, so no station is touched
    assert all(st["damage"] == 0 for st in state["ships"]["harrier"]["stations"].values())


# --- M-WEAPONS-2: grapplers ----------------------------------------------------------------------


def _grappled(score_value: int = 5) -> State:
    """Harrier's grappler (only) hits Viper at Close with a roll of 6; Viper is held."""
    state = torpedo_run(viper=(6, 5))
    cards = give(state, "harrier", "weapons", score_value)
    state = run(
        state, order("harrier", "weapons", "attack", cards, target="viper", weapons=("grappler",))
    )
    state = set_rolls(state, 6)
    state, events = close(state)
    caught = one(events, "GrappleCaught")
    assert caught["score"] == score_value + 6 - 4
    assert hull_damage(state, "viper") == 0  # a grappler deals no damage
    return next_turn(state)


# rule: M-WEAPONS-2
def test_m_weapons_2_a_held_ship_cannot_end_its_manoeuvre_beyond_close_of_the_holder() -> None:
    state = _grappled()  # hold of 7
    state = run(state, npc("viper", "pilot", "manoeuvre", 6, x=12, y=5))
    state, events = close(state)
    assert one(events, "GrappleHeld")["value"] == 6
    pulled = one(events, "GrapplePulled")
    assert pulled["to"] == [7, 5]  # 4 squares from Harrier at (3, 5): still Close
    view = station_view(state, seat_of("harrier", "pilot"))
    assert view["weapons"]["grapples"][0]["target"] == "viper"


# rule: M-WEAPONS-2
def test_m_weapons_2_a_manoeuvre_beating_the_hits_score_breaks_free() -> None:
    state = _grappled(score_value=2)  # hold of 4
    state = run(state, npc("viper", "pilot", "manoeuvre", 5, x=11, y=5))
    state, events = close(state)
    assert one(events, "GrappleBroken")["value"] == 5
    assert (state["ships"]["viper"]["x"], state["grapples"]) == (11, [])


# rule: M-WEAPONS-2
def test_m_weapons_2_the_holders_weapons_releases_with_an_order_and_no_cards() -> None:
    state = _grappled()
    state = run(state, order("harrier", "weapons", "release"))
    state = run(state, npc("viper", "pilot", "manoeuvre", 3, x=9, y=5))
    state, events = close(state)
    assert one(events, "GrappleReleased")["target"] == "viper"
    assert (state["ships"]["viper"]["x"], state["grapples"]) == (9, [])
    refused(next_turn(state), order("harrier", "weapons", "release"), "NOT_HOLDING")


# rule: M-WEAPONS-2
def test_m_weapons_2_a_held_ships_pilot_sees_why_it_cannot_move_away() -> None:
    state = torpedo_run(viper=(6, 5))
    state = run(
        state, npc("viper", "weapons", "attack", 5, target="harrier", weapons=("grappler",))
    )
    state = set_rolls(state, 6)
    state, _ = close(state)
    me = station_view(state, seat_of("harrier", "pilot"))["me"]
    assert [(g["holder_name"], g["score"]) for g in me["weapons"]["held_by"]] == [("Viper", 7)]


# rule: M-WEAPONS-2
def test_m_weapons_2_a_hold_ends_when_either_ship_flees() -> None:
    for fled in ("viper", "harrier"):
        state, events = run_events(_grappled(), c.SetShipOut(ship=fled, out="fled"))
        assert one(events, "GrappleReleased")["target"] == "viper"
        assert state["grapples"] == []
    # A surrendered prize stays held.
    state = run(_grappled(), c.SetShipOut(ship="viper", out="surrendered"))
    assert [g["target"] for g in state["grapples"]] == ["viper"]


# --- M-WEAPONS-6: magazines ----------------------------------------------------------------------


# rule: M-WEAPONS-6
def test_m_weapons_6_an_empty_launcher_cannot_fire() -> None:
    state = torpedo_run(viper=(10, 5))
    state = run(state, c.SetMagazine(ship="harrier", weapon="launcher", count=1))
    cards = give(state, "harrier", "weapons", 3)
    launch = order("harrier", "weapons", "attack", cards, target="viper", weapons=("launcher",))
    state, events = close(run(state, launch))
    assert one(events, "TorpedoLaunched")["loaded"] == 0
    state = next_turn(state)
    cards = give(state, "harrier", "weapons", 3)
    launch = order("harrier", "weapons", "attack", cards, target="viper", weapons=("launcher",))
    refused(state, launch, "LAUNCHER_EMPTY")
    # Firing "everything" leaves the empty launcher out rather than refusing the guns.
    state = place(state, "viper", 6, 5)
    everything = order("harrier", "weapons", "attack", cards, target="viper")
    assert "launcher" not in apply(state, everything)[0]["orders"]["harrier/weapons"]["weapons"]


# rule: M-WEAPONS-6
def test_m_weapons_6_the_gm_sets_a_count_only_on_a_launcher_and_within_limits() -> None:
    state = torpedo_run()
    refused(state, c.SetMagazine(ship="harrier", weapon="rail-gun", count=2), "NOT_A_LAUNCHER")
    refused(state, c.SetMagazine(ship="harrier", weapon="launcher", count=100), "BAD_VALUE")
    refused(state, c.SetMagazine(ship="harrier", weapon="nope", count=1), "NO_SUCH_WEAPON")
    refused(
        state,
        c.SetMagazine(ship="harrier", weapon="launcher", count=1, actor=seat_actor()),
        "GM_ONLY",
    )
    state, events = run_events(state, c.SetMagazine(ship="harrier", weapon="launcher", count=9))
    assert (one(events, "MagazineSet")["loaded"], loaded(state, "harrier", "launcher")) == (9, 9)


def seat_actor() -> c.Actor:
    return c.Actor.for_seat(seat_of("harrier", "weapons"))


# rule: M-WEAPONS-6
def test_m_weapons_6_downtime_reloads_launchers_and_ends_torpedoes_in_flight() -> None:
    state = viper_launches(torpedo_run(viper=(10, 5)), "tube-a", "tube-b")
    state, _ = close(state)
    assert (loaded(state, "viper", "tube-a"), len(state["torpedoes"])) == (1, 2)
    state, events = run_events(state, c.EndCombat())
    assert [e["weapon"] for e in of_type(events, "LauncherReloaded")] == ["tube-a", "tube-b"]
    assert (loaded(state, "viper", "tube-a"), state["torpedoes"]) == (2, [])
    assert len(of_type(events, "TorpedoLost")) == 2
    # A count the GM sets in Downtime stays set: only the end of a combat reloads.
    state = run(state, c.SetMagazine(ship="viper", weapon="tube-a", count=0))
    state = run(state, c.StartTurn(now=NOW))
    assert loaded(state, "viper", "tube-a") == 0


# --- Undo and replay


# rule: M-WEAPONS-3, G-TURN-3
def test_m_weapons_undo_takes_back_a_launch_and_redoing_it_gives_the_same_torpedo() -> None:
    state = viper_launches(torpedo_run(viper=(8, 5)), "tube-a")
    resolved, events = close(state)
    assert len(resolved["torpedoes"]) == 1
    undone = run(resolved, c.UndoResolution(now=NOW))
    assert (undone["torpedoes"], loaded(undone, "viper", "tube-a")) == ([], 2)
    again, events_again = close(undone)
    assert again["torpedoes"] == resolved["torpedoes"]
    assert one(events_again, "TorpedoLaunched")["words"] == one(events, "TorpedoLaunched")["words"]


def test_m_weapons_events_name_each_launch_and_strike() -> None:
    """The after-action report (G-END-2) counts torpedoes from these event types."""
    state = viper_launches(torpedo_run(viper=(6, 5)), "tube-a")
    state, events = close(set_rolls(state, 6))
    kinds = [e["type"] for e in events]
    assert "TorpedoLaunched" in kinds and "TorpedoStruck" in kinds
    assert all(said(e) for e in events if "words" in e)


# rule: M-WEAPONS-6
def test_m_weapons_6_a_game_from_before_the_module_gets_full_launchers_when_it_is_switched_on() -> (
    None
):
    state = game("skirmish")
    for key in ("torpedoes", "grapples"):
        del state[key]
    for weapon in state["ships"]["kestrel"]["weapons"]:
        del weapon["magazine"], weapon["loaded"]
    station_view(state, seat_of("kestrel", "weapons"))  # an old game still shows
    state = run(state, c.SetModule(module="weapons", on=True))
    assert (loaded(state, "kestrel", "torpedo"), state["torpedoes"]) == (4, [])
