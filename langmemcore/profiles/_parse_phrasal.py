"""Parse rules keyed on particles and prepositions: where a verb's meaning comes from the
word after it ("get *into*", "go *off*", "pack *in*", "be *at* / *on*", "switch *from* ...
*to*", "start learning").

Each rule takes a `Clause` and returns its statements, as in `profiles._parse_rules`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langmemcore.profiles._parse_clause import (
    Clause,
    child,
    children,
    is_time,
    noun_value,
    prep_object,
)
from langmemcore.profiles._parse_rules import Rule, statement
from langmemcore.profiles._parse_taste import hyphenated
from langmemcore.profiles._parse_words import (
    ACTIVITIES,
    HOBBY_GERUNDS,
    PLAYABLE,
    VEHICLES,
    WORK_STATES,
    WORKPLACES,
)
from langmemcore.profiles.aspects import AspectStatement

if TYPE_CHECKING:
    from spacy.tokens import Token

_HOBBIES = PLAYABLE | ACTIVITIES
_VAGUE = frozenset({"it", "that", "this", "them", "you", "everything", "anything", "stuff"})
_MARKED = frozenset({"still", "now", "anymore", "longer"})


def _particle(verb: Token, word: str) -> bool:
    return any(t.lower_ == word and t.dep_ in {"prt", "advmod", "prep"} for t in verb.children)


def _is_hobby(token: Token) -> bool:
    """Whether a noun or gerund names a hobby ("rock climbing", "badminton")."""
    return token.lower_ in _HOBBIES or token.lemma_ in HOBBY_GERUNDS


def into(clause: Clause) -> list[AspectStatement]:
    """Reads "I've been getting into rock climbing" (an activity: a hobby) and "I'm getting
    into jazz" (a bare noun: a preference; "got into a bad spot" is neither).
    """
    verb = clause.verb
    if clause.negated and not clause.ended:
        return []
    thing = prep_object(verb, "into")
    if thing is None or thing.lower_ in _VAGUE:
        return []
    if _is_hobby(thing):
        return [statement(clause, "hobby", noun_value(thing), change=verb.lemma_ == "get")]
    if child(thing, "det", "poss") is not None or thing.pos_ not in {"NOUN", "PROPN"}:
        return []
    return [statement(clause, "preference", noun_value(thing))]


def gone_off(clause: Clause) -> list[AspectStatement]:
    """Reads the phrasal endings "I've gone off baking" (a taste) and "I've packed in the
    cello" (a hobby).
    """
    verb = clause.verb
    if verb.lemma_ == "go" and _particle(verb, "off"):
        thing = prep_object(verb, "off") or child(verb, "dobj", "advcl", "xcomp", "npadvmod")
        if thing is not None and thing.lower_ not in _VAGUE and not is_time(thing):
            return [statement(clause, "preference", noun_value(thing), ended=True)]
    if verb.lemma_ == "pack" and _particle(verb, "in"):
        thing = child(verb, "dobj") or prep_object(verb, "in")
        if thing is not None and thing.lower_ not in _VAGUE:
            return [statement(clause, "hobby", noun_value(thing), ended=True)]
    return []


def went_freelance(clause: Clause) -> list[AspectStatement]:
    """Reads "I went freelance", "I've gone part-time"."""
    verb = clause.verb
    if verb.lemma_ not in {"go", "turn"} or clause.negated:
        return []
    for state in children(verb, "acomp", "advmod", "oprd", "attr", "dobj"):
        if hyphenated(state) in WORK_STATES:
            return [statement(clause, "work", hyphenated(state), change=True)]
    return []


def be_at(clause: Clause) -> list[AspectStatement]:
    """Reads "I'm still at the bank", "I'm not at the council anymore" (a workplace, with a
    mark of continuing or ending), and "I'm on a bike now" (a vehicle).
    """
    verb = clause.verb
    if clause.negated and not clause.ended:
        return []
    ride = prep_object(verb, "on", "by")
    if ride is not None and ride.lemma_.lower() in VEHICLES:
        return [statement(clause, "vehicle", noun_value(ride))]
    where = prep_object(verb, "at")
    marked = any(t.lower_ in _MARKED for t in verb.children)
    if where is None or not marked or is_time(where):
        return []
    if where.lemma_ in WORKPLACES or (clause.ended and where.pos_ == "PROPN"):
        return [statement(clause, "work", noun_value(where))]
    return []


def _after_to(verb: Token) -> Token | None:
    """The hobby after "to" where the tagger read it as a verb ("to squash")."""
    for sub in children(verb, "advcl", "xcomp"):
        if child(sub, "aux") is not None and sub.lower_ in _HOBBIES:
            return sub
    return None


def switched(clause: Clause) -> list[AspectStatement]:
    """Reads "I switched from badminton to squash" where "squash" was read as a verb."""
    verb = clause.verb
    old, new = prep_object(verb, "from"), prep_object(verb, "to") or _after_to(verb)
    if old is None or new is None or prep_object(verb, "to") is not None:
        return []
    if not {old.lower_, new.lower_} <= _HOBBIES:
        return []
    gone = statement(clause, "hobby", old.lower_, ended=True)
    return [gone, statement(clause, "hobby", new.lower_, change=True)]


def started(clause: Clause) -> list[AspectStatement]:
    """Reads "I've started learning the cello", "I've started wild swimming" (a hobby)."""
    verb = clause.verb
    if clause.negated:
        return []
    gerund = child(verb, "xcomp", "dobj")
    if gerund is None or not gerund.lower_.endswith("ing"):
        return []
    obj = child(gerund, "dobj")
    if gerund.lemma_ in {"learn", "play"} and obj is not None and obj.lower_ in PLAYABLE:
        return [statement(clause, "hobby", obj.lower_, change=True)]
    if gerund.lemma_ in HOBBY_GERUNDS and obj is None:
        return [statement(clause, "hobby", noun_value(gerund), change=True)]
    return []


PHRASAL_RULES: tuple[tuple[frozenset[str], Rule], ...] = (
    (frozenset({"get"}), into),
    (frozenset({"go", "pack"}), gone_off),
    (frozenset({"go", "turn"}), went_freelance),
    (frozenset({"be"}), be_at),
    (frozenset({"switch"}), switched),
    (frozenset({"start", "begin"}), started),
)
"""The particle and preposition rules, each with the verb lemmas it reads."""
