"""Retrieval settings: mechanisms kept for the LLM path, and the evaluation's ablations."""

from __future__ import annotations

import pytest

from langmemcore import ConfigurationError
from langmemcore.config import CHANNELS, RetrievalConfig
from langmemcore.eval.locomo_eval import ablation_configs


def test_offline_settings_drop_the_llm_only_mechanisms() -> None:
    config = RetrievalConfig(llm_only=("topic", "loop"))
    offline = config.offline()
    assert "topic" not in offline.channels and offline.max_rounds == 1
    assert offline.llm_only == ()
    assert set(offline.channels) == set(CHANNELS) - {"topic"}
    assert RetrievalConfig(llm_only=("neighbour",)).offline().max_rounds == 3
    plain = RetrievalConfig(llm_only=())
    assert plain.offline() is plain


def test_unknown_llm_only_mechanisms_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="llm_only"):
        RetrievalConfig(llm_only=("telepathy",))
    with pytest.raises(ValueError, match="unknown retrieval channels"):
        RetrievalConfig(priors=("telepathy",))
    with pytest.raises(ConfigurationError, match="supersession_similarity"):
        RetrievalConfig(supersession_similarity=1.5)


def test_ablations_switch_off_what_runs_and_on_what_is_kept_for_the_llm_path() -> None:
    config = RetrievalConfig(llm_only=("topic", "loop"))
    offline = ablation_configs(config)
    assert "no topic channel" not in offline and "no refinement loop" not in offline
    assert list(offline)[:2] == ["with topic channel", "with refinement loop"]
    assert "topic" in offline["with topic channel"].offline().channels
    assert offline["with refinement loop"].offline().max_rounds == config.max_rounds
    assert "topic" not in offline["no keyword channel"].offline().channels
    with_llm = ablation_configs(config, offline=False)
    assert "no topic channel" in with_llm and "no refinement loop" in with_llm
    assert not any(name.startswith("with ") for name in with_llm)
    assert not offline["no supersession"].supersession and config.supersession
    assert "no supersession" not in ablation_configs(RetrievalConfig(supersession=False))
    assert not offline["no thread vectors"].thread_vectors and config.thread_vectors
    assert "no thread vectors" not in ablation_configs(RetrievalConfig(thread_vectors=False))
    assert offline["no diversity"].diversity == 0.0 < config.diversity
    assert "no diversity" not in ablation_configs(RetrievalConfig(diversity=0.0))
