"""The pipeline's attribute rules (``attribute_ruler``: parts of speech, morphology and
some lemmas from the fine tags) applied through a lookup instead of spaCy's general token
matcher.

``en_core_web_sm``'s attribute ruler holds 179 rules, each a short sequence of token
tests (``TAG``, ``LOWER``, ``DEP``, ``IS_SPACE``: a value, ``IN`` / ``NOT_IN`` a list, a
``REGEX``); its matcher tries every rule at every token and was a fifth of the profile
extraction's parse. :class:`AttributeRules` indexes each rule by what its first token
must be (its word, else its tag, dependency or white space), tests only the rules a token
can start, and then applies the matches exactly as the component does: all matches found
on the unchanged document first, then set in rule order (later rules win), each on its
rule's token of the match. A rule with any other test (an
operator, another attribute) or a token outside its match makes :func:`attribute_rules`
return ``None``, and callers keep spaCy's component.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["AttributeRules", "attribute_rules"]

View = tuple[str, str, str, bool]
"""A token's attributes the rules test: fine tag, lower-case form, dependency label,
whether it is white space."""

Test = Callable[[View], bool]
"""A test of one token."""

_ATTRIBUTES = {"LOWER": 1, "TAG": 0, "DEP": 2, "IS_SPACE": 3}
"""Where each tested attribute is in a :data:`View`, the most selective first."""


def _test(attribute: str, expected: Any) -> Test | None:
    """The test of one token predicate (``None``: a form the lookup does not know)."""
    at = _ATTRIBUTES.get(attribute)
    if at is None:
        return None
    if isinstance(expected, str | bool):
        return lambda token: bool(token[at] == expected)
    if not isinstance(expected, dict) or len(expected) != 1:
        return None
    ((operator, argument),) = expected.items()
    if operator in ("IN", "NOT_IN") and isinstance(argument, list):
        members, inside = frozenset(argument), operator == "IN"
        return lambda token: (token[at] in members) == inside
    if operator == "REGEX" and isinstance(argument, str):
        pattern = re.compile(argument)
        return lambda token: pattern.search(str(token[at])) is not None
    return None


def _anchors(first: Mapping[str, Any]) -> Anchor | None:
    """Where in a :data:`View` the first token must hold one of the returned values (its
    word, else its tag, dependency or white space; ``None``: any token).
    """
    for attribute, at in _ATTRIBUTES.items():
        expected = first.get(attribute)
        if isinstance(expected, str | bool):
            return at, (expected,)
        if isinstance(expected, dict) and isinstance(expected.get("IN"), list):
            return at, tuple(expected["IN"])
    return None


Anchor = tuple[int, tuple[str | bool, ...]]
"""A place in a :data:`View` and the values a rule's first token must hold there."""

Rule = tuple[int, int, tuple[Test, ...]]
"""A rule's number, its length in tokens and one test per token."""


class AttributeRules:
    """The attribute ruler's rules, indexed by what their first token must be.

    Args:
        ruler: The pipeline's ``attribute_ruler`` component.
        rules: Its rules compiled (see :func:`attribute_rules`).
    """

    def __init__(self, ruler: Any, rules: Sequence[tuple[Rule, Anchor | None]]):
        self._attrs, self._indices = ruler.attrs, ruler.indices
        from spacy.tokens._retokenize import set_token_attrs

        self._set = set_token_attrs
        self._by: dict[tuple[int, str | bool], list[Rule]] = {}
        self._anywhere: list[Rule] = []
        for rule, anchor in rules:
            if anchor is None:
                self._anywhere.append(rule)
                continue
            at, values = anchor
            for value in values:
                self._by.setdefault((at, value), []).append(rule)

    def _matches(self, doc: Any) -> list[tuple[int, int, int]]:
        """(rule, start, end) of every match in the document as it stands."""
        views: list[View] = [(t.tag_, t.lower_, t.dep_, t.is_space) for t in doc]
        found: set[tuple[int, int, int]] = set()
        size = len(views)
        for start, view in enumerate(views):
            held: tuple[str | bool, ...] = view
            for candidates in (
                *(self._by.get((at, value), ()) for at, value in enumerate(held)),
                self._anywhere,
            ):
                for number, length, tests in candidates:
                    end = start + length
                    if end <= size and all(test(views[start + n]) for n, test in enumerate(tests)):
                        found.add((number, start, end))
        return sorted(found)

    def __call__(self, doc: Any) -> Any:
        """Set the rules' attributes on ``doc`` (in place), as the component does."""
        for number, start, end in self._matches(doc):
            index = self._indices[number]
            self._set(doc[(start if index >= 0 else end) + index], self._attrs[number])
        return doc


def attribute_rules(ruler: Any) -> AttributeRules | None:
    """The ruler's rules as an :class:`AttributeRules`, or ``None`` when one of them uses
    a test the lookup does not know or sets a token outside its match (callers then keep
    spaCy's component).

    Args:
        ruler: The pipeline's ``attribute_ruler`` component.
    """
    compiled: list[tuple[Rule, Anchor | None]] = []
    for number, entry in enumerate(ruler.patterns):
        for pattern in entry["patterns"]:
            per_token = [[_test(a, e) for a, e in token.items()] for token in pattern]
            index, length = ruler.indices[number], len(pattern)
            unknown = any(t is None for tests in per_token for t in tests)
            if unknown or not -length <= index < length:
                return None
            tests = tuple(_all(t) for t in per_token)
            compiled.append(((number, length, tests), _anchors(pattern[0])))
    return AttributeRules(ruler, compiled)


def _all(tests: Sequence[Test | None]) -> Test:
    """One test passing when every one of ``tests`` passes."""
    checks = tuple(t for t in tests if t is not None)
    return lambda token: all(check(token) for check in checks)
