"""Namespaces filled in per run: ``("memories", "{user_id}")`` becomes ``("memories", "alice")``.

A template is a tuple of labels whose ``{field}`` parts are read from the run: first the
runtime's ``context`` (a dict key or an attribute), then the run's
``config["configurable"]``. A callable of the runtime may stand in for the tuple.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langmemcore._errors import ConfigurationError
from langmemcore._namespace import validate_namespace

__all__ = ["NamespaceTemplate", "NamespaceLike"]

NamespaceLike = Sequence[str] | Callable[[Any], Sequence[str]]
"""A namespace template (labels with ``{field}`` parts) or a callable of the runtime."""

_FORMATTER = string.Formatter()


def _fields(label: str) -> tuple[str, ...]:
    """The ``{field}`` names of one label, checked to be plain names."""
    try:
        parsed = list(_FORMATTER.parse(label))
    except ValueError as exc:
        raise ConfigurationError(f"namespace label {label!r} is not a valid template") from exc
    names = tuple(name for _literal, name, _spec, _conv in parsed if name is not None)
    for name in names:
        if not name.isidentifier():
            raise ConfigurationError(
                f"namespace label {label!r}: a field must be a plain name, got {{{name}}}"
            )
    return names


def lookup_field(field: str, context: object, configurable: Mapping[str, Any]) -> str | None:
    """``field`` from the context (key or attribute), else from the configurable."""
    value = context.get(field) if isinstance(context, Mapping) else getattr(context, field, None)
    if value is None:
        value = configurable.get(field)
    return None if value is None else str(value)


class NamespaceTemplate:
    """A namespace, fixed or filled in from each run.

    Args:
        namespace: Labels, each of which may hold ``{field}`` parts, or a callable taking
            the runtime (the middleware's ``Runtime`` or a tool's ``ToolRuntime``) and
            returning the namespace.

    Raises:
        ConfigurationError: A label is not a valid template.
        InvalidNamespaceError: A namespace without fields is invalid.
    """

    def __init__(self, namespace: NamespaceLike) -> None:
        self._call: Callable[[Any], Sequence[str]] | None = None
        self._labels: tuple[str, ...] = ()
        self.fields: tuple[str, ...] = ()
        if callable(namespace):
            self._call = namespace
            return
        if isinstance(namespace, str):
            raise ConfigurationError(f"namespace must be a tuple of labels, got {namespace!r}")
        self._labels = tuple(namespace)
        self.fields = tuple(dict.fromkeys(f for label in self._labels for f in _fields(label)))
        if not self.fields:
            self._labels = validate_namespace(self._labels)

    @property
    def fixed(self) -> bool:
        """Whether the namespace is the same for every run (no fields, no callable)."""
        return self._call is None and not self.fields

    def resolve(self, runtime: Any, configurable: Mapping[str, Any] | None) -> tuple[str, ...]:
        """The namespace for one run.

        Args:
            runtime: The run's runtime (its ``context`` is read), or ``None``.
            configurable: The run's ``config["configurable"]``, or ``None``.

        Returns:
            The validated namespace.

        Raises:
            ConfigurationError: A field is in neither the context nor the configurable.
            InvalidNamespaceError: The filled-in namespace is invalid.
        """
        if self._call is not None:
            return validate_namespace(tuple(self._call(runtime)))
        if self.fixed:
            return self._labels
        context = getattr(runtime, "context", None)
        values: dict[str, str] = {}
        for field in self.fields:
            value = lookup_field(field, context, configurable or {})
            if value is None:
                raise ConfigurationError(
                    f"namespace field {field!r} is missing: pass it in the agent's context "
                    f"(context={{{field!r}: ...}}) or in config['configurable']"
                )
            values[field] = value
        return validate_namespace(tuple(label.format_map(values) for label in self._labels))

    def __repr__(self) -> str:
        shown = self._call if self._call is not None else self._labels
        return f"NamespaceTemplate({shown!r})"
