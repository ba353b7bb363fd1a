"""The aspects of the question a note answers (pure, no database)."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from langmemcore.retrieval.pack import answered_aspects, statement_of
from langmemcore.retrieval.state_question import aspect_term
from langmemcore.storage.notes.thread_access import Said
from langmemcore.storage.search.access import Evidence, SourceRow

WHEN = datetime(2019, 3, 10, 19, 0, tzinfo=UTC)


def _note(text: str, speaker: str) -> Evidence:
    source = SourceRow("k1", speaker, WHEN, text)
    return Evidence(1, text, (), np.zeros(4, dtype=np.float32), (source,), None)


REPLY = _note("Lulu is fat and happy, she sleeps all day.", "Dana")


def test_a_reply_takes_the_aspect_of_the_question_another_speaker_asked() -> None:
    asked = answered_aspects(REPLY, Said("And how is your cat?", "Omar", WHEN))
    assert aspect_term("pet") in asked
    assert aspect_term("pet") in statement_of(REPLY, asked=asked).terms
    assert aspect_term("pet") not in statement_of(REPLY).terms


def test_no_aspect_from_a_statement_the_speakers_own_turn_or_no_lead() -> None:
    assert answered_aspects(REPLY, Said("My cat is sick.", "Omar", WHEN)) == frozenset()
    assert answered_aspects(REPLY, Said("How is my cat, you ask?", "dana", WHEN)) == frozenset()
    assert answered_aspects(REPLY, Said("And how is your cat?", None, WHEN)) == frozenset()
    assert answered_aspects(REPLY, None) == frozenset()
