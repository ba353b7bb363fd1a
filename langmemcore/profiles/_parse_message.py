"""Message-level parse rules: statements no single predicate's rule can make.

* a named pet's end, said with the pet as subject ("Biscuit died", "Clover ran away"): the
  subject is not a person, so the statement is the speaker's;
* names given by possession or naming ("my beagle Biscuit", "my nephew's called Zain") and
  names given later to a pet the message already stated ("I adopted a cat - she's called
  Miso", "we got a dog - a greyhound called Pepper"): the named value replaces the unnamed;
* the speaker's dwelling by possession ("our new place in Vancouver", "my tiny studio in
  Hackney");
* fragments without a subject or a finite verb, whose left-out subject is the speaker
  ("Still a radiographer, still exhausted.", "Vegetarian, though.", "So no longer
  pescatarian.", "Still in the flat in Partick"), when they carry a mark of continuing or
  change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langmemcore.profiles._parse_clause import child, children, noun_value, states_fact
from langmemcore.profiles._parse_rules import given_names
from langmemcore.profiles._parse_taste import hyphenated
from langmemcore.profiles._parse_words import (
    ANIMALS,
    CONTINUING,
    DEATH,
    DIETS,
    DWELLINGS,
    FIRST_PERSON,
    KIN,
    NAMING,
    ROLES,
)
from langmemcore.profiles.aspects import AspectStatement

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

__all__ = ["message_statements", "name_pets"]

_MINE = FIRST_PERSON | {"my", "our"}
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "expl", "csubj"})
_AWAY = {"pass": "away", "run": "away"}


def _mine(noun: Token) -> bool:
    """Whether a noun is possessed by the speaker ("my", "our"), on it or its compound."""
    owners = [t for n in (noun, *children(noun, "compound")) for t in children(n, "poss")]
    return any(t.lower_ in _MINE for t in owners)


def _named(token: Token) -> bool:
    """Whether a subject is a bare name: capitalised, no article or possessive, not a
    relative ("Dad") or a pronoun.
    """
    if not token.text[:1].isupper() or token.pos_ not in {"PROPN", "NOUN"}:
        return False
    return token.lemma_.lower() not in KIN and not children(token, "det", "poss")


def _pet_ending(verb: Token, speaker: str) -> list[AspectStatement]:
    """A named pet's end: "Biscuit died last week", "Salt passed away", "Clover ran away"."""
    particle = _AWAY.get(verb.lemma_)
    if particle and not any(t.lower_ == particle for t in verb.children):
        return []
    subject = child(verb, "nsubj")
    if subject is None or not _named(subject):
        return []
    if child(verb, "neg") is not None or not states_fact(verb):
        return []
    return [AspectStatement(speaker, "pet", subject.text, True, True)]


def _possessed_name(token: Token, speaker: str) -> list[AspectStatement]:
    """A name given by possession: "My beagle Biscuit", "my spaniel, Rolo", "My nephew's
    called Zain".
    """
    kind: Token | None
    name: Token | None
    if token.pos_ == "PROPN":
        kinds = [t for t in children(token, "compound") if t.lemma_ in ANIMALS]
        kind, name, owned = (kinds[-1] if kinds else None), token, _mine(token)
    elif token.lemma_ in ANIMALS and token.pos_ == "NOUN":
        names = [t for t in children(token, "appos") if t.pos_ == "PROPN"]
        kind, name, owned = token, (names[0] if names else None), _mine(token)
    elif token.lemma_ in NAMING and token.tag_ == "VBN":
        kind, name = child(token, "nsubj", "nsubjpass"), child(token, "oprd", "attr")
        owned = kind is not None and _mine(kind)
    else:
        return []
    if kind is None or name is None or name.pos_ != "PROPN" or not owned:
        return []
    if kind.lemma_ in ANIMALS:
        return [AspectStatement(speaker, "pet", f"{kind.lemma_} {name.text}", False, False)]
    if kind.lemma_ in KIN:
        return [AspectStatement(speaker, "family", f"{kind.lemma_} {name.text}", False, False)]
    return []


def _marked(noun: Token, before: Token | None) -> bool:
    """Whether a fragment's noun phrase is marked as continuing ("still a teacher")."""
    marks = [t for t in noun.children if t.dep_ == "advmod"] + ([before] if before else [])
    return any(t.lower_ in {"still", "now"} for t in marks)


