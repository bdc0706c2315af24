"""The engine's messages in words: the English source sentence of every message id, and `say`.

The rules engine speaks in messages, `{"msg": "shields_raised", "ship": "Kestrel"}` (see
app/rules/core/messages.py); this module is where they become a sentence in a reader's language.
The sentences are the `engine` gettext domain (`babel-engine.cfg` extracts them from here;
`translations/<lang>/LC_MESSAGES/engine.po` translates them). A sentence's placeholders are
its message's parameters, filled with `str.format`. Parameters are worded by their name:

* a nested message (a cause, a distance, who fired) is said in the same language;
* `phase`, `action(s)`, `band`, `status`, `quality`, `applies`, `field`, `input`, `module`,
  `setting` hold the id of one of the engine's own things and are shown by its name (`TERMS`);
  `station`, `track`, `system` and the like hold a station's label, shown by the role's name
  when it is one; `language` a language's code, shown by the language's own name;
* `ship`, `target`, `weapon(s)`, `zone(s)`, `cue`, `scenario`, `character` and the like name a
  thing the content gives (`CONTENT_PARAMS`), shown by the content's translations, else as the
  content writes it; `side` a side, by its name (app/i18n_content.py `side_name`);
* a list of `[label, value]` pairs is a sum (`cards 3 + Command 2 − jammed 1`), or for
  `changes` a list of gains and losses; any other list is its items joined by commas.

A message whose id or parameters do not fit its sentence is logged and shown as its id: a test
failure (tests/words), never a crash at the table.
"""

from __future__ import annotations

import gettext as gettext_module
import logging
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Protocol

import orjson
from jinja2 import pass_context
from jinja2.runtime import Context

from app import i18n
from app.i18n_content import content, side_name, spoken_content

from .words_content import CONTENT_NAME_LISTS, CONTENT_PARAM_KINDS, CONTENT_SENTENCES

log = logging.getLogger(__name__)


class Words(Protocol):
    """What a language gives `say`: gettext's Translations (babel's, or NullTranslations)."""

    def gettext(self, message: str, /) -> str: ...
    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...
    def pgettext(self, context: str, message: str, /) -> object: ...
    def __hash__(self) -> int: ...  # one object per language: sentences are kept by it


ENGLISH: Words = gettext_module.NullTranslations()


def N_(sentence: str) -> str:
    """Marks a sentence for extraction; translated when said."""
    return sentence


def Nn_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a sentence with plural forms, chosen by the message's `count`."""
    return singular, plural


def Np_(context: str, name: str) -> str:
    """Marks a name in a context (a phase, a band...): "Close" the range band is not "Close"
    the button of another domain, and the merged catalogue keeps them apart."""
    return name


Sentence = str | tuple[str, str]

