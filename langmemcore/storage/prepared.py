"""Statements built once per shape, executed with each call's values.

Building a SQLAlchemy statement and deriving its cache key costs about as much CPU as
Postgres spends running a channel's query. The builders in
:mod:`~langmemcore.storage.search.channels` and their kin therefore build each statement
once, with bind parameters in place of values, and return it with this call's values as a
:class:`Prepared`; executing the same statement object again reuses its memoised cache
key and compiled form.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    BigInteger,
    BindParameter,
    ColumnElement,
    DateTime,
    Executable,
    Float,
    Integer,
    Text,
    cast,
)
from sqlalchemy import bindparam as _bindparam
from sqlalchemy.dialects.postgresql import ARRAY

from langmemcore.storage.models import EmbeddingVector, vector_param, vector_text

__all__ = [
    "Prepared",
    "float_array",
    "id_array",
    "number",
    "text_array",
    "text_param",
    "time_param",
    "vector_array",
    "vector_bind",
    "vector_texts",
]


class Prepared(NamedTuple):
    """A statement built once, with the values of one execution.

    Execute it as ``session.execute(*prepared)``.

    Attributes:
        statement: The statement (bind parameters only, no values).
        params: Values of its bind parameters.
    """

    statement: Executable
    params: dict[str, Any]


def text_param(name: str) -> BindParameter[str]:
    """A text bind parameter."""
    return _bindparam(name, type_=Text)


def number(name: str, kind: type[int] | type[float] = int) -> BindParameter[Any]:
    """An integer (or, with ``kind=float``, a float) bind parameter."""
    return _bindparam(name, type_=Float if kind is float else Integer)


def time_param(name: str) -> BindParameter[Any]:
    """A timestamp-with-time-zone bind parameter."""
    return _bindparam(name, type_=DateTime(timezone=True))


def text_array(name: str) -> BindParameter[Any]:
    """A ``text[]`` bind parameter."""
    return _bindparam(name, type_=ARRAY(Text))


def float_array(name: str) -> BindParameter[Any]:
    """A ``double precision[]`` bind parameter."""
    return _bindparam(name, type_=ARRAY(Float))


def id_array(name: str) -> BindParameter[Any]:
    """A ``bigint[]`` bind parameter."""
    return _bindparam(name, type_=ARRAY(BigInteger))


def vector_bind(name: str = "vector") -> BindParameter[Any]:
    """A pgvector bind parameter (give it :func:`~langmemcore.storage.models.vector_param`)."""
    return _bindparam(name, type_=EmbeddingVector())


def vector_array(name: str) -> ColumnElement[Any]:
    """A ``vector[]`` parameter: give it :func:`vector_texts` of the vectors."""
    return cast(_bindparam(name, type_=ARRAY(Text)), ARRAY(Vector()))


def vector_texts(vectors: Sequence[Sequence[float]]) -> list[str]:
    """Vectors in pgvector's text form, for :func:`vector_array` (tuples formatted once
    per process, see :func:`~langmemcore.storage.models.vector_param`).
    """
    return [vector_text(vector_param(v)) for v in vectors]
