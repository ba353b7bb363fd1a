"""The parse extractor: profile statements read off spaCy's dependency parse.

Every predicate of a parsed message (a verb, or "be" with its complement) that states a
fact about a known subject (`profiles._parse_clause.make_clause`) is read by the rules of
its lemma (`profiles._parse_rules`, `profiles._parse_taste`). A negated predicate states
nothing unless the negation ends a value ("not ... anymore") or the rule reads negation
itself ("I can't stand", "I don't eat meat").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langmemcore.profiles._parse_clause import make_clause
from langmemcore.profiles._parse_message import message_statements, name_pets
from langmemcore.profiles._parse_phrasal import PHRASAL_RULES
from langmemcore.profiles._parse_rules import LIFE_RULES, Rule
from langmemcore.profiles._parse_taste import READS_NEGATION, TASTE_RULES
from langmemcore.profiles.aspects import AspectStatement

if TYPE_CHECKING:
    from spacy.tokens import Doc

__all__ = ["parse_statements"]

_PREDICATES = frozenset({"VERB", "AUX"})
_NOT_PREDICATES = frozenset({"aux", "auxpass"})


def _rules() -> dict[str, tuple[Rule, ...]]:
    by_lemma: dict[str, list[Rule]] = {}
    for lemmas, rule in (*LIFE_RULES, *TASTE_RULES, *PHRASAL_RULES):
        for lemma in lemmas:
            by_lemma.setdefault(lemma, []).append(rule)
    return {lemma: tuple(rules) for lemma, rules in by_lemma.items()}


_RULES = _rules()
RULE_LEMMAS = frozenset(_RULES)
"""Every verb lemma a rule reads."""


def parse_statements(doc: Doc, speaker: str | None) -> list[AspectStatement]:
    """The statements of one parsed message, in the order its predicates come.

    Args:
        doc: The message parsed by `langmemcore.text.parse.parse_texts`.
        speaker: Who wrote it (first person resolves to them), or None.

    Returns:
        The statements, duplicates removed.
    """
    found: list[AspectStatement] = []
    for token in doc:
        if token.pos_ not in _PREDICATES or token.dep_ in _NOT_PREDICATES:
            continue
        rules = _RULES.get(token.lemma_.lower())
        if not rules:
            continue
        clause = make_clause(token, speaker)
        if clause is None:
            continue
        denied = clause.negated and not clause.ended
        for rule in rules:
            if denied and rule not in READS_NEGATION:
                continue
            found.extend(st for st in rule(clause) if st.value or st.ended)
    found.extend(message_statements(doc, speaker))
    return _merged(name_pets(doc, found))


def _merged(found: list[AspectStatement]) -> list[AspectStatement]:
    """The statements without repeats, two that differ only in `change` merged into one
    that marks a change ("I started playing guitar": "start" and "play" both read it).
    """
    merged: dict[tuple[str, str, str, bool], AspectStatement] = {}
    for st in found:
        key = (st.subject, st.aspect, st.value, st.ended)
        if key not in merged or st.change:
            merged[key] = merged.get(key, st) if not st.change else st
    return list(merged.values())