SENTENCES: dict[str, Sentence] = {
    # --- The turn ---
    "combat_started": N_("Combat {combat} began."),
    "combat_ended": N_("Combat {combat} is over. Downtime."),
    "turn_started": N_("Turn {turn}: give your orders."),
    "turn_started_timed": N_("Turn {turn}: give your orders ({seconds} s)."),
    "all_orders_in": N_("Every station is ready."),
    "timer_paused": N_("GM paused the timer ({seconds} s left)."),
    "timer_resumed": N_("Timer running again ({seconds} s left)."),
    "timer_extended": N_("GM gave {seconds} s more."),
    "timer_expired": N_("Time is up: orders are closed."),
    "resolution_undone": N_(
        "GM took back the resolution of turn {turn}; orders are open again (timer stopped)."
    ),
    "orders_revealed": N_("Turn {turn}: orders revealed."),
    "turn_resolved": N_("Turn {turn} resolved."),
    "side_cannot_fight": N_("{side} can no longer fight ({out})."),
    "ship_out_destroyed": N_("{ship} destroyed"),
    "ship_out_fled": N_("{ship} fled"),
    "ship_out_surrendered": N_("{ship} surrendered"),
    "ship_fled": N_("{ship} fled: it is out of the fight."),
    "ship_surrendered": N_("{ship} surrendered: it is out of the fight."),
    "ship_back_in_fight": N_("{ship} is back in the fight."),
    # --- Cards and orders ---
    "cards_drawn": Nn_(
        "{station} of {ship} drew {count} card.", "{station} of {ship} drew {count} cards."
    ),
    "hand_reduced": Nn_(
        "{station} of {ship} lost {count} card to damage.",
        "{station} of {ship} lost {count} cards to damage.",
    ),
    "cards_discarded": Nn_(
        "{station} of {ship} discarded {count} card.",
        "{station} of {ship} discarded {count} cards.",
    ),
    "station_ready": N_("{station} of {ship} is ready."),
    "order_withdrawn": N_("{station} of {ship} took back its orders."),
    "order_voided": N_("{station} of {ship} could no longer carry out its order."),
    "station_of_ship": N_("{station} of {ship}"),
    "station_of_ship_overridden": N_("{station} of {ship} (overridden by {by})"),
    "order_passed": N_("{who} passed."),
    "order_gave_other": N_("{who} gave {station}'s order instead."),
    "order_plain": N_("{who}: {action}."),
    "order_valued": N_("{who}: {action} ({value})."),
    "order_at": N_("{who}: {action} → {target}."),
    "order_valued_at": N_("{who}: {action} ({value}) → {target}."),
    "ship_and_station": N_("{ship} ({station})"),
    "station_name": N_("{station}"),
    "square": N_("({x}, {y})"),
    "npc_action_rolled": N_(
        "{station} of {ship} ({quality} crew): {rating} + d6 {roll} = {value}."
    ),
    # --- Resolution ---
    "command_given": N_(
        "The Captain of {ship} drove {station} on: +{bonus} to its action this turn."
    ),
    "evasive_manoeuvre": N_("{ship} jinked and weaved: +{value} Defence until its next manoeuvre."),
    "ship_moved": N_("{ship} moved from ({from_x}, {from_y}) to ({x}, {y})."),
    "ship_moved_zone": N_("{ship} moved from {zone} to {to_zone}."),
    "ship_held": N_("{ship} could not leave {zone}: a value of {value} is not enough."),
    "hazard_damage": N_("{ship} forced its way out of {zones}: {damage} damage to the Hull."),
    "target_locked": N_("{ship} locked on: +{bonus} to its attacks this turn."),
    "ship_jammed": N_("{ship} jammed {target}: −{penalty} to its attacks this turn."),
    "shields_failed_to_rise": N_("{ship}'s shields are empty and could not be raised."),
    "shields_raised": N_("{ship} raised its shields."),
    "shields_lowered": N_("{ship} lowered its shields."),
    "shields_dropped_for_repairs": N_("{ship}'s shields dropped for repairs."),
    "station_repaired": N_(
        "Engineering of {ship} repaired {station}: {value} − (3 + {suffered} suffered) = "
        "{score} → {restored} restored."
    ),
    "shields_repaired": N_(
        "Engineering of {ship} repaired the shield generator: {value} − (3 + {suffered} "
        "suffered) = {score} → {restored} restored."
    ),
    "attack_cancelled": N_("{who} held fire: {target} is already destroyed."),
    "attack_fired": N_("{who} fired {weapons} at {target}"),
    "attack_out_of_range": N_(
        "{who} fired {weapons} at {target}: {distance} is beyond their range: miss."
    ),
    "attack_hit": N_(
        "{who} fired {weapons} at {target}: {value} + d6 {roll} − ({defence}) = {score} ≥ "
        "{needed} ({band}, {distance}): hit for {damage} damage."
    ),
    "attack_missed": N_(
        "{who} fired {weapons} at {target}: {value} + d6 {roll} − ({defence}) = {score} < "
        "{needed} ({band}, {distance}): miss."
    ),
    "attack_hit_partly": N_(
        "{who} fired {weapons} at {target}: {value} + d6 {roll} − ({defence}) = {score} ≥ "
        "{needed} ({band}, {distance}): hit for {damage} damage. Out of range: {left_out}."
    ),
    "attack_missed_partly": N_(
        "{who} fired {weapons} at {target}: {value} + d6 {roll} − ({defence}) = {score} < "
        "{needed} ({band}, {distance}): miss. Out of range: {left_out}."
    ),
    "allocation_requested": N_(
        "Engineering of {ship} may divert {most} of {damage} Hull damage ({seconds} s)."
    ),
    "damage_diverted": N_("Engineering of {ship} diverted {points} damage to {stations}."),
    "damage_not_diverted": N_("Engineering of {ship} diverted no damage."),
    "allocation_expired": N_("No word from Engineering of {ship}: all damage goes to the Hull."),
    "system_hit": N_("System hit on {ship}: d20 {roll} → {system}."),
    "system_hit_diverted": N_(
        "System hit on {ship}: d20 {roll} → {system}, {points} damage diverted there."
    ),
    # --- Damage ---
    "shields_hit": N_("{ship}'s shields absorbed {points} from {cause} ({left}/{boxes} left)."),
    "shields_failed": N_("{ship}'s shields collapsed."),
    "station_damaged": N_(
        "{station} of {ship} took {points} damage from {cause} ({left}/{boxes})."
    ),
    "station_down": N_("{station} of {ship} is down until it is repaired."),
    "red_box_filled": N_("A red box on {station} of {ship} filled."),
    "hull_hit": N_("{ship}'s Hull box {box} filled ({left}/{boxes})."),
    "red_hull_box_filled": N_("A red Hull box on {ship} filled: every station takes 1 damage."),
    "ship_destroyed": N_("{ship} was destroyed: its Hull gave out."),
    "ship_destroyed_by_gm": N_("{ship} was destroyed: the GM's ruling."),
    "system_damage_rolled": N_(
        "Damage roll for {ship}: d6 {roll} → thrust {thrust}, weapons {weapons}, ECM {ecm}, "
        "shields {shields} (factor {factor})."
    ),
    "shield_generator_hit": N_("{ship}'s shield generator took 1 damage."),
    "cause_attack": N_("{ship}'s attack"),
    "cause_enemy_fire": N_("enemy fire"),
    "cause_diverted": N_("diverted Hull damage"),
    "cause_red_box": N_("a red box on {station} of {ship} (d6 {roll})"),
    "cause_red_hull_box": N_("a red Hull box"),
    "cause_system_hit": N_("a system hit on {system}"),
    "cause_hazard": N_("the hazards of {zones}"),
    # --- Campaigns (G-CAMP-*) ---
    "evening_began": N_("Evening {number} began: {scenario}."),
    "evening_written_back": N_(
        "Evening {number} is over: its ships ({ships}) and characters ({characters}) are "
        "written back to the roster."
    ),
    "character_died_in_evening": N_("{character} died in evening {number}."),
    "character_died_in_downtime": N_("{character} died on day {day} of Downtime."),
    "downtime_started": Nn_(
        "Downtime {number}: {count} day passes.", "Downtime {number}: {count} days pass."
    ),
    "downtime_ended": N_("Downtime is over after {days} days (day {day} of the campaign)."),
    "downtime_undone": N_("The GM took back Downtime {number}, dice and all."),
    "repairs_set": N_("A day of Downtime mends {hull} Hull boxes and {station} on each station."),
    "ship_mended": N_("The yard mended {ship}: {changes} (Hull {hull}/{boxes})."),
    "recovery_rolled": N_("{character}: {how}."),
    "recovery_rest": N_("full rest, {terms} = {points}"),
    "recovery_active": N_("an active day, {terms} = {points}"),
    "recovery_serious": N_(
        "seriously wounded, only the Endurance DM counts (Endurance {endurance}): {points}"
    ),
    "recovery_care": N_("medical care by {doctor}, {terms} = {points}, divided evenly"),
    "surgery_rolled": N_("surgery by {medic}, {terms} = {total} against {needed}: Effect {effect}"),
    "late_first_aid_rolled": N_(
        "first aid by {medic} within the hour, {terms} = {total} against {needed}: Effect {effect}"
    ),
    "recovery_waiting": Nn_(
        "{character} has {count} point to place.", "{character} has {count} points to place."
    ),
    "characteristics_restored": N_("{character} recovered: {changes}; now {status}."),
    "characteristics_lost": N_("{character} grew worse: {changes}; now {status}."),
    "serious_wounds_ended": N_("{character} is no longer seriously wounded."),
    "deed_crewed": N_("Crewed {station} of {ship} in {scenario}."),
    "deed_orders": Nn_(
        "Combat {combat}: {count} order, the best: {best}",
        "Combat {combat}: {count} orders, the best: {best}",
    ),
    "deed_no_best": N_("none with a value"),
    "deed_hits": Nn_(
        "Landed {count} hit for {damage} damage.", "Landed {count} hits for {damage} damage."
    ),
    "deed_repairs": Nn_("Repaired {count} box.", "Repaired {count} boxes."),
    "deed_first_aid": Nn_("Gave first aid {count} time.", "Gave first aid {count} times."),
    "roster_taken": Nn_(
        "The campaign's roster came aboard: {ships}; {count} character as they stand.",
        "The campaign's roster came aboard: {ships}; {count} characters as they stand.",
    ),
    "crew_moved_aboard": N_("{crew} now crews {station} of {ship}."),
    # The campaign's refusals.
    "not_in_roster": N_("'{character}' is not in this campaign's roster."),
    "no_such_roster_ship": N_("There is no ship called '{ship}' in this campaign's roster."),
    "evening_running": N_(
        "Evening {number} of this campaign is still running: write it back before another begins."
    ),
    "no_evening_running": N_("That game is not this campaign's running evening."),
    "downtime_running": N_("Downtime is still running: place every point first."),
    "no_downtime": N_("There is no Downtime running."),
    "bad_days": N_("Downtime lasts 1 to {most} days."),
    "bad_roster": N_("The roster's {part} cannot be read."),
    "bad_plan": N_("A plan names only care, doctor and first aid."),
    "bad_care": N_("Choose full rest, an active life, medical care or surgery."),
    "no_doctor": N_("{character} needs a doctor for that."),
    "doctor_unfit": N_("{character} cannot treat anyone now."),
    "needs_surgery": N_("{character} is seriously wounded: surgery comes before medical care."),
    "dead_have_no_downtime": N_("{character} is dead: the dead have no Downtime."),
    "not_your_character": N_("Only {character}'s player (or the GM) places their points."),
    "nothing_to_place": N_("{character} has no points waiting to be placed."),
    "above_maximum": N_("{field} has room for at most {most} more."),
    "place_every_point": Nn_("Place exactly {count} point.", "Place exactly {count} points."),
    "no_downtime_to_undo": N_("There is no Downtime to take back (the next evening began)."),
    "bad_repairs": N_("A day mends 0 to {most} boxes."),
    "campaign_server_only": N_("Only the server starts and ends a campaign's evening."),
    "roster_at_opening": N_("A roster comes aboard only as a battle opens."),
    "bad_roster_value": N_("A roster's value is 0 to {most}."),
    "bad_roster_count": N_("The roster's '{key}' fits no part of this ship."),
    "no_such_campaign": N_("There is no such campaign on this server."),
    "no_such_evening": N_("Evening {number} has no report kept."),
    "not_a_campaign_game": N_("This game is no running evening of a campaign."),
    "evening_needs_downtime": N_("End the combat first: an evening is written back in Downtime."),
    "already_a_campaign": N_("This game is already an evening of a campaign."),
    "evening_already_written": N_("Evening {number} is written back already."),
    "character_claimed": N_(
        "Another phone plays this character in the campaign: ask the GM, or choose another."
    ),
    "no_such_ask": N_("There is no such request."),
    "report_unreadable": N_("This evening's kept report cannot be shown."),
    "bad_campaign_file": N_("This campaign file's {part} is not right: nothing was imported."),
    "bad_campaign_file_at": N_(
        "This campaign file's {part} at version {version} is not what the rules give: nothing was "
        "imported."
    ),
    "not_a_campaign_file": N_("This is not a campaign file (bridgecrew campaign-export)."),
    "campaign_file_newer": N_(
        "This campaign file has format version {version}, from a newer Bridge Crew; this server "
        "reads up to {reads}. Nothing was imported."
    ),
    "campaign_file_too_deep": N_(
        "This campaign file nests more than {most} levels deep: nothing was imported."
    ),
    "campaign_exists": N_("This server holds that campaign (or one of its evenings) already."),
    "campaign_evening_game_missing": N_(
        "Evening {number} of this campaign is still running and its game is not on this server: "
        "import the game first (bridgecrew import)."
    ),
    "not_your_phone_character": N_("This phone does not play that character in the campaign."),
    "campaign_gm_link_needed": N_("Only the campaign's GM opens this: use the campaign's GM link."),
    "character_asked": N_(
        "Another phone plays this character in the campaign. The GM has been asked: once they "
        "approve, tap Join again."
    ),
    # --- Crew ---
    "crew_injury_blocked": N_("{character}'s armour stopped an injury from {cause}."),
    "crew_injured": N_("{character} was hurt by {cause} ({changes}); now {status}."),
    "crew_healed": N_("{character} was treated ({cause}): {changes}; now {status}."),
    "crew_healed_nothing": N_("{character} was treated ({cause}) to no effect; still {status}."),
    "first_aid_ruled": N_("GM ruled Effect {effect}"),
    "first_aid_roll": N_(
        "{medic}: 2d6 {a}+{b} + Medicine {medicine} = {total} vs {needed}, Effect {effect}"
    ),
    "first_aid_roll_self": N_(
        "{medic} on themselves: 2d6 {a}+{b} + Medicine {medicine} − 2 = {total} vs {needed}, "
        "Effect {effect}"
    ),
    "first_aid_rolled": N_("First aid for {character}: {how}."),
    "first_aid_failed": N_("First aid for {character} did no good ({how})."),
    "position_changed": N_("{crew} moved from {station} to {to_station} of {ship}."),
    "crew_carried_off": N_("{crew} was carried off {station} of {ship}."),
    "crew_seated": N_("{crew} took {station} of {ship}."),
    "crew_unseated": N_("{crew} left {station} of {ship}."),
    # --- One table for the evening (E-EVENING-1) ---
    "battle_started": N_("The table moves on to the next battle: {scenario}."),
    "crew_stood_down": N_("{crew} has no station in this battle: their seat is freed."),
    "crew_left_roster": N_("{crew} leaves the table's roster."),
    "crew_stands_by": N_(
        "{crew} has no station in this battle: they stay on the table's roster for the next one."
    ),
    # --- The GM ---
    "modifier_for_turn": N_("GM: {value:+d} to {ship}'s {applies} ({reason}), for the turn."),
    "modifier_for_combat": N_("GM: {value:+d} to {ship}'s {applies} ({reason}), for the combat."),
    "modifier_on_station_for_turn": N_(
        "GM: {value:+d} to {ship}'s {station} ({reason}), for the turn."
    ),
    "modifier_on_station_for_combat": N_(
        "GM: {value:+d} to {ship}'s {station} ({reason}), for the combat."
    ),
    "modifier_removed": N_("GM removed a bonus or penalty."),
    "track_set": N_("GM set {ship}'s {track} to {left}/{boxes}."),
    "shields_set_on": N_("GM turned {ship}'s shields on."),
    "shields_set_off": N_("GM turned {ship}'s shields off."),
    "ship_placed": N_("GM placed {ship} at ({x}, {y})."),
    "ship_placed_in_zone": N_("GM placed {ship} in {zone}."),
    "ship_value_set": N_("GM set {ship}'s {field} to {value}."),
    "ship_renamed": N_("GM renamed {old} to {ship}."),
    "characteristic_set": N_("GM set {character}'s {field} to {value}."),
    "downtime_repaired": N_("Downtime: {ship}'s {track} repaired by {points} ({left}/{boxes})."),
    "ship_restored": N_("GM brought {ship} back into the fight."),
    "ship_added": N_("{ship} ({ship_class}) joined the {side} at {where}."),
    "message_to_all": N_("GM to all: {text}"),
    "scripted_message_to_all": N_("GM to all: {line}"),
    "red_alert_on": N_("RED ALERT."),
    "red_alert_off": N_("Red alert stood down."),
    "module_on": N_("GM switched {module} on."),
    "module_off": N_("GM switched {module} off."),
    "setting_set": N_("GM set {setting} to {value}."),
    "display_language_set": N_("GM set the projector's language to {language}."),
    # --- Cues module ---
    "cue_fired": N_("Cue {cue}: {did}."),
    "cue_fired_by_prop": N_("Cue {cue}, by a prop's signal: {did}."),
    "cue_did_add_ship": N_("{ship} joins the {side}"),
    "cue_did_message": N_("a message"),
    "cue_did_red_alert_on": N_("red alert"),
    "cue_did_red_alert_off": N_("red alert stood down"),
    "cue_did_npc": N_("{ship}'s crew changes"),
    "cue_did_place": N_("{ship} moves"),
    "cue_did_end_combat": N_("the combat ends"),
    "cue_did_sound": N_("the projector sounds the {sound}"),
    "sound_played": N_("The projector sounds the {sound}."),
    "cue_did_fire": N_("cue {cue} fires"),
    "cue_when_turn": N_("As turn {turn} begins"),
    "cue_when_every_turn": N_("Every turn"),
    "cue_when_every": N_("Every {turns} turns"),
    "cue_when_phase": N_("As {phase} begins"),
    "cue_when_hull": N_("When {ship}'s Hull is at {hull} or less"),
    "cue_when_destroyed": N_("When {ship} is destroyed"),
    "cue_when_fled": N_("When {ship} has fled"),
    "cue_when_surrendered": N_("When {ship} has surrendered"),
    "cue_when_torpedo": N_("When a torpedo strikes {ship}"),
    "cue_when_any_torpedo": N_("When a torpedo strikes any ship"),
    "cue_when_enters": N_("When {ship} enters {zone}"),
    "cue_when_any_enters": N_("When a ship enters {zone}"),
    "cue_when_gm": N_("When the GM fires it"),
    "cue_when_prop": N_("When a prop signals it"),
    # --- Weapons module ---
    "grapple_released": N_("{ship} let go of {target}."),
    "grapple_broken": N_(
        "{ship} strained at {holder}'s grapple: manoeuvre {value} beats its hold of {hold}: "
        "broke free."
    ),
    "grapple_held": N_(
        "{ship} strained at {holder}'s grapple: manoeuvre {value} does not beat its hold of {hold}."
    ),
    "grapple_pulled": N_("{holder}'s grapple held {ship} within Close: pulled back to {where}."),
    "grapple_caught": N_(
        "{holder}'s grappler caught {target}: it cannot move beyond Close of {holder} until "
        "released, or its Pilot beats {hold} with a manoeuvre."
    ),
    "grapple_came_loose": N_("{holder}'s grapple on {target} came loose."),
    "ship_weapon": N_("{ship}'s {weapon}"),
    "torpedo_of": N_("{ship}'s torpedo"),
    "torpedo_out_of_reach": N_(
        "{who} held its torpedo: {target} is {distance} away, out of reach."
    ),
    "torpedo_launcher_empty": N_("{who} is empty: no torpedo left to launch."),
    "torpedo_launched": Nn_(
        "{who} launched a torpedo at {target} ({band}, {distance}): guidance {value} = "
        "{guidance}; strikes {when}. {count} left.",
        "{who} launched a torpedo at {target} ({band}, {distance}): guidance {value} = "
        "{guidance}; strikes {when}. {count} left.",
    ),
    "torpedo_launched_head": N_("{who} launched a torpedo at {target}"),
    "strikes_this_turn": N_("this turn"),
    "strikes_next_turn": N_("next turn"),
    "strikes_in_turns": Nn_("in {count} turn", "in {count} turns"),
    "point_defence_idle": N_("{ship}'s point defence found no torpedo striking this turn."),
    "point_defence_fired": N_("{ship}'s point defence fired at {torpedo}"),
    "torpedo_shot_down": N_(
        "{ship}'s point defence fired at {torpedo}: {value} + d6 {roll} = {score} ≥ guidance "
        "{guidance}: shot down."
    ),
    "point_defence_missed": N_(
        "{ship}'s point defence fired at {torpedo}: {value} + d6 {roll} = {score} < guidance "
        "{guidance}: missed."
    ),
    "torpedo_closed_on": N_("{torpedo} closed on {target}"),
    "torpedo_struck": N_(
        "{torpedo} closed on {target}: guidance {guidance} + d6 {roll} − ({defence}) = {score} "
        "≥ {needed}: struck for {damage} damage."
    ),
    "torpedo_missed": N_(
        "{torpedo} closed on {target}: guidance {guidance} + d6 {roll} − ({defence}) = {score} "
        "< {needed}: missed."
    ),
    "torpedo_struck_from_long": N_(
        "{torpedo} closed on {target}: guidance {guidance} + d6 {roll} − ({defence}) = {score} "
        "≥ {needed} (launched from Long: Evasive does not count): struck for {damage} damage."
    ),
    "torpedo_missed_from_long": N_(
        "{torpedo} closed on {target}: guidance {guidance} + d6 {roll} − ({defence}) = {score} "
        "< {needed} (launched from Long: Evasive does not count): missed."
    ),
    "torpedo_lost_destroyed": N_("{torpedo} lost its target: {target} is destroyed."),
    "torpedo_lost_gone": N_("{torpedo} lost its target: {target} is gone."),
    "torpedo_ran_dry": N_("{torpedo} ran dry as the combat ended."),
    "launcher_reloaded": Nn_(
        "{ship} reloaded {weapon} in Downtime: {count} torpedo.",
        "{ship} reloaded {weapon} in Downtime: {count} torpedoes.",
    ),
    "magazine_set": Nn_(
        "GM: {ship}'s {weapon} now holds {count} torpedo.",
        "GM: {ship}'s {weapon} now holds {count} torpedoes.",
    ),
    # --- Distances ---
    "same_zone": N_("same zone"),
    "zones_away": Nn_("{count} zone", "{count} zones"),
    "squares_away": Nn_("{count} square", "{count} squares"),
    # --- A station's phone: why it cannot act ---
    "down_engineering": N_("Engineering is at zero: you may only repair Engineering."),
    "down_station": N_("Your station is at zero health: no cards until Engineering repairs it."),
    "down_unconscious": N_(
        "Your character is unconscious: the station is unmanned until first aid."
    ),
    "down_unconscious_others": N_(
        "Your character is unconscious: the station is unmanned until first aid. Another crew "
        "member may take it."
    ),
    "down_dead": N_("Your character is dead: the station is unmanned."),
    "down_dead_others": N_(
        "Your character is dead: the station is unmanned. Another crew member may take it."
    ),
    "down_ship_destroyed": N_("{ship} has been destroyed."),
    "down_ship_fled": N_("{ship} has fled: its crew gives no more orders."),
    "down_ship_surrendered": N_("{ship} has surrendered: its crew gives no more orders."),
    # --- Refusals (the id is the error code in lower case where one code has one sentence) ---
    "action_not_for_station": N_("{station} cannot do that. It can: {actions}."),
    "station_has_no_actions": N_("{station} cannot do that. It can do nothing."),
    "already_overridden": N_("Another station already gives {station}'s order this turn."),
    "bad_action_value": N_("An action value must be between 0 and {most}."),
    "bad_allocation": N_("{station} has only {left} health left to take damage."),
    "negative_allocation": N_("Damage diverted to a station cannot be negative."),
    "bad_armour": N_("Armour is between 0 and 20."),
    "bad_characteristic": N_("{field} is between 0 and {most}."),
    "bad_characteristic_field": N_("Set strength, dexterity, endurance or armour."),
    "bad_crew": N_("A ship is crewed by 'npc' or 'players'."),
    "bad_effect": N_("An Effect is between 0 and 12."),
    "bad_extension": N_("Extend by 1 to {most} seconds."),
    "bad_magazine": N_("A magazine holds 0 to {most} torpedoes."),
    "bad_message": N_("A message is 1 to 280 characters."),
    "bad_modifier": N_("A bonus applies to one of: {known}."),
    "bad_display_language": N_("The projector's language is a code such as en or de."),
    "bad_modifier_lasting": N_("A bonus lasts for the 'turn' or the whole 'combat'."),
    "bad_modifier_value": N_("A bonus or penalty is between −20 and +20, and not 0."),
    "bad_out_reason": N_("A ship leaves the fight as 'fled' or 'surrendered' (or '')."),
    "bad_repair_points": N_("Repair at least 1 point."),
    "bad_ship_value": N_("Set 'defence' (0–20) or 'name' (1–60 characters)."),
    "bad_side": N_("A side is a short lower-case word, like 'players' or 'raiders'."),
    "bad_timer": N_("A turn timer is between 0 (none) and {most} seconds."),
    "bad_track_damage": N_("Damage on that track is between 0 and {most}."),
    "card_in_order": N_("{card} is part of your order: take the order back before discarding it."),
    "card_not_in_hand": N_("One of those cards is not in your hand."),
    "card_wrong_kind": N_("{card} cannot be played for {action}."),
    "cards_or_value": N_("Give either cards or a value, not both."),
    "cards_required": N_("Players give orders by playing cards."),
    "character_dead": N_("{character} is beyond first aid."),
    "character_taken": N_("{character} is already at a station."),
    "command_not_object": N_("A command must be a JSON object."),
    "command_own_station": N_("A command helps another station, not your own."),
    "crew_cannot_move": N_("Your character cannot move: they are unconscious."),
    "crew_incapacitated": N_("Your character cannot act: they are unconscious."),
    "deadline_not_due": N_("That deadline has not passed yet."),
    "discard_needs_station": N_("Name the ship and the station whose cards are discarded."),
    "discard_own_hand_only": N_("You can only discard from your own hand."),
    "divert_engineering_only": N_("Only this ship's Engineering can divert its damage."),
    "duplicate_card": N_("Each card can be played only once."),
    "duplicate_card_discarded": N_("Each card can be discarded only once."),
    "duplicate_weapon": N_("Each weapon can fire once per attack."),
    "engineering_repair_only": N_(
        "Engineering is at zero: the only thing it can do is repair Engineering itself."
    ),
    "field_missing": N_("{command} needs the field '{field}'."),
    "field_not_bool": N_("The field '{field}' must be true or false."),
    "field_not_list": N_("The field '{field}' must be a list."),
    "field_not_number": N_("The field '{field}' must be a number."),
    "field_not_object": N_("The field '{field}' must be an object."),
    "field_not_text": N_("The field '{field}' must be text of at most {most} characters."),
    "field_not_whole_number": N_("The field '{field}' must be a whole number."),
    "field_unreadable": N_("The field '{field}' cannot be read."),
    "field_wrong_type": N_("The field '{field}' has the wrong type."),
    "gm_only": N_("Only the GM can do that."),
    "grapples_module_off": N_("Grapples need the weapons module."),
    "holds_no_ship": N_("{ship} holds no ship with a grappler."),
    "hull_must_take_one": N_(
        "At most {most} of {damage} damage can be diverted: 1 stays on the Hull."
    ),
    "launcher_empty": N_("{weapon} has no torpedoes left; launchers reload in Downtime."),
    "magazines_module_off": N_("Magazines count only with the weapons module on."),
    "medic_at_station": N_("{character} is manning a station and cannot give first aid."),
    "medic_incapacitated": N_("{character} cannot give first aid now."),
    "name_taken": N_("There is already a ship called {ship}."),
    "no_allocation_pending": N_("There is no damage waiting to be allocated there."),
    "no_cards": N_("Play at least one card for {action}."),
    "no_cards_needed": N_("{action} costs no cards; play none."),
    "no_cards_to_discard": N_("Choose at least one card to discard."),
    "no_combat_to_end": N_("There is no combat to end."),
    "battle_needs_downtime": N_("End the combat first: the table moves on only in Downtime."),
    "battle_needs_server": N_(
        "The next battle ({scenario}) is started from the GM's Evening panel, not as a command."
    ),
    "nothing_to_fight": N_(
        "{side} has no ship left that can fight: restore or add one before the next combat."
    ),
    "no_destination_square": N_("Choose a square to move to."),
    "no_destination_zone": N_("Tap a zone to move to."),
    "no_medic": N_("Name the medic who rolls, or give the Effect yourself."),
    "no_npc_waiting": N_("Every NPC station has its order for this turn."),
    "no_order": N_("There is no order to take back."),
    "no_pdc": N_("{ship} has no point-defence cannon."),
    "no_reason": N_("Say why: the reason shows in the dice breakdown."),
    "no_shields": N_("{ship} has no shield generator."),
    "no_ship_sheets": N_(
        "This game was made before ships could be added; start a new game from the lobby."
    ),
    "no_such_character": N_("There is no character called '{character}'."),
    "no_such_class": N_("There is no ship class called '{ship_class}'; known: {known}."),
    "no_such_deadline": N_("That deadline has already been dealt with."),
    "no_such_modifier": N_("That bonus or penalty no longer exists."),
    "no_such_ship": N_("There is no ship called '{ship}' in this game."),
    "no_such_station": N_("{ship} has no station called '{station}'."),
    "no_such_weapon": N_("{ship} has no weapon called '{weapon}'."),
    "no_such_zone": N_("There is no zone called '{zone}' on this map."),
    "no_target_to_attack": N_("Choose a ship to attack."),
    "no_target_to_jam": N_("Choose a ship to jam."),
    "no_target_to_command": N_("Choose the station your command helps."),
    "no_target_to_release": N_("Choose which held ship to release."),
    "no_target_to_repair": N_("Choose a station (or the shields) to repair."),
    "no_timer": N_("No timer is running."),
    "no_weapons": N_("{ship} has no weapons."),
    "no_weapon_chosen": N_(
        "Tick the weapons to fire: {ship}'s launchers and grapplers fire only when chosen."
    ),
    "not_a_launcher": N_("{weapon} is not a torpedo launcher."),
    "not_an_enemy": N_("{ship} is on your side: jam an enemy ship."),
    "not_an_npc_ship": N_("{ship} has a player crew, not a Crew Quality."),
    "not_destroyed": N_("{ship} is not destroyed."),
    "not_holding": N_("{ship} does not hold {target}."),
    "not_injured": N_("{character} is not injured."),
    "not_paused": N_("The timer is not paused."),
    "not_seated": N_("You are not at a station."),
    "not_seated_no_hand": N_("You hold no station in this game, so you have no hand."),
    "nothing_to_repair": N_("That is not damaged."),
    "nothing_to_undo": N_("There is no resolution to take back this turn."),
    "off_map": N_("That square is off the map."),
    "orders_own_station_only": N_("You can only give orders for your own station."),
    "other_ship": N_("You can only move to a station of your own ship."),
    "override_command": N_("Nobody can give the Captain's Command for them."),
    "override_module_off": N_("Giving another station's order needs the seats module (GM)."),
    "own_ship_attack": N_("You cannot attack your own ship."),
    "own_ship_jam": N_("You cannot jam your own ship."),
    "own_station": N_("Give your own station's order the usual way."),
    "point_defence_module_off": N_("Point defence needs the weapons module."),
    "same_station": N_("You are already at that station."),
    "same_zone_refused": N_("{ship} is already in {zone}."),
    "seat_taken": N_("That seat already mans a station."),
    "seats_per_address": N_(
        "Your network address already holds {held} stations of this game, the most one address "
        "may hold. Ask the GM to free the stations nobody uses."
    ),
    "seats_module_off": N_("Moving about the bridge needs the seats module (GM)."),
    "setting_out_of_range": N_("{setting} is between {least} and {most}."),
    "setting_true_or_false": N_("{setting} is true or false."),
    "shields_already_down": N_("The shields are already down."),
    "shields_already_up": N_("The shields are already up."),
    "shields_block_targeting": N_("{ship}'s shields are up: its stations cannot be targeted."),
    "shields_empty": N_("The shields have no points left and cannot be raised."),
    "ship_already_destroyed": N_("{ship} is already destroyed."),
    "ship_destroyed_refused": N_("{ship} has been destroyed."),
    "not_a_players_ship": N_("{ship} is crewed by the GM: players sit only on their own ships."),
    "not_on_roster": N_("That player is not on the table's roster."),
    "ship_out_fled_refused": N_("{ship} has fled: it is out of the fight."),
    "ship_out_surrendered_refused": N_("{ship} has surrendered: it is out of the fight."),
    "too_many_ships": N_("A game holds at most {most} ships, as many as the projector shows."),
    "square_too_far": N_("That square is {steps} away; your cards give {value}."),
    "squares_choose_square": N_("This battle is on squares: choose a square to move to."),
    "squares_give_square": N_("This battle is on squares: give the ship a square."),
    "station_down_no_cards": N_("{station} is down: it can play no cards."),
    "station_down_refused": N_(
        "{station} is down: it can play no cards until Engineering repairs it."
    ),
    "station_empty": N_("{station} of {ship} is not manned."),
    "station_manned": N_(
        "{station} is manned and working: only an unmanned or down station can be overridden."
    ),
    "station_taken": N_("{station} of {ship} is already manned."),
    "target_destroyed": N_("{ship} has already been destroyed."),
    "unknown_command": N_("There is no command called '{command}'."),
    "unknown_cue": N_("There is no cue called '{cue}'."),
    "cue_spent": N_("Cue {cue} has fired already: arm it again first."),
    "cue_skipped": N_("Cue {cue} is skipped: arm it again first."),
    "cue_failed": N_("Cue {cue} could not fire: arm it again first."),
    "cue_armed": N_("Cue {cue} is armed already."),
    "cue_loop": N_("Cue {cue} is already firing: a cue cannot fire itself."),
    "cue_not_props": N_(
        "Cue {cue} is not one a prop may fire: only the GM fires it, or its trigger."
    ),
    "unknown_module": N_("There is no module called '{module}'; known: {known}."),
    "unknown_sound": N_("The projector has no sound called '{sound}'; known: {known}."),
    "unknown_quality": N_("There is no Crew Quality called '{quality}'; known: {known}."),
    "unknown_setting": N_("There is no setting called '{setting}'."),
    "wrong_phase": N_("That cannot be done during {phase}."),
    "zone_map_give_zone": N_("This battle is on a zone map: give the ship a zone."),
    "zone_map_place": N_("This battle is fought across zones: place the ship in a zone."),
    "zone_needs_value": N_("{zone} needs a value of {need}; your cards give {value}."),
    "zone_too_far": N_("{zone} is {steps} zones away; a manoeuvre moves one or two."),
    # --- The server's refusals (app/service, app/web): the code stays, the sentence is read ---
    "bad_command_id": N_("A command needs a command_id of 1 to 200 characters."),
    "bad_csrf": N_("This page is out of date: reload it and try again."),
    "bad_seed": N_("A seed is a whole number from 0 to {most}."),
    "command_id_reused": N_("That command id was already used for another command; send a new id."),
    "content_kind_unknown": N_("There is no kind of content called '{kind}'."),
    "content_problem": N_("{file}, {field}: {problem}"),
    "content_saved_since": N_(
        "'{id}' was saved by someone else since you opened it (it is now version {version}): "
        "open it again to see their changes."
    ),
    "cross_site": N_("This page is not one of the game's own."),
    "file_too_deep": N_("{file} nests more than {most} levels deep: nothing was imported."),
    "form_field_clash": N_(
        "The form gives {field} both as a value and as a group of fields: reload it and try again."
    ),
    "game_gone": N_(
        "This game was deleted: nobody had changed it for a long time. Ask the GM for a new one."
    ),
    "gm_link_needed": N_(
        "Only a GM of this game can open this. On the GM's dashboard, 'GM link for another "
        "device' shows this game's GM link and its QR code: scan it or open the link here."
    ),
    "gm_link_wrong": N_("That GM link is not valid for this game."),
    "gm_token_wrong": N_("That is not this game's GM token."),
    "name_invisible": N_(
        "A name may not contain invisible or control characters (this one has {char}); "
        "type it again."
    ),
    "name_length": N_("A name is 1 to {most} characters."),
    "name_not_visible": N_("A name needs at least one visible character."),
    "no_free_join_code": N_("Could not find a free join code; try again."),
    "no_game_with_code": N_(
        "There is no game with the code {code}. Check the code on the projector."
    ),
    "no_such_command": N_("There is no command called '{command}'."),
    "no_such_content": N_("There is no {kind} '{id}' in the content library."),
    "no_such_game": N_("There is no such game."),
    "no_such_page": N_("There is no such page."),
    "no_such_scenario": N_("There is no scenario called '{scenario}'; known: {known}."),
    "no_such_seat": N_("That seat does not exist."),
    "no_such_seat_or_freed": N_("That seat does not exist or was already freed."),
    "no_such_station_here": N_("There is no station {ship}/{station} in this game."),
    "no_seat_from_address": N_("No seat of this game is held from that address."),
    "not_a_number": N_("{input} must be a number from {low} to {high}."),
    "not_a_whole_number": N_("{input} must be a whole number from {low} to {high}."),
    "not_this_game_seat": N_("A seat can only act in its own game."),
    "not_this_game_token": N_("That token belongs to another game: open the game it was made for."),
    "not_your_seat": N_("A seat can only free itself."),
    "not_your_ship": N_("You can only give orders aboard your own ship."),
    "not_your_station": N_("You can only give orders for your own station."),
    "organiser_key_needed": N_(
        "The content editor needs the organiser key, which the server printed when it started "
        "(BRIDGECREW_ORGANISER_KEY sets it). A game's GM link does not open it."
    ),
    "organiser_key_wrong": N_("That is not this server's organiser key."),
    "phone_holds_no_seat": N_("This phone holds no seat in this game."),
    "request_malformed": N_("The request is not well formed."),
    "request_refused": N_("The request was refused."),
    "request_too_deep": N_("A request may nest at most {most} levels deep."),
    "request_too_large": N_("A request may carry at most {limit} bytes."),
    "request_too_slow": N_("A request's body must arrive within {seconds} s."),
    "report_not_ready": N_("The after-action report opens when the GM ends the combat."),
    "report_during_combat": N_(
        "Combat {n} is being fought: the report opens again when the GM ends it."
    ),
    "send_bearer_token": N_("Use the header Authorization: Bearer <token>."),
    "send_seat_or_gm_token": N_("Send your seat or GM token (Authorization: Bearer <token>)."),
    "stale_version": N_(
        "The game has moved on (version {version}, you had {expected}); look again and retry."
    ),
    "nobody_at_station": N_("Nobody holds that station."),
    "tap_a_square": N_("Tap a square on the map."),
    "tap_your_station": N_("Tap the station you will crew."),
    "token_not_for_game": N_(
        "That token does not open this game (wrong game, or the seat was freed)."
    ),
    "too_many_codes": N_(
        "Too many unknown game codes were tried from this network. Wait {seconds} s, then check "
        "the code on the projector and try again."
    ),
    "too_many_requests": N_(
        "Too many requests: at most {burst} at once and {rate} a second after that. "
        "Wait {seconds} s and try again."
    ),
    "value_not_storable": N_("A value in this request cannot be stored; change it."),
    "database_unavailable": N_("The game's database is not answering; try again in a moment."),
    "server_failed": N_("Something went wrong on the server."),
    "unprintable_text": N_("This form holds text that cannot be shown: the character {char}."),
}

