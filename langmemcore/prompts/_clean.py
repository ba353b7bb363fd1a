"""A model's answer is untrusted input: the field types its output models are built from.

Every text is cleaned of what Postgres cannot store (NUL, lone surrogates) and trimmed;
then bounded (see the ``LLM_MAX_*`` limits in :mod:`langmemcore.config`): a context or
topic description that is too long fails validation (the caller's offline path takes
over), a keyword that is too long is dropped, a reason or sub-query is cut. A value of
the wrong type (a number for a list, an object for a text, ``null`` for a context) fails
validation.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, StringConstraints

from langmemcore.config import (
    LLM_MAX_CONTEXT_CHARS,
    LLM_MAX_KEYWORD_CHARS,
    LLM_MAX_KEYWORDS,
    LLM_MAX_LABEL_CHARS,
)

__all__ = ["Context", "Keywords", "Label", "Reason", "clean_text", "cut_label"]

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def clean_text(value: object) -> object:
    """``value`` without NUL characters and lone surrogates, trimmed, when it is a string;
    anything else unchanged (for the type check that follows).
    """
    if isinstance(value, str):
        return _UNSTORABLE.sub("", value).strip()
    return value


def cut_label(value: str) -> str:
    """A cleaned text cut to ``LLM_MAX_LABEL_CHARS``."""
    text = clean_text(value)
    assert isinstance(text, str)
    return text[:LLM_MAX_LABEL_CHARS].strip()


def _keywords(value: object) -> list[str]:
    """A list of strings, cleaned; empty, overlong and repeated entries dropped, the
    first ``LLM_MAX_KEYWORDS`` kept (``null`` is no keywords).
    """
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("keywords must be a list of strings")
    cleaned = (clean_text(v) for v in value)
    kept = [v for v in cleaned if isinstance(v, str) and 0 < len(v) <= LLM_MAX_KEYWORD_CHARS]
    return list(dict.fromkeys(kept))[:LLM_MAX_KEYWORDS]


def _not_blank(value: str) -> str:
    if not value:
        raise ValueError("text is blank")
    return value


Context = Annotated[
    str,
    BeforeValidator(clean_text),
    StringConstraints(max_length=LLM_MAX_CONTEXT_CHARS),
    AfterValidator(_not_blank),
]
"""A note context: cleaned, non-blank, at most ``LLM_MAX_CONTEXT_CHARS``."""

Label = Annotated[
    str,
    BeforeValidator(clean_text),
    StringConstraints(max_length=LLM_MAX_LABEL_CHARS),
    AfterValidator(_not_blank),
]
"""A short description: cleaned, non-blank, at most ``LLM_MAX_LABEL_CHARS``."""

Reason = Annotated[str, AfterValidator(cut_label)]
"""Free text kept for the record: cleaned and cut to ``LLM_MAX_LABEL_CHARS``."""

Keywords = Annotated[list[str], BeforeValidator(_keywords)]
"""Keywords: a list of strings, cleaned and bounded (see ``_keywords``)."""
