"""Confidence: a note's confidence ``tau`` as a Beta posterior (pure, no I/O).

Each note carries ``alpha`` and ``beta``, the pseudo-counts of evidence for and against
it being true; its confidence is the posterior mean ``tau = alpha / (alpha + beta)``.
The rule, applied by :mod:`langmemcore.formal.capacity`:

- **prior** (extraction): a note extracted with confidence ``c`` starts at
  ``alpha = n0 * c``, ``beta = n0 * (1 - c)`` (``n0``: the prior strength,
  :attr:`~langmemcore.formal.config.FormalConfig.prior_strength`);
- **agreement**: a ``supports`` edge of strength ``s`` adds ``s * w_edge`` to the
  ``alpha`` of both of its notes, and a merge (one more independent source saying the
  same thing) adds ``w_merge`` to the ``alpha`` of the note it grew;
- **contradiction**: a ``conflicts`` edge of strength ``s`` adds ``s * w_edge`` to the
  ``beta`` of both of its notes (which side is false is not known yet);
- **settlement**: feedback with outcome ``o`` in ``[0, 1]`` (1: the answer built on
  the notes was right, 0: wrong) and weight ``w`` adds ``w * o`` to ``alpha`` and
  ``w * (1 - o)`` to ``beta`` of every note named.

A ``related_to`` edge is no evidence either way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from langmemcore._errors import InvalidInputError

__all__ = ["BetaBelief", "edge_evidence", "prior_belief", "settle"]


@dataclass(frozen=True)
class BetaBelief:
    """A Beta(alpha, beta) belief that a note is true.

    Attributes:
        alpha: Pseudo-count of evidence for.
        beta: Pseudo-count of evidence against.
    """

    alpha: float
    beta: float

    def __post_init__(self) -> None:
        if not (self.alpha >= 0 and self.beta >= 0 and self.alpha + self.beta > 0):
            raise InvalidInputError(
                f"a Beta belief needs alpha, beta >= 0 and a positive sum, "
                f"got ({self.alpha}, {self.beta})"
            )

    @property
    def tau(self) -> float:
        """Confidence: the posterior mean ``alpha / (alpha + beta)``."""
        return self.alpha / (self.alpha + self.beta)

    @property
    def evidence(self) -> float:
        """Total pseudo-count ``alpha + beta``."""
        return self.alpha + self.beta


def _unit(value: float, what: str) -> float:
    if not isinstance(value, int | float) or math.isnan(value) or not 0.0 <= value <= 1.0:
        raise InvalidInputError(f"{what} must be within [0, 1], got {value!r}")
    return float(value)


def prior_belief(confidence: float, strength: float) -> BetaBelief:
    """The belief of a freshly extracted note: ``(n0 * c, n0 * (1 - c))``.

    Args:
        confidence: Extraction confidence ``c`` in ``[0, 1]``.
        strength: Prior strength ``n0`` (> 0): how many settlements it takes to move
            ``tau`` half-way.
    """
    c = _unit(confidence, "confidence")
    if strength <= 0:
        raise InvalidInputError("prior strength must be positive")
    return BetaBelief(strength * c, strength * (1.0 - c))


def edge_evidence(relation: str, strength: float, weight: float) -> tuple[float, float]:
    """``(d_alpha, d_beta)`` an edge adds to each of its two notes.

    Args:
        relation: ``"supports"``, ``"conflicts"`` or ``"related_to"``.
        strength: Edge strength in ``[0, 1]``.
        weight: ``w_edge``.
    """
    s = _unit(strength, "edge strength") * weight
    if relation == "supports":
        return s, 0.0
    if relation == "conflicts":
        return 0.0, s
    return 0.0, 0.0


def settle(belief: BetaBelief, outcome: float, weight: float = 1.0) -> BetaBelief:
    """The belief after one settlement: ``(alpha + w * o, beta + w * (1 - o))``.

    Args:
        belief: The note's current belief.
        outcome: ``o`` in ``[0, 1]``: 1 when the answer that used the note was right.
        weight: ``w`` (>= 0).
    """
    o = _unit(outcome, "outcome")
    if weight < 0:
        raise InvalidInputError("feedback weight must not be negative")
    return BetaBelief(belief.alpha + weight * o, belief.beta + weight * (1.0 - o))