SENTENCES.update(CONTENT_SENTENCES)

# The names of the engine's own things, by kind and id: `term(kind, id)` messages
# (`{"msg": "band.long"}`), and parameters of those kinds (`PARAM_KINDS`).
TERMS: dict[str, dict[str, str]] = {
    "phase": {
        "downtime": Np_("phase", "Downtime"),
        "orders": Np_("phase", "Orders"),
        "allocation": Np_("phase", "Damage allocation"),
        "turn_end": Np_("phase", "End of turn"),
    },
    "action": {
        "attack": Np_("action", "Attack"),
        "manoeuvre": Np_("action", "Manoeuvre"),
        "evasive": Np_("action", "Evasive"),
        "lock": Np_("action", "Target lock"),
        "jam": Np_("action", "Jam"),
        "repair": Np_("action", "Repair"),
        "shields_up": Np_("action", "Shields up"),
        "shields_down": Np_("action", "Shields down"),
        "point_defence": Np_("action", "Point defence"),
        "release": Np_("action", "Release grapple"),
        "command": Np_("action", "Command"),
        "pass": Np_("action", "Pass"),
    },
    "band": {
        "point_blank": Np_("band", "Point Blank"),
        "close": Np_("band", "Close"),
        "medium": Np_("band", "Medium"),
        "long": Np_("band", "Long"),
        "very_long": Np_("band", "Very Long"),
        "extreme": Np_("band", "Extreme"),
        "out_of_range": Np_("band", "Out of range"),
    },
    # A station by its role (a station with a label of its own is shown by that label), and
    # the other systems a hit or a repair can name.
    "station": {
        "weapons": Np_("station", "Weapons"),
        "engineering": Np_("station", "Engineering"),
        "pilot": Np_("station", "Pilot"),
        "comms": Np_("station", "Comms"),
        "captain": Np_("station", "Captain"),
        "hull": Np_("station", "Hull"),
        "shields": Np_("station", "shields"),
        "thrust": Np_("station", "thrust"),
        "ecm": Np_("station", "ECM"),
    },
    "status": {
        "healthy": Np_("status", "unhurt"),
        "wounded": Np_("status", "wounded"),
        "seriously_wounded": Np_("status", "seriously wounded"),
        "unconscious": Np_("status", "unconscious"),
        "dead": Np_("status", "dead"),
    },
    "sound": {
        "alarm": Np_("sound", "alarm"),
        "chime": Np_("sound", "chime"),
        "red-alert": Np_("sound", "red alert"),
        "hit-players": Np_("sound", "hit on our side"),
        "hit-enemy": Np_("sound", "hit on the enemy"),
        "destroyed": Np_("sound", "ship destroyed"),
        "turn-start": Np_("sound", "turn's start"),
    },
    "quality": {
        "basic": Np_("quality", "Basic"),
        "proficient": Np_("quality", "Proficient"),
        "talented": Np_("quality", "Talented"),
        "exceptional": Np_("quality", "Exceptional"),
    },
    "applies": {
        "attack": Np_("applies", "attacks"),
        "defence": Np_("applies", "Defence"),
        "repair": Np_("applies", "repairs"),
    },
    "field": {
        "strength": Np_("field", "Strength"),
        "dexterity": Np_("field", "Dexterity"),
        "endurance": Np_("field", "Endurance"),
        "armour": Np_("field", "Armour"),
        "defence": Np_("field", "Defence"),
        "name": Np_("field", "name"),
    },
    # The switchable modules (app/rules/modules), by the name the GM switches them by.
    "module": {
        "starmada": Np_("module", "System wear (Starmada)"),
        "syshit": Np_("module", "System hits"),
        "weapons": Np_("module", "Torpedoes and grapples"),
        "npc": Np_("module", "NPC crews"),
        "seats": Np_("module", "Moving seats"),
        "zones": Np_("module", "Zone maps"),
        "cues": Np_("module", "Cues"),
    },
    # The settings a GM may change (core/gm.py, and the modules' own).
    "setting": {
        "orders_seconds": Np_("setting", "the turn timer"),
        "allocation_seconds": Np_("setting", "the allocation timer"),
        "close_when_all_ready": Np_("setting", "reveal when all are ready"),
        "sound": Np_("setting", "the projector's sound"),
        "sound_volume": Np_("setting", "the projector's volume"),
        "display_language": Np_("setting", "the projector's language"),
        "map_width": Np_("setting", "the map's width"),
        "map_height": Np_("setting", "the map's height"),
        "zone_move_one": Np_("setting", "the value to move one zone"),
        "zone_move_two": Np_("setting", "the value to move two zones"),
        "cover_bonus": Np_("setting", "the cover bonus"),
    },
    # The numbers the screens' forms ask for, by field id (app/web/fields.py; the GM's command
    # forms name a command's field).
    "input": {
        "column": Np_("input", "A square's column"),
        "row": Np_("input", "A square's row"),
        "diverted": Np_("input", "Damage diverted to a station"),
        "seed": Np_("input", "A seed"),
        "allocations": Np_("input", "Allocations"),
        "at": Np_("input", "At"),
        "count": Np_("input", "Count"),
        "damage": Np_("input", "Damage"),
        "days": Np_("input", "Days"),
        "effect": Np_("input", "Effect"),
        "modifier": Np_("input", "Modifier"),
        "points": Np_("input", "Points"),
        "seconds": Np_("input", "Seconds"),
        "value": Np_("input", "Value"),
        "x": Np_("input", "X"),
        "y": Np_("input", "Y"),
    },
    # The engine's own terms in a dice breakdown; the GM's reasons are shown as typed.
    "label": {
        "cards": Np_("label", "cards"),
        "command": Np_("label", "Command"),
        "evasive": Np_("label", "evasive"),
        "lock": Np_("label", "lock"),
        "jammed": Np_("label", "jammed"),
        "cover": Np_("label", "cover"),
        "override": Np_("label", "override"),
        "defence": Np_("label", "Defence"),
        "guidance": Np_("label", "guidance"),
        "d6": Np_("label", "d6"),
        "crew:basic": Np_("label", "Basic crew"),
        "crew:proficient": Np_("label", "Proficient crew"),
        "crew:talented": Np_("label", "Talented crew"),
        "crew:exceptional": Np_("label", "Exceptional crew"),
        "endurance_dm": Np_("label", "Endurance DM"),
        "base": Np_("label", "base"),
        "care": Np_("label", "care"),
        "medicine": Np_("label", "Medicine"),
        "on_oneself": Np_("label", "on oneself"),
    },
}

