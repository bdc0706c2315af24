"""English words the engine and the content give as data, which screens show translated
(app/i18n.py `known`): listed here so that `make i18n` extracts them into the catalogue.
tests/i18n checks that this list covers what the engine and the shipped content hold."""

from app.i18n import N_

# A weapon's reach, by its range band's id ("very_long" shown as "very long"). The engine's own
# names of bands, phases and actions are its `engine` domain's (app/web/words.py).
WEAPON_RANGES = (N_("point blank"), N_("close"), N_("medium"), N_("long"), N_("very long"))
CARD_KINDS = (
    N_("any"), N_("attack"), N_("command"), N_("ewar"), N_("helm"), N_("medicine"), N_("repair"),
)  # fmt: skip
SIDES = (N_("players"), N_("raiders"), N_("corsairs"))
QUALITIES = (N_("basic"), N_("proficient"), N_("talented"), N_("exceptional"))
SHIP_OUT = (N_("fled"), N_("surrendered"))
# A station's label is its role's name unless the ship sheet names it (app/rules/state.py).
ROLES = (N_("Weapons"), N_("Engineering"), N_("Pilot"), N_("Comms"), N_("Captain"))
CHARACTERISTICS = (N_("STR"), N_("DEX"), N_("END"))
ERROR_TITLES = (
    N_("Not for this device"),
    N_("Not found"),
    N_("Too many tries"),
    N_("Cannot do this"),
)