def _continued(token: Token) -> bool:
    """Whether the word before `token` marks continuing ("still in ...", "now in ...")."""
    return token.i > 0 and token.nbor(-1).lower_ in {"still", "now"}


def _dwelling(token: Token, speaker: str, owned: bool = True) -> list[AspectStatement]:
    """The speaker's home by a dwelling: "our new place in Vancouver", "my tiny studio in
    Hackney"; a fragment's "Still in the flat in Partick" (`owned` False).
    """
    if token.lemma_ not in DWELLINGS or (owned and not _mine(token)):
        return []
    for prep in children(token, "prep"):
        place = child(prep, "pobj")
        if prep.lower_ == "in" and place is not None and place.pos_ == "PROPN":
            return [AspectStatement(speaker, "home", noun_value(place), False, False)]
    return []


def _fragment(sentence: Span, speaker: str) -> list[AspectStatement]:
    """A verbless sentence about the speaker (see the module docstring)."""
    words = {t.lower_ for t in sentence}
    if sentence.text.rstrip().endswith("?") or not words & CONTINUING:
        return []
    if any(t.pos_ == "AUX" or t.tag_ in {"VBP", "VBZ", "VBD"} for t in sentence):
        return []
    if any(t.dep_ in _SUBJECT_DEPS for t in sentence):
        return []
    found = []
    ended = "longer" in words or "anymore" in words
    for token in sentence:
        before = token.doc[token.left_edge.i - 1] if token.left_edge.i > sentence.start else None
        if hyphenated(token) in DIETS and token.dep_ != "amod":
            found.append(AspectStatement(speaker, "diet", hyphenated(token), ended, True))
        elif token.lemma_ in ROLES and token.pos_ == "NOUN" and _marked(token, before):
            found.append(AspectStatement(speaker, "work", noun_value(token), False, False))
        elif token.lemma_ in DWELLINGS and token.head.lower_ == "in" and _continued(token.head):
            found.extend(_dwelling(token, speaker, owned=False))
    return found


def message_statements(doc: Doc, speaker: str | None) -> list[AspectStatement]:
    """The message-level statements of a parsed message (see the module docstring).

    Args:
        doc: The parsed message.
        speaker: Who wrote it; without one, nothing is stated.

    Returns:
        The statements, in text order.
    """
    if not speaker:
        return []
    found: list[AspectStatement] = []
    for token in doc:
        if token.lemma_ in DEATH and token.pos_ == "VERB":
            found.extend(_pet_ending(token, speaker))
        found.extend(_possessed_name(token, speaker))
        found.extend(_dwelling(token, speaker))
    for sentence in doc.sents:
        found.extend(_fragment(sentence, speaker))
    return found


def _later_names(doc: Doc) -> list[tuple[str, str]]:
    """(animal or "", name) for each pet named by a naming clause or apposition:
    "a greyhound called Pepper", "she's called Miso".
    """
    named: list[tuple[str, str]] = []
    for token in doc:
        if token.lemma_ in ANIMALS and token.pos_ == "NOUN":
            named.extend((token.lemma_, n) for n in given_names(token))
        elif token.lemma_ in NAMING and token.tag_ == "VBN":
            subject = child(token, "nsubjpass", "nsubj")
            value = child(token, "oprd", "attr")
            if subject is not None and subject.lower_ in {"she", "he", "it"} and value:
                named.append(("", value.text))
    return named


def name_pets(doc: Doc, statements: list[AspectStatement]) -> list[AspectStatement]:
    """`statements` with each unnamed pet ("cat") named by a later naming in the message
    ("cat Miso"); a pet named in full elsewhere in the message takes its own kind.

    Args:
        doc: The parsed message.
        statements: Its statements so far.

    Returns:
        The statements, the unnamed pets named where the message names them.
    """
    unnamed = [i for i, st in enumerate(statements) if st.aspect == "pet" and " " not in st.value]
    names = [n for n in _later_names(doc) if n[1]]
    if len(unnamed) != 1 or len(names) != 1 or not statements[unnamed[0]].value:
        return statements
    old = statements[unnamed[0]]
    kind, name = names[0]
    new = AspectStatement(old.subject, "pet", f"{kind or old.value} {name}", old.ended, old.change)
    return [new if i == unnamed[0] else st for i, st in enumerate(statements)]
