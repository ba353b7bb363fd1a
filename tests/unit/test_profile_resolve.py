"""The pure chain replay: single-valued replacement, accumulation, endings, order."""

from __future__ import annotations

from datetime import UTC, datetime

from langmemcore.profiles.resolve import ends_value, resolve_chain
from langmemcore.storage.profiles.records import StoredStatement


def said(
    obs: int, day: int, value: str, *, ended: bool = False, aspect: str = "home"
) -> StoredStatement:
    when = datetime(2024, 1, day, tzinfo=UTC)
    return StoredStatement(obs, 0, "Nadia", aspect, value, ended, False, when)


def summary(aspect: str, statements: list[StoredStatement]) -> list[tuple[object, ...]]:
    return [
        (v.value, v.current, v.end, v.replaced_by, [(s.observation_id, s.role) for s in v.sources])
        for v in resolve_chain(aspect, statements)
    ]


def test_single_valued_replaces_and_repeats_add_sources() -> None:
    chain = [said(1, 1, "Lyon"), said(2, 2, "LYON "), said(3, 5, "Hamburg")]
    assert summary("home", chain) == [
        ("Lyon", False, "replaced", 1, [(1, "states"), (2, "states")]),
        ("Hamburg", True, None, None, [(3, "states")]),
    ]


def test_replay_does_not_depend_on_arrival_order() -> None:
    chain = [said(3, 5, "Hamburg"), said(1, 1, "Lyon"), said(4, 9, "Lyon")]
    assert summary("home", chain) == summary("home", sorted(chain, key=lambda s: s.stated_at))
    assert [(v[0], v[1]) for v in summary("home", chain)] == [
        ("Lyon", False),
        ("Hamburg", False),
        ("Lyon", True),
    ]


def test_multi_valued_accumulates_and_an_ending_ends_only_what_it_names() -> None:
    chain = [
        said(1, 1, "dog Max", aspect="pet"),
        said(2, 2, "cat Luna", aspect="pet"),
        said(3, 3, "Max", ended=True, aspect="pet"),
    ]
    assert summary("pet", chain) == [
        ("dog Max", False, "ended", None, [(1, "states"), (3, "ends")]),
        ("cat Luna", True, None, None, [(2, "states")]),
    ]


def test_an_ending_of_a_value_never_current_keeps_it_as_history() -> None:
    chain = [
        said(1, 1, "cat Luna", aspect="pet"),
        said(2, 2, "hamster", ended=True, aspect="pet"),
        said(3, 3, "Hamster", ended=True, aspect="pet"),
    ]
    assert summary("pet", chain) == [
        ("cat Luna", True, None, None, [(1, "states")]),
        ("hamster", False, "ended", None, [(2, "ends"), (3, "ends")]),
    ]
    lived = resolve_chain("home", [said(1, 1, "Lisbon", ended=True), said(2, 2, "Osaka")])
    assert [(v.value, v.current, v.replaced_by) for v in lived] == [
        ("Lisbon", False, None),
        ("Osaka", True, None),
    ]


def test_an_ending_without_value_ends_every_current_value() -> None:
    chain = [said(1, 1, "nurse", aspect="work"), said(2, 3, "", ended=True, aspect="work")]
    values = resolve_chain("work", chain)
    assert [(v.value, v.current, v.ended_at) for v in values] == [
        ("nurse", False, datetime(2024, 1, 3, tzinfo=UTC))
    ]
    assert resolve_chain("work", [said(2, 3, "", ended=True, aspect="work")]) == []


def test_ends_value_matches_words_either_way() -> None:
    assert ends_value("dog", "dog Max") and ends_value("my dog Max", "dog Max")
    assert ends_value("", "anything")
    assert not ends_value("cat", "dog Max")
