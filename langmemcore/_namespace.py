"""Namespace validation and encoding.

A namespace is a tuple of labels, LangGraph style. Validation follows LangGraph's own
rules (``langgraph.store.base._validate_namespace``): a non-empty tuple of non-empty
strings, none containing a period, whose root is not ``"langgraph"``. Stored namespaces
are the labels joined by ``"."``, which is unambiguous because labels cannot contain one.
"""

from __future__ import annotations

from collections.abc import Sequence

from langmemcore._errors import InvalidNamespaceError
from langmemcore._validate import LIMITS

__all__ = [
    "decode_namespace",
    "encode_namespace",
    "encode_prefix",
    "like_prefix_pattern",
    "validate_labels",
    "validate_namespace",
]

Namespace = tuple[str, ...]


def _check_label(label: object, labels: tuple[object, ...]) -> None:
    if not isinstance(label, str):
        raise InvalidNamespaceError(
            f"Invalid namespace label {label!r} found in {labels}. Namespace labels "
            f"must be strings, but got {type(label).__name__}."
        )
    if "." in label:
        raise InvalidNamespaceError(
            f"Invalid namespace label {label!r} found in {labels}. Namespace labels "
            "cannot contain periods ('.')."
        )
    if "\x00" in label:
        raise InvalidNamespaceError(
            f"Invalid namespace label {label!r} found in {labels}. Namespace labels "
            "cannot contain NUL bytes ('\\x00')."
        )
    if not label:
        raise InvalidNamespaceError(
            f"Namespace labels cannot be empty strings. Got {label!r} in {labels}"
        )
    try:
        size = len(label.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidNamespaceError(
            f"Namespace label {label!r} contains a lone surrogate, which is not UTF-8"
        ) from None
    if size > LIMITS.label_bytes:
        raise InvalidNamespaceError(
            f"A namespace label takes {size:,} bytes of UTF-8; the limit is {LIMITS.label_bytes:,}"
        )


def validate_labels(labels: object) -> Namespace:
    """Check the labels of a namespace prefix or suffix (which may be empty).

    Raises:
        InvalidNamespaceError: Not a sequence of strings, a label that breaks
            :func:`validate_namespace`'s rules, or more labels than a namespace holds.
    """
    if isinstance(labels, str) or not isinstance(labels, Sequence):
        raise InvalidNamespaceError(
            f"Namespace must be a tuple of strings, got {type(labels).__name__}: {labels!r}"
        )
    checked = tuple(labels)
    if len(checked) > LIMITS.namespace_depth:
        raise InvalidNamespaceError(
            f"A namespace has {len(checked):,} labels; the limit is {LIMITS.namespace_depth}"
        )
    for label in checked:
        _check_label(label, checked)
    size = len(".".join(checked).encode("utf-8"))
    if size > LIMITS.namespace_bytes:
        raise InvalidNamespaceError(
            f"A namespace takes {size:,} bytes of UTF-8 joined by '.'; the limit is "
            f"{LIMITS.namespace_bytes:,}"
        )
    return checked


def validate_namespace(namespace: object, *, reserved_root: bool = False) -> Namespace:
    """Check a namespace against LangGraph's rules and the storage limits and return it
    as a tuple.

    Args:
        namespace: The candidate namespace (a tuple or list of labels).
        reserved_root: Accept the root ``"langgraph"`` (LangGraph's stores refuse it in
            ``put`` only; a store item's namespace may have it).

    Returns:
        The namespace as a tuple of strings.

    Raises:
        InvalidNamespaceError: If the namespace is empty, not a sequence of strings,
            has an empty label, a label with ``"."``, NUL or a lone surrogate, its root
            is ``"langgraph"`` (unless ``reserved_root``), or it is over a limit of
            :class:`~langmemcore._validate.Limits` (labels, label and namespace bytes).
    """
    if isinstance(namespace, Sequence) and not isinstance(namespace, str) and not namespace:
        raise InvalidNamespaceError("Namespace cannot be empty.")
    labels = validate_labels(namespace)
    if labels[0] == "langgraph" and not reserved_root:
        raise InvalidNamespaceError(
            f'Root label for namespace cannot be "langgraph". Got: {labels}'
        )
    return labels


def encode_namespace(namespace: Sequence[str], *, reserved_root: bool = False) -> str:
    """Join a validated namespace into its stored text form (``"a.b.c"``); see
    :func:`validate_namespace` for ``reserved_root``.
    """
    return ".".join(validate_namespace(namespace, reserved_root=reserved_root))


def encode_prefix(labels: Sequence[str]) -> str | None:
    """Join the validated labels of a namespace prefix into their stored text form
    (``None`` for no labels: every namespace). A prefix may start with ``"langgraph"``.
    """
    checked = validate_labels(labels)
    return ".".join(checked) if checked else None


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
