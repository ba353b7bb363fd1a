"""Tokenisation, singularisation and canonical keyword forms."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from langmemcore.text import (
    STOPWORDS,
    content_stem_set,
    content_terms,
    normalize_keyword,
    singularize,
    stem,
    tokenize,
)
from langmemcore.text.tokens import sentences, word_spans


def test_tokenize_lowercases_and_keeps_contractions_whole() -> None:
    assert tokenize("I'm swamped with the kids & work!") == [
        "i'm",
        "swamped",
        "with",
        "the",
        "kids",
        "work",
    ]


def test_tokenize_folds_curly_apostrophes() -> None:
    assert tokenize("Melanie\u2019s painting") == ["melanie's", "painting"]


def test_tokenize_splits_hyphens_and_keeps_numbers() -> None:
    assert tokenize("A hand-painted bowl for my 18th birthday in 2013.") == [
        "a",
        "hand",
        "painted",
        "bowl",
        "for",
        "my",
        "18th",
        "birthday",
        "in",
        "2013",
    ]


def test_tokenize_drops_trailing_possessive_apostrophe() -> None:
    assert tokenize("the kids' toys") == ["the", "kids", "toys"]


def test_tokenize_empty_and_punctuation_only() -> None:
    assert tokenize("") == []
    assert tokenize("?! ... --") == []


@pytest.mark.parametrize(
    ("plural", "singular"),
    [
        ("paintings", "painting"),
        ("kids", "kid"),
        ("stories", "story"),
        ("activities", "activity"),
        ("movies", "movie"),
        ("cookies", "cookie"),
        ("boxes", "box"),
        ("beaches", "beach"),
        ("headaches", "headache"),
        ("glasses", "glass"),
        ("buses", "bus"),
        ("wolves", "wolf"),
        ("bookshelves", "bookshelf"),
        ("olives", "olive"),
        ("potatoes", "potato"),
        ("shoes", "shoe"),
        ("children", "child"),
        ("women", "woman"),
        ("analyses", "analysis"),
        ("photos", "photo"),
        ("dinosaurs", "dinosaur"),
        ("agencies", "agency"),
        ("picnics", "picnic"),
        ("comics", "comic"),
    ],
)
def test_singularize_plurals(plural: str, singular: str) -> None:
    assert singularize(plural) == singular


@pytest.mark.parametrize(
    "word",
    [
        "glass",
        "bus",
        "news",
        "paris",
        "texas",
        "athens",
        "analysis",
        "status",
        "series",
        "christmas",
        "tennis",
        "pants",
        "yes",
        "famous",
        "politics",
        "physics",
        "90s",
    ],
)
def test_singularize_leaves_non_plurals_alone(word: str) -> None:
    assert singularize(word) == word


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12))
def test_singularize_is_idempotent(word: str) -> None:
    once = singularize(word)
    assert singularize(once) == once


@pytest.mark.parametrize(
    ("phrase", "key"),
    [
        ("paintings", "painting"),
        ("Kids", "kid"),
        ("LGBTQ Support Groups", "lgbtq support group"),
        ("  charity   race! ", "charity race"),
        ("the kids'", "kid"),
        ("Melanie's", "melanie"),
        ("Caroline\u2019s paintings", "caroline painting"),
        ("hand-painted bowls", "hand painted bowl"),
        ("The Grand Canyon", "grand canyon"),
        ("arts & crafts", "arts and craft"),
        ("Paris", "paris"),
        ("glass", "glass"),
        ("news", "news"),
        ("bus", "bus"),
    ],
)
def test_normalize_keyword_examples(phrase: str, key: str) -> None:
    assert normalize_keyword(phrase) == key


def test_normalize_keyword_only_singularises_the_head() -> None:
    # "kids" modifies "books" here: only the head noun changes.
    assert normalize_keyword("kids books") == "kids book"


def test_normalize_keyword_keeps_a_lone_article_and_empties_punctuation() -> None:
    assert normalize_keyword("the") == "the"
    assert normalize_keyword("!!! --") == ""


@given(st.text(max_size=40))
def test_normalize_keyword_is_idempotent(phrase: str) -> None:
    key = normalize_keyword(phrase)
    assert normalize_keyword(key) == key


def test_content_terms_drops_stopwords_and_interjections() -> None:
    assert content_terms("Wow, that's so cool!") == ["cool"]
    assert content_terms("Hey Mel! How have you been?") == ["mel"]


def test_content_terms_singularises_and_strips_possessives() -> None:
    assert content_terms("Melanie's paintings of sunsets") == ["melanie", "painting", "sunset"]


def test_content_terms_keeps_numbers_and_duplicates() -> None:
    assert content_terms("Two dogs, 2 dogs in 2023") == ["dog", "2", "dog", "2023"]


def test_stopwords_cover_function_words_not_content() -> None:
    assert {"the", "i'm", "what", "did", "with"} <= STOPWORDS
    assert "painting" not in STOPWORDS
    assert "camping" not in STOPWORDS


@pytest.mark.parametrize(
    "forms",
    [
        ("pursue", "pursued", "pursuing", "pursues"),
        ("camp", "camped", "camping"),
        ("plan", "planned", "planning"),
        ("dance", "danced", "dancing"),
        ("fall", "falling"),
        ("speed", "speeding"),
        ("study", "studied", "studying", "studies"),
        ("marry", "married", "marrying"),
    ],
)
def test_inflections_of_a_word_share_its_stem(forms: tuple[str, ...]) -> None:
    assert len({stem(singularize(form)) for form in forms}) == 1


@pytest.mark.parametrize("word", ["bed", "need", "sing", "string", "thing", "red"])
def test_words_too_short_for_the_suffix_keep_it(word: str) -> None:
    assert stem(word) == word


@pytest.mark.parametrize(
    ("a", "b"),
    [("universe", "university"), ("news", "new"), ("organ", "organization"), ("car", "care")],
)
def test_unrelated_words_keep_apart(a: str, b: str) -> None:
    assert stem(singularize(a)) != stem(singularize(b))


def test_stem_sets_compare_texts_by_stem() -> None:
    assert content_stem_set("Melanie was painting sunsets") >= {stem("paint"), "sunset"}


def test_sentences_end_at_a_mark_before_a_space_or_at_a_line_break() -> None:
    assert sentences("I ran 3.5 km. Then home!  Tired?\nyes\n\n  ok ") == [
        "I ran 3.5 km.",
        "Then home!",
        "Tired?",
        "yes",
        "ok",
    ]
    assert sentences("  \n ") == []
    assert sentences("wait...what?! no way") == ["wait...what?!", "no way"]


def test_word_spans_are_the_tokens_with_their_offsets_and_case() -> None:
    text = "I\u2019m Zoë's-friend, i.e. me_2!"
    spans = word_spans(text)
    assert [text[a:b] for a, b in spans] == ["I\u2019m", "Zoë's", "friend", "i", "e", "me", "2"]
    assert [text[a:b].lower().replace("\u2019", "'") for a, b in spans] == tokenize(text)
    assert word_spans("") == []
