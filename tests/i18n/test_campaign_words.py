"""A campaign's page in German names its roster's ships and characters by the content's
translations, as the evenings' screens do (G-CAMP-1)."""

from __future__ import annotations

from app.i18n_content import speaking_content
from app.rules import campaign as camp
from app.rules.core.crew import CHARACTERISTICS
from app.rules.core.state import State
from app.web.campaign import hull_chart
from app.web.render import render_template
from tests.rules.test_campaign import first_evening

from .screens import readable, speaking_as


def test_a_campaign_page_names_its_characters_in_the_readers_language() -> None:
    campaign, _ = first_evening({"harlan-voss": {"endurance": 5}, "amara-lind": {}})
    view = camp.campaign_view(campaign)
    with speaking_as("de"):
        page = _page(campaign, view)
    text = readable(page)
    assert "Kommandant Harlan Voss" in text
    assert "Commander Harlan Voss" not in text


def test_a_campaign_evening_names_its_winners_by_the_sides_own_words() -> None:
    """A winning side is named as the content translates it, whole ("Rote Sonne"), not its id
    capitalised ("Rote-sonne")."""
    campaign, _ = first_evening({"harlan-voss": {}})
    view = camp.campaign_view(campaign)
    # The evening's combat as the story tells a beaten side, won by a side of the scenario's own.
    view["evenings"][0]["story"]["outcomes"] = [
        {
            "battle": 1,
            "scenario": "Skirmish at the Gate",
            "combat": 1,
            "ended": True,
            "winners": ["rote-sonne"],
            "beaten": "raiders",
            "words": None,
        }
    ]
    with speaking_as("de"), speaking_content({"de": {"rote-sonne": "Rote Sonne"}}):
        page = _page(campaign, view)
    assert "Gewonnen von: Rote Sonne." in readable(page)


def _page(campaign: State, view: State) -> str:
    """The campaign's page as its GM sees it."""
    return render_template(
        "campaign.html",
        csrf="",
        projector=False,
        page_qr=None,
        error=None,
        campaign_id="c-1",
        version=1,
        view=view,
        story=camp.campaign_story(campaign, []),
        evening_games={},
        charts={ship["id"]: hull_chart(view, ship) for ship in view["ships"]},
        yours=[],
        characteristics=CHARACTERISTICS,
        is_gm=True,
    )
