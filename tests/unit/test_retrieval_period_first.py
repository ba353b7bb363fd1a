"""A question about an aspect in a named period, or in a past situation it names by what
happened then (the days the person spoke of it): what the person said then about it first.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime

from langmemcore.analysis import analyze
from langmemcore.profiles.statement_cues import statement_aspects
from langmemcore.retrieval.state_question import (
    aspect_term,
    focus_terms,
    named_period_start,
    situation_terms,
    state_question,
)
from langmemcore.retrieval.supersession import Statement, period_first, situation_period
from langmemcore.text import TimeMention, content_stem_set
from langmemcore.text.change import announces_change


def aspect_terms_of(text: str) -> frozenset[str]:
    return frozenset(aspect_term(aspect) for aspect in statement_aspects(text))


def said(note_id: int, speaker: str, when: datetime | None, text: str) -> Statement:
    terms = content_stem_set(text) | aspect_terms_of(text)
    return Statement(note_id, frozenset({speaker.lower()}), when, terms)


MARCH_2019 = datetime(2019, 3, 16, tzinfo=UTC)
CHAT = [
    said(1, "Lucia", MARCH_2019, "Still in the warehouse in Ballymount, Marek?"),
    said(2, "Lucia", MARCH_2019, "I miss our class on Tuesdays, the new group is boring"),
    said(3, "Marek", MARCH_2019, "My shift at the warehouse starts at six"),
    said(4, "Lucia", MARCH_2019, "Me, still in the café in Phibsborough, 200 flat whites a day"),
    said(5, "Lucia", datetime(2020, 11, 28, tzinfo=UTC), "I'm at a hotel reception now"),
]
YEAR_2019 = TimeMention("2019", date(2019, 1, 1), date(2019, 12, 31), "year")


def test_the_persons_statements_of_the_period_about_the_aspect_go_first() -> None:
    focus = focus_terms("Where did Lucia work in 2019?", ("Lucia",))
    order = period_first(CHAT, focus, named=("Lucia",), since=YEAR_2019.start, until=YEAR_2019.end)
    # Lucia's two turns of 2019 naming a workplace, then the rest in their order: the
    # class (no aspect), Marek's shift (another speaker), the hotel (another period)
    assert order == [1, 4, 2, 3, 5]


def test_nothing_moves_for_a_question_naming_no_aspect_or_another_period() -> None:
    ids = [st.note_id for st in CHAT]
    chat = frozenset({"chat"})
    assert (
        period_first(CHAT, chat, named=("Lucia",), since=date(2019, 1, 1), until=date(2019, 12, 31))
        == ids
    )
    focus = focus_terms("Where did Lucia work in 2018?", ("Lucia",))
    in_2018 = period_first(
        CHAT, focus, named=("Lucia",), since=date(2018, 1, 1), until=date(2018, 12, 31)
    )
    assert in_2018 == ids


def test_a_statement_with_no_time_is_in_no_period() -> None:
    undated = [said(1, "Lucia", None, "the café job"), *CHAT[3:]]
    focus = focus_terms("Where did Lucia work in 2019?", ("Lucia",))
    order = period_first(
        undated, focus, named=("Lucia",), since=date(2019, 1, 1), until=date(2019, 12, 31)
    )
    assert order == [4, 1, 5]


def test_a_question_naming_a_period_reads_its_first_and_last_day() -> None:
    summer = TimeMention("summer 2019", date(2019, 6, 1), date(2019, 8, 31), "season")
    day = TimeMention("3 March 2018", date(2018, 3, 3), date(2018, 3, 3), "day")
    assert named_period_start((summer, YEAR_2019)) == date(2019, 1, 1)
    assert named_period_start((day, summer)) == date(2019, 6, 1)
    assert named_period_start((day,)) is None and named_period_start(()) is None
    read = state_question("Where did Lucia work in summer 2019?", (summer,), ("Lucia",))
    assert read is not None and (read.since, read.until) == (date(2019, 6, 1), date(2019, 8, 31))
    now = state_question("Where does Lucia work now?", (), ("Lucia",))
    assert now is not None and now.since is None


def test_the_people_named_beside_the_subject_name_no_aspect_asked() -> None:
    painted = focus_terms("What did Mel and her kids paint in July 2023?", ("Mel",))
    assert "aspect:family" not in painted and "kid" in painted
    lived = focus_terms("Where did Tom and his wife live in 2019?", ("Tom",))
    assert "aspect:home" in lived and "aspect:partner" not in lived
    assert "aspect:partner" in focus_terms("Who was Tom's wife in 2019?", ("Tom",))


def test_a_statement_of_the_period_a_later_change_of_the_aspect_supersedes_goes_first() -> None:
    older_text = "Come back to mine after, Camden's only ten minutes on the bus from here"
    newer_text = "I've moved, did I tell you? I left Camden, I'm in Margate now"
    speakers = frozenset({"keiko"})
    older = said(1, "Keiko", datetime(2017, 7, 8, tzinfo=UTC), older_text)
    newer = Statement(
        2,
        speakers,
        datetime(2021, 5, 15, tzinfo=UTC),
        content_stem_set(newer_text) | aspect_terms_of(newer_text),
        changes=announces_change(newer_text),
        changed=analyze(newer_text, newer_text).changed(("camden", "margate"), speakers),
    )
    swim = said(3, "Keiko", datetime(2017, 7, 8, tzinfo=UTC), "The Serpentine was freezing")
    focus = focus_terms("Which city did Keiko live in in 2017?", ("Keiko",))
    assert "aspect:home" not in older.terms and "aspect:home" in newer.terms
    year = {"since": date(2017, 1, 1), "until": date(2017, 12, 31)}
    assert period_first([swim, newer, older], focus, named=("Keiko",), **year) == [1, 3, 2]
    # the same turns with no change said: nothing ties the older to the aspect
    plain = replace(newer, changes=False, changed=frozenset())
    assert period_first([swim, plain, older], focus, named=("Keiko",), **year) == [3, 2, 1]


MAY_2016 = datetime(2016, 5, 2, tzinfo=UTC)
JUNE_2016 = datetime(2016, 6, 20, tzinfo=UTC)
CORK_CHAT = [
    said(1, "Orla", datetime(2021, 2, 1, tzinfo=UTC), "We adopted a kitten, Pixel, in Galway"),
    said(2, "Orla", MAY_2016, "Cork is grand, I'm living near the English Market"),
    said(3, "Orla", MAY_2016, "Biscuit the cat sleeps on my radiator all day"),
    said(4, "Niamh", JUNE_2016, "Come visit us in Cork when you like"),
    said(5, "Orla", JUNE_2016, "Still living in Cork, the rent went up again"),
    said(6, "Orla", datetime(2019, 9, 9, tzinfo=UTC), "I moved to Galway in the summer"),
]
CORK_QUESTION = "What was Orla's cat called when she lived in Cork?"


def test_the_situation_is_what_follows_the_last_when_while_or_during() -> None:
    assert situation_terms(CORK_QUESTION) == content_stem_set("lived Cork")
    assert situation_terms("Where was Rohan living while he prepared for UPSC?") == (
        content_stem_set("prepared UPSC")
    )
    assert situation_terms("Where does Orla live now?") == frozenset()


def test_a_past_question_naming_a_situation_carries_it_and_one_naming_a_date_does_not() -> None:
    state = state_question(CORK_QUESTION, [], ("Orla",))
    assert state is not None and not state.now
    assert state.situation == content_stem_set("lived Cork")
    dated = state_question("What cat did Orla have in 2016?", [], ("Orla",))
    assert dated is None or dated.situation == frozenset()


def test_the_period_runs_over_the_days_the_person_named_the_situation_best() -> None:
    situation = situation_terms(CORK_QUESTION)
    # notes 2 and 5 name both "live" and "Cork"; Niamh's note 4 is another speaker's
    assert situation_period(CORK_CHAT, situation, ("Orla",)) == (MAY_2016.date(), JUNE_2016.date())
    assert situation_period(CORK_CHAT, content_stem_set("Lisbon"), ("Orla",)) is None


def test_the_persons_statement_of_the_situation_about_the_aspect_goes_first() -> None:
    since, until = situation_period(CORK_CHAT, situation_terms(CORK_QUESTION), ("Orla",)) or (
        date.max,
        date.min,
    )
    order = period_first(
        CORK_CHAT, focus_terms(CORK_QUESTION, ("Orla",)), named=("Orla",), since=since, until=until
    )
    # Biscuit, said in Cork, before the kitten of 2021 that ranked above it
    assert order == [3, 1, 2, 4, 5, 6]
