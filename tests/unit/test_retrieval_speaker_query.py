"""The speaker channel's query text: the question with the names of the speakers it names
made neutral (pure; the channel itself is tested against Postgres in
``tests/integration/test_speaker_query.py``)."""

from __future__ import annotations

from langmemcore.config import RetrievalConfig
from langmemcore.eval.locomo_eval import ablation_configs
from langmemcore.retrieval.decompose import speaker_query_text


def test_names_and_their_possessives_become_someone() -> None:
    assert speaker_query_text("What are Melanie's pets' names?", ["Melanie"]) == (
        "What are someone's pets' names?"
    )
    assert speaker_query_text("What activities does Melanie partake in?", ["Melanie"]) == (
        "What activities does someone partake in?"
    )
    assert speaker_query_text("Where does Tomas\u2019s sister live?", ["Tomas"]) == (
        "Where does someone's sister live?"
    )
    assert speaker_query_text("What did Melanie and Caroline paint?", ["Melanie", "Caroline"]) == (
        "What did someone and someone paint?"
    )


def test_names_match_in_any_case_and_only_as_whole_words() -> None:
    assert speaker_query_text("what did melanie read?", ["Melanie"]) == "what did someone read?"
    assert speaker_query_text("Did Melanies or Annabel come?", ["Melanie", "Anna"]) == (
        "Did Melanies or Annabel come?"
    )


def test_names_with_pattern_characters_are_taken_literally() -> None:
    assert speaker_query_text("What did J.R. say?", ["J.R."]) == "What did someone say?"
    assert speaker_query_text("What did JXR say?", ["J.R."]) == "What did JXR say?"


def test_a_question_that_is_only_names_leaves_nothing() -> None:
    assert speaker_query_text("Melanie?", ["Melanie"]) == ""
    assert speaker_query_text("Caroline, Melanie's!", ["Caroline", "Melanie"]) == ""
    assert speaker_query_text("Did Melanie meet someone?", ["Melanie"]) == (
        "Did someone meet someone?"
    )


def test_other_words_are_kept_in_order() -> None:
    text = "When did Caroline go to the LGBTQ support group in May 2023?"
    assert speaker_query_text(text, []) == text
    assert speaker_query_text(text, ["Caroline"]) == (
        "When did someone go to the LGBTQ support group in May 2023?"
    )


def test_the_ablation_table_shows_the_speaker_query_with_the_names() -> None:
    rows = ablation_configs(RetrievalConfig())
    assert not rows["speaker query with the names"].speaker_query_neutral_names
    assert RetrievalConfig().speaker_query_neutral_names
    off = RetrievalConfig(speaker_query_neutral_names=False)
    assert "speaker query with the names" not in ablation_configs(off)
    no_speaker = RetrievalConfig(channels=("vector", "fulltext"))
    assert "speaker query with the names" not in ablation_configs(no_speaker)
