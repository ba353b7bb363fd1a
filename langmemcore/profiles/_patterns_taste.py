"""Profile patterns of habits and tastes: diet, health, team, band, gym, hobbies, plans,
preferences and dislikes.
"""

from __future__ import annotations

from langmemcore.profiles._patterns_base import DIETS, VALUE, Pattern, alt
from langmemcore.profiles._patterns_base import pattern as p

__all__ = ["TASTE"]

_BE = r"(?:'m|am|is|are|'re|'s)"
_A = r"(?:an?\s+|the\s+)?"
_GYM_NAME = (
    r"(?P<value>(?-i:(?:[A-Z][\w']*\s+){0,3}(?:Gym|Fitness|CrossFit|Athletic Club)"
    r"(?:\s+[A-Z][\w']*){0,2}))\b"
)
_NAMED = r"(?:\s+(?:called|named)\s+" + VALUE + ")?"
_CONDITIONS = alt(
    """asthma, diabetes, migraines, arthritis, celiac disease, adhd, anxiety, depression,
    insomnia, eczema, high blood pressure"""
)
_INSTRUMENTS_SPORTS = alt(
    """guitar, piano, violin, drums, cello, bass, ukulele, saxophone, flute, trumpet, chess,
    tennis, golf, soccer, football, basketball, volleyball, badminton, squash, hockey,
    baseball, cricket, rugby, video games, pickleball"""
)
_PRACTICES = alt(
    """yoga, pilates, karate, judo, taekwondo, crossfit, ballet, pottery, archery, boxing,
    kickboxing, rock climbing, climbing, triathlons, woodworking, jiu-jitsu"""
)
_ACTIVITIES = alt(
    "run, swim, hike, cycle, climb, paint, knit, surf, ski, skate, dance, bake, sew, row"
)
_LIKE = alt(
    """prefer, prefers, love, loves, loved, like, likes, enjoy, enjoys, adore, adores,
    'm into, am into, is into, 'm obsessed with, am obsessed with, 'm passionate about,
    am passionate about, 'm crazy about, am crazy about"""
)
_HATE = alt(
    """hate, hates, hated, dislike, dislikes, detest, detests, despise, despises, loathe,
    loathes, can't stand, cannot stand, can not stand, don't like, do not like,
    doesn't like, don't enjoy, doesn't enjoy"""
)

