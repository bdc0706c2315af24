"""A campaign's page in German names its roster's ships and characters by the content's
translations, as the evenings' screens do (G-CAMP-1)."""

from __future__ import annotations

from app.rules import campaign as camp
from app.rules.core.crew import CHARACTERISTICS
from app.web.campaign import hull_chart
from app.web.render import render_template
from tests.rules.test_campaign import first_evening

from .screens import readable, speaking_as


def test_a_campaign_page_names_its_characters_in_the_readers_language() -> None:
    campaign, _ = first_evening({"harlan-voss": {"endurance": 5}, "amara-lind": {}})
    view = camp.campaign_view(campaign)
    with speaking_as("de"):
        page = render_template(
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
    text = readable(page)
    assert "Kommandant Harlan Voss" in text
    assert "Commander Harlan Voss" not in text
