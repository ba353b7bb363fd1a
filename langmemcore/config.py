"""Settings of the construction (write) path, the retrieval (read) path and the calls to
a language model, as frozen dataclasses; and the limits a model's answer must keep.

Defaults follow the MemCoRe paper (section 3.1 and appendix C.1): merge at strength
>= 0.7, link at >= 0.5, topic groups of 3..15 keywords. They are settings, not constants.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta

from langmemcore._errors import ConfigurationError
from langmemcore.storage.records import DEFAULT_MAX_OBSERVATION_CHARS

__all__ = [
    "CHANNELS",
    "LLM_MAX_ANSWER_CHARS",
    "LLM_MAX_CONTEXT_CHARS",
    "LLM_MAX_KEYWORDS",
    "LLM_MAX_KEYWORD_CHARS",
    "LLM_MAX_LABEL_CHARS",
    "ConstructionConfig",
    "LLMConfig",
    "RetrievalConfig",
]

LLM_MAX_ANSWER_CHARS = 200_000
"""Longest model answer read at all; a longer one is malformed (no JSON is searched in it)."""

LLM_MAX_CONTEXT_CHARS = 20_000
"""Longest note context (ingestion's restatement, the gate's merged context) taken from a
model; a longer one is not a restatement of one observation, and the offline path is used.
Far below what Postgres' full-text index holds (1 MB of ``tsvector`` per note)."""

LLM_MAX_KEYWORD_CHARS = 100
"""Longest keyword taken from a model (a noun phrase); longer ones are dropped. Keyword
names are indexed by a B-tree, whose entries hold about 2.7 KB."""

LLM_MAX_KEYWORDS = 12
"""Keywords taken from one model answer at most (the first ones)."""

