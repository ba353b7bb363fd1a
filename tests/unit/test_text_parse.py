"""The shared English parse: loaded once from the PyPI model package, batches in order, the
attribute rules as a lookup that sets what the pipeline's component sets."""

from __future__ import annotations

import json
from pathlib import Path

import spacy
from spacy.tokens import Doc

from langmemcore.text._attribute_rules import attribute_rules
from langmemcore.text.parse import _attribute_rules, english_pipeline, parse_texts

DATA = Path(__file__).resolve().parents[1] / "data"


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


def _attributes(docs: list[Doc]) -> list[list[tuple[str, ...]]]:
    return [
        [(t.text, t.tag_, t.pos_, str(t.morph), t.lemma_, t.dep_, str(t.head.i)) for t in doc]
        for doc in docs
    ]


def test_attribute_rules_set_what_the_pipeline_component_sets() -> None:
    turns = json.loads((DATA / "profile_facts.json").read_text(encoding="utf-8"))
    texts = [t["text"] for c in turns["conversations"] for t in c["turns"]]
    texts += [
        "Y'all ain't gonna believe it, there's nothin' left.",
        "Let's go, c'mon!  We gotta leave.\n\nI'd say it gets better; it got worse.",
        "That is something anyone could do, but once I'd had it I was done.",
    ]
    stock = english_pipeline().pipe(texts, disable=["ner"])
    assert _attribute_rules() is not None
    assert _attributes(parse_texts(texts)) == _attributes(list(stock))


def test_attribute_rules_refuse_a_rule_they_cannot_reproduce() -> None:
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("attribute_ruler")
    ruler.add([[{"LOWER": "ok"}]], {"POS": "INTJ"})
    assert attribute_rules(ruler) is not None
    ruler.add([[{"LOWER": "very", "OP": "+"}]], {"POS": "ADV"})
    assert attribute_rules(ruler) is None
    outside = nlp.add_pipe("attribute_ruler", name="outside")
    outside.add([[{"LOWER": "gon"}, {"LOWER": "na"}]], {"LEMMA": "go"}, index=2)
    assert attribute_rules(outside) is None
