"""``BaseStore``'s convenience methods with langmemcore's namespace errors.

LangGraph's ``get`` / ``search`` / ``put`` / ``delete`` / ``list_namespaces`` (and their
async twins) check namespace labels themselves and raise LangGraph's own
``InvalidNamespaceError``; these overrides check first, with langmemcore's
:class:`~langmemcore.InvalidNamespaceError` (also LangGraph's, and a ``ValueError``),
then hand over unchanged. Every other argument is checked when the op runs
(:func:`~langmemcore.store._ops.check_op`).
"""

from __future__ import annotations

from typing import Any

from langgraph.store.base import BaseStore, Item, SearchItem

from langmemcore._namespace import validate_labels, validate_namespace

__all__ = ["CheckedNamespaces"]


class CheckedNamespaces(BaseStore):
    """Mixin placed before ``BaseStore``: namespaces are checked with langmemcore's rules."""

    def get(self, namespace: tuple[str, ...], key: str, **kwargs: Any) -> Item | None:
        """LangGraph's ``get`` (langmemcore's errors)."""
        validate_namespace(namespace)
        return super().get(namespace, key, **kwargs)

    async def aget(self, namespace: tuple[str, ...], key: str, **kwargs: Any) -> Item | None:
        """LangGraph's ``aget`` (langmemcore's errors)."""
        validate_namespace(namespace)
        return await super().aget(namespace, key, **kwargs)

    def search(self, namespace_prefix: tuple[str, ...], /, **kwargs: Any) -> list[SearchItem]:
        """LangGraph's ``search`` (langmemcore's errors)."""
        validate_labels(namespace_prefix)
        return super().search(namespace_prefix, **kwargs)

    async def asearch(
        self, namespace_prefix: tuple[str, ...], /, **kwargs: Any
    ) -> list[SearchItem]:
        """LangGraph's ``asearch`` (langmemcore's errors)."""
        validate_labels(namespace_prefix)
        return await super().asearch(namespace_prefix, **kwargs)

    def put(self, namespace: tuple[str, ...], key: str, *args: Any, **kwargs: Any) -> None:
        """LangGraph's ``put`` (langmemcore's errors)."""
        validate_namespace(namespace)
        super().put(namespace, key, *args, **kwargs)

    async def aput(self, namespace: tuple[str, ...], key: str, *args: Any, **kwargs: Any) -> None:
        """LangGraph's ``aput`` (langmemcore's errors)."""
        validate_namespace(namespace)
        await super().aput(namespace, key, *args, **kwargs)

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        """Delete the item (and repair the memory built from it)."""
        validate_namespace(namespace)
        super().delete(namespace, key)

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        """Delete the item (and repair the memory built from it)."""
        validate_namespace(namespace)
        await super().adelete(namespace, key)

    def list_namespaces(self, **kwargs: Any) -> list[tuple[str, ...]]:
        """LangGraph's ``list_namespaces`` (langmemcore's errors)."""
        validate_labels(kwargs.get("prefix") or ())
        validate_labels(kwargs.get("suffix") or ())
        return super().list_namespaces(**kwargs)

    async def alist_namespaces(self, **kwargs: Any) -> list[tuple[str, ...]]:
        """LangGraph's ``alist_namespaces`` (langmemcore's errors)."""
        validate_labels(kwargs.get("prefix") or ())
        validate_labels(kwargs.get("suffix") or ())
        return await super().alist_namespaces(**kwargs)
