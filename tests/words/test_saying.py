"""The web layer words the engine's messages in the reader's language: templates
through the `say` and `label` filters, the JSON API's refusals and events through the request's
language (`scope["state"]["locale"]`, set by the language middleware)."""

from __future__ import annotations

import json
from typing import Any

from jinja2 import Environment

from app.i18n import translations
from app.web.errors import refusal
from app.web.words import label_filter, say_filter
from tests.tables import Table


def render(source: str, **context: Any) -> str:
    env = Environment(autoescape=True)
    env.filters.update(say=say_filter, label=label_filter)
    return env.from_string(source).render(**context)


def api_scope(locale: str | None) -> dict[str, Any]:
    state = {} if locale is None else {"locale": locale}
    return {"type": "http", "path": "/api/games/x/commands", "headers": [], "state": state}


def test_the_say_filter_speaks_the_renders_language_and_english_without_one() -> None:
    template = "{{ m|say }} / {{ phase|say }}"
    shown = {"m": {"msg": "shields_raised", "ship": "Kestrel"}, "phase": {"msg": "phase.orders"}}
    assert render(template, **shown) == "Kestrel raised its shields. / Orders"
    german = render(template, translations=translations("de"), **shown)
    assert german == "Kestrel hebt die Schilde. / Befehle"


def test_what_a_message_carries_is_escaped_like_any_other_text() -> None:
    shown = render("{{ m|say }}", m={"msg": "message_to_all", "text": "<b>Brace</b>"})
    assert shown == "GM to all: &lt;b&gt;Brace&lt;/b&gt;"


def test_dice_terms_the_engine_names_are_translated_and_a_gms_reason_is_shown_as_typed() -> None:
    template = "{% for name, v in terms %}{{ name|label }} {{ v }}; {% endfor %}"
    terms = [["cards", 3], ["crew:talented", 3], ["engine failure", -2]]
    assert render(template, terms=terms) == "cards 3; Talented crew 3; engine failure -2; "
    german = render(template, terms=terms, translations=translations("de"))
    assert german == "Karten 3; Talentierte Crew 3; engine failure -2; "


def test_a_stations_role_is_named_in_the_renders_language_and_its_own_label_as_it_is() -> None:
    template = "{% for label in labels %}{{ label|label }}; {% endfor %}"
    labels = ["Weapons", "Engineering", "port-gun"]
    assert render(template, labels=labels) == "Weapons; Engineering; port-gun; "
    german = render(template, labels=labels, translations=translations("de"))
    assert german == "Waffen; Technik; port-gun; "


def body(scope: dict[str, Any], words: dict[str, Any]) -> Any:
    return json.loads(bytes(refusal(scope, 409, "WRONG_PHASE", words).body))


def test_an_api_refusal_keeps_its_code_and_says_its_message_in_the_requests_language() -> None:
    words = {"msg": "wrong_phase", "phase": "orders"}
    assert body(api_scope(None), words) == {
        "code": "WRONG_PHASE",
        "message": "That cannot be done during Orders.",
    }
    assert body(api_scope("de"), words) == {
        "code": "WRONG_PHASE",
        "message": "Das geht nicht in der Phase Befehle.",
    }
    assert body(api_scope("xx"), words)["message"] == (
        "That cannot be done during Orders."
    )  # a language without a catalogue gets the English


def test_the_api_words_an_engine_refusal_and_each_events_message(client: Any) -> None:
    table = Table(client)
    weapons = table.seat("weapons")
    refused = table.command(weapons["headers"], type="SetRedAlert", on=True)
    assert refused.status_code == 403
    assert refused.json() == {"code": "GM_ONLY", "message": "Only the GM can do that."}
    answered = table.command(table.gm, type="SendMessage", text="Hail")
    (sent,) = answered.json()["events"]
    assert sent["words"] == {"msg": "message_to_all", "text": "Hail"}
    assert sent["text"] == "GM to all: Hail"
    events = client.get(f"/api/games/{table.game_id}/events", headers=table.gm).json()["events"]
    assert [e["text"] for e in events if e["type"] == "MessageSent"] == ["GM to all: Hail"]


def test_a_game_stored_before_the_engine_spoke_in_messages_shows_its_english_as_it_was() -> None:
    from app.rules import display_view
    from app.rules.core.report import build_report
    from app.web.words import say
    from tests.rules.builders import game, started

    state = started(game())
    old = {"turn": 1, "type": "ShieldsRaised", "text": "Kestrel raised its shields."}
    state["log"] = [*state["log"], old]
    assert say(display_view(state)["log"][-1]["words"]) == "Kestrel raised its shields."
    events = [{"type": "CombatStarted", "turn": 1, "combat": 1, "text": "Combat 1 began."}, old]
    (combat,) = build_report(state, events)["combats"]
    assert [say(entry["words"]) for entry in combat["log"]] == ["Kestrel raised its shields."]
