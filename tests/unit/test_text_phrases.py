"""Phrase sets (langmemcore.text.phrases): the phrase syntax, word matching and the data."""

from __future__ import annotations

import tomllib
from importlib import resources

import pytest

from langmemcore import InvalidInputError
from langmemcore.text.phrases import PhraseSet, phrases


def _spans(found: PhraseSet, text: str) -> list[str]:
    return [text[m.start : m.end] for m in found.finditer(text)]


def test_words_match_whole_and_ignore_case() -> None:
    found = PhraseSet(["now", "these days"])
    assert _spans(found, "These days I cook; now and then") == ["These days", "now"]
    assert found.search("snow nowhere known") is None


def test_a_phrase_does_not_cross_punctuation() -> None:
    found = PhraseSet(["at the moment"])
    assert found.search("at the moment") is not None
    assert found.search("at the  moment") is not None
    assert found.search("at, the moment") is None


def test_alternatives_globs_and_digits() -> None:
    found = PhraseSet(["old job|car", "relocate*", "*'re", "since 19##"])
    assert _spans(found, "my old car") == ["old car"]
    assert _spans(found, "they relocated") == ["relocated"]
    assert found.search("relocate") is None, "a star stands for at least one letter"
    assert _spans(found, "They're here") == ["They're"]
    assert _spans(found, "since 1999") == ["since 1999"]
    assert found.search("since 19th") is None
    assert found.search("since 199") is None


def test_optional_words_and_gaps_take_the_longest() -> None:
    found = PhraseSet(["did * *? *? use to"])
    assert found.search("did she use to") is not None
    assert found.search("did she ever really use to") is not None
    assert found.search("did use to") is None
    assert found.search("did she ever really truly use to") is None
    two = PhraseSet(["the * *?"])
    assert _spans(two, "the red car, the dog.") == ["the red car", "the dog"]


def test_a_negated_word_must_not_follow() -> None:
    found = PhraseSet(["working !out"])
    assert _spans(found, "working late") == ["working"]
    assert found.search("Working out daily") is None
    assert _spans(found, "I'm working") == ["working"], "the end of the text is no 'out'"


def test_apostrophes_fold_and_a_word_matches_by_its_head_only_last() -> None:
    assert PhraseSet(["don't"]).search("I don\u2019t know") is not None
    assert _spans(PhraseSet(["i"]), "I'm here") == ["I"], "the match ends at the apostrophe"
    assert _spans(PhraseSet(["i'm"]), "I\u2019m here") == ["I\u2019m"]
    assert PhraseSet(["did"]).search("I didn't") is None
    # "that" in "that's" is followed by its "'s", not by the next word.
    assert PhraseSet(["that *"]).search("that's great") is None
    assert _spans(PhraseSet(["that *"]), "that car") == ["that car"]


def test_unless_after_cancels_a_match_it_precedes() -> None:
    found = PhraseSet(["moved"], unless_after=["not", "*n't", "never"])
    assert found.search("we moved") is not None
    assert found.search("we never moved") is None
    assert found.search("we haven't moved") is None
    assert found.search("we did not moved") is None


def test_matches_do_not_overlap_count_and_remove() -> None:
    found = PhraseSet(["no", "no longer", "not"])
    text = "no, no longer, not now"
    assert found.count(text) == 3
    assert found.remove(text, "_") == "_, _, _ now"


def test_of_words_reads_names_literally() -> None:
    found = PhraseSet.of_words(["Mary Ann", "A*B"])
    assert _spans(found, "Is Mary Ann's dog") == ["Mary Ann"]
    assert found.search("Is Mary Annabel here") is None
    assert found.search("aXXB") is None
    assert _spans(found, "a*b") == ["a*b"]


@pytest.mark.parametrize("phrase", ["", "now? then?", "!out now", "a || b"])
def test_a_malformed_phrase_is_a_clear_error(phrase: str) -> None:
    with pytest.raises(InvalidInputError, match="Phrase"):
        PhraseSet([phrase])


def test_an_unknown_set_is_a_clear_error() -> None:
    with pytest.raises(InvalidInputError, match="No phrase set"):
        phrases("no.such.set")


def test_every_set_of_the_data_loads_and_matches_its_own_words() -> None:
    data = tomllib.loads(resources.files("langmemcore.text").joinpath("phrases.toml").read_text())

    def names(table: dict[str, object], prefix: str = "") -> list[str]:
        if "phrases" in table:
            return [prefix]
        return [
            n
            for key, value in table.items()
            if isinstance(value, dict)
            for n in names(value, f"{prefix}.{key}" if prefix else key)
        ]

    found = names(data)
    assert len(found) >= 30
    for name in found:
        table = data
        for key in name.split("."):
            table = table[key]
        for phrase in table["phrases"]:
            plain = " ".join(
                w.split("|")[0] for w in phrase.split() if "*" not in w and "#" not in w
            )
            words = [w for w in plain.split() if not w.startswith("!")]
            if len(words) == len(phrase.split()):
                sample = " ".join(w.rstrip("?") for w in words)
                assert phrases(name).search(f"x {sample} y") is not None, (name, phrase)


def test_starts_at_matches_only_the_first_word_after_an_offset() -> None:
    found = PhraseSet([",? just? died", "went away"])
    text = "my dog Max , just died. Then went away"
    offset = text.index("Max") + 3
    assert found.starts_at(text, offset) is not None, "spaces and a comma may come first"
    assert found.starts_at(text, text.index("Then")) is None, "'Then' starts no phrase"
    assert found.starts_at(text, 1) is None, "a word that is not a phrase's comes first"
    spaced = PhraseSet(["food"])
    assert spaced.starts_at("dog food", 3, spaced=True) is not None
    assert spaced.starts_at("dogfood food", 3, spaced=True) is None
