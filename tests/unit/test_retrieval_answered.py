"""The aspects of the question a note answers and of the reply that names what it said
read from the analyses stored with the turns (pure, no database)."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from langmemcore.analysis import analyze
from langmemcore.retrieval.pack import answered_aspects, replied_aspects, statement_of
from langmemcore.retrieval.state_question import aspect_term
from langmemcore.storage.notes.thread_access import Said
from langmemcore.storage.search.access import Evidence, SourceRow

WHEN = datetime(2019, 3, 10, 19, 0, tzinfo=UTC)


def _note(text: str, speaker: str) -> Evidence:
    source = SourceRow("k1", speaker, WHEN, text, analyze(text, text).to_json())
    return Evidence(1, text, (), np.zeros(4, dtype=np.float32), (source,), None)


def _said(text: str, speaker: str | None) -> Said:
    """A turn with the analysis written with it."""
    return Said(text, speaker, WHEN, analyze(text, text).to_json())


REPLY = _note("Lulu is fat and happy, she sleeps all day.", "Dana")


def test_a_reply_takes_the_aspect_of_the_question_another_speaker_asked() -> None:
    asked = answered_aspects(REPLY, _said("And how is your cat?", "Omar"))
    assert aspect_term("pet") in asked
    assert aspect_term("pet") in statement_of(REPLY, asked=asked).terms
    assert aspect_term("pet") not in statement_of(REPLY).terms


def test_no_aspect_from_a_statement_the_speakers_own_turn_or_no_lead() -> None:
    assert answered_aspects(REPLY, _said("My cat is sick.", "Omar")) == frozenset()
    assert answered_aspects(REPLY, _said("How is my cat, you ask?", "dana")) == frozenset()
    assert answered_aspects(REPLY, _said("And how is your cat?", None)) == frozenset()
    assert answered_aspects(REPLY, None) == frozenset()


SAID = _note("Also the Panda failed its MOT. Again.", "Dana")


def test_a_reply_referring_back_names_the_aspect_of_what_a_note_said() -> None:
    """ "The Panda" names no vehicle; Omar's "That car ..." refers back to it."""
    replied = replied_aspects(SAID, _said("That car is held together with tape.", "Omar"))
    assert aspect_term("vehicle") in replied
    assert aspect_term("vehicle") in statement_of(SAID, asked=replied).terms
    assert aspect_term("vehicle") not in statement_of(SAID).terms
    assert aspect_term("pet") in replied_aspects(SAID, _said("ur dog is cuter", "Omar"))


def test_no_aspect_from_a_reply_asking_speaking_of_itself_or_naming_no_reference() -> None:
    assert replied_aspects(SAID, _said("Is that car still running?", "Omar")) == frozenset()
    assert replied_aspects(SAID, _said("The car I drive is worse.", "Omar")) == frozenset()
    assert replied_aspects(SAID, _said("A car like that, wow.", "Omar")) == frozenset()
    assert replied_aspects(SAID, _said("That car is a wreck.", "dana")) == frozenset()
    assert replied_aspects(SAID, _said("That car is a wreck.", None)) == frozenset()
    assert replied_aspects(SAID, None) == frozenset()


def test_a_turn_without_its_analysis_names_no_aspect() -> None:
    """A turn read without its analysis (as the thread reads do) adds nothing."""
    assert answered_aspects(REPLY, Said("And how is your cat?", "Omar", WHEN)) == frozenset()
    assert replied_aspects(SAID, Said("That car is a wreck.", "Omar", WHEN)) == frozenset()
