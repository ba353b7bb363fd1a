"""Settings of the construction (write) path, as a frozen dataclass.

Defaults follow the MemCoRe paper (section 3.1 and appendix C.1): merge at strength
>= 0.7, link at >= 0.5, topic groups of 3..15 keywords. They are settings, not constants.
"""

from __future__ import annotations

from dataclasses import dataclass

from langmemcore._errors import ConfigurationError
from langmemcore.storage.repository import DEFAULT_MAX_OBSERVATION_CHARS

__all__ = ["ConstructionConfig"]


@dataclass(frozen=True)
class ConstructionConfig:
    """How observations become notes, edges and topics."""

    mode: str = "gated"
    """``"gated"`` (merge / link / append by strength) or ``"append_only"`` (no gate)."""

    enable_merge: bool = True
    """Whether redundant observations are merged into an existing note (ablation: no-merge)."""

    enable_link: bool = True
    """Whether complementary / conflicting notes get an edge (ablation: no-link)."""

    denoise: bool = True
    """Whether the note context is the resolved restatement (speaker, first person, dates)
    rather than the raw text (ablation: no-denoise)."""

    merge_threshold: float = 0.7
    """Strength at or above which a new observation is merged into its best candidate."""

    link_threshold: float = 0.5
    """Strength at or above which a new note is linked to a candidate."""

    ambiguous_band: tuple[float, float] = (0.45, 0.8)
    """Strengths within this band are sent to the LLM gate prompt when an LLM is set;
    outside it the offline decision stands."""

    candidate_k: int = 6
    """Candidate notes fetched by vector similarity for the gate."""

    keyword_candidates: int = 4
    """Extra candidate notes fetched by keyword overlap."""

    max_links: int = 3
    """Edges created per new note at most (strongest first)."""

    max_sources_per_note: int = 6
    """A note with this many sources takes no more merges (keeps notes focused)."""

    max_keywords: int = 8
    """Keywords extracted per observation at most."""

    topic_every: int = 200
    """Re-run topic evolution after this many new notes in a namespace (0: only on demand)."""

    topic_min_size: int = 3
    """Smallest topic (keywords); smaller communities are joined to a neighbour or left
    unassigned."""

    topic_max_size: int = 15
    """Largest topic (keywords); larger communities are split."""

    topic_seed: int = 42
    """Seed of the Leiden partition, for reproducible topics."""

    max_observation_chars: int = DEFAULT_MAX_OBSERVATION_CHARS
    """Longest observation text accepted; longer input gets ``InvalidInputError``."""

    llm_retries: int = 1
    """Retries of an LLM call after malformed output or an endpoint error, before the
    offline path takes over."""

    def __post_init__(self) -> None:
        if self.mode not in ("gated", "append_only"):
            raise ConfigurationError(f"mode must be 'gated' or 'append_only', got {self.mode!r}")
        if not 0.0 <= self.link_threshold <= self.merge_threshold <= 1.0:
            raise ConfigurationError(
                "thresholds must satisfy 0 <= link_threshold <= merge_threshold <= 1"
            )
        if not 1 <= self.topic_min_size <= self.topic_max_size:
            raise ConfigurationError("topic sizes must satisfy 1 <= min <= max")
