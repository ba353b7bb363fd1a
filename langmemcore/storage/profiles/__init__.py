"""The semantic layer's data: profile statements, the values replayed from them and their
sources.

:mod:`~langmemcore.storage.profiles.queries` builds the statements,
:class:`~langmemcore.storage.profiles.access.ProfileAccess` runs them (and ``Repository``
inherits it); :mod:`~langmemcore.storage.profiles.records` holds the shapes they are read and
written in (import them from there).
"""

from __future__ import annotations

from langmemcore.storage.profiles.access import ProfileAccess

__all__ = ["ProfileAccess"]