LLM_MAX_LABEL_CHARS = 500
"""Longest short text taken from a model: a query's topic description (longer: the
offline decomposition is used), a gate reason, missing information and a sub-query (cut
to this length)."""


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

    cosine_floor: float = 0.45
    """Calibration of the offline strength: the cosine similarity mapped to strength 0.
    Unrelated MiniLM sentences sit below it, and unrelated statements of the same speaker
    (sharing the "Speaker:" prefix) near it."""

    cosine_ceiling: float = 1.0
    """Calibration of the offline strength: the cosine similarity mapped to strength 1
    (identical text)."""

    keyword_weight: float = 0.1
    """Calibration of the offline strength: the share of keyword overlap (Jaccard) blended
    into it; the rest is the mapped cosine similarity."""

    supports_strength: float = 0.85
    """Offline strength at or above which a related, non-conflicting candidate is a
    near-paraphrase (relation ``"supports"``, else ``"related_to"``)."""

    conflict_overlap: float = 0.5
    """Share of the shorter context's content terms that two contexts of opposite polarity
    must share to conflict (relation ``"conflicts"``)."""

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

    namespace_index_notes: int = 20_000
    """Active notes from which a namespace gets vector indexes of its own (partial HNSW
    indexes, built after a topic evolution; see
    :mod:`~langmemcore.construction.namespace_indexes`; 0: never)."""

    topic_min_size: int = 3
    """Smallest topic (keywords); smaller communities are joined to a neighbour or left
    unassigned."""

    topic_max_size: int = 15
    """Largest topic (keywords); larger communities are split."""

    topic_seed: int = 42
    """Seed of the Leiden partition, for reproducible topics."""

    max_observation_chars: int = DEFAULT_MAX_OBSERVATION_CHARS
    """Longest observation text accepted; longer input gets ``InvalidInputError``. At most
    ``DEFAULT_MAX_OBSERVATION_CHARS`` (250,000: a note's full-text vector holds 1 MB)."""

    llm_retries: int = 1
    """Retries of an LLM call after malformed output or an endpoint error, before the
    offline path takes over."""

    prompt_set: str = "grounded"
    """Which ingestion prompt an ``llm`` gets: ``"grounded"`` (instructions and a made-up
    example first, the observation last) or ``"paper"`` (MemCoRe's appendix C.1.1 prompt
    verbatim, to reproduce the paper); see :mod:`langmemcore.prompts.ingestion`."""

    profiles: bool = True
    """Whether construction extracts profile statements (the semantic layer,
    :mod:`langmemcore.profiles`) and keeps the subjects' profiles; off, nothing about
    profiles is extracted or written (the cost measurement's baseline)."""

    profile_llm: bool = False
    """Whether the memory's ``llm`` extracts the profile statements (one more prompt per
    observation, :mod:`langmemcore.prompts.profile`, offline fallback on failure); off,
    the offline extractor is used even when an ``llm`` is set."""

    thread_gap: timedelta = timedelta(minutes=30)
    """Two observations of a namespace, one stored right after the other, are in one
    thread when both are said by someone (turns of a conversation) and both have event
    times at most this far apart (the usual 30-minute inactivity timeout of a session); a
    note's thread vector embeds its context after the text of the observation before its
    latest source in its thread (:attr:`RetrievalConfig.thread_vectors`). Observations
    without a speaker or an event time (standalone facts, store items without a
    ``"speaker"``) start no thread."""

    def __post_init__(self) -> None:
        if self.mode not in ("gated", "append_only"):
            raise ConfigurationError(f"mode must be 'gated' or 'append_only', got {self.mode!r}")
        if self.prompt_set not in ("grounded", "paper"):
            raise ConfigurationError(
                f"prompt_set must be 'grounded' or 'paper', got {self.prompt_set!r}"
            )
        if not 0.0 <= self.link_threshold <= self.merge_threshold <= 1.0:
            raise ConfigurationError(
                "thresholds must satisfy 0 <= link_threshold <= merge_threshold <= 1"
            )
        if not -1.0 <= self.cosine_floor < self.cosine_ceiling <= 1.0:
            raise ConfigurationError(
                "cosine calibration must satisfy -1 <= cosine_floor < cosine_ceiling <= 1"
            )
        shares = (self.keyword_weight, self.supports_strength, self.conflict_overlap)
        if not all(0.0 <= share <= 1.0 for share in shares):
            raise ConfigurationError(
                "keyword_weight, supports_strength and conflict_overlap must be between 0 and 1"
            )
        if not 1 <= self.topic_min_size <= self.topic_max_size:
            raise ConfigurationError("topic sizes must satisfy 1 <= min <= max")
        if self.thread_gap < timedelta(0):
            raise ConfigurationError("thread_gap must not be negative")
        if self.namespace_index_notes < 0:
            raise ConfigurationError("namespace_index_notes must not be negative")
        if not 1 <= self.max_observation_chars <= DEFAULT_MAX_OBSERVATION_CHARS:
            raise ConfigurationError(
                f"max_observation_chars must be between 1 and {DEFAULT_MAX_OBSERVATION_CHARS:,}"
            )


CHANNELS = (
    "topic",
    "keyword",
    "neighbour",
    "vector",
    "speaker",
    "fulltext",
    "time",
    "propagation",
    "profile",
)
"""Every retrieval channel, in the order they are reported."""


