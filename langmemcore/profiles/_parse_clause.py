"""Clauses of the dependency parse: who a predicate is about, whether it states a fact,
and the values its phrases name.

A *clause* here is one predicate token (a verb, or "be" with its complement) with the
subject it resolves to: its own ``nsubj`` / ``nsubjpass``, or for a predicate without one
(``xcomp``, ``conj``, ``advcl``) the subject of the predicate it hangs from. First person
("I", "we", "Mia and I") is the speaker; a proper name is that person; anything else
(pronouns, "my sister") is no subject. A clause states nothing when its sentence is a
question, when it or a clause above it is a condition ("if"), carries a modal ("would",
"could", "will"), is a wish ("I wish", "I want to"), reported speech ("she said") or a
purpose ("saving up to buy a flat"). A clause the parse hangs as a complement of a
predicate after it is a comma splice ("I've packed in the cello, it was never going to
happen"): what follows does not govern it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from langmemcore.profiles._parse_words import (
    ENDING_VERBS,
    FIRST_PERSON,
    FUTURE_TIME,
    NOT_FACT_AUX,
    NOT_FACT_MARKS,
    PLAN_VERBS,
    REPORTING,
    SUBJECTIVE,
    TIME_NOUNS,
    WISHING,
)

if TYPE_CHECKING:
    from spacy.tokens import Token

_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_SHARED = frozenset({"xcomp", "conj", "advcl", "acomp"})
_FILLERS = FUTURE_TIME | {
    "too", "also", "just", "really", "finally", "still", "even", "probably", "actually",
    "maybe", "definitely", "now", "again", "eventually", "hopefully", "instead", "anyway",
    "though",
}  # fmt: skip
_NAME_STOP = frozenset(
    {
        "i", "mom", "dad", "mum", "god", "lol", "omg", "haha", "yes", "no", "yep", "yeah",
        "nope", "ok", "okay", "hey", "hi", "wow", "ugh", "sorry", "thanks", "congrats",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Clause:
    """One predicate with its resolved subject and marks.

    Attributes:
        verb: The predicate token.
        subject: Who it is about.
        with_name: The other person of a "Mia and I" subject, else "".
        negated: The predicate carries a negation ("not", "never").
        ended: The wording ends a value ("no longer", "anymore", "used to").
        change: The wording marks a change ("now").
    """

    verb: Token
    subject: str
    with_name: str
    negated: bool
    ended: bool
    change: bool


def children(token: Token, *deps: str) -> list[Token]:
    """The children of `token` with one of the dependency labels `deps`."""
    return [child for child in token.children if child.dep_ in deps]


def child(token: Token, *deps: str) -> Token | None:
    """The first child of `token` with one of the labels `deps`, else None."""
    found = children(token, *deps)
    return found[0] if found else None


def prep_object(token: Token, *preps: str) -> Token | None:
    """The object of the first preposition among `preps` under `token` ("in" -> "Leeds")."""
    for prep in children(token, "prep", "agent", "dative"):
        if prep.lower_ in preps:
            pobj = child(prep, "pobj")
            if pobj is not None:
                return pobj
    return None


def name(token: Token) -> str:
    """The proper name `token` heads, with its compound parts ("Toronto FC")."""
    parts = [t for t in token.subtree if t.dep_ == "compound" and t.pos_ == "PROPN"]
    words = [t for t in parts if t.i < token.i] + [token]
    return " ".join(t.text for t in words if t.head.i == token.i or t is token or t in parts)


def _person(token: Token) -> str | None:
    """The name of a person `token` is, if it is a proper name."""
    if token.pos_ != "PROPN" or token.lower_ in _NAME_STOP or child(token, "poss"):
        return None
    return name(token)


def _subject_token(verb: Token) -> Token | None:
    """The subject token of `verb`: its own, or shared from the predicate above it. A
    conjoined verb right after a name or pronoun takes that word ("Nadia moved to Rome and
    Tom moved to Oslo", where the parse attaches "Tom" to "Rome").
    """
    token = verb
    for _ in range(4):
        found = child(token, *_SUBJECTS)
        if found is not None:
            return found
        if token.dep_ not in _SHARED or token.head is token:
            return None
        before = token.nbor(-1) if token.i > token.sent.start else None
        if token.dep_ == "conj" and before is not None and before.pos_ in {"PROPN", "PRON"}:
            return before
        token = token.head
    return None


def resolve_subject(verb: Token, speaker: str | None) -> tuple[str, str] | None:
    """The subject of `verb` and the partner of a "Mia and I" subject, else None."""
    token = _subject_token(verb)
    if token is None:
        return (speaker, "") if speaker and _elided_subject(verb) else None
    if token.lower_ in FIRST_PERSON:
        return (speaker, "") if speaker else None
    conjoined = [c for c in token.conjuncts if c.lower_ in FIRST_PERSON]
    person = _person(token)
    if conjoined and speaker:
        return speaker, person or ""
    return (person, "") if person else None


def lemma_in(token: Token, lemmas: frozenset[str]) -> bool:
    """Whether `token`'s lemma is one of `lemmas`, also where the tagger's lemma is wrong
    ("hoping" -> "hop"): the form without its ending -ing / -ed / -s, with or without "e".
    """
    if token.lemma_.lower() in lemmas:
        return True
    form = token.lower_
    for ending in ("ing", "ed", "es", "s"):
        if form.endswith(ending) and len(form) > len(ending) + 2:
            stem = form[: -len(ending)]
            return stem in lemmas or f"{stem}e" in lemmas
    return False


def is_purpose(clause: Token) -> bool:
    """Whether `clause` is a purpose infinitive ("saving up *to buy a flat*", "studying *to
    become a nurse*"): an aim, not a fact.
    """
    return clause.dep_ == "advcl" and any(c.tag_ == "TO" for c in children(clause, "aux"))


def is_planning(verb: Token) -> bool:
    """Whether `verb` states a plan for its complement: a plan verb, or "save up (to)"."""
    if verb.lemma_ in PLAN_VERBS:
        return True
    return verb.lemma_ == "save" and any(t.lower_ == "up" for t in children(verb, "prt"))


def _elided_subject(verb: Token) -> bool:
    """Whether `verb` opens a sentence whose subject "I" is left out, as chat does
    ("Settled in Cork now.", "Joined a choir last month."): a past form at the root,
    with only adverbs or interjections before it.
    """
    if verb.dep_ != "ROOT" or verb.tag_ not in {"VBD", "VBN"}:
        return False
    before = verb.doc[verb.sent.start : verb.i]
    return all(t.pos_ in {"ADV", "INTJ", "PUNCT"} for t in before)


def _blocks(token: Token, below: Token | None) -> bool:
    """Whether `token` makes the clause under it (or itself) not a statement of fact."""
    if any(c.dep_ == "mark" and c.lower_ in NOT_FACT_MARKS for c in token.children):
        return True
    if any(c.dep_ == "aux" and c.lower_ in NOT_FACT_AUX for c in token.children):
        return not _is_cant_stand(token)
    if below is not None and is_purpose(below):
        return True
    if below is None or below.dep_ not in {"ccomp", "xcomp"}:
        return False
    going = token.lemma_ == "go" and token.tag_ == "VBG" and below.dep_ == "xcomp"
    planned = is_planning(token) or going
    ending = below.dep_ == "xcomp" and token.lemma_ in ENDING_VERBS
    return planned or ending or token.lemma_ in REPORTING or lemma_in(token, WISHING)


def _is_cant_stand(token: Token) -> bool:
    return token.lemma_ == "stand" and child(token, "neg") is not None


def states_fact(verb: Token) -> bool:
    """Whether `verb`'s clause is a statement of fact (see the module docstring)."""
    sentence = verb.sent
    if sentence.text.rstrip().endswith("?") or (sentence[0].pos_ == "AUX" and len(sentence) > 2):
        return False
    token, below = verb, None
    for _ in range(8):
        if below is not None and below.dep_ == "ccomp" and below.i < token.i:
            return True
        if _blocks(token, below):
            return False
        if token.head is token:
            return True
        token, below = token.head, token
    return True


def is_future(verb: Token) -> bool:
    """Whether a progressive `verb` speaks of the future ("moving ... next month")."""
    if verb.tag_ != "VBG":
        return False
    return any(t.lower_ in FUTURE_TIME for t in verb.subtree if t.head.head.i == verb.i)


def _ending(verb: Token) -> bool:
    words = {c.lower_ for c in verb.children if c.dep_ in {"advmod", "npadvmod"}}
    if "anymore" in words or "longer" in words:
        return True
    head = verb.head
    return verb.dep_ == "xcomp" and head.lemma_ == "use" and head.tag_ == "VBD"


def make_clause(verb: Token, speaker: str | None) -> Clause | None:
    """The clause of `verb`, or None when it states no fact about a known subject."""
    if not states_fact(verb):
        return None
    subject = resolve_subject(verb, speaker)
    if subject is None:
        return None
    negated = any(c.dep_ == "neg" or c.lower_ == "never" for c in verb.children)
    change = any(c.lower_ in {"now", "recently"} for c in verb.children)
    return Clause(verb, subject[0], subject[1], negated, _ending(verb), change)


def is_time(token: Token) -> bool:
    """Whether a phrase speaks of a time ("August", "last week", "part-time", "2019")."""
    return any(t.lemma_.lower() in TIME_NOUNS or t.like_num for t in token.subtree)


def _time_phrase(token: Token) -> bool:
    """Whether a child of a value is a time modifier ("in August", "next week")."""
    if token.dep_ == "npadvmod" or (token.dep_ == "advmod" and token.lower_ in _FILLERS):
        return True
    if token.dep_ == "prep":
        pobj = child(token, "pobj")
        return pobj is not None and is_time(pobj)
    return token.dep_ in {"advcl", "punct", "cc", "conj", "mark", "aux", "neg", "nsubj"}


def _subjective(word: Token, named: bool) -> bool:
    """Whether `word` is an evaluative modifier, not part of a name ("Old Quebec")."""
    return word.lower_ in SUBJECTIVE and not (named and word.text[:1].isupper())


def noun_value(token: Token) -> str:
    """A noun phrase trimmed to the value convention: articles, possessives and leading
    evaluative words dropped; a proper name keeps its "of" part ("University of Toronto")
    and trailing numbers ("Model 3").
    """
    left = [t for t in token.lefts if t.dep_ in {"compound", "amod", "nmod", "npadvmod"}]
    words = [t for t in left for t in t.subtree] + [token]
    if token.pos_ == "PROPN":
        for right in token.rights:
            if right.dep_ == "nummod" or (right.dep_ == "prep" and right.lower_ == "of"):
                words.extend(right.subtree)
    words = sorted(set(words), key=lambda t: t.i)
    named = token.pos_ == "PROPN"
    while len(words) > 1 and (_subjective(words[0], named) or words[0].is_punct):
        words = words[1:]
    return "".join(t.text_with_ws for t in words).strip()


def verb_phrase(head: Token) -> str:
    """A verb phrase for a plan or hobby: the lemma and what follows it, without time
    modifiers ("take the kids camping"); for a noun, its value and what follows it
    ("trip home").
    """
    kept: list[Token] = []

    def walk(token: Token) -> None:
        kept.append(token)
        for sub in token.children:
            if not _time_phrase(sub):
                walk(sub)

    for sub in head.rights:
        if not _time_phrase(sub):
            walk(sub)
    first = head.lemma_ if head.pos_ in {"VERB", "AUX"} else noun_value(head)
    words = [first] + [t.text for t in sorted(kept, key=lambda t: t.i)]
    return " ".join(words).replace(" 's", "'s")
