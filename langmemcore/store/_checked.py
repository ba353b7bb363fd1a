"""``BaseStore``'s convenience methods with langmemcore's namespace errors and
``AsyncPostgresStore``'s event-loop guard.

LangGraph's ``get`` / ``search`` / ``put`` / ``delete`` / ``list_namespaces`` (and their
async twins) check namespace labels themselves and raise LangGraph's own
``InvalidNamespaceError``; these overrides check first, with langmemcore's
:class:`~langmemcore.InvalidNamespaceError` (also LangGraph's, and a ``ValueError``),
then hand over unchanged. As in LangGraph's stores, only ``put`` / ``aput`` refuse the
reserved root ``"langgraph"``. Every other argument is checked when the op runs
(:func:`~langmemcore.store._ops.check_op`).

A synchronous call made from the store's own event loop (the loop it was created on)
would block that loop until the call returns; like ``AsyncPostgresStore`` it raises
``asyncio.InvalidStateError`` instead (:meth:`CheckedNamespaces._check_loop`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.store.base import BaseStore, Item, SearchItem

from langmemcore._namespace import validate_labels, validate_namespace

__all__ = ["CheckedNamespaces", "running_loop"]


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, if any."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class CheckedNamespaces(BaseStore):
    """Mixin placed before ``BaseStore``: namespaces are checked with langmemcore's rules,
    and sync calls refused on the store's own event loop.

    The host class sets ``_loop`` (the loop it was created on, or ``None``).
    """

    _loop: asyncio.AbstractEventLoop | None = None

    def _check_loop(self, method: str) -> None:
        """Refuse a sync call from the store's own event loop (``AsyncPostgresStore``'s
        rule and message).

        Raises:
            asyncio.InvalidStateError: This thread runs the store's loop.
        """
        if self._loop is not None and running_loop() is self._loop:
            raise asyncio.InvalidStateError(
                f"Synchronous calls to {type(self).__name__} detected in the main event "
                "loop. This can lead to deadlocks or performance issues. Please use the "
                "asynchronous interface for main thread operations. Specifically, replace "
                f"`store.{method}(...)` with `await store.a{method}(...)`"
            )

    def get(self, namespace: tuple[str, ...], key: str, **kwargs: Any) -> Item | None:
        """LangGraph's ``get`` (langmemcore's errors)."""
        self._check_loop("get")
        validate_namespace(namespace, reserved_root=True)
        return super().get(namespace, key, **kwargs)

    async def aget(self, namespace: tuple[str, ...], key: str, **kwargs: Any) -> Item | None:
        """LangGraph's ``aget`` (langmemcore's errors)."""
        validate_namespace(namespace, reserved_root=True)
        return await super().aget(namespace, key, **kwargs)

    def search(self, namespace_prefix: tuple[str, ...], /, **kwargs: Any) -> list[SearchItem]:
        """LangGraph's ``search`` (langmemcore's errors)."""
        self._check_loop("search")
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
        self._check_loop("put")
        validate_namespace(namespace)
        super().put(namespace, key, *args, **kwargs)

    async def aput(self, namespace: tuple[str, ...], key: str, *args: Any, **kwargs: Any) -> None:
        """LangGraph's ``aput`` (langmemcore's errors)."""
        validate_namespace(namespace)
        await super().aput(namespace, key, *args, **kwargs)

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        """Delete the item (and repair the memory built from it)."""
        self._check_loop("delete")
        validate_namespace(namespace, reserved_root=True)
        super().delete(namespace, key)

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        """Delete the item (and repair the memory built from it)."""
        validate_namespace(namespace, reserved_root=True)
        await super().adelete(namespace, key)

    def list_namespaces(self, **kwargs: Any) -> list[tuple[str, ...]]:
        """LangGraph's ``list_namespaces`` (langmemcore's errors)."""
        self._check_loop("list_namespaces")
        validate_labels(kwargs.get("prefix") or ())
        validate_labels(kwargs.get("suffix") or ())
        return super().list_namespaces(**kwargs)

    async def alist_namespaces(self, **kwargs: Any) -> list[tuple[str, ...]]:
        """LangGraph's ``alist_namespaces`` (langmemcore's errors)."""
        validate_labels(kwargs.get("prefix") or ())
        validate_labels(kwargs.get("suffix") or ())
        return await super().alist_namespaces(**kwargs)
