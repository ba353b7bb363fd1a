"""Parse rules for tastes, habits and plans: preferences and dislikes, diet, health,
hobbies, teams, bands and gyms, stated plans; and the "be" clauses ("I'm vegan now",
"I'm allergic to peanuts", "I'm still in Lyon", "I'm a huge Lakers fan").

Each rule takes a `Clause` and returns its statements, as in `profiles._parse_rules`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langmemcore.profiles._parse_clause import (
    Clause,
    child,
    children,
    is_future,
    is_planning,
    is_purpose,
    noun_value,
    prep_object,
    verb_phrase,
)
from langmemcore.profiles._parse_rules import Rule, given_names, statement
from langmemcore.profiles._parse_words import (
    ACTIVITIES,
    CHEER,
    DIETS,
    DISLIKE,
    DROP,
    FAN_NOUNS,
    FOODS,
    GROUPS,
    HEALTH,
    HOBBY_GERUNDS,
    HOBBY_TAKE,
    LIKE,
    MOTION,
    NOT_PLANNED,
    PLAN_VERBS,
    PLAYABLE,
    PROPERTY,
    ROLES,
    VEHICLES,
)
from langmemcore.profiles.aspects import AspectStatement

if TYPE_CHECKING:
    from spacy.tokens import Token

_VAGUE = frozenset({"it", "that", "this", "them", "you", "everything", "anything", "stuff"})
_HOBBIES = PLAYABLE | ACTIVITIES


def _liked(verb: Token) -> str:
    """What a verb of liking is about: its object, or its gerund with the gerund's object,
    without prepositional modifiers ("hiking", "watching films").
    """
    obj = child(verb, "dobj")
    if obj is not None and obj.lower_ not in _VAGUE and obj.pos_ in {"NOUN", "VERB"}:
        return noun_value(obj)
    gerund = child(verb, "xcomp")
    if gerund is not None and gerund.tag_ == "VBG":
        obj = child(gerund, "dobj")
        return f"{gerund.lower_} {noun_value(obj)}" if obj is not None else gerund.lower_
    return ""


def likes(clause: Clause) -> list[AspectStatement]:
    """Reads "I love jazz", "I enjoy hiking", "I hate cilantro", "I can't stand mornings"."""
    verb = clause.verb
    if verb.lemma_ == "stand":
        aspect = "dislike" if clause.negated else ""
    else:
        aspect = "preference" if verb.lemma_ in LIKE else "dislike"
        if clause.negated and not clause.ended:
            return []
    value = _liked(verb)
    return [statement(clause, aspect, value)] if aspect and value else []


def diet(clause: Clause) -> list[AspectStatement]:
    """Reads "I went vegan", "I don't eat meat", "I gave up eating meat"."""
    verb = clause.verb
    state = child(verb, "acomp", "oprd", "attr", "xcomp")
    went = verb.lemma_ in {"go", "become", "turn", "stay"} and not clause.negated
    if went and state is not None and state.lower_ in DIETS:
        return [statement(clause, "diet", state.lower_, change=True)]
    eats = verb if verb.lemma_ == "eat" else child(verb, "xcomp", "dobj")
    stops = verb.lemma_ in {"stop", "quit", "give"} and (
        verb.lemma_ != "give" or any(t.lower_ == "up" for t in verb.children)
    )
    if eats is None or not (stops or (clause.negated and eats is verb)):
        return []
    food = child(eats, "dobj") if eats.lemma_ == "eat" else eats
    if food is None or food.lemma_ not in FOODS:
        return []
    return [AspectStatement(clause.subject, "diet", f"no {food.lemma_}", False, stops)]


def hobby(clause: Clause) -> list[AspectStatement]:
    """Reads "I play the violin", "I do yoga", "I took up pottery", "I run", "I gave up chess"."""
    verb, lemma = clause.verb, clause.verb.lemma_
    if clause.negated and not clause.ended:
        return []
    obj = child(verb, "dobj")
    up = any(t.lower_ == "up" for t in verb.children)
    if obj is not None and (lemma in {"play", "do"} and obj.lower_ in _HOBBIES):
        return [statement(clause, "hobby", obj.lower_)]
    if obj is not None and lemma in HOBBY_TAKE and up:
        return [statement(clause, "hobby", noun_value(obj), change=True)]
    away = any(t.lower_ == "away" for t in verb.children)
    if obj is not None and lemma in {"give", "quit", "stop", "put"} and obj.lower_ in _HOBBIES:
        ended = lemma in {"quit", "stop"} or (up and lemma == "give") or (away and lemma == "put")
        return [statement(clause, "hobby", obj.lower_, ended=True)] if ended else []
    if lemma == "switch":
        old, new = prep_object(verb, "from"), prep_object(verb, "to")
        if old is not None and new is not None and {old.lower_, new.lower_} <= _HOBBIES:
            gone = statement(clause, "hobby", old.lower_, ended=True)
            return [gone, statement(clause, "hobby", new.lower_, change=True)]
    travel = prep_object(verb, "to") is not None
    if lemma in HOBBY_GERUNDS and obj is None and verb.tag_ in {"VBP", "VBZ"} and not travel:
        return [statement(clause, "hobby", HOBBY_GERUNDS[lemma])]
    return []


def team(clause: Clause) -> list[AspectStatement]:
    """Reads "I support Toronto FC now"."""
    obj = child(clause.verb, "dobj")
    if obj is None or obj.pos_ != "PROPN" or (clause.negated and not clause.ended):
        return []
    return [statement(clause, "team", noun_value(obj))]


def _group(noun: Token) -> tuple[str, str] | None:
    """(aspect, name) of a named band or gym: "a band called Rust Belt", "Iron Works Gym",
    "St Mary's church choir", or a name in apposition with one ("Boulder Barn, the
    bouldering gym").
    """
    aspect = GROUPS.get(noun.lemma_.lower())
    if aspect is None:
        for appos in children(noun, "appos") if noun.pos_ == "PROPN" else []:
            if appos.lemma_.lower() in GROUPS:
                return GROUPS[appos.lemma_.lower()], noun_value(noun)
        return None
    if noun.pos_ == "PROPN":
        return aspect, noun_value(noun)
    names = given_names(noun)
    if names:
        return aspect, names[0]
    named = [t for t in noun.lefts if t.pos_ == "PROPN" or (t.dep_ == "poss" and t.pos_ == "PROPN")]
    if named:
        words = [t for t in noun.doc[named[0].left_edge.i : noun.i + 1] if t.dep_ != "det"]
        return aspect, "".join(t.text_with_ws for t in words).strip()
    return None


def groups(clause: Clause) -> list[AspectStatement]:
    """Reads "I'm in a band called Rust Belt", "I joined a new gym called Forge"."""
    verb = clause.verb
    if clause.negated and not clause.ended:
        return []
    nouns = [child(verb, "dobj"), prep_object(verb, "in"), prep_object(verb, "at")]
    if verb.lemma_ in DROP | {"quit", "leave"}:
        return _membership(clause)
    for noun in nouns:
        found = _group(noun) if noun is not None else None
        if found is not None:
            return [statement(clause, found[0], found[1], change=verb.lemma_ == "join")]
    return []


def _membership(clause: Clause) -> list[AspectStatement]:
    """Reads "I cancelled my CrossFit membership" (a gym's), "we dropped the Canada plan"."""
    obj = child(clause.verb, "dobj")
    if obj is None or obj.lemma_ not in {"membership", "plan"}:
        return []
    named = [t for t in obj.lefts if t.dep_ == "compound"]
    value = " ".join(t.text for t in named)
    if obj.lemma_ == "membership":
        return [statement(clause, "gym", value, ended=True)] if value else []
    return [statement(clause, "plan", value, ended=True)]


def plan(clause: Clause) -> list[AspectStatement]:
    """Reads "I'm planning to move to Leicester", "I'm going to open a studio", "planning a
    trip home".
    """
    verb = clause.verb
    if clause.negated:
        return []
    planned = child(verb, "xcomp")
    if planned is None and verb.lemma_ == "save":
        planned = next((c for c in children(verb, "advcl") if is_purpose(c)), None)
    going = verb.lemma_ == "go" and verb.tag_ == "VBG"
    if any(t.tag_ == "WRB" for t in verb.children):
        return []
    if going and planned is not None and planned.lemma_ in NOT_PLANNED:
        return []
    if planned is not None and (is_planning(verb) or going):
        return [statement(clause, "plan", verb_phrase(planned))]
    obj = child(verb, "dobj")
    if obj is not None and verb.lemma_ in PLAN_VERBS:
        return [statement(clause, "plan", verb_phrase(obj))]
    return []


def hyphenated(token: Token) -> str:
    """The word `token` ends, joined across hyphens the tokenizer split ("gluten-free")."""
    start = token.i
    while start >= 2 and token.doc[start - 1].text == "-" and not token.doc[start - 1].whitespace_:
        start -= 2
    return token.doc[start : token.i + 1].text.lower().replace(" ", "")


def _be_state(clause: Clause, state: Token) -> list[AspectStatement]:
    """Reads "I'm vegan now", "I'm allergic to peanuts", "I'm lactose intolerant"."""
    if hyphenated(state) in DIETS:
        return [statement(clause, "diet", hyphenated(state))]
    if state.lower_ not in HEALTH:
        return []
    words = [t for t in state.subtree if t.dep_ not in {"advmod", "punct", "cc", "conj"}]
    return [statement(clause, "health", " ".join(t.text for t in words))]


def _be_thing(clause: Clause, thing: Token) -> list[AspectStatement]:
    """Reads "I'm a huge Lakers fan", "a fan of reality TV", "I'm a nurse at the clinic"."""
    if thing.lemma_ in FAN_NOUNS:
        named = [t for t in thing.lefts if t.pos_ == "PROPN" and t.dep_ == "compound"]
        of = prep_object(thing, "of")
        if not named and of is not None and of.pos_ != "PROPN":
            return [statement(clause, "preference", noun_value(of))]
        team_name = noun_value(named[-1]) if named else noun_value(of) if of is not None else ""
        return [statement(clause, "team", team_name)] if team_name else []
    if thing.lemma_ in ROLES and clause.verb.lemma_ == "be":
        return [statement(clause, "work", noun_value(thing))]
    return []


def _role(verb: Token) -> Token | None:
    """The role noun of a "be" clause, also where the tagger read it as an adjective ("I'm
    a student paramedic" parsed as "a student" + "paramedic").
    """
    for token in children(verb, "attr", "acomp"):
        if token.lemma_.lower() in ROLES or token.lower_ in ROLES:
            return token
    return None


def _role_value(role: Token) -> str:
    """A role read as an adjective, with the noun the parse put before it ("student")."""
    before = role.nbor(-1) if role.i > 0 else None
    if before is not None and before.dep_ == "attr" and before.head.i == role.head.i:
        return f"{noun_value(before)} {role.text}"
    return noun_value(role)


def being(clause: Clause) -> list[AspectStatement]:
    """The "be" clauses: a diet or health state, a team or a role, "into" a taste, "in" a
    place with "still" / "now" / "back".
    """
    verb = clause.verb
    if clause.negated and not clause.ended:
        return []
    state, thing, role = child(verb, "acomp"), child(verb, "attr"), _role(verb)
    if verb.lemma_ == "become":
        return _be_thing(clause, thing) if thing is not None else []
    found = _be_state(clause, state) if state is not None else []
    found += _be_state(clause, thing) if thing is not None and not found else []
    found += _be_thing(clause, thing) if thing is not None else []
    if role is not None and role is not thing and verb.lemma_ == "be":
        found.append(statement(clause, "work", _role_value(role)))
    if found:
        return found
    into, on = prep_object(verb, "into"), prep_object(verb, "on")
    if into is not None and into.lower_ not in _VAGUE:
        return [statement(clause, "preference", noun_value(into))]
    if on is not None and on.lemma_ == "diet":
        kinds = [t.lower_ for t in on.lefts if t.lower_ in DIETS or t.dep_ == "compound"]
        return [statement(clause, "diet", kinds[-1])] if kinds else []
    return _be_in(clause)


def _be_in(clause: Clause) -> list[AspectStatement]:
    """Reads "I'm still in Lyon", "I'm in Montreal now", "I'm in a shared flat in Dublin"."""
    verb = clause.verb
    place = prep_object(verb, "in")
    if place is not None and place.lemma_ in PROPERTY:
        place = prep_object(place, "in")
        marked = {"flat"}
    else:
        marked = {t.lower_ for t in children(verb, "advmod")} & {"still", "now", "back"}
    if place is not None and place.pos_ == "PROPN" and marked and not is_future(verb):
        return [statement(clause, "home", noun_value(place), change="now" in marked)]
    return []


def travels(clause: Clause) -> list[AspectStatement]:
    """Reads "I zip around town on my Vespa scooter", "I commute by bike",
    "I'm rooting for the White Sox now".
    """
    verb = clause.verb
    if verb.lemma_ in CHEER:
        team_name = prep_object(verb, "for")
        if team_name is None or team_name.pos_ != "PROPN":
            return []
        return [statement(clause, "team", noun_value(team_name), change=clause.change)]
    ride = prep_object(verb, "on", "by")
    if ride is None or ride.lemma_.lower() not in VEHICLES:
        return []
    kept = [t for t in ride.lefts if t.dep_ == "compound"] + [ride]
    return [statement(clause, "vehicle", " ".join(t.text for t in kept))]


TASTE_RULES: tuple[tuple[frozenset[str], Rule], ...] = (
    (LIKE | DISLIKE | {"stand"}, likes),
    (frozenset({"go", "become", "turn", "stay", "eat", "stop", "quit", "give"}), diet),
    (
        HOBBY_TAKE | set(HOBBY_GERUNDS) | {"play", "do", "give", "quit", "stop", "switch", "put"},
        hobby,
    ),
    (frozenset({"support"}), team),
    (DROP | {"join", "be", "play", "sing", "train", "climb", "go", "quit", "leave"}, groups),
    (MOTION | CHEER, travels),
    (PLAN_VERBS | {"go", "save"}, plan),
    (frozenset({"be", "become"}), being),
)
"""The taste rules, each with the verb lemmas it reads."""

READS_NEGATION: frozenset[Rule] = frozenset({likes, diet})
"""The rules that read a negation themselves ("I can't stand", "I don't eat meat"); for
the others a negated clause states nothing unless the negation ends a value.
"""
