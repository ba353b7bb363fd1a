"""Topic labels built from whole keywords (pure functions, no database)."""

from __future__ import annotations

import pytest

from langmemcore.construction.topic_labels import label_worthy, topic_label


@pytest.mark.parametrize(
    ("keyword", "text", "worthy"),
    [
        ("wedding", "Ines's wedding in Sintra was magical.", True),
        ("pigeon", "Pretzel loves chasing pigeons in the park.", True),
        ("ine", "Ines's wedding in Sintra was magical.", False),
        ("ana life", "Joanna's life changed when she moved.", False),
        ("14th", "The wedding is on the 14th of September.", False),
        ("first", None, False),
        ("week", None, False),
        ("st mary", "St. Mary's Hospital is hiring.", False),
        ("loves chasing pigeon", "Pretzel loves chasing pigeons.", False),
        ("cafeteria uses peanut oil", "The cafeteria uses peanut oil.", False),
        ("emergency department", "Jonas works in the emergency department.", True),
        ("porto half marathon", None, True),
    ],
)
def test_label_worthy(keyword: str, text: str | None, worthy: bool) -> None:
    assert label_worthy(keyword, text) is worthy


def test_topic_label_skips_fragments_and_keeps_connectedness_order() -> None:
    ranked = ["sintra", "ine", "14th", "wedding", "maid", "quinta"]
    texts = {"ine": "Ines booked a quinta in Sintra.", "sintra": "Ines booked a quinta in Sintra."}
    assert topic_label(ranked, texts) == "sintra, wedding, maid"


def test_topic_label_skips_keywords_contained_in_a_chosen_one() -> None:
    ranked = ["porto half marathon", "half marathon", "knee", "marathon", "training"]
    assert topic_label(ranked) == "porto half marathon, knee, training"


def test_topic_label_falls_back_to_the_best_connected_keyword() -> None:
    assert topic_label(["12th", "week"]) == "12th"
    assert topic_label([]) == ""
