"""Raw-turn retrieval baselines: Okapi BM25, dense cosine ranking, and reciprocal rank fusion.

These rank the conversation's turns directly (no memory construction) and are computed in the
same run as the engine so that every reported figure has its reference point.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from langmemcore._errors import InvalidInputError
from langmemcore.eval.metrics import DEFAULT_KS, RecallTable
from langmemcore.locomo import Conversation, Turn

_STOPWORDS_TEXT = """
    a about above after again against ain all am an and any are aren as at be because been
    before being below between both but by can couldn d did didn do does doesn doing don
    down during each few for from further had hadn has hasn have haven having he her here
    hers herself him himself his how i if in into is isn it its itself just ll m ma me
    mightn more most mustn my myself needn no nor not now o of off on once only or other our
    ours ourselves out over own re s same shan she should shouldn so some such t than that
    the their theirs them themselves then there these they this those through to too under
    until up ve very was wasn we were weren what when where which while who whom why will
    with won wouldn y you your yours yourself yourselves
"""
ENGLISH_STOPWORDS: frozenset[str] = frozenset(_STOPWORDS_TEXT.split())
"""English stopwords: NLTK's list without its apostrophe forms (they never match a token)."""

_TOKEN = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Lowercase alphanumeric tokens of ``text``, English stopwords removed.

    Args:
        text: Any text.

    Returns:
        The tokens in order (repeats kept).
    """
    return [token for token in _TOKEN.findall(text.lower()) if token not in ENGLISH_STOPWORDS]


class BM25Index:
    """Okapi BM25 over a fixed list of documents.

    Term weight: ``idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avg_len))`` with the
    non-negative ``idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))``.
    """

    def __init__(self, documents: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        """Index the documents.

        Args:
            documents: Document texts; a document's index is its id in rankings.
            k1: Term-frequency saturation.
            b: Length normalisation strength, in [0, 1].

        Raises:
            InvalidInputError: If ``k1`` is negative or ``b`` is outside [0, 1].
        """
        if k1 < 0 or not 0.0 <= b <= 1.0:
            raise InvalidInputError(f"need k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.k1 = k1
        self.b = b
        self._term_counts = [Counter(tokenize(doc)) for doc in documents]
        self._lengths = np.array(
            [sum(counts.values()) for counts in self._term_counts], dtype=np.float64
        )
        total = float(self._lengths.sum())
        self._avg_length = total / len(documents) if total > 0 else 1.0
        document_frequency: Counter[str] = Counter()
        for counts in self._term_counts:
            document_frequency.update(counts.keys())
        n_docs = len(documents)
        self._idf = {
            term: math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
            for term, df in document_frequency.items()
        }

    def __len__(self) -> int:
        """Return the number of indexed documents."""
        return len(self._term_counts)

    def scores(self, query: str) -> npt.NDArray[np.float64]:
        """BM25 score of every document for ``query``.

        Args:
            query: Query text (tokenized like the documents; repeated terms count repeatedly).

        Returns:
            One score per document, in document order.
        """
        result = np.zeros(len(self._term_counts), dtype=np.float64)
        norm = self.k1 * (1.0 - self.b + self.b * self._lengths / self._avg_length)
        for term in tokenize(query):
            idf = self._idf.get(term)
            if idf is None:
                continue
            tf = np.array([counts.get(term, 0) for counts in self._term_counts], dtype=np.float64)
            result += idf * tf * (self.k1 + 1.0) / (tf + norm)
        return result

    def rank(self, query: str) -> list[int]:
        """Ids of the documents that share a term with ``query``, best first.

        Documents scoring zero are left out; ties keep document order.

        Args:
            query: Query text.

        Returns:
            Document indices in descending score order.
        """
        scores = self.scores(query)
        order = np.argsort(-scores, kind="stable")
        return [int(i) for i in order if scores[i] > 0.0]


def dense_rank(
    query_vec: npt.ArrayLike,
    turn_matrix: npt.ArrayLike,
) -> list[int]:
    """Rank rows of ``turn_matrix`` by cosine similarity to ``query_vec``.

    Args:
        query_vec: Query embedding, shape ``(d,)``.
        turn_matrix: One embedding per row, shape ``(n, d)``.

    Returns:
        All row indices, most similar first; ties keep row order. Zero vectors score 0.

    Raises:
        InvalidInputError: If the shapes do not match.
    """
    query = np.asarray(query_vec, dtype=np.float64)
    matrix = np.asarray(turn_matrix, dtype=np.float64)
    if query.ndim != 1 or matrix.ndim != 2 or matrix.shape[1] != query.shape[0]:
        raise InvalidInputError(f"shape mismatch: query {query.shape}, matrix {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(query)
    dots = matrix @ query
    cosine = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
    return [int(i) for i in np.argsort(-cosine, kind="stable")]


def rrf_fuse(
    rankings: Sequence[Sequence[str]],
    k: int = 60,
    weights: Sequence[float] | None = None,
) -> list[str]:
    """Reciprocal rank fusion: ``score(d) = sum_i w_i / (k + rank_i(d))``, ranks from 1.

    Args:
        rankings: Ranked id lists, best first; an id repeated within one list counts at its
            first position only, and ranks count distinct ids.
        k: Rank offset (60 in Cormack et al.).
        weights: One weight per ranking; all 1 when ``None``.

    Returns:
        All ids, highest fused score first; ties keep the order ids were first met.

    Raises:
        InvalidInputError: If ``weights`` and ``rankings`` differ in length or ``k`` is
            negative.
    """
    if k < 0:
        raise InvalidInputError(f"k must be non-negative, got {k}")
    factors = [1.0] * len(rankings) if weights is None else [float(w) for w in weights]
    if len(factors) != len(rankings):
        raise InvalidInputError(f"{len(factors)} weights for {len(rankings)} rankings")
    fused: dict[str, float] = {}
    for ranking, weight in zip(rankings, factors, strict=True):
        seen: set[str] = set()
        for item in ranking:
            if item in seen:
                continue
            seen.add(item)
            fused[item] = fused.get(item, 0.0) + weight / (k + len(seen))
    order = sorted(enumerate(fused.items()), key=lambda entry: (-entry[1][1], entry[0]))
    return [item for _, (item, _) in order]


def turn_document(turn: Turn) -> str:
    """Return the text a baseline indexes for a turn: ``"<speaker>: <full_text>"``."""
    return f"{turn.speaker}: {turn.full_text}"


Embedder = Callable[[list[str]], npt.ArrayLike]
"""Maps texts to a ``(len(texts), d)`` embedding matrix."""


def run_turn_baselines(
    conversations: Sequence[Conversation],
    embed: Embedder,
    ks: Sequence[int] = DEFAULT_KS,
) -> dict[str, RecallTable]:
    """Score BM25, dense and RRF(BM25, dense) turn rankings on every retrieval question.

    Each conversation is its own corpus. Each ranked turn expands to itself.

    Args:
        conversations: Parsed LoCoMo conversations.
        embed: Embeds a batch of texts (turn documents, then questions) as a matrix.
        ks: Turn budgets to report.

    Returns:
        Tables keyed ``"bm25"``, ``"dense"`` and ``"rrf"``.
    """
    tables = {name: RecallTable(ks) for name in ("bm25", "dense", "rrf")}
    for conversation in conversations:
        questions = conversation.retrieval_questions
        if not questions:
            continue
        documents = [turn_document(turn) for turn in conversation.turns]
        ids = [turn.dia_id for turn in conversation.turns]
        index = BM25Index(documents)
        turn_vectors = np.asarray(embed(documents), dtype=np.float64)
        query_vectors = np.asarray(embed([q.question for q in questions]), dtype=np.float64)
        for question, query_vector in zip(questions, query_vectors, strict=True):
            bm25 = [ids[i] for i in index.rank(question.question)]
            dense = [ids[i] for i in dense_rank(query_vector, turn_vectors)]
            fused = rrf_fuse([bm25, dense])
            for name, ranking in (("bm25", bm25), ("dense", dense), ("rrf", fused)):
                tables[name].add(question.category, [[i] for i in ranking], question.evidence)
    return tables
