"""Long words carry soft hyphens where their language breaks them (app/web/hyphens.py), so a
browser without a hyphenation dictionary breaks a German compound only at a hyphen."""

from app.web.hyphens import SOFT_HYPHEN, hyphenated


def test_a_german_compound_breaks_at_its_syllables() -> None:
    assert hyphenated("Schwerkraftschleuder", "de") == SOFT_HYPHEN.join(
        ["Schwer", "kraft", "schleu", "der"]
    )


def test_short_words_and_the_spaces_between_words_are_left_alone() -> None:
    assert hyphenated("Dicht schaum · Feuer 3", "de") == "Dicht schaum · Feuer 3"


def test_each_long_word_of_a_name_breaks_on_its_own() -> None:
    broken = hyphenated("Geschwindigkeitsbegrenzung und Notfallreparatur", "de")
    assert broken.replace(SOFT_HYPHEN, "") == "Geschwindigkeitsbegrenzung und Notfallreparatur"
    assert [word.count(SOFT_HYPHEN) > 1 for word in broken.split(" ")] == [True, False, True]


def test_a_language_without_a_dictionary_is_left_unchanged() -> None:
    assert hyphenated("Schwerkraftschleuder", "tlh") == "Schwerkraftschleuder"
