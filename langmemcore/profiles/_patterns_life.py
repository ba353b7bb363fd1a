"""Profile patterns of where and how a person lives: home, work, school, partner, pets,
vehicles and possessions.
"""

from __future__ import annotations

from langmemcore.profiles._patterns_base import JOBBED, PETS, VALUE, VEHICLES, Pattern, alt
from langmemcore.profiles._patterns_base import pattern as p

__all__ = ["LIFE"]

_A = r"(?:an?\s+|the\s+)?"
_NEW = r"(?:new\s+)?"
_TOOK_JOB = alt("got offered, got, landed, accepted, started, took, found, have, has")
_OWNER = alt("my, his, her, the, our")
_PET_NAME = r"(?:\s+(?:named|called)\s+(?P<name>(?-i:[A-Z]\w+)))?\b"
_VEHICLE = r"(?P<value>(?:[\w-]+\s+){0,2}?" + VEHICLES + r"\b.*)"
_BE = r"(?:'m|am|is|'s|are|'re)"

LIFE: tuple[Pattern, ...] = (
    p(
        "plan",
        _BE + r"\s+(?:\w+\s+)?(?:moving|relocating)\s+(?:back\s+)?to\s+" + VALUE,
        "name",
        template="move to {}",
    ),
    p("home", _BE + r"\s+(?:still|now)\s+(?:based\s+|living\s+)?in\s+" + VALUE, "name"),
    p("home", _BE + r"\s+(?:based\s+)in\s+" + VALUE, "name"),
    p("home", _BE + r"\s+in\s+(?=.*\b(?:now|these days)\b)" + VALUE, "name", change=True),
    p(
        "home",
        alt("live, lives, lived, living, reside, resides, resided") + r"\s+in\s+" + VALUE,
        "name",
    ),
    p(
        "home",
        alt("moved, move, moving, relocated, relocate, relocating")
        + r"\s+(?:back\s+)?to\s+"
        + VALUE,
        "name",
        change=True,
    ),
    p("home", r"(?:settled|settling)\s+(?:down\s+)?in\s+" + VALUE, "name", change=True),
    p(
        "work",
        _TOOK_JOB
        + r"\s+(?:an?\s+)?"
        + _NEW
        + JOBBED
        + r"\s+(?:at|with)\s+[^,]+?\s+as\s+"
        + _A
        + VALUE,
        change=True,
    ),
    p(
        "work",
        _TOOK_JOB + r"\s+(?:an?\s+)?" + _NEW + JOBBED + r"\s+as\s+" + _A + VALUE,
        change=True,
    ),
    p(
        "work",
        _TOOK_JOB + r"\s+(?:an?\s+)?" + _NEW + JOBBED + r"\s+(?:at|with)\s+" + VALUE,
        change=True,
    ),
    p(
        "work",
        r"(?:quit|left|lost)\s+"
        + _OWNER
        + r"\s+(?:\w+\s+)?(?:job|position|work)"
        + r"(?:\s+(?:at|with)\s+"
        + VALUE
        + ")?",
        ended=True,
        change=True,
    ),
    p(
        "work",
        r"(?:got\s+fired|got\s+laid\s+off|was\s+laid\s+off|was\s+fired|retired)"
        + r"(?:\s+from\s+"
        + VALUE
        + ")?",
        ended=True,
        change=True,
    ),
    p("work", alt("work, works, worked, working") + r"\s+as\s+" + _A + VALUE),
    p("work", alt("work, works, worked, working") + r"\s+(?:at|for)\s+" + VALUE),
    p("work", r"(?:became|become|becoming)\s+" + _A + VALUE, "role", change=True),
    p("work", r"(?:started|starting|start)\s+(?:at|with)\s+" + VALUE, "name", change=True),
    p(
        "work",
        _BE + r"\s+not\s+(?:at|with)\s+" + VALUE + r"\s+(?:anymore|any more)",
        "name",
        ended=True,
        change=True,
    ),
    p("work", _BE + r"\s+(?:an?\s+)" + VALUE, "role"),
    p(
        "work",
        r"(?:teach|teaches)\s+(?P<value>[a-z]+)\b(?!\s+(?:to|how|my|our|the|a|an|them|him|her|kids))",
        template="{} teacher",
    ),
    p(
        "work",
        r"(?:was|were|got|been)\s+(?:hired|promoted)\s+(?:as|to)\s+" + _A + VALUE,
        change=True,
    ),
    p("work", r"(?:was|were|got|been)\s+hired\s+(?:at|by)\s+" + VALUE, change=True),
    p(
        "education",
        alt("study, studies, studied, studying") + r"\s+(?:\w+\s+){0,2}?at\s+" + VALUE,
        "name",
    ),
    p(
        "education",
        r"(?:in|at)\s+(?:school|college|university|uni|grad school)\s+at\s+" + VALUE,
        "name",
    ),
    p("education", r"an?\s+(?:student|freshman|sophomore|junior|senior)\s+at\s+" + VALUE, "name"),
    p("education", r"(?:enrolled|enroll|enrolling)\s+(?:at|in)\s+" + VALUE, "name", change=True),
    p(
        "education",
        r"(?:started|starting|start)\s+(?:college|university|uni|grad school)"
        + r"\s+at\s+"
        + VALUE,
        "name",
        change=True,
    ),
    p("education", r"(?:got|getting)\s+(?:accepted\s+)?into\s+" + VALUE, "name", change=True),
    p(
        "education",
        r"(?:graduated|graduate|dropped out)\s+(?:from|of)\s+" + VALUE,
        "name",
        ended=True,
        change=True,
    ),
    p("education", r"(?:graduated|dropped out)\b", "fixed", ended=True, change=True),
    p("partner", r"(?:married|marrying|marry)\s+" + VALUE, "name", change=True),
    p(
        "partner",
        r"(?:dating|seeing)\s+(?:an?\s+(?:guy|girl|man|woman|lady|boy)\s+(?:named|called)\s+)?"
        + VALUE,
        "name",
        change=True,
    ),
    p("partner", r"(?:dating|seeing)\s+someone", "fixed", change=True),
    p(
        "partner",
        r"(?:got|are|'re|were|getting)\s+(?:married|engaged)(?:\s+to\s+" + VALUE + ")?",
        "name",
        change=True,
    ),
    p("partner", r"(?:got\s+)?engaged\s+to\s+" + VALUE, "name", change=True),
    p(
        "partner",
        r"(?:broke|broken|break)\s+up(?:\s+with\s+" + VALUE + ")?",
        "name",
        ended=True,
        change=True,
    ),
    p(
        "partner",
        r"(?:split|separated)(?:\s+up)?(?:\s+(?:from|with)\s+" + VALUE + ")?",
        "name",
        ended=True,
        change=True,
    ),
    p("partner", r"(?:divorced|divorce)\s+" + VALUE, "name", ended=True, change=True),
    p("partner", r"(?:got|getting)\s+divorced", "fixed", ended=True, change=True),
    p(
        "pet",
        alt("have, has, had, got, adopted, adopt, rescued, bought, brought home")
        + r"\s+(?:an?\s+|two\s+|three\s+|a couple of\s+)?"
        + _NEW
        + r"(?:little\s+)?(?P<value>"
        + PETS
        + "(?:s|es)?)"
        + _PET_NAME,
        "fixed",
    ),
    p(
        "pet",
        r"(?:had to\s+)?(?:put down|rehomed|gave away|lost)\s+(?:my|our|his|her)\s+"
        + r"(?P<value>"
        + PETS
        + r")(?:\s+(?P<name>(?-i:[A-Z]\w+)))?\b",
        "fixed",
        ended=True,
        change=True,
    ),
    p(
        "vehicle",
        alt("drive, drives, driving, ride, rides, riding") + r"\s+" + _A + VALUE,
        "vehicle",
    ),
    p(
        "vehicle",
        alt("bought, got, buy, purchased, leased")
        + r"\s+(?:myself\s+)?(?:an?\s+)?"
        + _NEW
        + r"(?:used\s+)?"
        + _VEHICLE,
        "vehicle",
        change=True,
    ),
    p(
        "vehicle",
        alt("sold, sell, selling, totaled, totalled, crashed, wrecked")
        + r"\s+"
        + _OWNER
        + r"\s+(?:old\s+)?"
        + _VEHICLE,
        "vehicle",
        ended=True,
        change=True,
    ),
    p(
        "possession",
        r"(?:bought|own|owns|purchased)\s+(?:myself\s+)?an?\s+" + _NEW + VALUE,
        change=True,
    ),
    p(
        "possession",
        r"(?:sold|sell|selling)\s+(?:my|our|his|her)\s+" + VALUE,
        ended=True,
        change=True,
    ),
)
"""Predicates of home, work, education, partner, pet, vehicle and possession, in order."""