# Which parameters name one of the engine's things, and of which kind.
PARAM_KINDS = {
    "phase": "phase",
    "sound": "sound",
    "action": "action",
    "actions": "action",
    "band": "band",
    "status": "status",
    "quality": "quality",
    "applies": "applies",
    "field": "field",
    "input": "input",
    "station": "station",
    "to_station": "station",
    "by": "station",
    "stations": "station",
    "track": "station",
    "system": "station",
    **CONTENT_PARAM_KINDS,
    "module": "module",
    "setting": "setting",
}
# Which parameters name a thing the content gives, shown by the content's translations (a
# ship's, a weapon's, a zone's, a cue's, a character's name). A player's name (`crew`) and the
# GM's own text (`text`, `reason`) are no content: they show as typed.
CONTENT_PARAMS = frozenset(
    {
        "ship", "target", "holder", "old", "ship_class",
        "weapon", "weapons", "left_out",
        "zone", "to_zone", "zones", "where",
        "cue", "scenario", "character", "medic", "card",
        "line",  # a scenario's own line, a cue's message to the crews
        *CONTENT_NAME_LISTS,
    }
)  # fmt: skip
# Lists of [characteristic, change] pairs, shown as gains and losses ("Strength −2").
CHANGES = frozenset({"changes"})
# A yes-or-no parameter (a setting switched on or off), in words rather than Python's True/False.
SWITCH = {True: Np_("switch", "on"), False: Np_("switch", "off")}


