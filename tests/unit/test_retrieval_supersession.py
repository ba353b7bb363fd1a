"""Supersession's pure decision: which questions ask about the present, what they are
about, and the order of the returned statements of one speaker about the same thing."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime

import numpy as np
import pytest

from langmemcore.analysis import analyze
from langmemcore.config import RetrievalConfig
from langmemcore.retrieval.state_question import (
    asks_about_before,
    asks_about_outcome,
    asks_about_present,
    asks_about_then,
    aspect_terms,
    focus_terms,
    for_settings,
    named_period_end,
    named_things,
    state_question,
)
from langmemcore.retrieval.supersession import (
    CONFLICTS,
    Statement,
    supersede,
    supersedes_when_written,
    untied_change,
)
from langmemcore.text import TimeMention, content_stem_set
from langmemcore.text.change import announces_change, states_present


def at(year: int, month: int) -> datetime:
    return datetime(year, month, 1, tzinfo=UTC)


def said(
    note_id: int,
    speaker: str,
    when: datetime | None,
    text: str,
    vector: tuple[float, ...] | None = None,
    keywords: tuple[str, ...] = (),
) -> Statement:
    unit = None if vector is None else np.asarray(vector) / np.linalg.norm(vector)
    speakers = frozenset({speaker.lower()})
    changed = analyze(text, text).changed(keywords, speakers)
    terms = content_stem_set(text)
    changes, present = announces_change(text), states_present(text)
    return Statement(note_id, speakers, when, terms, unit, changes, changed, present)


@pytest.mark.parametrize(
    "question",
    [
        "Where does Tomas work now?",
        "Which band does Ines play in?",
        "What is Lucas's hobby these days?",
        "Is Priya still dating Sam?",
        "Who's Hannah's partner?",
        "What car does Ben drive currently?",
        "What does Halina use to get to work now?",
        "Where are Hannah and Tom planning to get married?",
    ],
)
def test_questions_about_the_present(question: str) -> None:
    assert asks_about_present(question)


@pytest.mark.parametrize(
    "question",
    [
        "Where did Tomas work in 2022?",
        "What pet did Ines have before the puppy?",
        "What was Ben's diet?",
        "Where did Nadia live?",
        "What car did Ben use to drive?",
        "What would Caroline likely choose?",
        "What is the book Caroline recommended?",
        "How long ago was Melanie's trip?",
        "Caroline's birthday party",
        "Would Caroline still want to pursue counseling?",
        "What books has Melanie read?",
        "What musical artists has Melanie seen so far?",
        "Which city does Lena say she won't move to?",
        "What is the dish Omar wouldn\u2019t cook?",
        "Which car is the one Priya couldn't sell?",
    ],
)
def test_questions_not_about_the_present(question: str) -> None:
    assert not asks_about_present(question)


def mention(text: str, start: date, end: date, granularity: str) -> TimeMention:
    return TimeMention(text=text, start=start, end=end, granularity=granularity)


YEAR_2022 = mention("2022", date(2022, 1, 1), date(2022, 12, 31), "year")
DAY = mention("on 3 May 2023", date(2023, 5, 3), date(2023, 5, 3), "day")


def test_a_named_period_is_not_the_present() -> None:
    year = YEAR_2022
    assert asks_about_present("Where does Tomas work?")
    assert not asks_about_present("Where does Tomas work?", (year,))


def test_focus_terms_drop_names_and_present_markers() -> None:
    work = focus_terms("Where does Tomas work these days?", ("Tomas",))
    assert work == {"work", "aspect:work"}
    band = focus_terms("Which band does Ines play in now?", ("Ines",))
    assert band == {"band", "play", "aspect:band"}


def test_a_shared_aspect_ties_statements_sharing_no_question_word() -> None:
    assert aspect_terms("Luna is my old cat.") == {"aspect:pet"}
    cat = said(1, "Ines", at(2022, 3), "Luna is my old cat.")
    puppy = said(2, "Ines", at(2022, 9), "Luna passed away, we adopted a puppy.")
    cat, puppy = (
        replace(st, terms=st.terms | aspect_terms(t))
        for st, t in (
            (cat, "Luna is my old cat."),
            (puppy, "Luna passed away, we adopted a puppy."),
        )
    )
    focus = focus_terms("What pet does Ines have now?", ("Ines",))
    assert "pet" in focus and "aspect:pet" in focus
    assert supersede([cat, puppy], focus) == [2, 1]
    assert supersede([cat, puppy], frozenset({"pet"})) == [1, 2]


def plan(text: str, entities: tuple[str, ...] = ()) -> tuple[str, tuple[()], tuple[str, ...]]:
    return text, (), entities


def test_state_question_follows_the_settings() -> None:
    read = state_question(*plan("Where does Tomas work now?", ("Tomas",)))
    assert read is not None and read.focus == {"work", "aspect:work"} and read.named == ("Tomas",)
    on = for_settings(read, RetrievalConfig())
    assert on is not None and on.similarity == RetrievalConfig().supersession_similarity
    assert read.similarity == 1.0
    assert for_settings(read, RetrievalConfig(supersession=False)) is None
    assert for_settings(None, RetrievalConfig()) is None
    assert state_question(*plan("Where did Tomas work?")) is None


OLD_JOB = said(1, "Tomas", at(2022, 3), "I work as a pastry chef at a bakery in Porto.")
NEW_JOB = said(2, "Tomas", at(2023, 5), "I quit the bakery. I now work at a roastery in Lisbon.")
OTHER = said(3, "Tomas", at(2023, 6), "I read a great book about sourdough.")
INES = said(4, "Ines", at(2024, 1), "I moved desks, I work from home on Fridays.")


def test_a_newer_statement_announcing_a_change_moves_just_above_the_older() -> None:
    order = supersede([OLD_JOB, OTHER, NEW_JOB, INES], frozenset({"work"}), named=("Tomas",))
    assert order == [2, 1, 3, 4]


def test_notes_about_something_else_keep_their_places() -> None:
    assert supersede([OLD_JOB, OTHER, NEW_JOB], frozenset({"book"})) == [1, 3, 2]


def test_a_newer_statement_announcing_no_change_does_not_supersede() -> None:
    still = said(5, "Tomas", at(2023, 5), "I work long hours at the bakery.")
    assert supersede([OLD_JOB, still], frozenset({"work"})) == [1, 5]


def test_statements_of_another_speaker_are_not_compared() -> None:
    # Ines's newer statement shares "work" and announces a change, but is not Tomas's.
    assert supersede([OLD_JOB, INES], frozenset({"work"}), named=("Tomas",)) == [1, 4]
    # A question naming no speaker compares each speaker's own statements only.
    assert supersede([OLD_JOB, INES], frozenset({"work"})) == [1, 4]


def test_the_same_day_is_not_newer() -> None:
    same_day = said(6, "Tomas", at(2022, 3), "I quit the bakery and work at a cafe.")
    assert supersede([OLD_JOB, same_day], frozenset({"work"})) == [1, 6]


def test_the_named_speaker_by_first_name() -> None:
    old = said(1, "Tomas Silva", at(2022, 3), "I work at a bakery.")
    new = said(2, "Tomas Silva", at(2023, 5), "I left the bakery, I work at a roastery.")
    assert supersede([old, new], frozenset({"work"}), named=("Tomas",)) == [2, 1]


def test_a_conflicts_edge_supersedes_without_a_change_or_a_focus_term() -> None:
    cat = said(1, "Ines", at(2022, 3), "Luna is my old tabby.", (1.0, 0.2, 0.0))
    puppy = said(2, "Ines", at(2022, 9), "We adopted a puppy called Bolt.", (1.0, 0.0, 0.3))
    focus = frozenset({"pet"})
    assert supersede([cat, puppy], focus) == [1, 2]
    assert supersede([cat, puppy], focus, links={frozenset((1, 2)): "related_to"}) == [1, 2]
    assert supersede([cat, puppy], focus, links={frozenset((1, 2)): CONFLICTS}) == [2, 1]


def test_a_gate_edge_or_a_close_embedding_relates_a_change_to_the_older_statement() -> None:
    cat = said(1, "Ines", at(2022, 3), "Luna is my old tabby.", (1.0, 0.2, 0.0))
    gone = said(2, "Ines", at(2022, 9), "Luna passed away, we got a puppy.", (1.0, 0.0, 0.3))
    focus = frozenset({"pet"})
    assert supersede([cat, gone], focus) == [1, 2]
    assert supersede([cat, gone], focus, links={frozenset((1, 2)): "related_to"}) == [2, 1]
    similarity = float(np.dot(cat.vector, gone.vector))  # type: ignore[arg-type]
    assert supersede([cat, gone], focus, similarity=similarity) == [2, 1]
    assert supersede([cat, gone], focus, similarity=similarity + 0.01) == [1, 2]


def test_a_newer_statement_already_first_and_unknown_times_stay() -> None:
    assert supersede([NEW_JOB, OLD_JOB], frozenset({"work"})) == [2, 1]
    undated = said(5, "Tomas", None, "I quit, I work nights now.")
    assert supersede([OLD_JOB, undated, NEW_JOB], frozenset({"work"})) == [2, 1, 5]


def test_a_newest_statement_goes_above_every_statement_it_supersedes() -> None:
    first = said(7, "Tomas", at(2020, 1), "I work at a hotel.")
    order = supersede([first, OLD_JOB, OTHER, NEW_JOB], frozenset({"work"}))
    assert order == [2, 7, 1, 3]


@pytest.mark.parametrize(
    ("question", "before"),
    [
        ("What pet did Ines have before the puppy?", True),
        ("Where did Nadia use to live?", True),
        ("What did Ben drive previously?", True),
        ("Where did Tomas work?", False),
        ("Where does Tomas work now?", False),
        ("What does Halina use to get to work now?", False),
    ],
)
def test_questions_about_the_state_before_a_change(question: str, before: bool) -> None:
    assert asks_about_before(question) is before


def test_a_question_about_the_state_before_a_change_names_no_period() -> None:
    assert not asks_about_before("What did Ben drive before 2022?", (YEAR_2022,))
    before = plan("What pet did Ines have before the puppy?", ("Ines",))
    read = state_question(*before)
    assert read is not None and not read.now and "pet" in read.focus and read.until is None


@pytest.mark.parametrize(
    ("question", "then"),
    [
        ("What was Orla's cat called when she lived in Cork?", True),
        ("Where was Rohan living while he prepared for UPSC?", True),
        ("What did Hoa study during her year in Leipzig?", True),
        ("When did Orla move to Cork?", False),
        ("Where does Orla stay when she is in Cork?", False),
        ("What was Orla's cat called?", False),
    ],
)
def test_questions_about_the_state_in_a_past_situation(question: str, then: bool) -> None:
    assert asks_about_then(question) is then


def test_a_past_situation_reads_as_the_state_before_a_change() -> None:
    question = plan("What pet did Ines have when she lived in Porto?", ("Ines",))
    read = state_question(*question)
    assert read is not None and not read.now and read.until is None
    assert not asks_about_then("What pet did Ines have when she lived in Porto?", (YEAR_2022,))


def test_a_period_longer_than_a_weekend_is_a_state_a_day_an_event() -> None:
    season = mention("summer 2021", date(2021, 6, 1), date(2021, 8, 31), "season")
    weekend = mention("last weekend", date(2023, 4, 29), date(2023, 4, 30), "weekend")
    assert named_period_end((YEAR_2022,)) == date(2022, 12, 31)
    assert named_period_end((season, YEAR_2022)) == date(2022, 12, 31)
    assert named_period_end((DAY, season)) == date(2021, 8, 31)
    assert named_period_end((DAY,)) is None and named_period_end((weekend,)) is None
    assert named_period_end(()) is None


def test_state_question_reads_a_question_naming_a_period() -> None:
    year = state_question("Where did Tomas work in 2022?", (YEAR_2022,), ("Tomas",))
    assert year is not None and not year.now and year.until == date(2022, 12, 31)
    day = state_question("Who did Maria have dinner with on 3 May 2023?", (DAY,), ())
    assert day is None


def test_a_present_tense_question_about_a_period_asks_the_state_as_of_its_end() -> None:
    as_of = state_question("What is Kenji's plan as of 2022?", (YEAR_2022,), ("Kenji",))
    assert as_of is not None and as_of.now and as_of.until == date(2022, 12, 31)
    outcome = state_question("What did Wade end up planting in 2022?", (YEAR_2022,), ())
    assert outcome is not None and outcome.now


def test_of_two_statements_said_by_a_periods_end_the_present_tense_puts_the_newer_first() -> None:
    focus = frozenset({"work"})
    late = date(2023, 12, 31)
    assert supersede([OLD_JOB, OTHER, NEW_JOB], focus, until=late) == [2, 1, 3]
    assert supersede([OLD_JOB, OTHER, NEW_JOB], focus, newer_first=False, until=late) == [1, 3, 2]
    straddled = supersede([NEW_JOB, OTHER, OLD_JOB], focus, until=date(2022, 12, 31))
    assert straddled == [1, 2, 3]


def test_a_period_question_puts_first_what_was_said_by_its_end_and_superseded_after() -> None:
    focus = frozenset({"work"})
    said_then = supersede(
        [NEW_JOB, OTHER, OLD_JOB], focus, newer_first=False, until=date(2022, 12, 31)
    )
    assert said_then == [1, 2, 3]
    both_said = supersede(
        [NEW_JOB, OTHER, OLD_JOB], focus, newer_first=False, until=date(2023, 12, 31)
    )
    assert both_said == [2, 3, 1]
    none_said = supersede(
        [NEW_JOB, OTHER, OLD_JOB], focus, newer_first=False, until=date(2021, 12, 31)
    )
    assert none_said == [2, 3, 1]


def test_a_question_about_the_state_before_moves_the_older_statement_above_the_newer() -> None:
    focus = frozenset({"work"})
    assert supersede([NEW_JOB, OTHER, OLD_JOB], focus, newer_first=False) == [1, 2, 3]
    assert supersede([OLD_JOB, NEW_JOB], focus, newer_first=False) == [1, 2]
    assert supersede([NEW_JOB, OTHER], focus, newer_first=False) == [2, 3]


def test_a_change_naming_what_the_older_statement_speaks_of_supersedes_it() -> None:
    """No question word, aspect, gate edge or close embedding ties the two: the thing the
    newer statement says changed (the Vespa) is what the older one speaks of.
    """
    scooter = said(1, "Marek", at(2022, 3), "I zip around Rome on my blue Vespa.", (1.0, 0.3, 0.0))
    gone = said(
        2,
        "Marek",
        at(2023, 2),
        "Bad luck, the Vespa got stolen. I take the tram to the office.",
        (1.0, 0.0, 0.4),
        keywords=("vespa", "tram", "office"),
    )
    assert not (frozenset({"ride"}) & scooter.terms & gone.terms)
    assert supersede([scooter, gone], frozenset({"ride"})) == [2, 1]
    assert supersede([scooter, gone], frozenset({"ride"}), newer_first=False) == [1, 2]
    # The office is a keyword of the newer statement, but not in the clause of the change.
    office = said(3, "Marek", at(2022, 3), "My office is near the station.", (0.0, 1.0, 0.0))
    assert supersede([office, scooter, gone], frozenset({"ride"})) == [3, 2, 1]


def test_a_change_naming_something_else_supersedes_nothing() -> None:
    scooter = said(1, "Marek", at(2022, 3), "I zip around Rome on my blue Vespa.", (1.0, 0.3, 0.0))
    other = said(
        2,
        "Marek",
        at(2023, 2),
        "I sold the piano, the flat is too small.",
        (0.0, 1.0, 0.4),
        keywords=("piano", "flat"),
    )
    assert other.changes and other.changed
    assert supersede([scooter, other], frozenset({"ride"})) == [1, 2]


def test_an_untied_change_is_what_the_semantic_layers_aspects_could_still_tie() -> None:
    flat = said(1, "Sofia", at(2023, 3), "I'm in a shared flat in Dublin.", (1.0, 0.0, 0.0))
    moved = said(2, "Sofia", at(2024, 3), "We moved in last weekend.", (0.0, 1.0, 0.0))
    moved = replace(moved, terms=moved.terms | aspect_terms("We moved in last weekend."))
    assert "aspect:home" in moved.terms and "aspect:home" not in aspect_terms("a shared flat")
    home = frozenset({"live", "aspect:home"})
    assert untied_change([flat, moved], home, named=("Sofia",))
    # no aspect asked: the aspects could tie nothing the question asks about
    assert not untied_change([flat, moved], frozenset({"live"}), named=("Sofia",))
    # already tied (a gate edge): nothing left to read for
    linked = {frozenset((1, 2)): "related_to"}
    assert not untied_change([flat, moved], home, named=("Sofia",), links=linked)
    # once the aspect is in both, the pair supersedes
    stated = replace(flat, terms=flat.terms | {"aspect:home"})
    assert supersede([stated, moved], home, named=("Sofia",)) == [2, 1]


def test_a_statement_of_the_present_supersedes_only_for_a_question_saying_now() -> None:
    """ "I have a real flat now" announces no change, but says how things stand: for
    "Where does Farid live now?" it goes above the older flat; for "Where does Farid
    live?" (no "now": the asker expects no change) the order stays.
    """
    dorm = said(1, "Farid", at(2017, 9), "A dormitory in Harburg, a tiny room near campus.")
    flat = said(2, "Farid", at(2019, 12), "I have a real room in a flat in Altona now.")
    assert flat.present and not flat.changes
    home = frozenset({"live", "room"})
    assert supersede([dorm, flat], home, named=("Farid",), marked=True) == [2, 1]
    assert supersede([dorm, flat], home, named=("Farid",)) == [1, 2]
    # Sharing no focus term with the older statement, it supersedes nothing.
    assert supersede([dorm, flat], frozenset({"live"}), marked=True) == [1, 2]


def test_for_a_question_saying_now_a_later_word_on_the_same_thing_supersedes() -> None:
    """ "Is Imre still on the iron tablets?": the later "the nurse took me off the iron
    tablets in May, I walk a lot" announces no change the cues read and says nothing
    of the present, yet the question says "still" and both name the tablets: the later
    word goes first. Without the marker the order stays.
    """
    older = said(1, "Imre", at(2020, 2), "The GP put me on iron tablets, two a day.")
    newer = said(
        2, "Imre", at(2022, 9), "The nurse took me off the iron tablets in May, I walk a lot."
    )
    assert not newer.changes and not newer.present
    tablets = frozenset({"iron", "tablet"})
    assert tablets <= older.terms and tablets <= newer.terms
    assert supersede([older, newer], tablets, named=("Imre",), marked=True) == [2, 1]
    assert supersede([older, newer], tablets, named=("Imre",)) == [1, 2]


def test_what_a_question_names_beside_the_speakers_is_what_it_asks_about() -> None:
    """ "Does Ines still have Mango?" drops the names from its focus; Mango, no speaker,
    comes back as the thing asked about and ties Ines's later word on Mango to her earlier
    one, though neither shares another focus term; the speakers (by full or first name)
    stay out.
    """
    named = ("Ines", "Mango")
    focus = focus_terms("Does Ines still have Mango?", named)
    assert focus == frozenset()
    things = named_things(named, {"ines ferreira", "omar"})
    assert things == content_stem_set("Mango")
    assert named_things(("Ines", "Omar Haddad"), {"ines", "omar haddad"}) == frozenset()
    older = said(1, "Ines", at(2016, 4), "I still have Mango, my grandmother's old parrot.")
    newer = said(2, "Ines", at(2021, 6), "Well, sad news. Mango flew off in March.")
    assert not newer.changes
    assert supersede([older, newer], focus | things, named=named, marked=True) == [2, 1]
    assert supersede([older, newer], focus, named=named, marked=True) == [1, 2]


def test_for_a_question_saying_now_close_embeddings_tie_a_later_word_naming_no_term() -> None:
    """ "Which team does Ciarán play for now?": "With Antrim, junior level" shares no word
    of the question with "I'm corner back for Ballyhale", but their embeddings are as
    alike as the gate requires to link two notes: the later goes first. Embeddings far
    apart, or no "now" in the question, and the order stays.
    """
    older = said(1, "Ciarán", at(2016, 8), "I'm corner back for Ballyhale.", (1.0, 0.2, 0.0))
    newer = said(2, "Ciarán", at(2022, 9), "With Antrim, junior level.", (0.9, 0.3, 0.0))
    apart = replace(newer, vector=np.asarray((0.0, 0.0, 1.0)))
    team = frozenset({"team", "play"})
    assert not (team & older.terms & newer.terms) and not newer.changes

    def order(later: Statement, marked: bool = True) -> list[int]:
        return supersede([older, later], team, named=("Ciarán",), similarity=0.9, marked=marked)

    assert order(newer) == [2, 1]
    assert order(apart) == [1, 2]
    assert order(newer, marked=False) == [1, 2]


def test_state_question_marks_a_question_saying_now() -> None:
    now = state_question(*plan("Where does Farid live now?", ("Farid",)))
    plain = state_question(*plan("Where does Farid live?", ("Farid",)))
    assert now is not None and now.marked
    assert plain is not None and not plain.marked


@pytest.mark.parametrize(
    ("question", "outcome"),
    [
        ("Did Siobhan's Lisbon trip go ahead?", True),
        ("Which long-distance walk did Rowan end up doing?", True),
        ("How did the move to Leeds work out?", True),
        ("Did Caroline go to the parade?", False),
        ("What did Rowan plan before the injury? Did it go ahead?", False),
    ],
)
def test_questions_about_how_things_turned_out(question: str, outcome: bool) -> None:
    assert asks_about_outcome(question) is outcome


def test_a_question_about_an_outcome_puts_the_newer_statement_first() -> None:
    trip = "Did Siobhan's Lisbon trip go ahead?"
    state = state_question(*plan(trip, ("Siobhan",)))
    assert state is not None and state.now
    year = TimeMention(date(2020, 1, 1), date(2020, 12, 31), "year", "2020")
    assert not asks_about_outcome("Did Siobhan's 2020 trip go ahead?", (year,))


def test_supersedes_when_written_needs_a_tie_beyond_a_shared_aspect() -> None:
    """When written, a later change of one speaker supersedes an older statement linked to
    it or naming what it says changed, and a conflict decides alone; an aspect both speak
    of does not tie them (a new hobby does not end the tomatoes)."""
    chess = said(1, "Lucas", at(2023, 1), "I go to my chess club on Tuesdays.", keywords=("chess",))
    tomatoes = said(2, "Lucas", at(2023, 1), "We're growing tomatoes in the garden.")
    hobby = "aspect:hobby"
    chess, tomatoes = (replace(st, terms=st.terms | {hobby}) for st in (chess, tomatoes))
    quit_chess = said(
        3,
        "Lucas",
        at(2024, 2),
        "I quit chess over the winter; I'm into woodworking now.",
        keywords=("chess", "woodworking"),
    )
    quit_chess = replace(quit_chess, terms=quit_chess.terms | {hobby})
    assert supersedes_when_written(quit_chess, chess, {})
    assert not supersedes_when_written(quit_chess, tomatoes, {})
    assert supersedes_when_written(quit_chess, tomatoes, {frozenset((2, 3)): "related_to"})
    assert not supersedes_when_written(chess, quit_chess, {frozenset((1, 3)): CONFLICTS})
    garden = said(4, "Lucas", at(2024, 3), "The garden is lovely this spring.")
    assert supersedes_when_written(garden, tomatoes, {frozenset((2, 4)): CONFLICTS})
    other = replace(quit_chess, speakers=frozenset({"zoe"}))
    assert not supersedes_when_written(other, chess, {frozenset((1, 3)): CONFLICTS})
