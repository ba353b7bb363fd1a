"""Pure SQL builders of the semantic layer: profile statements, values and their sources.

Every builder returns a :class:`~langmemcore.storage.prepared.Prepared` (a statement built
once per shape, and this call's values); every statement filters by namespace first.
:class:`~langmemcore.storage.profiles.access.ProfileAccess` executes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import BigInteger, Boolean, DateTime, Integer, Text, TextClause, bindparam, text
from sqlalchemy.dialects.postgresql import ARRAY

from langmemcore.storage.prepared import Prepared
from langmemcore.storage.profiles.records import ChainValue, StatementLike, profile_key

__all__ = [
    "chain_statements",
    "chains_of_namespace",
    "chains_of_observations",
    "current_value_evidence",
    "delete_chain_values",
    "delete_statements_of_observations",
    "insert_chain_values",
    "insert_statements",
    "insert_value_sources",
    "link_replacements",
    "subjects",
    "values_in_period",
    "values_of_subject",
]

_TEXTS = ARRAY(Text)
_IDS = ARRAY(BigInteger)
_TIME = DateTime(timezone=True)
_TYPES: dict[str, Any] = {
    "namespace": Text,
    "subject": Text,
    "subject_key": Text,
    "aspect": Text,
    "observation_id": BigInteger,
    "start": _TIME,
    "end": _TIME,
    "positions": ARRAY(Integer),
    "subjects": _TEXTS,
    "subject_keys": _TEXTS,
    "aspects": _TEXTS,
    "values": _TEXTS,
    "value_keys": _TEXTS,
    "endeds": ARRAY(Boolean),
    "changes": ARRAY(Boolean),
    "currents": ARRAY(Boolean),
    "firsts": ARRAY(_TIME),
    "lasts": ARRAY(_TIME),
    "ended_ats": ARRAY(_TIME),
    "ends": _TEXTS,
    "ids": _IDS,
    "replaced_by": _IDS,
    "value_ids": _IDS,
    "observation_ids": _IDS,
    "roles": _TEXTS,
    "times": ARRAY(_TIME),
}


def _statement(sql: str) -> TextClause:
    """``sql`` with its bind parameters typed (those named in ``_TYPES``)."""
    clause = text(sql)
    bound = clause.compile().params
    names = [name for name in _TYPES if name in bound]
    return clause.bindparams(*(bindparam(name, type_=_TYPES[name]) for name in names))


_CHAIN = "namespace = :namespace AND subject_key = :subject_key AND aspect = :aspect"
_ASPECTS = "(cardinality(:aspects) = 0 OR v.aspect = ANY(:aspects))"


@cache
def _insert_statements() -> TextClause:
    return _statement(
        """
        INSERT INTO profile_statements (namespace, observation_id, position, subject,
            subject_key, aspect, value, value_key, ended, change, stated_at)
        SELECT o.namespace, o.id, s.position, s.subject, s.subject_key, s.aspect, s.value,
               s.value_key, s.ended, s.change, coalesce(o.event_time, o.ingested_at)
        FROM observations o,
             unnest(:positions, :subjects, :subject_keys, :aspects, :values, :value_keys,
                    :endeds, :changes)
                 AS s(position, subject, subject_key, aspect, value, value_key, ended, change)
        WHERE o.namespace = :namespace AND o.id = :observation_id
        RETURNING subject_key, aspect
        """
    )


def insert_statements(
    namespace: str, observation_id: int, statements: Sequence[StatementLike]
) -> Prepared:
    """Store the statements of one observation (time: its event time, else when it was
    stored); selects the (subject key, aspect) chain of each row written.
    """
    return Prepared(
        _insert_statements(),
        {
            "namespace": namespace,
            "observation_id": observation_id,
            "positions": list(range(len(statements))),
            "subjects": [s.subject.strip() for s in statements],
            "subject_keys": [profile_key(s.subject) for s in statements],
            "aspects": [s.aspect for s in statements],
            "values": [s.value.strip() for s in statements],
            "value_keys": [profile_key(s.value) for s in statements],
            "endeds": [bool(s.ended) for s in statements],
            "changes": [bool(s.change) for s in statements],
        },
    )


@cache
def _chain_statements() -> TextClause:
    return _statement(
        f"""
        SELECT observation_id, position, subject, aspect, value, ended, change, stated_at
        FROM profile_statements WHERE {_CHAIN}
        ORDER BY stated_at, observation_id, position
        """
    )


def chain_statements(namespace: str, subject_key: str, aspect: str) -> Prepared:
    """Every statement of one chain, in time order (ties: observation id, position)."""
    values = {"namespace": namespace, "subject_key": subject_key, "aspect": aspect}
    return Prepared(_chain_statements(), values)


@cache
def _chains_of_observations() -> TextClause:
    return _statement(
        """
        SELECT DISTINCT subject_key, aspect FROM profile_statements
        WHERE namespace = :namespace AND observation_id = ANY(:observation_ids)
        ORDER BY subject_key, aspect
        """
    )


def chains_of_observations(namespace: str, observation_ids: Sequence[int]) -> Prepared:
    """The (subject key, aspect) chains the observations state something in."""
    values = {"namespace": namespace, "observation_ids": list(observation_ids)}
    return Prepared(_chains_of_observations(), values)


@cache
def _chains_of_namespace() -> TextClause:
    return _statement(
        """
        SELECT subject_key, aspect FROM profile_statements WHERE namespace = :namespace
        UNION
        SELECT subject_key, aspect FROM profile_values WHERE namespace = :namespace
        ORDER BY 1, 2
        """
    )


def chains_of_namespace(namespace: str) -> Prepared:
    """Every chain with a statement or a value in the namespace."""
    return Prepared(_chains_of_namespace(), {"namespace": namespace})


@cache
def _delete_statements_of_observations() -> TextClause:
    return _statement(
        """
        DELETE FROM profile_statements
        WHERE namespace = :namespace AND observation_id = ANY(:observation_ids)
        RETURNING subject_key, aspect
        """
    )


def delete_statements_of_observations(namespace: str, observation_ids: Sequence[int]) -> Prepared:
    """Delete the observations' statements; selects the chain of each row deleted."""
    values = {"namespace": namespace, "observation_ids": list(observation_ids)}
    return Prepared(_delete_statements_of_observations(), values)