class MessageError(ValueError):
    """A message that does not fit its sentence: an unknown id or a missing parameter."""


def sentence(message: Mapping[str, Any], words: Words = ENGLISH) -> str:
    """The message in words; raises MessageError when it does not fit (the tests use this).
    Content is said in the words of the content being rendered (`speaking_content`)."""
    msg = message.get("msg")
    params = {k: v for k, v in message.items() if k != "msg"}
    if not isinstance(msg, str):
        raise MessageError(f"not a message: {message!r}")
    kind, _, id_ = msg.partition(".")
    if id_ and kind in TERMS:
        return _term(kind, id_, words)
    source = SENTENCES.get(msg)
    if source is None:
        raise MessageError(f"unknown message id {msg!r}")
    if isinstance(source, tuple):
        count = params.get("count")
        if not isinstance(count, int):
            raise MessageError(f"{msg}: a plural sentence needs a whole number 'count'")
        text = words.ngettext(source[0], source[1], count)
    else:
        text = words.gettext(source)
    shown = {name: _param(name, value, words) for name, value in params.items()}
    try:
        return text.format(**shown)
    except (KeyError, IndexError, ValueError) as error:
        raise MessageError(f"{msg}: {error!r} in {text!r}") from error


def say(message: Mapping[str, Any] | str | None, words: Words = ENGLISH) -> str:
    """The message in words, for people: one that does not fit is logged and shown as its id.
    A plain string (the web layer's own sentence, or a text stored before the engine spoke in
    messages) is shown in the catalogue's words where it has them, else as it is."""
    if message is None:
        return ""
    if isinstance(message, str):
        return words.gettext(message) if message else message
    try:
        try:
            key = orjson.dumps(message)
        except TypeError:  # not JSON, so not from the engine: said as it is, not kept
            return sentence(message, words)
        return said(key, words, _Same(spoken_content()))
    except MessageError:
        log.exception("a message that does not fit its sentence")
        return str(message.get("msg"))