TASTE: tuple[Pattern, ...] = (
    p(
        "diet",
        r"(?:'m|am|is|are|'re|'s|been|became|become|went|gone|going|turned|now)\s+"
        + r"(?:now\s+|fully\s+|a\s+|completely\s+|officially\s+)*(?P<value>"
        + DIETS
        + r")\b",
        "fixed",
    ),
    p(
        "diet",
        r"(?:on|started)\s+an?\s+(?P<value>" + DIETS + r"|low-carb|mediterranean)\s+diet",
        "fixed",
    ),
    p("health", r"(?:was|were|got|been)\s+diagnosed\s+with\s+" + _A + VALUE, change=True),
    p("health", r"(?:have|has|suffer from|suffers from)\s+(?P<value>" + _CONDITIONS + r")\b"),
    p("health", _BE + r"\s+(?P<value>allergic\s+to\s+\w+)"),
    p("health", _BE + r"\s+(?P<value>pregnant)\b", "fixed", change=True),
    p(
        "health",
        alt("broke, broken, fractured, sprained, injured, hurt, tore, torn")
        + r"\s+(?:my|his|her)\s+(?P<value>\w+)",
        change=True,
    ),
    p("team", r"(?:play|plays|played|playing)\s+(?:\w+\s+)?for\s+" + VALUE, "name"),
    p(
        "team",
        alt("support, supports, root for, roots for, cheer for, cheers for") + r"\s+" + VALUE,
        "name",
    ),
    p(
        "team",
        _BE
        + r"\s+(?:a\s+)?(?:huge\s+|big\s+|die-hard\s+|lifelong\s+)?"
        + r"(?P<value>(?-i:(?:[A-Z][\w.]*\s+){1,3}))(?:fan|supporter)\b",
        "name",
    ),
    p(
        "band",
        r"(?:joined|join|joining|started|formed)\s+(?:a|an|my|the)\s+(?:new\s+)?"
        + r"(?:\w+\s+)?band"
        + _NAMED,
        "name",
        change=True,
    ),
    p(
        "band",
        r"(?:play|plays|sing|sings|drum|drums)\s+(?:\w+\s+)?(?:in|with)\s+a\s+band"
        + r"\s+(?:called|named)\s+"
        + VALUE,
        "name",
    ),
    p("band", _BE + r"\s+in\s+a\s+band\s+(?:called|named)\s+" + VALUE, "name"),
    p("band", r"(?:left|quit)\s+(?:the|my|our|his|her)\s+band", "fixed", ended=True, change=True),
    p(
        "gym",
        alt("joined, join, joining, signed up at, signed up for, switched to")
        + r"\s+(?:a\s+)?(?:new\s+)?(?:gym|fitness club)"
        + _NAMED,
        "name",
        change=True,
    ),
    p(
        "gym",
        alt("joined, join, joining, signed up at, switched to") + r"\s+" + _GYM_NAME,
        "name",
        change=True,
    ),
    p(
        "gym",
        alt("go to, goes to, going to, train at, trains at, work out at, works out at")
        + r"\s+"
        + _GYM_NAME,
        "name",
    ),
    p(
        "gym",
        r"(?:cancelled|canceled|quit|ended)\s+(?:my|the)\s+" + _GYM_NAME + r"\s+membership",
        "name",
        ended=True,
        change=True,
    ),
    p(
        "gym",
        r"(?:cancelled|canceled|quit|stopped going to)\s+(?:my|the)\s+gym" + r"(?:\s+membership)?",
        "fixed",
        ended=True,
        change=True,
    ),
    p(
        "hobby",
        r"(?:took up|take up|picked up|started|began|starting|'ve been|been)\s+"
        + r"(?P<value>(?:learning|doing|playing|practicing|practising)\s+.+)",
        change=True,
    ),
    p("hobby", r"(?:took up|picked up|started|began)\s+(?P<value>\w+ing\b.*)", change=True),
    p("hobby", r"(?:took up|picked up|take up)\s+" + VALUE, change=True),
    p("hobby", _BE + r"\s+learning\s+(?:to\s+play\s+|how\s+to\s+)?" + VALUE),
    p("hobby", r"(?:play|plays)\s+(?:the\s+)?(?P<value>" + _INSTRUMENTS_SPORTS + r")\b"),
    p("hobby", r"(?:do|does)\s+(?P<value>" + _PRACTICES + r")\b"),
    p("hobby", r"(?:quit|gave up|stopped)\s+(?P<value>\w+ing\b.*)", ended=True, change=True),
    p(
        "hobby",
        r"(?:quit|gave up|stopped)\s+(?:playing\s+)?(?:the\s+)?(?P<value>"
        + _INSTRUMENTS_SPORTS
        + r")\b",
        ended=True,
        change=True,
    ),
    p(
        "hobby",
        r"(?P<value>" + _ACTIVITIES + r")\b(?!\s+(?:a|an|the|my|our|his|her|into|out|to|"
        r"away|late|over|off|up|for|errands)\b)",
        "gerund",
    ),
    p("plan", r"(?:'m|am|is|'s|are|'re|been)\s+planning\s+(?:on\s+)?" + VALUE, "verb"),
    p(
        "plan",
        r"(?:plan|plans|intend|intends|'ve decided|have decided|decided)\s+(?:on\s+|to\s+)" + VALUE,
        "verb",
    ),
    p(
        "preference",
        r"(?:no longer|don't|do not|doesn't)\s+(?:love|like|enjoy)\s+"
        + VALUE
        + r"\s+(?:anymore|any more)",
        ended=True,
        change=True,
    ),
    p("dislike", _HATE + r"\s+" + VALUE),
    p("dislike", _BE + r"\s+not\s+(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of\s+" + VALUE),
    p("preference", r"(?:no longer)\s+(?:love|like|enjoy)\s+" + VALUE, ended=True, change=True),
    p("preference", _LIKE + r"\s+" + VALUE),
    p("preference", _BE + r"\s+(?:a\s+)?(?:big\s+|huge\s+)fan\s+of\s+" + VALUE),
)
"""Predicates of diet, health, team, band, gym, hobby, plan and taste, in order."""
