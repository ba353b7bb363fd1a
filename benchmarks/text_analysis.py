"""Benchmark: the offline text analysis against well-kept libraries, on the project's set.

Compares, on the hand-labelled turns of ``tests/data/text_analysis.json``, each hand-made
component of `langmemcore.text` with the library that does the same job:

* **stemmer**: the hand-made suffix rules `tokens.stem` had until Snowball replaced it
  (`handmade_stem`, kept here to reproduce the table), after `singularize` as
  `content_stem_set` applies it, against PyStemmer's Snowball ``english`` (today's
  `tokens.stem`; on the singular, and on the raw word); judged by pairwise conflation of
  the set's word forms (a pair of forms of one group that meet is a true positive, forms
  of different groups that meet a false one);
* **entities**: `extract_entities` against spaCy ``en_core_web_sm`` named entities (the
  labels for people, places, organisations, works, events and products), alone and with
  the proper-noun runs the recogniser left out; names compare casefolded, without
  ``'s``, dots or a leading "the";
* **keywords**: `extract_keywords` against spaCy noun chunks (determiners, pronouns and
  stop words stripped; with and without adjectives), compared in `normalize_keyword`
  form, per phrase and per word;
* **dates**: `resolve_time_mentions` against dateparser ``search_dates`` with
  ``RELATIVE_BASE`` the turn's time, each found expression's interval taken from
  dateparser's own period (day, week, month, year); a mention is right when its text
  overlaps a gold mention's and its interval equals the gold one (``strict``) or overlaps
  it (``overlap``).

Then the time of each side on the same turns: rounds alternate the two, the table gives
the median per-turn time and the median and spread (min-max) of the per-round ratio
library / hand-made. spaCy parses the turns as one batch (`parse_texts`), its best case.

Run from the repository root: ``python benchmarks/text_analysis.py [--rounds 7]``
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime, timedelta
from itertools import combinations
from pathlib import Path
from typing import Any

from langmemcore.text import extract_entities, extract_keywords, resolve_time_mentions
from langmemcore.text.parse import parse_texts
from langmemcore.text.tokens import normalize_keyword, singularize, stem

SET_PATH = Path(__file__).resolve().parents[1] / "tests" / "data" / "text_analysis.json"
_NER_LABELS = frozenset(["PERSON", "GPE", "LOC", "ORG", "FAC", "WORK_OF_ART", "EVENT", "PRODUCT"])
Interval = tuple[date, date]


def prf(tp: int, n_system: int, n_gold: int) -> tuple[float, float, float]:
    """Precision, recall and F1 (in %) from counts."""
    p = 100.0 * tp / n_system if n_system else 0.0
    r = 100.0 * tp / n_gold if n_gold else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def match_sets(system: Iterable[set[str]], gold: Iterable[set[str]]) -> tuple[float, ...]:
    """Micro-averaged P/R/F1 of per-turn sets."""
    tp = ns = ng = 0
    for s, g in zip(system, gold, strict=True):
        tp, ns, ng = tp + len(s & g), ns + len(s), ng + len(g)
    return prf(tp, ns, ng)


# --- stemmer -------------------------------------------------------------------------

_VOWEL_RE = re.compile(r"[aeiouy]")


def handmade_stem(term: str) -> str:
    """The suffix rules `tokens.stem` had before Snowball: ``-ing`` / ``-ed`` then ``-e``."""
    for suffix in ("ing", "ed"):
        base = term[: -len(suffix)]
        if term.endswith(suffix) and len(base) >= 3 and _VOWEL_RE.search(base):
            if base.endswith("e"):
                return term
            if len(base) >= 4 and base[-1] == base[-2] and base[-1] not in "aeiouls":
                base = base[:-1]
            term = base
            break
    return term[:-1] if len(term) >= 4 and term.endswith("e") else term


def conflation(stemmer: Callable[[str], str], stems: dict[str, Any]) -> tuple[float, ...]:
    """Pairwise conflation P/R/F1 over every pair of the set's word forms."""
    group_of: dict[str, int] = {}
    for g, forms in enumerate(stems["same"]):
        group_of.update((form, g) for form in forms)
    for k, pair in enumerate(stems["different"]):
        for i, form in enumerate(pair):
            group_of.setdefault(form, -1 - 2 * k - i)
    keys = {form: stemmer(form) for form in group_of}
    tp = fp = positives = 0
    for a, b in combinations(sorted(group_of), 2):
        same, meet = group_of[a] == group_of[b], keys[a] == keys[b]
        positives += same
        tp += same and meet
        fp += meet and not same
    return prf(tp, tp + fp, positives)


def snowball() -> Callable[[str], str]:
    """PyStemmer's Snowball English stemmer as a function."""
    import Stemmer

    return Stemmer.Stemmer("english").stemWord  # type: ignore[no-any-return]


# --- entities and keywords -----------------------------------------------------------