class _Same:
    """The content words a sentence was said in, as a key: the same object (a game's words are
    kept per game), not equal contents, and held by the key so that its id is not reused."""

    __slots__ = ("words",)

    def __init__(self, words: object) -> None:
        self.words = words

    def __hash__(self) -> int:
        return id(self.words)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.words is self.words


@lru_cache(maxsize=4096)
def said(message: bytes, words: Words, content_words: _Same) -> str:
    """A message's sentence, kept: a log line or a reveal is said again on every screen that
    shows it, and again after each command while it stays in view. Its content's names are
    said in `content_words`, the words of the content being rendered (`speaking_content`)."""
    return sentence(orjson.loads(message), words)


def request_words(scope: Mapping[str, Any]) -> Words:
    """The language of the request being served (`scope["state"]["locale"]`, which the
    language middleware sets), else English."""
    return i18n.translations(i18n.supported(scope.get("state", {}).get("locale")) or i18n.SOURCE)


def with_text(events: list[dict[str, Any]], words: Words) -> list[dict[str, Any]]:
    """Events for the JSON API: beside its message (`words`, for scripts to branch on), each
    one's sentence as `text` in the reader's language."""
    return [{**e, "text": say(e["words"], words)} if "words" in e else e for e in events]


@pass_context
def say_filter(context: Context, message: Mapping[str, Any] | str | None) -> str:
    """`{{ event.words|say }}`: in the render's language (the `translations` the render context
    carries; inside a macro, whose context has none, the language being rendered)."""
    return say(message, _render_words(context))


