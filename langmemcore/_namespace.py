"""Namespace validation and encoding.

A namespace is a tuple of labels, LangGraph style. Validation follows LangGraph's own
rules (``langgraph.store.base._validate_namespace``): a non-empty tuple of non-empty
strings, none containing a period, whose root is not ``"langgraph"``. Stored namespaces
are the labels joined by ``"."``, which is unambiguous because labels cannot contain one.
"""

from __future__ import annotations

from collections.abc import Sequence

from langmemcore._errors import InvalidNamespaceError

__all__ = ["decode_namespace", "encode_namespace", "like_prefix_pattern", "validate_namespace"]

Namespace = tuple[str, ...]


def validate_namespace(namespace: object) -> Namespace:
    """Check a namespace against LangGraph's rules and return it as a tuple.

    Args:
        namespace: The candidate namespace (a tuple or list of labels).

    Returns:
        The namespace as a tuple of strings.

    Raises:
        InvalidNamespaceError: If the namespace is empty, not a sequence of strings,
            has an empty label or a label with ``"."``, or its root is ``"langgraph"``.
    """
    if isinstance(namespace, str) or not isinstance(namespace, Sequence):
        raise InvalidNamespaceError(
            f"Namespace must be a tuple of strings, got {type(namespace).__name__}: {namespace!r}"
        )
    if not namespace:
        raise InvalidNamespaceError("Namespace cannot be empty.")
    labels = tuple(namespace)
    for label in labels:
        if not isinstance(label, str):
            raise InvalidNamespaceError(
                f"Invalid namespace label '{label}' found in {labels}. Namespace labels "
                f"must be strings, but got {type(label).__name__}."
            )
        if "." in label:
            raise InvalidNamespaceError(
                f"Invalid namespace label '{label}' found in {labels}. Namespace labels "
                "cannot contain periods ('.')."
            )
        if "\x00" in label:
            raise InvalidNamespaceError(
                f"Invalid namespace label '{label}' found in {labels}. Namespace labels "
                "cannot contain NUL bytes ('\\x00')."
            )
        if not label:
            raise InvalidNamespaceError(
                f"Namespace labels cannot be empty strings. Got {label!r} in {labels}"
            )
    if labels[0] == "langgraph":
        raise InvalidNamespaceError(
            f'Root label for namespace cannot be "langgraph". Got: {labels}'
        )
    return labels


def encode_namespace(namespace: Sequence[str]) -> str:
    """Join a validated namespace into its stored text form (``"a.b.c"``)."""
    return ".".join(validate_namespace(namespace))


def decode_namespace(text: str) -> Namespace:
    """Split a stored namespace text back into its labels."""
    return tuple(text.split("."))


def like_prefix_pattern(prefix_text: str) -> str:
    """A ``LIKE`` pattern matching namespaces strictly below ``prefix_text``.

    ``'a'`` yields ``'a.%'``; LIKE wildcards inside labels are escaped with ``\\`` so that
    the label ``'a_b'`` never matches ``'axb'``.
    """
    escaped = prefix_text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + ".%"
