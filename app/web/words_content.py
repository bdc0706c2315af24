"""The content checks' messages in words (app/rules/content, the cues' and translations' checks,
the content library): what a file or an editor form gets wrong, said beside the field it names.
Part of the `engine` gettext domain (babel-engine.cfg), merged into app/web/words.py's
SENTENCES. Each sentence reads on its own after the field's name: "Hull boxes: Give a number
from 1 to 60 (not 70)."
"""

from __future__ import annotations

from app.i18n import N_

CONTENT_SENTENCES: dict[str, str | tuple[str, str]] = {
    # --- Any field ---
    "content_required": N_("Fill this in."),
    "content_unknown_field": N_("There is no field '{key}' here; allowed: {allowed}."),
    "content_not_table": N_("This must be a table, not {value}."),
    "content_not_whole_number": N_("A whole number is needed here, not {value}."),
    "content_not_between": N_("Give a number from {low} to {high} (not {value})."),
    "content_too_small": N_("Give at least {low} (not {value})."),
    "content_too_large": N_("Give at most {high} (not {value})."),
    "content_not_text": N_("Text is needed here, not {value}."),
    "content_empty": N_("This cannot be empty."),
    "content_bad_id": N_("{value} is not a valid id: use a to z, 0 to 9, - and _."),
    "content_not_a_choice": N_("{value} is not one of: {known}."),
    "content_not_bool": N_("Write true or false here, not {value}."),
    "content_not_list": N_("A list is needed here, not {value}."),
    "content_id_taken": N_("The id '{id}' is already used (number {row} of this list)."),
    "content_id_defined_twice": N_("'{id}' is already defined in {file}."),
    "content_key_too_long": N_("A key holds at most {most} characters."),
    "content_text_too_long": N_("This text has {length} characters; at most {most}."),
    "content_control_character": N_("This text holds the control character {char}."),
    # --- Ship classes, decks and characters ---
    "content_red_beyond_track": N_("Box {box} is beyond the track's {boxes} boxes."),
    "content_red_twice": N_("Box {box} is listed twice."),
    "content_no_cards": N_("A deck needs at least one card."),
    "content_medicine_in_station_deck": N_(
        "Medicine cards are for first aid: they belong in a character's Skill deck, not a "
        "Station deck."
    ),
    "content_needs_engineering": N_("A ship needs an Engineering station."),
    "content_needs_reach": N_("Give a reach: only these kinds have their own: {kinds}."),
    "content_magazine_for_torpedoes": N_("Only a torpedo launcher has a magazine."),
    "content_unknown_deck": N_("There is no deck '{deck}'; known decks: {decks}."),
    "content_card_never_played": N_(
        "No {station} order plays a '{kind}' card ({station} plays {kinds}): in this deck it can "
        "only be discarded."
    ),
    "content_deck_of_another_role": N_(
        "{deck} is a deck for {deck_role}, but this station is {station}."
    ),
    "content_deck_too_thin": N_(
        "{deck} has {count} cards, fewer than the station's hand of {hand}."
    ),
    "content_card_id_clash": N_(
        "The card id '{card}' is also made by {file}: card ids must be unique across all decks."
    ),
    "content_too_many_cards": N_("{count} cards, copies counted; at most {most}."),
    # --- Scenarios ---
    "content_hit_row_shape": N_(
        'Each row is [lowest roll, highest roll, what is hit], such as [3, 6, "pilot"].'
    ),
    "content_hit_row_gap": N_("This row starts at {low}, but the rows must go on from {expected}."),
    "content_hit_table_short": N_("The rows must cover 1 to 20 on the d20; they stop at {last}."),
    "content_zone_moves": N_("Moving two zones cannot cost less than moving one."),
    "content_too_few_ships": N_("A battle needs at least two ships; this one has {count}."),
    "content_too_many_ships": N_("A battle holds at most {most} ships; this one has {count}."),
    "content_one_side": N_("All ships are on one side: a battle needs at least two sides."),
    "content_no_such_side": N_("No ship stands on the side '{side}'; the sides here: {sides}."),
    "content_off_the_map": N_("{value} is off the map: from 0 to {most}."),
    "content_unknown_ship_class": N_(
        "There is no ship class '{ship_class}'; known: {ship_classes}."
    ),
    "content_no_shields_to_raise": N_("{ship_class} has no shields to raise."),
    # --- Zone maps ---
    "content_grid_has_no_zones": N_("A grid has no zones: choose zones as the map."),
    "content_too_few_zones": N_("A zone map needs at least two zones; this one has {count}."),
    "content_too_many_zones": N_("At most {most} zones fit a screen; this map has {count}."),
    "content_unknown_zone": N_("There is no zone '{zone}' on the map; its zones: {zones}."),
    "content_open_space_costs_nothing": N_(
        "Open space costs nothing to leave: leave the cost out."
    ),
    "content_touch_twice": N_("'{zone}' is listed twice."),
    "content_zone_touches_itself": N_("A zone cannot touch itself."),
    "content_touch_one_way": N_(
        "{zone} touches {other}, but {other} does not list {zone}: touching goes both ways."
    ),
    "content_map_not_connected": N_(
        "The map is not connected: there is no way from {start} to {cut_off}."
    ),
    # --- Cues ---
    "content_too_many_cues": N_("A scenario holds at most {most} cues; this one has {count}."),
    "content_one_trigger_of": N_("A cue has one trigger, one of: {known}."),
    "content_one_action_of": N_("An action is one of: {known}."),
    "content_trigger_not_table": N_("A trigger is a table, such as turn = 3 in braces."),
    "content_every_repeats": N_("A cue that fires every few turns repeats."),
    "content_cue_needs_action": N_("A cue needs at least one action."),
    "content_unknown_ship": N_("There is no ship '{ship}' in this scenario; its ships: {ships}."),
    "content_no_zone_map": N_("This scenario has no zone map."),
    "content_write_true": N_("Write it as true."),
    "content_message_too_long": N_("A message holds at most {most} characters."),
    "content_message_to_unknown": N_(
        "There is no ship '{ship}': send it to all, to a ship, or to a ship's station."
    ),
    "content_npc_of_players_ship": N_("'{ship}' has a players' crew, not an NPC one."),
    "content_npc_changes_nothing": N_("Set the crew quality, the automatic orders, or both."),
    "content_unknown_cue": N_("There is no cue '{cue}' in this scenario; its cues: {cues}."),
    "content_name_too_long": N_("A ship's name holds at most {most} characters."),
    "content_give_a_square": N_("This scenario is fought on squares: give x and y, not a zone."),
    "content_give_a_zone": N_("This scenario has a zone map: give a zone, not x and y."),
    "content_repeating_cue_adds_ship": N_("A repeating cue cannot bring in the same ship twice."),
    "content_ship_name_taken": N_("A ship called {name} is already in the battle."),
    "content_too_many_ships_added": N_("A battle holds at most {most} ships."),
    "content_cue_loop": N_("This cue fires itself in a loop: {cues}."),
    "content_cue_fires_itself": N_(
        "A repeating cue that places a ship in the zone it watches fires itself."
    ),
    "content_unknown_station": N_("{ship} has no station '{station}'; its stations: {stations}."),
    # --- Translations ---
    "content_translations_not_table": N_("This must be a table."),
    "content_unknown_language": N_("There is no language '{language}' here; offered: {known}."),
    "content_not_translatable": N_("This cannot be translated; what can: {known}."),
    "content_translates_nothing": N_("This translates a field the file does not have."),
    "content_translates_no_entry": N_("There is no entry '{key}' here to translate."),
    "content_translation_length": N_("A translation is text of 1 to {most} characters."),
    "content_translation_list": N_("This needs a list of {count} texts, one for each, in order."),
    # --- Files and the library ---
    "content_not_utf8": N_("This file is not UTF-8 text (byte {at})."),
    "content_not_toml": N_("This is not valid TOML: line {line}, column {column}."),
    "content_not_toml_at_end": N_("This is not valid TOML: it ends too soon."),
    "content_item_too_big": N_("This is {size} KiB; at most {most} KiB."),
    "content_library_full": N_("The library holds {count} of these; at most {most}."),
    "content_builtin_id": N_("'{id}' is a built-in's id: give the copy its own."),
    "content_zip_too_big": N_("This zip unpacks to more than {files} files or {size} KiB."),
    "content_not_a_zip": N_("This is not a zip file."),
    "content_too_many_files": N_("{count} files; at most {most} at once."),
    "content_also_in_file": N_("'{id}' is also in {file}."),
    "content_no_toml_files": N_("The import holds no .toml file."),
    "content_file_too_big": N_("This file is over {most} KiB."),
    "content_kind_of_file_unknown": N_("This is not a ship class, deck, character or scenario."),
}
# A deck's role is named as the station of that role is.
CONTENT_PARAM_KINDS = {"deck_role": "station"}
# Lists of the content's names a problem offers instead of what was typed (its ships, cues,
# decks, ship classes), each shown by the content's translations.
CONTENT_NAME_LISTS = frozenset({"ships", "cues", "decks", "ship_classes"})
