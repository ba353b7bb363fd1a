"""Prompts a small model cannot mistake, and grounding of what it answers in its input."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langmemcore.prompts import grounded_context, supported, track_usage
from langmemcore.prompts._ground import reject
from langmemcore.prompts.ingestion import PAPER, render_ingestion_prompt
from langmemcore.prompts.profile import render_profile_prompt

DATA = Path(__file__).parents[1] / "data"
INPUT = "zq-marker-7 went sailing"


def test_a_phrase_is_supported_by_its_words_in_any_form() -> None:
    said = "I adopted two golden retriever puppies last month."
    assert supported("golden retriever puppy", said)
    assert supported("Puppies", said) and supported("Caroline", said, "Caroline")
    assert not supported("dinghy", said) and not supported("golden dinghy", said)
    assert not supported("the", said)  # no content word: nothing to find


def test_a_context_is_grounded_when_most_of_it_is_said_and_it_names_no_stranger() -> None:
    said = "I went to a LGBTQ support group yesterday and it was so powerful."
    given = "Caroline 8 May 2023"
    faithful = "Caroline attended an LGBTQ support group on 7 May 2023; she found it powerful."
    assert grounded_context(faithful, said, given)
    echo = "Melanie went to a LGBTQ support group on 7 May 2023."
    assert not grounded_context(echo, said, given)  # a name never said
    assert not grounded_context("Caroline repainted the old dinghy.", said, given)
    assert grounded_context("Caroline laughs.", "haha!!", "Caroline")


def test_rejections_are_counted_in_the_running_operation_per_step() -> None:
    with track_usage() as usage:
        reject("ingestion")
        reject("profile", 2)
    assert usage.rejected == 3
    assert (usage.step("ingestion").rejected, usage.step("profile").rejected) == (1, 2)


def test_the_input_comes_last_after_the_instructions_and_the_example() -> None:
    for prompt in (
        render_ingestion_prompt(INPUT, "Ana", "3 May 2024"),
        render_profile_prompt(INPUT, "Ana"),
    ):
        assert prompt.index("Example") < prompt.index(INPUT)
        assert prompt.rstrip().endswith(f"{INPUT}\nAnswer:")
    paper = render_ingestion_prompt(INPUT, "Ana", None, "paper")
    assert paper == PAPER.format(content=f"Ana: {INPUT}")


def _speakers(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("speaker", "speaker_a", "speaker_b", "subject") and isinstance(item, str):
                yield item
            else:
                yield from _speakers(item)
    elif isinstance(value, list):
        for item in value:
            yield from _speakers(item)


def test_no_grounded_prompt_names_a_person_of_the_evaluation_data() -> None:
    names = {
        name
        for path in sorted(DATA.glob("*.json"))
        for name in _speakers(json.loads(path.read_text(encoding="utf-8")))
    }
    assert len(names) > 50, "the data's speakers were not found"
    prompts = render_ingestion_prompt("", None, None) + render_profile_prompt("", None)
    written = set(re.findall(r"\b[A-Z][a-z]+\b", prompts))
    assert not written & names, written & names
