"""English words the engine and the content give as data, which screens show translated
(app/i18n.py `known`): listed here so that `make i18n` extracts them into the catalogue.
tests/i18n checks that this list covers what the engine and the shipped content hold."""

from app.i18n import N_

RANGE_BANDS = (
    N_("Point Blank"), N_("Close"), N_("Medium"), N_("Long"), N_("Very Long"),
    N_("Out of range"), N_("point blank"), N_("close"), N_("medium"), N_("long"), N_("very long"),
)  # fmt: skip
PHASES = (N_("Downtime"), N_("Orders"), N_("Damage allocation"), N_("End of turn"))
ACTIONS = (
    N_("Attack"), N_("Command"), N_("Evasive"), N_("Jam"), N_("Manoeuvre"), N_("Point defence"),
    N_("Release grapple"), N_("Repair"), N_("Shields down"), N_("Shields up"), N_("Target lock"),
)  # fmt: skip
CARD_KINDS = (
    N_("any"), N_("attack"), N_("command"), N_("ewar"), N_("helm"), N_("medicine"), N_("repair"),
)  # fmt: skip
SIDES = (N_("players"), N_("raiders"), N_("corsairs"))
QUALITIES = (N_("basic"), N_("proficient"), N_("talented"), N_("exceptional"))
TORPEDO_WHEN = (N_("this turn"), N_("next turn"))  # "in N turns" is the engine's sentence
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
