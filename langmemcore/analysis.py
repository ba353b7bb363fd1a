"""analysis: what one observation says, worked out once when it is written and stored
with it (``observations.analysis``), so that no later step re-reads its text.

A search that orders statements about a state (now, before a change, in a period) reads
the analyses of the returned notes' sources and of the turns around them (see
:mod:`~langmemcore.retrieval.pack`): which words and profile aspects a statement speaks
of, whether it announces a change and what changed, whether it says how things stand
now; and, for a turn read beside a note, whether it asks something and which aspects its
back-references name ("That car is held together with prayers" names a vehicle).

The statement side is read from the note context the observation was drafted into
(speaker and time resolved, see :func:`~langmemcore.text.analyze_observation`); the
exchange side from the raw text as it was said.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from langmemcore.profiles.statement_cues import statement_aspects
from langmemcore.text import content_stem_set
from langmemcore.text.change import change_clauses, states_present
from langmemcore.text.phrases import phrases

__all__ = ["Analysis", "analyze"]

_SELF = phrases("person.self")
_REFERENCE = phrases("person.reference")


@dataclass(frozen=True)
class Analysis:
    """What one observation says, as later steps read it.

    Attributes:
        stems: The stems of its context's content words.
        aspects: The profile aspects its context speaks of
            (:func:`~langmemcore.profiles.statement_cues.statement_aspects`).
        changes: Whether its context announces a change ("I quit the bakery").
        change_stems: The stems of the content words of the clauses announcing a change.
        present: Whether its context says something started or how it stands now
            (:func:`~langmemcore.text.change.states_present`).
        asks: Whether its raw text asks a question.
        refers_to: The aspects of what its raw text refers back to by a definite,
            demonstrative or second-person phrase ("that car", "ur goldfish"), when it
            neither asks nor speaks in the first person (then it speaks of something
            said before it, not of its speaker).
    """

    stems: frozenset[str] = frozenset()
    aspects: frozenset[str] = frozenset()
    changes: bool = False
    change_stems: frozenset[str] = frozenset()
    present: bool = False
    asks: bool = False
    refers_to: frozenset[str] = frozenset()

    def changed(self, keywords: Iterable[str], speakers: Iterable[str]) -> frozenset[str]:
        """What it says changed among a note's ``keywords``: the stems of those a clause
        announcing a change names ("Ben finally sold the Panda and bought a Toyota" ->
        ``panda``, ``toyota``), without the ``speakers``' names; empty when it announces
        none.
        """
        if not self.change_stems:
            return frozenset()
        named = self.change_stems & content_stem_set(" ".join(keywords))
        return named - content_stem_set(" ".join(speakers))

    def to_json(self) -> dict[str, Any]:
        """The analysis as stored (JSON: sorted lists, booleans)."""
        return {
            "stems": sorted(self.stems),
            "aspects": sorted(self.aspects),
            "changes": self.changes,
            "change_stems": sorted(self.change_stems),
            "present": self.present,
            "asks": self.asks,
            "refers_to": sorted(self.refers_to),
        }

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> Analysis:
        """The analysis :meth:`to_json` stored."""
        return cls(
            stems=frozenset(stored["stems"]),
            aspects=frozenset(stored["aspects"]),
            changes=bool(stored["changes"]),
            change_stems=frozenset(stored["change_stems"]),
            present=bool(stored["present"]),
            asks=bool(stored["asks"]),
            refers_to=frozenset(stored["refers_to"]),
        )


def _referred(text: str) -> list[str]:
    """What ``text`` refers back to: the one or two words after each definite,
    demonstrative or second-person word ("that car" -> "car").
    """
    return [text[found.start : found.end].split(None, 1)[-1] for found in _REFERENCE.finditer(text)]


def _aspects_of(phrases: Iterable[str]) -> frozenset[str]:
    return frozenset(aspect for phrase in phrases for aspect in statement_aspects(phrase))


def analyze(text: str, context: str) -> Analysis:
    """The analysis of an observation whose raw text is ``text``, drafted into the note
    context ``context``.
    """
    clauses = change_clauses(context)
    asks = "?" in text
    refers_back = not asks and not _SELF.search(text)
    refers_to = _aspects_of(_referred(text)) if refers_back else frozenset()
    return Analysis(
        stems=content_stem_set(context),
        aspects=frozenset(statement_aspects(context)),
        changes=bool(clauses),
        change_stems=content_stem_set(" ".join(clauses)),
        present=states_present(context),
        asks=asks,
        refers_to=refers_to,
    )
