"""The projector's reveal names ships by a few words of their names (app/web/mapmarks.py): the
sentences a room reads in seconds, the ships' cards beside them holding the names whole."""

from __future__ import annotations

from typing import Any

from app.web.mapmarks import said_name, short_names

LONG = "Sturmkrähe der Freien Handelsgilde vom Kometenschweif Westen"


def test_a_shortened_name_does_not_end_on_an_article_or_a_preposition() -> None:
    assert said_name(LONG, 16) == "Sturmkrähe…"
    assert said_name(LONG, 23) == "Sturmkrähe der Freien…"
    assert said_name("Kestrel", 20) == "Kestrel"


def test_only_the_ships_a_message_names_are_shortened_not_the_ids_beside_them() -> None:
    event: dict[str, Any] = {
        "type": "AttackResolved",
        "ship": "sturmkraehe",
        "target": "kestrel",
        "words": {
            "msg": "attack_fired",
            "who": {"msg": "station_of", "station": "weapons", "ship": LONG},
            "target": LONG,
            "weapons": ["Torpedorohr backbord"],
        },
    }
    shown = short_names(event, 23)
    assert shown["ship"] == "sturmkraehe" and shown["target"] == "kestrel"
    assert shown["words"]["target"] == "Sturmkrähe der Freien…"
    assert shown["words"]["who"]["ship"] == "Sturmkrähe der Freien…"
    assert shown["words"]["weapons"] == ["Torpedorohr backbord"]
    assert event["words"]["target"] == LONG, "the view itself is left as it is"
