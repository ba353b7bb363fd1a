"""One observation's analysis: worked out once from what was said and the note context it
was drafted into, stored as JSON, read back unchanged."""

from __future__ import annotations

import json

from langmemcore.analysis import Analysis, analyze


def test_changed_are_the_keywords_a_change_names_without_the_speakers() -> None:
    text = "Good news, Marek sold the Vespa. Marek bought a bike and a helmet."
    keywords = ("vespa", "bike", "helmet", "marek")
    assert analyze(text, text).changed(keywords, ("marek",)) == frozenset({"vespa"})
    assert analyze("Marek bought a bike.", "Marek bought a bike.").changed(("bike",), ()) == set()


def test_a_question_names_no_change() -> None:
    asked = analyze("Did Marek say he sold the Vespa?", "Did Marek say he sold the Vespa?")
    assert asked.asks and not asked.changes
    assert asked.changed(("vespa",), ("marek",)) == frozenset()


def test_the_statement_side_reads_the_context_the_exchange_side_the_raw_text() -> None:
    raw = "quit the bakery last week, finally"
    analysis = analyze(raw, "Ines quit the bakery last week, finally.")
    assert analysis.changes and "bakeri" in analysis.change_stems | analysis.stems
    assert "work" in analysis.aspects
    assert not analysis.asks
    # A context without the change says none, whatever the raw text said.
    assert not analyze(raw, "Ines talked about the bakery.").changes


def test_a_back_reference_names_aspects_only_outside_questions_and_the_first_person() -> None:
    reply = analyze("That car is held together with prayers", "Tom said the car is old.")
    assert "vehicle" in reply.refers_to
    assert analyze("Is that car still running?", "Tom asked about the car.").refers_to == set()
    assert analyze("I love that car", "Tom loves the car.").refers_to == set()


def test_the_stored_form_is_json_and_reads_back_equal() -> None:
    analysis = analyze("I moved to Berlin, the flat is tiny", "Maya moved to Berlin.")
    stored = json.loads(json.dumps(analysis.to_json()))
    assert Analysis.from_json(stored) == analysis
    assert Analysis.from_json(Analysis().to_json()) == Analysis()
