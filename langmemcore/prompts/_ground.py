"""Grounding: what a model's answer may take from the observation it was given.

A small model echoes its prompt's examples and invents people and things the observation
never mentions; what it writes is input, and only what the observation supports is kept.
A phrase is supported when each of its content words is said in the observation (by
stem: case and inflection aside, :func:`~langmemcore.text.content_stem_set`), the
speaker's name and the time it was said counting as said. A restatement of the
observation (a note's context) is grounded when most of what it says is said there (at
least half of its content words beside the speaker's name and the time, and one at
least) and every name it writes is supported.

Each dropped phrase and rejected restatement is counted as ``rejected`` in the
operation's model usage (:class:`~langmemcore.prompts.LLMUsage`).
"""

from __future__ import annotations

from langmemcore.prompts._guard import current_usage
from langmemcore.text import content_stem_set
from langmemcore.text.keywords import extract_keywords_and_entities

__all__ = ["grounded_context", "reject", "supported"]


def _said(source: str, given: str) -> frozenset[str]:
    return content_stem_set(source) | content_stem_set(given)


def supported(phrase: str, source: str, given: str = "") -> bool:
    """Whether each content word of ``phrase`` is said in ``source`` or ``given`` (the
    speaker's name, the time); a phrase without content words is not.
    """
    stems = content_stem_set(phrase)
    return bool(stems) and stems <= _said(source, given)


def grounded_context(context: str, source: str, given: str = "") -> bool:
    """Whether a model's restatement ``context`` of the observation ``source`` says what
    it says: at least half of its content words other than those of ``given`` (the
    speaker's name, the time), and one at least, are said in ``source`` (a source without
    content words, "haha!", takes any reaction), and every name it writes is said in
    ``source`` or ``given``.
    """
    said, allowed = content_stem_set(source), _said(source, given)
    own = content_stem_set(context) - content_stem_set(given)
    if said and (not own & said or 2 * len(own & said) < len(own)):
        return False
    _keywords, names = extract_keywords_and_entities(context)
    return all(content_stem_set(name) <= allowed for name in names)


def reject(step: str, count: int = 1) -> None:
    """Count ``count`` rejected parts of an answer of ``step`` in the running operation."""
    current_usage().step(step).rejected += count
