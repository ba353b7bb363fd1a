"""The semantic layer: person profiles of aspects with their current values and history.

Construction extracts what each observation states about its subjects' aspects
(:mod:`~langmemcore.profiles.extract`), stores it and replays the affected chains
(:mod:`~langmemcore.profiles.replay`, :mod:`~langmemcore.profiles.resolve`); the read side
is :class:`ProfileLayer` (``Memory.aprofile``), returning a :class:`Profile`.
"""

from langmemcore.profiles.aspects import ASPECTS, SINGLE_VALUED, AspectStatement, is_single_valued
from langmemcore.profiles.layer import ProfileLayer, SubjectSummary
from langmemcore.profiles.profile import AspectValues, Profile, ProfileSource, ProfileValue

__all__ = [
    "ASPECTS",
    "SINGLE_VALUED",
    "AspectStatement",
    "AspectValues",
    "Profile",
    "ProfileLayer",
    "ProfileSource",
    "ProfileValue",
    "SubjectSummary",
    "is_single_valued",
]