@cache
def _delete_chain_values() -> TextClause:
    return _statement(f"DELETE FROM profile_values WHERE {_CHAIN}")


def delete_chain_values(namespace: str, subject_key: str, aspect: str) -> Prepared:
    """Delete the values of one chain (their sources go with them)."""
    values = {"namespace": namespace, "subject_key": subject_key, "aspect": aspect}
    return Prepared(_delete_chain_values(), values)


@cache
def _insert_chain_values() -> TextClause:
    return _statement(
        """
        INSERT INTO profile_values (namespace, subject, subject_key, aspect, position, value,
            value_key, first_time, last_time, current, ended_at, "end")
        SELECT :namespace, :subject, :subject_key, :aspect, v.position, v.value, v.value_key,
               v.first_time, v.last_time, v.current, v.ended_at, v.end_kind
        FROM unnest(:positions, :values, :value_keys, :firsts, :lasts, :currents,
                    :ended_ats, :ends)
            AS v(position, value, value_key, first_time, last_time, current, ended_at,
                 end_kind)
        ORDER BY v.position
        RETURNING id, position
        """
    )


def insert_chain_values(
    namespace: str, subject: str, aspect: str, chain: Sequence[ChainValue]
) -> Prepared:
    """Write a replayed chain's values (positions 0, 1, ...); selects (id, position)."""
    return Prepared(
        _insert_chain_values(),
        {
            "namespace": namespace,
            "subject": subject,
            "subject_key": profile_key(subject),
            "aspect": aspect,
            "positions": list(range(len(chain))),
            "values": [v.value for v in chain],
            "value_keys": [profile_key(v.value) for v in chain],
            "firsts": [v.first_time for v in chain],
            "lasts": [v.last_time for v in chain],
            "currents": [v.current for v in chain],
            "ended_ats": [v.ended_at for v in chain],
            "ends": [v.end for v in chain],
        },
    )


@cache
def _insert_value_sources() -> TextClause:
    return _statement(
        """
        INSERT INTO profile_value_sources (namespace, value_id, observation_id, role,
            stated_at)
        SELECT :namespace, s.value_id, s.observation_id, s.role, min(s.stated_at)
        FROM unnest(:value_ids, :observation_ids, :roles, :times)
            AS s(value_id, observation_id, role, stated_at)
        GROUP BY s.value_id, s.observation_id, s.role
        """
    )


def insert_value_sources(
    namespace: str, rows: Sequence[tuple[int, int, str, datetime]]
) -> Prepared:
    """Write (value id, observation id, role, time) source rows (one per value,
    observation and role: the earliest time is kept).
    """
    return Prepared(
        _insert_value_sources(),
        {
            "namespace": namespace,
            "value_ids": [r[0] for r in rows],
            "observation_ids": [r[1] for r in rows],
            "roles": [r[2] for r in rows],
            "times": [r[3] for r in rows],
        },
    )