def entity_key(name: str) -> str:
    """Casefolded name without possessive, dots or a leading "the"."""
    low = name.casefold().replace("\u2019", "'").replace(".", "").strip()
    low = low.removesuffix("'s").strip()
    return low.removeprefix("the ").strip()


def spacy_entities(doc: Any, *, propn: bool) -> list[str]:
    """Named entities of a parsed turn (and, with ``propn``, uncovered PROPN runs)."""
    names = [ent.text for ent in doc.ents if ent.label_ in _NER_LABELS]
    if propn:
        covered = {i for ent in doc.ents for i in range(ent.start, ent.end)}
        run: list[str] = []
        for tok in [*doc, None]:
            if tok is not None and tok.pos_ == "PROPN" and tok.i not in covered:
                run.append(tok.text)
            elif run:
                names.append(" ".join(run))
                run = []
    return names


def spacy_keywords(doc: Any, *, adjectives: bool, cap: int = 8) -> list[str]:
    """Noun-chunk keywords of a parsed turn, in order, stripped of function words."""
    keep = {"NOUN", "PROPN", "NUM"} | ({"ADJ"} if adjectives else set())
    out: list[str] = []
    for chunk in doc.noun_chunks:
        if chunk.root.pos_ not in ("NOUN", "PROPN"):
            continue
        words = [t for t in chunk if t.pos_ in keep and not t.is_stop]
        while words and words[0].pos_ == "ADJ":
            if adjectives and words[0].dep_ == "amod" and len(words) > 1:
                break
            words.pop(0)
        if not words or words[-1].i != chunk.root.i:
            continue
        key = normalize_keyword(" ".join(t.text for t in words))
        if key and key not in out:
            out.append(key)
    return out[:cap]


def keyword_scores(system: list[list[str]], gold: list[list[str]]) -> tuple[tuple[float, ...], ...]:
    """Phrase-level and word-level P/R/F1 of keywords in `normalize_keyword` form."""
    sys_p = [{normalize_keyword(k) for k in ks} - {""} for ks in system]
    gold_p = [{normalize_keyword(k) for k in ks} - {""} for ks in gold]
    sys_w = [{w for k in ks for w in k.split()} for ks in sys_p]
    gold_w = [{w for k in ks for w in k.split()} for ks in gold_p]
    return match_sets(sys_p, gold_p), match_sets(sys_w, gold_w)


# --- dates ---------------------------------------------------------------------------