@dataclass(frozen=True)
class RetrievalConfig:
    """How a query finds its evidence. Defaults follow MemCoRe section 3.1."""

    channels: tuple[str, ...] = CHANNELS
    """Channels that run; drop one to reproduce the paper's ablations."""

    weights: tuple[tuple[str, float], ...] = (
        ("topic", 0.5),
        ("keyword", 1.0),
        ("neighbour", 0.3),
        ("vector", 1.0),
        ("speaker", 1.0),
        ("fulltext", 1.0),
        ("time", 0.8),
        ("propagation", 1.0),
        ("profile", 0.0),
    )
    """Weight of each channel in reciprocal rank fusion. The profile channel's is 0: it
    orders the returned notes that state the asked aspect's history (the replacing value
    first, or the asked period's) and does not compete with the evidence channels for
    places (docs/experiments/knowledge-updates.md gives what a weight of 1.0 did)."""

    priors: tuple[str, ...] = ("topic",)
    """Channels that act as a prior on the candidate pool instead of bringing candidates:
    their ranking adds to the fused score of notes another channel found, and a note only
    they rank is left out (topics as MemCoRe's coarse route to the right region of memory,
    rather than whole topic groups crowding the top ranks)."""

    k_topic: int = 3
    """Topics taken by centroid similarity (K_topic)."""

    k_key: int = 10
    """Keywords taken per query entity by embedding similarity (K_key)."""

    k_final: int = 20
    """Notes returned (K_final)."""

    depth: int = 60
    """Notes each channel ranks at most."""

    rrf_k: int = 60
    """Rank offset of reciprocal rank fusion."""

    anchors: int = 5
    """Best vector / keyword notes whose edges the neighbour channel follows."""

    keyword_min_similarity: float = 0.5
    """Keywords less similar than this to a query entity are not used."""

    max_rounds: int = 3
    """Rounds of iterative evidence refinement at most (1 disables the loop)."""

    subquery_weight: float = 0.25
    """Weight of a sub-query round's rankings relative to the first round."""

    refine_channels: tuple[str, ...] = ("keyword",)
    """Channels a sub-query round runs (those also in ``channels``); the others rank for
    the original query only. Offline, a sub-query is the missing keywords plus bridge
    keywords, which the keyword channel serves; with it alone a round costs one statement
    and no embedding (keyword vectors come from earlier rounds and the stored keywords).
    docs/experiments/retrieval.md gives the recall of this choice against every channel in
    every round."""

    diversity: float = 0.3
    """Weight of novelty in the final maximal-marginal-relevance ordering (0: fusion
    order as is)."""

    diversity_pool: int = 60
    """Best fused notes the diversity re-ordering considers."""

    sufficiency_top: int = 10
    """Fused notes the offline sufficiency test reads."""

    llm_only: tuple[str, ...] = ("topic", "keyword", "neighbour", "loop", "propagation", "profile")
    """Mechanisms that run only when a chat model is configured: channel names, and
    ``"loop"`` for the sufficiency loop. Offline (no model) they are skipped: by default
    the topic, keyword, neighbour, propagation and profile channels and the loop (the
    ablation tables of BENCHMARKS.md and docs/experiments/ give what each adds offline).
    With a chat model the keyword channel ranks by the LLM's keywords."""

    speaker_query_neutral_names: bool = True
    """Whether the speaker channel ranks the named speakers' notes by similarity to the
    query with their names replaced by "someone" (one more text in the query's embedding
    batch; which names are speakers is read with the stored keyword vectors, in the same
    statement): the channel already keeps to their notes, so the names only pull it
    towards the notes that mention them (figures: docs/experiments/multi-hop.md, "The
    speaker channel's query with neutral names")."""

    thread_vectors: bool = True
    """Whether the vector channel ranks notes by their thread vectors (each note's context
    embedded after the text of the observation before its latest source in its thread,
    :attr:`ConstructionConfig.thread_gap`) rather than by their own embeddings: a reply
    ("Yup, we did it yesterday!", "It was Matt Patterson") is found through what it
    answers. The speaker channel, the gate and the diversity step keep the notes' own
    embeddings. Ingest embeds one more text per threaded note (figures:
    docs/experiments/multi-hop.md, "Thread vectors")."""

    supersession: bool = True
    """Whether a question about the present ("Where does Tomas work now?", "Which band
    does Ines play in?") orders the newer of two returned statements of one speaker about
    the same thing first, the older just below it as history
    (:mod:`~langmemcore.retrieval.supersession`); a question about the state before a
    change ("... before the puppy?", "used to", "... when she lived in Cork?") or in a
    named period longer than a weekend ("... in 2019?") gets the older just above the
    newer; a question naming a day is left to the time channel. Offline too; it reads
    what each statement says from the analysis stored with its observation
    (:mod:`~langmemcore.analysis`). Figures: BENCHMARKS.md, "Knowledge updates"."""

    supersession_similarity: float = 0.725
    """Cosine similarity at or above which two statements of one speaker are about the
    same thing for supersession without sharing a term of the question: the similarity at
    which the gate's offline strength reaches its link threshold (``cosine_floor`` 0.45 +
    ``link_threshold`` 0.5 x (``cosine_ceiling`` 1.0 - 0.45), no keyword overlap), i.e.
    two notes the gate would link as complementary."""

    propagation_seeds: int = 5
    """Best fused notes the propagation channel's random walk restarts at (as many as the
    neighbour channel's anchors)."""

    propagation_damping: float = 0.5
    """Probability that the propagation walk follows a link rather than restarting at a
    seed (HippoRAG's 0.5: mass halves at each step, so two-step bridges still count)."""

    propagation_iterations: int = 10
    """Power iterations of the propagation walk (at damping 0.5, ten leave under 0.1%
    of the mass unconverged)."""

    propagation_max_carriers: int = 60
    """Keywords carried by more active notes than this are hubs the propagation walk
    does not cross (as many notes as a channel ranks)."""

    def weight(self, channel: str) -> float:
        """Fusion weight of ``channel`` (0 for unknown ones)."""
        return dict(self.weights).get(channel, 0.0)

    def offline(self) -> RetrievalConfig:
        """These settings without the mechanisms of ``llm_only`` (what a search without a
        chat model runs).
        """
        if not self.llm_only:
            return self
        return replace(
            self,
            channels=tuple(c for c in self.channels if c not in self.llm_only),
            max_rounds=1 if "loop" in self.llm_only else self.max_rounds,
            llm_only=(),
        )

    def __post_init__(self) -> None:
        known = {*CHANNELS, "loop"}
        if set(self.llm_only) - known:
            raise ConfigurationError(
                f"unknown llm_only mechanisms: {sorted(set(self.llm_only) - known)}"
            )
        unknown = (set(self.channels) | set(self.refine_channels) | set(self.priors)) - set(
            CHANNELS
        )
        if unknown:
            raise ConfigurationError(f"unknown retrieval channels: {sorted(unknown)}")
        if self.max_rounds < 1 or self.k_final < 1:
            raise ConfigurationError("max_rounds and k_final must be at least 1")
        if not 0.0 <= self.propagation_damping < 1.0:
            raise ConfigurationError("propagation_damping must be in [0, 1)")
        if not -1.0 <= self.supersession_similarity <= 1.0:
            raise ConfigurationError("supersession_similarity must be in [-1, 1]")


