"""Parse rules for the life aspects: home, work, education, partner, pets, vehicles and
possessions.

Each rule takes a `Clause` (a predicate with its resolved subject) and returns the
statements its verb and that verb's complements make. A rule reads the verb's lemma class
(`profiles._parse_words`) and its dependents: the direct object (``dobj``), prepositional
objects ("in Leeds", "as a nurse", "at Bosch"), particles ("break *up*") and names given
by apposition or a naming participle ("a dog *named* Bruno").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from langmemcore.profiles._parse_clause import (
    Clause,
    child,
    children,
    is_future,
    is_time,
    name,
    noun_value,
    prep_object,
    verb_phrase,
)
from langmemcore.profiles._parse_words import (
    ACTIVITIES,
    ANIMALS,
    DEGREES,
    GROUPS,
    HOME_VERBS,
    JOB_GET,
    JOB_NOUNS,
    NAMING,
    OWN_END,
    PARTNER_END,
    PARTNER_START,
    PET_GET,
    PLAYABLE,
    PROPERTY,
    ROLES,
    SCHOOL_VERBS,
    VEHICLE_HAVE,
    VEHICLES,
    WORK_LEAVE,
    WORKPLACES,
)
from langmemcore.profiles.aspects import AspectStatement

if TYPE_CHECKING:
    from spacy.tokens import Token

Rule = Callable[[Clause], list[AspectStatement]]
HOBBY_NOUNS = PLAYABLE | ACTIVITIES


def statement(
    clause: Clause, aspect: str, value: str, ended: bool = False, change: bool = False
) -> AspectStatement:
    """A statement of `clause`'s subject (the clause's own marks added)."""
    ended = ended or clause.ended
    return AspectStatement(clause.subject, aspect, value, ended, change or clause.change or ended)


def given_names(token: Token) -> list[str]:
    """The names a noun is given: "a dog named Bruno", "two hamsters, Pip and Squeak"."""
    found: list[Token] = []
    for acl in children(token, "acl"):
        if acl.lemma_ in NAMING:
            found.extend(children(acl, "oprd", "attr", "dobj", "xcomp", "npadvmod"))
    found.extend(t for t in children(token, "appos") if t.pos_ == "PROPN")
    names = [t for first in found for t in (first, *first.conjuncts) if t.pos_ == "PROPN"]
    return [noun_value(t) for t in dict.fromkeys(names)]


def _place(verb: Token) -> Token | None:
    """The named place a verb of living is "in" / "to": directly, after "back" / "out",
    or inside another of its phrases ("in a flat in Leeds", "with my parents in Pune").
    """
    heads = [verb, *(t for t in children(verb, "advmod") if t.lower_ in {"back", "out"})]
    for head in heads:
        place = prep_object(head, "in", "to", "into")
        if place is not None and place.pos_ == "PROPN":
            return place
    for prep in children(verb, "prep"):
        inner = child(prep, "pobj")
        place = prep_object(inner, "in") if inner is not None else None
        if place is not None and place.pos_ == "PROPN":
            return place
    return None


def _moved_out_of(verb: Token) -> Token | None:
    """The place a verb of moving says was left: "I've moved out of the houseshare"."""
    if verb.lemma_ != "move":
        return None
    for out in (t for t in verb.children if t.lower_ == "out"):
        place = prep_object(out, "of") or prep_object(verb, "of")
        if place is not None and not is_time(place):
            return place
    return None


def _moving(verb: Token) -> bool:
    """Whether a progressive "moving" with no "now" speaks of a coming move ("I'm moving
    to Portland in the fall"): the progressive of a one-off change is a plan.
    """
    if verb.tag_ != "VBG" or verb.lemma_ not in {"move", "relocate"}:
        return False
    return not any(t.lower_ in {"now", "currently"} for t in verb.children)


def home(clause: Clause) -> list[AspectStatement]:
    """Reads "I live in Leeds", "we moved to Hamburg", "I'm renting a flat in Leeds"."""
    verb = clause.verb
    place = _place(verb)
    left = _moved_out_of(verb)
    if left is not None:
        return [statement(clause, "home", noun_value(left), ended=True)]
    if place is None:
        return []
    if is_future(verb):
        return [statement(clause, "plan", verb_phrase(verb))]
    if _moving(verb):
        return [statement(clause, "plan", f"{verb.lemma_} to {noun_value(place)}")]
    past = verb.tag_ == "VBD" and verb.lemma_ in {"live", "rent"} and not child(verb, "aux")
    changed = verb.lemma_ in {"move", "relocate", "settle"}
    return [statement(clause, "home", noun_value(place), past, changed)]


def _job(verb: Token, noun: Token | None) -> str:
    """The role ("as ...") or else the employer ("at / for ...") of a job."""
    for head in (noun, verb):
        role = prep_object(head, "as") if head is not None else None
        if role is not None:
            return noun_value(role)
    for head in (noun, verb):
        where = prep_object(head, "at", "for", "with", "by") if head is not None else None
        if where is not None:
            return noun_value(where)
    return ""


def work(clause: Clause) -> list[AspectStatement]:
    """Reads "I work as a nurse", "I teach chemistry", "I got hired by the BBC as ..."."""
    verb, lemma = clause.verb, clause.verb.lemma_
    if lemma == "teach":
        objects = [t for t in children(verb, "dobj", "dative") if not is_time(t)]
        obj = objects[0] if objects else None
        return [statement(clause, "work", f"{noun_value(obj)} teacher" if obj else "teacher")]
    value = _job(verb, None)
    if not value:
        return []
    past = lemma == "work" and verb.tag_ == "VBD" and not child(verb, "aux")
    return [statement(clause, "work", value, past, lemma != "work")]


def job(clause: Clause) -> list[AspectStatement]:
    """Reads "I got a new job at Bosch as a data analyst", "I became a developer"."""
    verb = clause.verb
    if verb.lemma_ == "become":
        role = child(verb, "attr")
        if role is None or role.lemma_ not in ROLES:
            return []
        return [statement(clause, "work", noun_value(role), change=True)]
    noun = child(verb, "dobj")
    if noun is None or noun.lemma_ not in JOB_NOUNS:
        return []
    value = _job(verb, noun)
    return [statement(clause, "work", value, change=True)] if value else []


def leave(clause: Clause) -> list[AspectStatement]:
    """Reads "I quit my job", "I left teaching", "I retired", "I quit the band"."""
    verb = clause.verb
    obj = child(verb, "dobj", "xcomp")
    where = prep_object(verb, "at")
    if obj is None and where is not None and not is_time(where):
        return [statement(clause, "work", noun_value(where), ended=True)]
    if verb.lemma_ == "finish":
        return []
    if obj is not None and obj.lemma_ in WORKPLACES and obj.pos_ == "NOUN":
        return [statement(clause, "work", noun_value(obj), ended=True)]
    if obj is not None and obj.lemma_ in GROUPS:
        return [statement(clause, GROUPS[obj.lemma_], "", ended=True)]
    if obj is None:
        return [statement(clause, "work", "", ended=True)] if verb.lemma_ != "leave" else []
    if obj.lemma_ in JOB_NOUNS:
        return [statement(clause, "work", "", ended=True)]
    field = obj.tag_ == "VBG" or obj.lower_.endswith("ing")
    if verb.lemma_ == "leave" and field:
        return [statement(clause, "work", noun_value(obj), ended=True)]
    if verb.lemma_ != "leave" and not field and obj.lower_ not in HOBBY_NOUNS:
        return [statement(clause, "work", noun_value(obj), ended=True)]
    return []


def school(clause: Clause) -> list[AspectStatement]:
    """Reads "I'm studying law at Edinburgh University", "I transferred to McGill", "I'm
    doing a master's at Leeds".
    """
    verb = clause.verb
    place = prep_object(verb, "at", "in", "to")
    if verb.lemma_ == "do":
        course = child(verb, "dobj")
        if course is None or course.lower_ not in DEGREES:
            return []
        place = prep_object(course, "at", "in") or place
    if place is None or place.pos_ != "PROPN":
        return []
    return [statement(clause, "education", noun_value(place), change=verb.lemma_ != "study")]


def graduate(clause: Clause) -> list[AspectStatement]:
    """Reads "I graduated from Edinburgh", "I dropped out of the program"."""
    verb = clause.verb
    if verb.lemma_ == "drop" and not any(t.lower_ == "out" for t in verb.children):
        return []
    place = prep_object(verb, "from", "of")
    value = noun_value(place) if place is not None and place.pos_ == "PROPN" else ""
    return [statement(clause, "education", value, ended=True)]


def partner(clause: Clause) -> list[AspectStatement]:
    """Reads "I married Tom", "Mia and I got married", "I'm dating Jamie", "engaged to Leo"."""
    verb = clause.verb
    other = child(verb, "dobj") if verb.lemma_ in PARTNER_START else None
    if other is None:
        married = verb if verb.lower_ in {"married", "engaged"} else child(verb, "acomp")
        if married is None or married.lower_ not in {"married", "engaged"}:
            return []
        other = prep_object(married, "to")
    if other is not None and other.pos_ == "PROPN":
        return [statement(clause, "partner", name(other), change=True)]
    return [statement(clause, "partner", clause.with_name, change=True)] if clause.with_name else []


def breakup(clause: Clause) -> list[AspectStatement]:
    """Reads "We broke up", "I split up with Jamie", "Paul and I called it off", "divorced"."""
    verb = clause.verb
    particles = {t.lower_ for t in children(verb, "prt")}
    obj = child(verb, "dobj")
    ending = (
        (verb.lemma_ in {"break", "split"} and "up" in particles)
        or (verb.lemma_ == "call" and "off" in particles and obj is not None and obj.lower_ == "it")
        or verb.lemma_ in PARTNER_END
    )
    if not ending:
        return []
    other = prep_object(verb, "with")
    if other is None and obj is not None and obj.pos_ == "PROPN":
        other = obj
    value = name(other) if other is not None and other.pos_ == "PROPN" else clause.with_name
    if other is None and not _plural_subject(clause):
        return []
    first_person = _speaks_for_self(clause)
    return [statement(clause, "partner", value, ended=True)] if value or first_person else []


def _speaks_for_self(clause: Clause) -> bool:
    subject = child(clause.verb, "nsubj")
    return subject is not None and subject.lower_ in {"i", "we"}


def _plural_subject(clause: Clause) -> bool:
    """Whether a break-up's subject is two people: "we", "Mia and I", "Tom and Mia"."""
    subject = child(clause.verb, "nsubj")
    if subject is None:
        return False
    return subject.lower_ == "we" or bool(subject.conjuncts) or bool(clause.with_name)


def _animal(noun: Token) -> str:
    """The animal a pet noun names, singular, with its breed words ("golden retriever")."""
    value = noun_value(noun)
    words = value.split()
    return " ".join([*words[:-1], noun.lemma_]) if words else noun.lemma_


def pet(clause: Clause) -> list[AspectStatement]:
    """Reads "We adopted a kitten", "We've got a golden retriever named Bruno"."""
    obj = child(clause.verb, "dobj")
    if obj is None or obj.lemma_ not in ANIMALS:
        return []
    animal = _animal(obj)
    names = given_names(obj)
    values = [f"{animal} {n}" for n in names] or [animal]
    changed = clause.verb.lemma_ not in {"have", "foster"}
    return [statement(clause, "pet", value, change=changed) for value in values]


def _vehicle(noun: Token) -> str | None:
    """The vehicle a noun names with the compounds and numbers in front of it ("Tesla
    Model 3", "pickup" of "pickup to every home game"), else None.
    """
    kept = [noun]
    for left in reversed(list(noun.lefts)):
        if left.dep_ not in {"compound", "nummod"} or left.i != kept[0].i - 1:
            break
        kept.insert(0, left)
    kept += [t for t in noun.rights if t.dep_ == "nummod"]
    if not any(t.lemma_.lower() in VEHICLES for t in kept):
        return None
    return " ".join(t.text for t in kept)


def owns(clause: Clause) -> list[AspectStatement]:
    """Reads "I drive a Honda Civic", "I bought a flat in Glasgow", "we sold the Civic"."""
    verb = clause.verb
    obj = child(verb, "dobj")
    if obj is None and verb.lemma_ == "trade":
        obj = prep_object(verb, "in")
    if obj is None:
        return []
    vehicle = _vehicle(obj)
    if verb.lemma_ in OWN_END:
        if vehicle is None and not (obj.pos_ == "PROPN" and verb.lemma_ == "trade"):
            return []
        found = [statement(clause, "vehicle", vehicle or noun_value(obj), ended=True)]
        new = prep_object(verb, "for") or prep_object(obj, "for")
        new_vehicle = _vehicle(new) if new is not None else None
        return found + (
            [statement(clause, "vehicle", new_vehicle, change=True)] if new_vehicle else []
        )
    if vehicle is not None:
        return [statement(clause, "vehicle", vehicle, change=verb.lemma_ in {"buy", "get"})]
    if obj.lemma_ in PROPERTY and verb.lemma_ in {"buy", "own"}:
        return [statement(clause, "possession", obj.lemma_, change=verb.lemma_ == "buy")]
    return []


LIFE_RULES: tuple[tuple[frozenset[str], Rule], ...] = (
    (HOME_VERBS, home),
    (frozenset({"work", "teach", "hire", "employ", "recruit"}), work),
    (JOB_GET | {"become"}, job),
    (WORK_LEAVE | {"finish"}, leave),
    (SCHOOL_VERBS | {"do"}, school),
    (frozenset({"graduate", "drop"}), graduate),
    (PARTNER_START | {"get", "be"}, partner),
    (PARTNER_END | {"break", "split", "call"}, breakup),
    (PET_GET, pet),
    (VEHICLE_HAVE | OWN_END, owns),
)
"""The life rules, each with the verb lemmas it reads."""