def _period_interval(day: date, period: str) -> Interval:
    """The interval of dateparser's period around a day (weeks Monday to Sunday)."""
    if period == "week":
        monday = day - timedelta(days=day.weekday())
        return monday, monday + timedelta(days=6)
    if period == "month":
        nxt = date(day.year + day.month // 12, day.month % 12 + 1, 1)
        return day.replace(day=1), nxt - timedelta(days=1)
    if period == "year":
        return date(day.year, 1, 1), date(day.year, 12, 31)
    return day, day


def dateparser_mentions(text: str, reference: datetime) -> list[tuple[str, Interval]]:
    """Time mentions by dateparser's ``search_dates``, each with its period's interval."""
    from dateparser.date import DateDataParser
    from dateparser.search import search_dates

    settings: Any = {"RELATIVE_BASE": reference}
    found = search_dates(text, languages=["en"], settings=settings) or []
    parser = DateDataParser(languages=["en"], settings=settings)
    out = []
    for surface, when in found:
        period = parser.get_date_data(surface).period or "day"
        out.append((surface, _period_interval(when.date(), period)))
    return out


def ours_mentions(text: str, reference: datetime) -> list[tuple[str, Interval]]:
    """Time mentions by `resolve_time_mentions`."""
    return [(m.text, (m.start, m.end)) for m in resolve_time_mentions(text, reference)]


def date_scores(
    system: list[list[tuple[str, Interval]]], turns: list[dict[str, Any]]
) -> dict[str, tuple[float, ...]]:
    """Strict and overlap P/R/F1 of resolved time mentions against the gold ones."""
    right = {"strict": 0, "overlap": 0}
    n_sys = sum(len(s) for s in system)
    n_gold = sum(len(t["times"]) for t in turns)
    for found, turn in zip(system, turns, strict=True):
        gold = [
            (g["text"].lower(), date.fromisoformat(g["start"]), date.fromisoformat(g["end"]))
            for g in turn["times"]
        ]
        for surface, (start, end) in found:
            low = surface.lower()
            hits = [g for g in gold if low in g[0] or g[0] in low]
            right["strict"] += any((start, end) == (g[1], g[2]) for g in hits)
            right["overlap"] += any(start <= g[2] and g[1] <= end for g in hits)
    return {k: prf(v, n_sys, n_gold) for k, v in right.items()}


# --- timing --------------------------------------------------------------------------


def alternate(
    ours: Callable[[], object], lib: Callable[[], object], rounds: int, n: int
) -> tuple[float, ...]:
    """Alternating rounds: median ms/turn of each side, median and spread of lib/ours."""
    ours_t, lib_t = [], []
    for _ in range(rounds):
        for fn, sink in ((ours, ours_t), (lib, lib_t)):
            start = time.perf_counter()
            fn()
            sink.append(time.perf_counter() - start)
    ratios = [b / a for a, b in zip(ours_t, lib_t, strict=True)]
    return (
        1000 * statistics.median(ours_t) / n,
        1000 * statistics.median(lib_t) / n,
        statistics.median(ratios),
        min(ratios),
        max(ratios),
    )


def row(name: str, scores: Sequence[float]) -> None:
    """Print one P/R/F1 line."""
    print(f"  {name:<38} P {scores[0]:5.1f}  R {scores[1]:5.1f}  F1 {scores[2]:5.1f}")


def timing_row(name: str, t: Sequence[float]) -> None:
    """Print one timing line."""
    spread = f"({t[3]:.1f}-{t[4]:.1f})"
    print(f"  {name:<38} ours {t[0]:7.3f} ms  lib {t[1]:7.3f} ms  ratio {t[2]:6.1f}x {spread}")


def report_quality(data: dict[str, Any], docs: list[Any]) -> None:
    """Print the quality table of every component."""
    turns, snow = data["turns"], snowball()
    texts = [t["text"] for t in turns]
    print("stemmer (pairwise conflation of the set's word forms)")
    row(
        "hand-made(singularize(w))",
        conflation(lambda w: handmade_stem(singularize(w)), data["stems"]),
    )
    row(
        "Snowball english(singularize(w))",
        conflation(lambda w: stem(singularize(w)), data["stems"]),
    )
    row("Snowball english(w)", conflation(snow, data["stems"]))
    print("entities")
    gold_e = [{entity_key(e["text"]) for e in t["entities"]} for t in turns]
    ours_e = ({entity_key(e) for e in extract_entities(x)} for x in texts)
    row("extract_entities", match_sets(ours_e, gold_e))
    for propn in (False, True):
        found = ({entity_key(e) for e in spacy_entities(d, propn=propn)} for d in docs)
        row(f"spaCy NER{' + PROPN runs' if propn else ''}", match_sets(found, gold_e))
    print("keywords (phrase level | word level)")
    ours_k = [extract_keywords(t["text"], speaker=t["speaker"]) for t in turns]
    for name, system in (
        ("extract_keywords", ours_k),
        ("spaCy noun chunks", [spacy_keywords(d, adjectives=True) for d in docs]),
        ("spaCy noun chunks, nouns only", [spacy_keywords(d, adjectives=False) for d in docs]),
    ):
        phrase, word = keyword_scores(system, [t["keywords"] for t in turns])
        row(name + " / phrase", phrase)
        row(name + " / word", word)
    print("dates (strict interval | overlapping interval)")
    refs = [datetime.fromisoformat(t["reference"]) for t in turns]
    for name, fn in (
        ("resolve_time_mentions", ours_mentions),
        ("dateparser search_dates", dateparser_mentions),
    ):
        scores = date_scores([fn(x, r) for x, r in zip(texts, refs, strict=True)], turns)
        row(name + " / strict", scores["strict"])
        row(name + " / overlap", scores["overlap"])


def report_timing(turns: list[dict[str, Any]], rounds: int) -> None:
    """Print each component's time per turn beside its library's, alternating rounds."""
    texts = [t["text"] for t in turns]
    pairs = [(t["text"], datetime.fromisoformat(t["reference"])) for t in turns]
    words = [w for x in texts for w in x.lower().split()]
    snow, n = snowball(), len(turns)
    print(f"time per turn ({rounds} alternating rounds over the {n} turns)")
    for name, ours, lib in (
        (
            "hand-made vs Snowball (turns' words)",
            lambda: [handmade_stem(w) for w in words],
            lambda: [snow(w) for w in words],
        ),
        (
            "extract_entities vs spaCy NER",
            lambda: [extract_entities(x) for x in texts],
            lambda: parse_texts(texts, entities=True),
        ),
        (
            "extract_keywords vs spaCy parse",
            lambda: [extract_keywords(x) for x in texts],
            lambda: parse_texts(texts),
        ),
        (
            "resolve_time_mentions vs dateparser",
            lambda: [ours_mentions(x, r) for x, r in pairs],
            lambda: [dateparser_mentions(x, r) for x, r in pairs],
        ),
    ):
        timing_row(name, alternate(ours, lib, rounds, n))


def main() -> None:
    """Print the quality and time tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    data = json.loads(SET_PATH.read_text())
    turns = data["turns"]
    counts = {k: sum(len(t[k]) for t in turns) for k in ("entities", "keywords", "times")}
    print(f"{len(turns)} turns; gold: {counts}")
    docs = parse_texts([t["text"] for t in turns], entities=True)
    report_quality(data, docs)
    report_timing(turns, args.rounds)


if __name__ == "__main__":
    main()
