"""Benchmark: why the profile sets' changes are missed, by whether their sides are
extracted at all.

For each labelled change of a profile set that the replay does not detect (see
``benchmarks/profile_quality.py``), the statements of its conversation are searched for
its older value (stated, same subject and aspect) and its newer value (stated, or an
ending of the aspect when the change has no newer value): both sides extracted (the
replay is at fault), the older missing, the newer missing, or both missing (extraction
recall is at fault).

Run from the repository root:
``python benchmarks/profile_change_sides.py tests/data/profile_heldout3.json``
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from profile_quality import _detected, _same, replay

from langmemcore.profiles.aspects import AspectStatement
from langmemcore.profiles.extract import extract_statements


def _has(found: list[AspectStatement], change: dict[str, object], side: str) -> bool:
    value = change[side]
    for st in found:
        same = st.subject.casefold() == str(change["subject"]).casefold()
        if not same or st.aspect != change["aspect"]:
            continue
        if value is None and st.ended:
            return True
        if value is not None and not st.ended and _same(st.value, str(value)):
            return True
    return False


def sides(path: Path) -> Counter[str]:
    """How many changes are detected, and why each other one is missed."""
    data = json.loads(path.read_text(encoding="utf-8"))
    counts: Counter[str] = Counter()
    for conversation in data["conversations"]:
        found = [
            st for t in conversation["turns"] for st in extract_statements(t["text"], t["speaker"])
        ]
        profile = replay(found)
        for change in conversation["changes"]:
            if _detected(profile, change):
                counts["detected"] += 1
                continue
            before, after = _has(found, change, "before"), _has(found, change, "after")
            key = {
                (True, True): "both sides extracted",
                (False, True): "older missing",
                (True, False): "newer missing",
                (False, False): "both missing",
            }[(before, after)]
            counts[key] += 1
    return counts


def main() -> None:
    """Print the counts for each set given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", type=Path, nargs="+", help="profile sets")
    for path in parser.parse_args().paths:
        print(path.name, dict(sides(path)))


if __name__ == "__main__":
    main()