@cache
def _link_replacements() -> TextClause:
    return _statement(
        """
        UPDATE profile_values AS v SET replaced_by = r.replaced_by
        FROM unnest(:ids, :replaced_by) AS r(id, replaced_by)
        WHERE v.namespace = :namespace AND v.id = r.id
        """
    )


def link_replacements(namespace: str, pairs: Sequence[tuple[int, int]]) -> Prepared:
    """Set ``replaced_by`` of each (value id, replacing value id)."""
    values = {"ids": [a for a, _b in pairs], "replaced_by": [b for _a, b in pairs]}
    return Prepared(_link_replacements(), {"namespace": namespace, **values})


_VALUES_WITH_SOURCES = """
    SELECT v.id, v.subject, v.aspect, v.position, v.value, v.first_time, v.last_time,
           v.current, v.ended_at, v."end", v.replaced_by,
           s.observation_id, s.role, s.stated_at, o.key, o.content,
           coalesce((o.analysis ->> 'changes')::boolean, false)
    FROM profile_values v
    LEFT JOIN (profile_value_sources s JOIN observations o ON o.id = s.observation_id)
        ON s.value_id = v.id AND s.namespace = :namespace
    WHERE v.namespace = :namespace AND v.subject_key = :subject_key AND {aspects} {period}
    ORDER BY v.aspect, v.position, s.stated_at, s.observation_id, s.role DESC
    """
"""A subject's values, each with its sources (none: NULL source columns), in one
statement: value columns then (observation id, role, time, key, text, whether its stored
analysis announces a change)."""


@cache
def _values_of_subject() -> TextClause:
    return _statement(_VALUES_WITH_SOURCES.format(aspects=_ASPECTS, period=""))


def values_of_subject(namespace: str, subject: str, aspects: Sequence[str] = ()) -> Prepared:
    """Every value of the subject (of ``aspects``; none: all) with its sources, by aspect
    and chain order (a value's sources oldest first), one row per value and source.
    """
    values = {"namespace": namespace, "subject_key": profile_key(subject)}
    return Prepared(_values_of_subject(), {**values, "aspects": list(aspects)})


@cache
def _values_in_period() -> TextClause:
    period = "AND v.first_time < :end AND coalesce(v.ended_at, 'infinity') > :start"
    return _statement(_VALUES_WITH_SOURCES.format(aspects=_ASPECTS, period=period))


def values_in_period(
    namespace: str, subject: str, aspects: Sequence[str], start: datetime, end: datetime
) -> Prepared:
    """The subject's values that held at some time in ``[start, end)`` (from their first
    statement until they were replaced or ended), with their sources as
    :func:`values_of_subject` gives them.
    """
    values = {"namespace": namespace, "subject_key": profile_key(subject), "start": start}
    return Prepared(_values_in_period(), {**values, "end": end, "aspects": list(aspects)})


@cache
def _current_value_evidence() -> TextClause:
    return _statement(
        f"""
        SELECT v.aspect, v.value, s.observation_id, n.id, s.stated_at
        FROM profile_values v
        JOIN profile_value_sources s ON s.value_id = v.id AND s.role = 'states'
        LEFT JOIN (note_sources ns JOIN notes n ON n.id = ns.note_id AND n.status = 'active')
            ON ns.observation_id = s.observation_id AND ns.namespace = :namespace
        WHERE v.namespace = :namespace AND v.subject_key = :subject_key AND v.current
          AND {_ASPECTS}
        ORDER BY s.stated_at DESC, s.observation_id DESC, n.id
        """
    )


def current_value_evidence(namespace: str, subject: str, aspects: Sequence[str]) -> Prepared:
    """(aspect, value, observation id, active note id or NULL, time) behind the
    subject's current values of ``aspects`` (none: all), newest statement first.
    """
    values = {"namespace": namespace, "subject_key": profile_key(subject)}
    return Prepared(_current_value_evidence(), {**values, "aspects": list(aspects)})


@cache
def _subjects() -> TextClause:
    return _statement(
        """
        SELECT (array_agg(subject ORDER BY first_time, id))[1], count(*),
               count(*) FILTER (WHERE current)
        FROM profile_values WHERE namespace = :namespace
        GROUP BY subject_key ORDER BY subject_key
        """
    )


def subjects(namespace: str) -> Prepared:
    """(subject, values, current values) of each subject with a profile, by name."""
    return Prepared(_subjects(), {"namespace": namespace})
