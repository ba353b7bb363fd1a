"""Keep the stored profile equal to the replay of its statements.

Every write path goes through here: construction records an observation's statements and
replays their chains (:func:`record_statements`); forgetting an observation removes its
statements and replays theirs (:func:`forget_statements`); repair replays every chain of a
namespace (:func:`rebuild_profiles`). A chain is always rewritten whole from its
statements (:func:`~langmemcore.profiles.resolve.resolve_chain`), so the stored values
never depend on the order observations arrived in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from langmemcore.profiles.resolve import resolve_chain
from langmemcore.storage.profiles.records import Chain, ChainValue, StatementLike
from langmemcore.storage.repository import Repository

__all__ = [
    "Replacement",
    "forget_statements",
    "rebuild_profiles",
    "record_statements",
    "replacements_of",
    "replay_chains",
]


@dataclass(frozen=True)
class Replacement:
    """A value of a chain that a newer value replaced.

    Attributes:
        subject: The subject.
        aspect: The aspect.
        older: The replaced value.
        newer: The value that replaced it.
    """

    subject: str
    aspect: str
    older: ChainValue
    newer: ChainValue

    def introduced_by(self, observation_id: int) -> bool:
        """Tell whether ``observation_id`` first stated either value (stating a value
        again does not make it part of the replacement).
        """
        return any(
            next(s.observation_id for s in value.sources if s.role == "states") == observation_id
            for value in (self.older, self.newer)
        )


async def replay_chains(
    repo: Repository, namespace: Sequence[str], chains: Sequence[Chain]
) -> list[Replacement]:
    """Rewrite each chain's values from its statements (a chain left without statements
    loses its values); returns the replacements of the replayed chains.
    """
    replacements: list[Replacement] = []
    for subject_key, aspect in dict.fromkeys(chains):
        subject, chain = await _replayed(repo, namespace, subject_key, aspect)
        await repo.replace_profile_chain(namespace, subject, aspect, chain)
        replacements.extend(_replacements(subject, aspect, chain))
    return replacements


async def _replayed(
    repo: Repository, namespace: Sequence[str], subject_key: str, aspect: str
) -> tuple[str, list[ChainValue]]:
    """The chain's subject (as first written) and its values replayed from its statements."""
    statements = await repo.profile_statements_of(namespace, subject_key, aspect)
    subject = statements[0].subject if statements else subject_key
    return subject, resolve_chain(aspect, statements)


def _replacements(subject: str, aspect: str, chain: Sequence[ChainValue]) -> list[Replacement]:
    return [
        Replacement(subject, aspect, value, chain[value.replaced_by])
        for value in chain
        if value.replaced_by is not None
    ]


async def replacements_of(
    repo: Repository, namespace: Sequence[str], observation_id: int
) -> list[Replacement]:
    """The replacements whose older or newer value the observation first stated, from its
    chains replayed as they stand (nothing is written).
    """
    found: list[Replacement] = []
    for subject_key, aspect in await repo.profile_chains_of_observations(
        namespace, [observation_id]
    ):
        subject, chain = await _replayed(repo, namespace, subject_key, aspect)
        found.extend(_replacements(subject, aspect, chain))
    return [r for r in found if r.introduced_by(observation_id)]


async def record_statements(
    repo: Repository,
    namespace: Sequence[str],
    observation_id: int,
    statements: Sequence[StatementLike],
) -> list[Replacement]:
    """Store what one observation states and replay the chains it touches; returns the
    replacements in those chains whose older or newer value the observation first stated.
    """
    chains = await repo.add_profile_statements(namespace, observation_id, statements)
    if not chains:
        return []
    replayed = await replay_chains(repo, namespace, chains)
    return [r for r in replayed if r.introduced_by(observation_id)]


async def forget_statements(
    repo: Repository, namespace: Sequence[str], observation_ids: Sequence[int]
) -> list[Chain]:
    """Remove the observations' statements and replay the chains they were in; returns
    those chains.
    """
    chains = await repo.forget_profile_statements_of_observations(namespace, observation_ids)
    await replay_chains(repo, namespace, chains)
    return chains


async def rebuild_profiles(repo: Repository, namespace: Sequence[str]) -> int:
    """Replay every chain of the namespace (repairs values that drifted from their
    statements); returns how many chains were replayed.
    """
    chains = await repo.profile_chains(namespace)
    await replay_chains(repo, namespace, chains)
    return len(chains)
