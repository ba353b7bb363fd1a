"""The shared English parse: loaded once from the PyPI model package, batches in order."""

from __future__ import annotations

from langmemcore.text.parse import english_pipeline, parse_texts


def test_pipeline_is_loaded_once_and_shared() -> None:
    assert english_pipeline() is english_pipeline()


def test_parse_keeps_order_and_gives_dependencies() -> None:
    texts = ["I moved to Hamburg in January.", "", "My dog Max hates the rain."]
    docs = parse_texts(texts)
    assert [doc.text for doc in docs] == texts
    moved = docs[0]
    subject = next(token for token in moved if token.dep_ == "nsubj")
    assert (subject.text, subject.head.lemma_) == ("I", "move")
    assert list(moved.ents) == []


def test_entities_only_when_asked() -> None:
    (doc,) = parse_texts(["Nadia moved to Lisbon last May."], entities=True)
    assert "Lisbon" in {ent.text for ent in doc.ents}
    assert parse_texts([]) == []