@pass_context
def label_filter(context: Context, label: str) -> str:
    """`{{ name|label }}`: a name the engine gives, a dice breakdown's term or a station's role
    ("Weapons"), in the render's language; a GM's reason or a station's own label as typed."""
    return _label(str(label), _render_words(context))


def _render_words(context: Context) -> Words:
    words = context.get("translations")
    return words if words is not None else i18n.words()


def _term(kind: str, id_: str, words: Words) -> str:
    name = TERMS[kind].get(id_)
    if name is None:
        raise MessageError(f"no {kind} called {id_!r}")
    return str(words.pgettext(kind, name))


def _param(name: str, value: Any, words: Words) -> Any:
    if isinstance(value, bool):
        return str(words.pgettext("switch", SWITCH[value]))
    if isinstance(value, Mapping):
        return sentence(value, words)
    if isinstance(value, str) and name in CONTENT_PARAMS:
        return content(value, i18n.locale_of(words))
    if isinstance(value, str) and name in ("side", "sides"):
        return side_name(value, i18n.locale_of(words))
    if isinstance(value, str) and name == "language":
        return i18n.LANGUAGES.get(value, value)
    if isinstance(value, list | tuple):
        if name in CHANGES:
            return ", ".join(f"{_label(str(k), words)} {_signed(v)}" for k, v in value)
        if value and all(isinstance(item, list | tuple) and len(item) == 2 for item in value):
            return _sum(value, words)
        return ", ".join(str(_param(name, item, words)) for item in value)
    kind = PARAM_KINDS.get(name)
    if kind is not None and isinstance(value, str):
        known = TERMS[kind].get(value.lower() if kind == "station" else value)
        if known is not None:
            return str(words.pgettext(kind, known))
        if kind == "station":  # a station the ship sheet names itself
            return content(value, i18n.locale_of(words))
    return value


def _sum(terms: Any, words: Words) -> str:
    """`[["cards", 3], ["command", 2], ["jammed", -1]]` as "cards 3 + Command 2 − jammed 1"."""
    shown = []
    for index, (label, value) in enumerate(terms):
        name = _label(str(label), words)
        if index == 0:
            shown.append(f"{name} {value}")
        else:
            shown.append(f"{'+' if value >= 0 else '−'} {name} {abs(value)}")
    return " ".join(shown)


def _label(label: str, words: Words) -> str:
    for kind, key in (("label", label), ("field", label), ("station", label.lower())):
        known = TERMS[kind].get(key)
        if known is not None:
            return str(words.pgettext(kind, known))
    return label


def _signed(value: int) -> str:
    return f"+{value}" if value >= 0 else f"−{abs(value)}"
