"""SQL conditions shared by the builders of several data groups (pure, execute nothing)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, or_

from langmemcore._namespace import like_prefix_pattern

__all__ = ["namespace_prefix_filter"]


def namespace_prefix_filter(column: Any, prefix_text: str) -> ColumnElement[bool]:
    """Match ``column`` equal to ``prefix_text`` or strictly below it (``'a'``, ``'a.*'``).

    ``('a',)`` never matches ``('ab',)``: the prefix must be followed by a ``"."``.
    """
    return or_(column == prefix_text, column.like(like_prefix_pattern(prefix_text), escape="\\"))