@dataclass(frozen=True)
class LLMConfig:
    """How a language model is called: the time allowed per call and the circuit breaker
    that stops calling a model which keeps failing (the offline path answers instead).

    The breaker is kept per model object (every memory using the model shares it): after
    ``failure_threshold`` consecutive failed attempts (endpoint errors, timeouts or
    unusable answers) the model is skipped for ``cooldown_seconds``; then one call tries
    it again, closing the breaker if it succeeds and re-opening it if not.
    """

    call_timeout: float | None = 60.0
    """Seconds one model call may take before it counts as failed (``None``: no limit
    besides the model's own)."""

    failure_threshold: int = 5
    """Consecutive failed attempts that open the breaker (0 disables the breaker)."""

    cooldown_seconds: float = 30.0
    """Seconds an open breaker skips the model before one call tries it again."""

    agent_timeout: float | None = 120.0
    """Seconds an active search's agent may walk in all (each of its model calls also
    within ``call_timeout``); then it stops with what it gathered (``None``: no limit
    besides its step budget)."""

    concurrency: int = 8
    """Calls to one model object in flight at once (per event loop); the others wait for a
    place before their ``call_timeout`` starts, so that a server with few slots (a local
    model) is not timed out on its queue. 0: no limit."""

    json_schema: bool = True
    """Whether a model that takes OpenAI's ``response_format`` (``ChatOpenAI``: OpenAI and
    the OpenAI-compatible servers) is sent each prompt's output model as a JSON schema, so
    that a server decoding by grammar (llama.cpp's ``llama-server``, vLLM, Ollama) answers
    only in its shape; the answer is parsed as tolerantly either way. Off for a server that
    refuses the field."""

    def __post_init__(self) -> None:
        if self.call_timeout is not None and self.call_timeout <= 0:
            raise ConfigurationError("call_timeout must be positive or None")
        if self.failure_threshold < 0 or self.cooldown_seconds < 0:
            raise ConfigurationError("failure_threshold and cooldown_seconds must be >= 0")
        if self.agent_timeout is not None and self.agent_timeout <= 0:
            raise ConfigurationError("agent_timeout must be positive or None")
        if self.concurrency < 0:
            raise ConfigurationError("concurrency must be >= 0 (0: no limit)")
