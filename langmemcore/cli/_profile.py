"""``profile``: print what memory knows about one subject (a thin layer over
:class:`~langmemcore.profiles.ProfileLayer`; no embedder is loaded).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from datetime import datetime

from langmemcore.cli._memory import parse_namespace
from langmemcore.profiles.layer import ProfileLayer
from langmemcore.profiles.profile import Profile, ProfileValue
from langmemcore.storage.database import Database

__all__ = ["cmd_profile", "profile_lines"]


def _day(when: datetime) -> str:
    return when.date().isoformat()


def _value_line(value: ProfileValue) -> str:
    """One value: its period, how it ended and the keys of its sources."""
    if value.current:
        period = f"current, since {_day(value.first_time)}"
    else:
        until = _day(value.ended_at) if value.ended_at else "?"
        how = f"replaced by {value.replaced_by}" if value.replaced_by else value.end or "ended"
        period = f"{_day(value.first_time)} .. {until}, {how}"
    keys = ", ".join(dict.fromkeys(s.key for s in value.sources))
    return f"  {value.value} ({period}) [{keys}]"


def profile_lines(profile: Profile, namespace: str) -> list[str]:
    """The profile as text: a heading, then each aspect with its values, newest first."""
    if not profile.aspects:
        return [f"No profile of {profile.subject} in {namespace}."]
    lines = [f"Profile of {profile.subject} in {namespace}:"]
    for aspect in profile.aspects:
        lines.append(aspect.aspect)
        lines.extend(_value_line(v) for v in reversed(aspect.values))
    return lines


def cmd_profile(args: argparse.Namespace) -> int:
    """Print the profile of ``args.subject`` in ``--namespace`` (``--json``: as JSON)."""
    namespace = parse_namespace(args.namespace)

    async def read() -> Profile:
        database = Database.connect(args.url)
        try:
            await database.check_schema()
            return await ProfileLayer(database).profile(namespace, args.subject)
        finally:
            await database.dispose()

    profile = asyncio.run(read())
    if args.json:
        print(json.dumps(profile.to_dict(), ensure_ascii=False, indent=2))
    else:
        print("\n".join(profile_lines(profile, ".".join(namespace))))
    return 0
