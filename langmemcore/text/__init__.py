"""Deterministic text analysis for the offline write and read paths.

Used by the offline ingest (observation -> note draft: keywords, entities, denoised
context, resolved times) and the offline query decomposition (topic, keywords, entities,
times). Word lists and rules, well under a millisecond per turn, with PyStemmer's
Snowball ``english`` stemmer for `stem`; no model download. ``benchmarks/text_analysis.py``
compares each hand-made part with the library that does the same job (spaCy, dateparser,
Snowball); the figures are in BENCHMARKS.md.
"""

from __future__ import annotations

from langmemcore.text.dates import (
    TimeMention,
    format_time_mention,
    parse_event_time,
    resolve_time_mentions,
)
from langmemcore.text.keywords import extract_entities, extract_keywords
from langmemcore.text.resolve import (
    NoteDraftText,
    QueryAnalysis,
    analyze_observation,
    analyze_query,
    resolve_first_person,
)
from langmemcore.text.tokens import (
    STOPWORDS,
    content_stem_set,
    content_term_set,
    content_terms,
    normalize_keyword,
    singularize,
    stem,
    tokenize,
)

__all__ = [
    "STOPWORDS",
    "NoteDraftText",
    "QueryAnalysis",
    "TimeMention",
    "analyze_observation",
    "analyze_query",
    "content_stem_set",
    "content_term_set",
    "content_terms",
    "extract_entities",
    "extract_keywords",
    "format_time_mention",
    "normalize_keyword",
    "parse_event_time",
    "resolve_first_person",
    "resolve_time_mentions",
    "singularize",
    "stem",
    "tokenize",
]
