"""Offline keyword and entity extraction on conversation-style sentences."""

from __future__ import annotations

import time

import pytest

from langmemcore.text import extract_entities, extract_keywords, normalize_keyword


def test_multi_word_noun_phrase_and_speaker_not_a_keyword() -> None:
    keywords = extract_keywords(
        "I joined an LGBTQ support group last month and it changed everything.",
        speaker="Caroline",
    )
    assert keywords[0] == "lgbtq support group"
    assert "caroline" not in keywords
    assert "month" not in keywords


@pytest.mark.parametrize(
    "text",
    [
        "Wow, that's cool!",
        "Thanks, Melanie! That's really sweet.",
        "Haha, yeah, totally! Sounds great.",
        "Hey Jon! Good to see you! How have you been?",
        "Aww, thank you so much!",
    ],
)
def test_phatic_turns_have_no_keywords(text: str) -> None:
    assert extract_keywords(text) == []


def test_charity_race_turn_keeps_phrases_and_drops_time_words() -> None:
    keywords = extract_keywords(
        "I ran a charity race for mental health last Saturday, it was so rewarding.",
        speaker="Melanie",
    )
    assert keywords[:2] == ["charity race", "mental health"]
    assert not {"saturday", "last saturday", "rewarding"} & set(keywords)


def test_class_and_activity_phrases() -> None:
    keywords = extract_keywords("I finally signed up for a pottery class with my neighbour.")
    assert "pottery class" in keywords
    assert "neighbour" in keywords


def test_evaluative_adjectives_are_trimmed() -> None:
    keywords = extract_keywords("You'd be a great counselor, your empathy is amazing!")
    assert "counselor" in keywords
    assert "great counselor" not in keywords
    assert "amazing" not in keywords


def test_descriptive_modifiers_are_kept() -> None:
    assert "transgender story" in extract_keywords("The transgender stories were inspiring.")
    assert "homeless shelter" in extract_keywords("I volunteered at a homeless shelter.")
    assert extract_keywords("We need more affordable housing.") == ["affordable housing"]
    assert extract_keywords("The pottery is affordable.") == ["pottery"]


def test_names_of_other_people_are_keywords() -> None:
    keywords = extract_keywords("I went hiking with Rob and Max near the lake.", speaker="Melanie")
    assert {"rob", "max", "hiking", "lake"} <= set(keywords)
    assert keywords.index("rob") < keywords.index("lake")


def test_vocative_addressee_is_not_a_keyword() -> None:
    keywords = extract_keywords("Thanks, Caroline! The painting is for my daughter.")
    assert "caroline" not in keywords
    assert {"painting", "daughter"} <= set(keywords)


def test_speaker_name_dropped_as_subject_kept_as_object() -> None:
    assert "melanie" not in extract_keywords(
        "Melanie painted a sunset by the lake.", speaker="Melanie"
    )
    assert "melanie" in extract_keywords(
        "My friend took a photo of Melanie at the beach.", speaker="Melanie"
    )


def test_query_names_count_as_keywords() -> None:
    keywords = extract_keywords("When did Caroline go to the LGBTQ support group?")
    assert keywords == ["caroline", "lgbtq support group"]


def test_verb_and_noun_uses_are_told_apart() -> None:
    assert "support" not in extract_keywords("I'd love to support those with similar issues.")
    assert "support group" in extract_keywords("The support group has made me feel accepted.")
    assert "work" in extract_keywords("I'm swamped with the kids & work.")
    assert "work" not in extract_keywords("I work at the animal shelter.")


def test_possessives_split_owner_and_object() -> None:
    keywords = extract_keywords("What do Melanie's kids like?")
    assert keywords == ["melanie", "kid"]


def test_activity_verbs_surface_as_keywords() -> None:
    keywords = extract_keywords("Yeah, I painted that lake sunrise last year!")
    assert keywords[0] == "lake sunrise"
    assert "paint" in keywords


def test_gerund_activities_are_keywords() -> None:
    keywords = extract_keywords("Last week we went camping at the beach and loved it.")
    assert {"camping", "beach"} <= set(keywords)
    assert "week" not in keywords


def test_generic_and_meta_nouns_are_not_keywords() -> None:
    keywords = extract_keywords("Here's a pic of the thing I made. Take a look at this!")
    assert not {"pic", "thing", "look"} & set(keywords)


def test_keywords_are_normalised_unique_and_capped() -> None:
    text = (
        "We visited the science museum, the botanical garden, the old lighthouse, the "
        "farmers market, the aquarium, the zoo, the art gallery and the harbor, and the "
        "aquarium again."
    )
    keywords = extract_keywords(text, max_keywords=5)
    assert len(keywords) == 5
    assert len(set(keywords)) == 5
    assert all(normalize_keyword(keyword) == keyword for keyword in keywords)


def test_salience_orders_names_then_phrases_then_abstract_terms() -> None:
    keywords = extract_keywords(
        "My life changed when Sara and I started a community garden with lots of support.",
        speaker="Maria",
    )
    assert keywords[0] == "sara"
    assert keywords.index("community garden") < keywords.index("support")


def test_entities_are_surface_form_names() -> None:
    entities = extract_entities("I visited New York with Caroline last summer.")
    assert entities == ["New York", "Caroline"]


def test_entities_strip_possessives_and_deduplicate() -> None:
    entities = extract_entities("Caroline's painting impressed Jon. Jon said Caroline is great.")
    assert entities == ["Caroline", "Jon"]


def test_entities_skip_months_weekdays_and_the_pronoun_i() -> None:
    assert extract_entities("I met Maria on Friday in May at the park.") == ["Maria"]


def test_sentence_initial_common_words_are_not_entities() -> None:
    assert extract_entities("Painting looks like a great outlet. Nature helps too.") == []


def test_sentence_initial_known_names_are_entities() -> None:
    assert extract_entities("Rob and I went to yoga yesterday.") == ["Rob"]


def test_multi_word_organisation_names() -> None:
    assert extract_entities("Since I lost my job at Door Dash, things have been tough.") == [
        "Door Dash"
    ]


def test_acronym_modifier_is_not_an_entity() -> None:
    assert extract_entities("The LGBTQ support group met downtown.") == []


def test_vocatives_can_be_excluded_from_entities() -> None:
    text = "Hey Mel! I met Jon at the dance studio."
    assert extract_entities(text) == ["Mel", "Jon"]
    assert extract_entities(text, include_vocatives=False) == ["Jon"]


def test_extraction_is_fast_enough_for_ingest() -> None:
    turns = [
        "Hey Caroline, since we last chatted, I ran a charity race for mental health.",
        "I'm keen on counseling or working in mental health - I'd love to support those.",
        "My friends, family and mentors are my rocks - they give me the strength to push on.",
        "Wow, that's cool!",
    ] * 50
    start = time.perf_counter()
    for turn in turns:
        extract_keywords(turn, speaker="Melanie")
    per_turn = (time.perf_counter() - start) / len(turns)
    # The ingest budget is ~20 ms per turn for everything; extraction must be a small part.
    assert per_turn < 0.002
