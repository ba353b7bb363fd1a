"""First-person resolution, offline note drafts and offline query decomposition."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from langmemcore.text import (
    NoteDraftText,
    QueryAnalysis,
    analyze_observation,
    analyze_query,
    normalize_keyword,
    resolve_first_person,
)

SESSION = datetime(2023, 5, 8, 13, 56)  # a Monday


@pytest.mark.parametrize(
    ("text", "resolved"),
    [
        ("I went to the park.", "Melanie went to the park."),
        ("My kids love it.", "Melanie's kids love it."),
        ("I'm swamped with work.", "Melanie is swamped with work."),
        ("I\u2019m swamped with work.", "Melanie is swamped with work."),
        ("I've been busy.", "Melanie has been busy."),
        ("I'll call you.", "Melanie will call you."),
        ("I'd love to go.", "Melanie would love to go."),
        ("I'd never seen it.", "Melanie had never seen it."),
        ("I am so happy.", "Melanie is so happy."),
        ("I have a dog.", "Melanie has a dog."),
        ("I don't know.", "Melanie doesn't know."),
        ("I love painting.", "Melanie loves painting."),
        ("I really enjoy pottery.", "Melanie really enjoys pottery."),
        ("I watch the kids.", "Melanie watches the kids."),
        ("I read a book yesterday.", "Melanie read a book yesterday."),
        ("It reminds me of home.", "It reminds Melanie of home."),
        ("I made it myself.", "Melanie made it themselves."),
        ("That bowl is mine.", "That bowl is Melanie's."),
        ("She is a friend of mine.", "She is a friend of Melanie's."),
    ],
)
def test_resolve_first_person(text: str, resolved: str) -> None:
    assert resolve_first_person(text, "Melanie") == resolved


@pytest.mark.parametrize(
    ("text", "resolved"),
    [
        # subject-verb agreement after the name
        ("I live in a tiny flat.", "Tomas lives in a tiny flat."),
        ("I go running on Sundays.", "Tomas goes running on Sundays."),
        ("I do yoga.", "Tomas does yoga."),
        ("I have two cats.", "Tomas has two cats."),
        ("I am a nurse.", "Tomas is a nurse."),
        ("I can swim.", "Tomas can swim."),
        ("I should call her.", "Tomas should call her."),
        ("I usually cook at home.", "Tomas usually cooks at home."),
        ("I finally fix bikes for a living.", "Tomas finally fixes bikes for a living."),
        ("I fly to Porto tomorrow.", "Tomas flies to Porto tomorrow."),
        ("I swept the floor.", "Tomas swept the floor."),
        ("I haven't seen it.", "Tomas hasn't seen it."),
        # the name once, then the neutral pronoun
        ("I started my new job.", "Tomas started their new job."),
        ("I think I should go.", "Tomas thinks they should go."),
        ("I'm sure I'll love it.", "Tomas is sure they will love it."),
        ("I finally got it and I was thrilled.", "Tomas finally got it and they were thrilled."),
        ("I want you to call me.", "Tomas wants you to call them."),
        ("I made my own bread myself.", "Tomas made their own bread themselves."),
        ("I know that bike is mine.", "Tomas knows that bike is theirs."),
        # each sentence names the speaker again
        ("I moved. I love my flat.", "Tomas moved. Tomas loves their flat."),
        # another possible referent: the name again, never an ambiguous pronoun
        (
            "I took the kids to the park and I loved it.",
            "Tomas took the kids to the park and Tomas loved it.",
        ),
        ("My sister and I went to Sintra.", "Tomas's sister and Tomas went to Sintra."),
        ("I told my mom that I was leaving.", "Tomas told their mom that Tomas was leaving."),
        ("Jonas and I live here.", "Jonas and Tomas live here."),
        ("We went and I loved it.", "We went and Tomas loved it."),
        (
            "Pretzel, my beagle, waited for me at the finish line.",
            "Pretzel, Tomas's beagle, waited for Tomas at the finish line.",
        ),
        (
            "The physio cleared my knee, so I'm training properly.",
            "The physio cleared Tomas's knee, so Tomas is training properly.",
        ),
        ("It reminds me of my childhood.", "It reminds Tomas of Tomas's childhood."),
        # inverted questions
        ("Am I right?", "Is Tomas right?"),
        ("Do I look tired?", "Does Tomas look tired?"),
        # self-introductions do not state "X is X"
        (
            "Hi, I'm Tomas Ferreira, I'm 34 and I work as a nurse.",
            "Hi, this is Tomas Ferreira, they are 34 and they work as a nurse.",
        ),
        ("I am Tomas.", "This is Tomas."),
        ("I'm Jonas's neighbour.", "Tomas is Jonas's neighbour."),
    ],
)
def test_resolve_first_person_reads_as_english(text: str, resolved: str) -> None:
    assert resolve_first_person(text, "Tomas") == resolved


@pytest.mark.parametrize(
    "text",
    [
        "We went to Italy and our kids loved it.",
        "Hi Jon, it is in the mine shaft, i.e. underground.",
        "The gold mine was closed.",
    ],
)
def test_resolve_first_person_leaves_other_words_alone(text: str) -> None:
    assert resolve_first_person(text, "Melanie") == text


def test_resolve_first_person_without_speaker_is_identity() -> None:
    text = "I'm sure my kids will love it."
    assert resolve_first_person(text, None) == text


def test_observation_context_resolves_speaker_and_times() -> None:
    draft = analyze_observation(
        "I went to a LGBTQ support group yesterday and it was so powerful.",
        speaker="Caroline",
        event_time=SESSION,
    )
    assert draft.context == (
        "Caroline: Caroline went to a LGBTQ support group yesterday [7 May 2023] and it was "
        "so powerful. (on 8 May 2023)"
    )
    assert draft.keywords[0] == "lgbtq support group"
    assert "caroline" not in draft.keywords
    assert draft.entities == ("Caroline",)
    assert [(t.text, t.start, t.granularity) for t in draft.times] == [
        ("yesterday", date(2023, 5, 7), "day")
    ]


def test_observation_annotates_every_relative_time_in_order() -> None:
    draft = analyze_observation(
        "Last week I adopted a puppy and next month I start training.",
        speaker="Maria",
        event_time=SESSION,
    )
    assert draft.context == (
        "Maria: Last week [1-7 May 2023] Maria adopted a puppy and next month [June 2023] "
        "they start training. (on 8 May 2023)"
    )
    assert len(draft.times) == 2


def test_observation_leaves_absolute_dates_unannotated() -> None:
    draft = analyze_observation(
        "We got married on 7 May 2020.", speaker="Melanie", event_time=SESSION
    )
    assert draft.context == "Melanie: We got married on 7 May 2020. (on 8 May 2023)"
    assert draft.times[0].start == date(2020, 5, 7)


def test_observation_without_time_keeps_relative_words_unresolved() -> None:
    draft = analyze_observation("I painted it last year.", speaker="Melanie", event_time=None)
    assert draft.context == "Melanie: Melanie painted it last year."
    assert draft.times == ()


def test_observation_without_speaker_has_no_prefix() -> None:
    draft = analyze_observation("The museum opens at nine.", speaker=None, event_time=None)
    assert draft.context == "The museum opens at nine."
    assert draft.entities == ()
    assert "museum" in draft.keywords


def test_observation_entities_exclude_the_addressee_but_keep_people_mentioned() -> None:
    draft = analyze_observation(
        "Hey Caroline! I went hiking with Rob last weekend.", speaker="Melanie", event_time=SESSION
    )
    assert draft.entities == ("Melanie", "Rob")
    assert "rob" in draft.keywords
    assert "caroline" not in draft.keywords


def test_phatic_observation_has_no_keywords() -> None:
    draft = analyze_observation("Wow, that's cool!", speaker="Melanie", event_time=SESSION)
    assert draft.keywords == ()
    assert draft.context == "Melanie: Wow, that's cool! (on 8 May 2023)"


def test_note_draft_respects_max_keywords_and_is_frozen() -> None:
    draft = analyze_observation(
        "We saw the aquarium, the zoo, the science museum and the botanical garden.",
        speaker="John",
        event_time=None,
        max_keywords=2,
    )
    assert isinstance(draft, NoteDraftText)
    assert len(draft.keywords) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        draft.context = ""  # type: ignore[misc]


def test_query_decomposition_keeps_names_and_phrases() -> None:
    analysis = analyze_query("When did Caroline go to the LGBTQ support group?")
    assert isinstance(analysis, QueryAnalysis)
    assert analysis.topic == "Caroline LGBTQ support group"
    assert analysis.keywords[:2] == ("caroline", "lgbtq support group")
    assert analysis.entities == ("Caroline",)
    assert analysis.times == ()


def test_query_keywords_include_the_main_verb_when_it_carries_the_topic() -> None:
    analysis = analyze_query("What did Caroline research?")
    assert analysis.topic == "Caroline research"
    assert analysis.keywords == ("caroline", "research")


def test_query_time_words_resolve_and_leave_the_topic() -> None:
    analysis = analyze_query("What event did John volunteer at last weekend?", SESSION)
    assert analysis.topic == "event John volunteer"
    assert "weekend" not in analysis.keywords
    assert [(t.start, t.end) for t in analysis.times] == [(date(2023, 5, 6), date(2023, 5, 7))]


def test_query_without_reference_skips_relative_times() -> None:
    assert analyze_query("What did John do last weekend?").times == ()


def test_query_topic_is_short() -> None:
    analysis = analyze_query(
        "Which books, songs, movies, podcasts, paintings, recipes, games and hobbies did "
        "Melanie recommend to Caroline and Jon?"
    )
    assert 0 < len(analysis.topic.split()) <= 8


def test_query_without_content_words_falls_back_to_the_text() -> None:
    analysis = analyze_query("How?")
    assert analysis.topic == "How"
    assert analysis.keywords == ()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=120), st.sampled_from([None, "Melanie", "Jon Smith"]))
def test_analysis_never_fails_and_keywords_are_canonical(text: str, speaker: str | None) -> None:
    draft = analyze_observation(text, speaker=speaker, event_time=SESSION)
    assert all(keyword and normalize_keyword(keyword) == keyword for keyword in draft.keywords)
    assert len(set(draft.keywords)) == len(draft.keywords) <= 8
    assert draft.context.endswith("(on 8 May 2023)")
    query = analyze_query(text, SESSION)
    assert all(keyword and normalize_keyword(keyword) == keyword for keyword in query.keywords)
    assert len(query.topic.split()) <= max(8, len(text.split()))
