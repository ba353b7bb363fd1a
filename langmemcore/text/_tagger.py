"""Word-list tagger behind the offline keyword extraction (private).

Tags: ``N`` noun, ``P`` proper noun, ``G`` gerund, ``M`` participle used as a modifier,
``J`` adjective, ``V`` verb, ``A`` adverb, ``T`` time word, ``D`` number, ``S`` function
word, ``F`` interjection, ``.`` sentence end, ``,`` other punctuation. ``X`` (noun or verb)
and ``E`` (participle) are intermediate tags that context rules resolve to ``N`` / ``V``
and ``M`` / ``V``.
"""

from __future__ import annotations

import re

from langmemcore.text import _lexicon as lx
from langmemcore.text.tokens import fold_apostrophes

_TOKEN_RE = re.compile(
    r"(?P<w>[^\W_]+(?:'[^\W_]+)*(?:-[^\W_]+(?:'[^\W_]+)*)*'?\+*)|(?P<e>[.!?]+|\n|:)|[^\w\s]"
)
_ABBREVIATIONS = lx.word_set("mr mrs ms dr st mt jr sr vs etc prof")
_NEVER_PROPER = lx.STOPWORDS | lx.FILLERS | lx.TIME_WORDS | lx.NOT_NAMES | lx.FAMILY_TITLES
CONTENT = frozenset("NPGMJ")
_NOUNISH = frozenset("NXGPM")
_SUBJECT_S = lx.word_set("he she it this that which who there what")
_PERSONAL = lx.word_set("i we they he she")
_MODALS = lx.word_set(
    """can could will would should might must can't won't wouldn't couldn't shouldn't
    don't didn't doesn't i'll we'll you'll they'll i'd we'd you'd they'd gonna wanna gotta"""
)
_VERB_NEXT = lx.word_set(
    "up out off down a an the my your his her our their this these those some each more"
)
_PREDICATIVE = lx.word_set("is am are was were it's that's")
_OBJECT_PRONOUNS = lx.word_set(
    "me him her them us it you myself yourself himself herself ourselves themselves"
)


def _degree_forms(adjectives: frozenset[str]) -> frozenset[str]:
    """Add comparative and superlative forms ("tough" -> "tougher", "toughest")."""
    forms = set(adjectives)
    for adj in adjectives:
        if not adj.isalpha() or len(adj) > 7:
            continue
        if adj.endswith("e"):
            stem = adj[:-1]
        elif adj.endswith("y") and len(adj) > 2:
            stem = adj[:-1] + "i"
        elif (
            len(adj) >= 3 and adj[-1] in "bdgmnpt" and adj[-2] in "aeiou" and adj[-3] not in "aeiou"
        ):
            stem = adj + adj[-1]
        else:
            stem = adj
        forms.update((stem + "er", stem + "est"))
    return frozenset(forms)


_WEAK_FORMS = _degree_forms(lx.WEAK_ADJECTIVES)


def _regular_forms(base: str) -> dict[str, str]:
    """Regular inflections of a verb: form -> "base" / "s" / "ed" / "ing"."""
    forms = {base: "base"}
    consonant_y = base.endswith("y") and base[-2:-1] not in ("a", "e", "i", "o", "u")
    if base.endswith(("s", "sh", "ch", "x", "z", "o")):
        forms[base + "es"] = "s"
    else:
        forms[base[:-1] + "ies" if consonant_y else base + "s"] = "s"
    if base.endswith("ie"):
        forms[base + "d"], forms[base[:-2] + "ying"] = "ed", "ing"
    elif base.endswith("e"):
        forms[base + "d"] = "ed"
        forms[base + "ing" if base.endswith(("ee", "ye", "oe")) else base[:-1] + "ing"] = "ing"
    else:
        forms[base[:-1] + "ied" if consonant_y else base + "ed"] = "ed"
        forms[base + "ing"] = "ing"
    doubles = len(base) >= 3 and base[-1] in "bdgklmnprt" and base[-2] in "aeiou"
    if doubles and base[-3] not in "aeiou":
        forms[base + base[-1] + "ed"], forms[base + base[-1] + "ing"] = "ed", "ing"
    return forms


def _build_verb_forms() -> dict[str, tuple[str, str, bool]]:
    """Map every known verb form to (lemma, form kind, whether the verb is also a noun)."""
    table: dict[str, tuple[str, str, bool]] = {}
    for base in sorted(lx.NOUN_VERBS):
        for form, kind in _regular_forms(base).items():
            table.setdefault(form, (base, kind, True))
    for base in sorted(lx.PURE_VERBS - lx.NOUN_VERBS):
        for form, kind in _regular_forms(base).items():
            table.setdefault(form, (base, kind, False))
    for entry in lx.IRREGULAR_VERBS.split():
        base, forms = entry.split(":")
        for form in forms.split(","):
            if form != base:
                table[form] = (base, "ed", False)
    return table


VERB_FORMS = _build_verb_forms()


class Tok:
    """One token with its tag; tags: N noun, P proper, G gerund, M participle modifier,
    J adjective, X noun-or-verb (resolved to N or V), E participle (resolved to M or V),
    V verb, A adverb, T time word, D number, S function word, F interjection,
    ``.`` sentence end, ``,`` other punctuation.
    """

    __slots__ = ("form", "initial", "lemma", "low", "poss", "surface", "tag")

    def __init__(self, surface: str, tag: str, poss: bool = False, initial: bool = False):
        self.surface = surface
        self.low = surface.lower()
        self.tag = tag
        self.poss = poss
        self.initial = initial
        self.lemma = ""
        self.form = ""


def lex(text: str) -> list[Tok]:
    """Split text into tokens, marking possessives and sentence-initial words."""
    toks: list[Tok] = []
    initial = True
    for m in _TOKEN_RE.finditer(fold_apostrophes(text)):
        word = m.group("w")
        if word is None:
            if m.group("e") is None:
                toks.append(Tok(m.group(), ","))
            elif not (m.group() == "." and toks and toks[-1].low in _ABBREVIATIONS):
                toks.append(Tok(".", "."))
                initial = True
            continue
        poss = False
        low = word.lower()
        if low.endswith("'s") and low not in lx.STOPWORDS:
            word, poss = word[:-2], True
        elif word.endswith("'"):
            word, poss = word[:-1], low.endswith("s'")
        toks.append(Tok(word, "", poss, initial))
        initial = False
    return toks


def _base_tag(tok: Tok, caps_elsewhere: set[str]) -> str:
    """Context-free tag of a word token."""
    low = tok.low
    if low.isdigit():
        return "D"
    if tok.surface[:1].isupper() and len(low) > 1 and low not in _NEVER_PROPER:
        if not tok.initial or tok.surface.isupper() or low in caps_elsewhere:
            return "P"
        if low in lx.FIRST_NAMES or low in lx.PLACES:
            return "P"
    if low in lx.FILLERS:
        return "F"
    if low in lx.STOPWORDS:
        return "S"
    if low in lx.TIME_WORDS:
        return "T"
    if low in _WEAK_FORMS:
        return "J"
    verb = VERB_FORMS.get(low)
    if verb is not None:
        tok.lemma, tok.form, noun = verb
        if tok.form == "ing":
            return "V" if low in lx.LIGHT_ING else "G"
        if not noun:
            return "V"
        return "E" if tok.form == "ed" else "X"
    if low in lx.ADVERBS or (low.endswith("ly") and len(low) > 4 and low not in lx.LY_NOUNS):
        return "A"
    if low.endswith(lx.ADJECTIVE_SUFFIXES) and low not in lx.SUFFIX_NOUNS:
        return "J"
    if "-" not in low and len(low) > 4:
        if low.endswith("ed") and low not in lx.ED_NOUNS:
            return "E"
        if low.endswith("ing"):
            return "V" if low in lx.LIGHT_ING else "G"
    return "N"


def noun_context(prev: Tok | None) -> bool:
    """Whether a word after ``prev`` is in a noun slot ("the ~", "my ~", "for ~")."""
    if prev is None:
        return False
    low = prev.low
    return (
        prev.poss
        or low in lx.DETERMINERS
        or (low in lx.PREPOSITIONS and low not in ("to", "like"))
        or prev.tag in ("J", "D", "N", "M", "G")
        or low == "&"
        or (prev.tag == "P" and low not in lx.FIRST_NAMES)
    )


def _is_verb(toks: list[Tok], i: int) -> bool:
    """Decide whether an X token (noun-or-verb, base or -s form) is used as a verb."""
    j = _skip_adverbs(toks, i)
    prev = toks[j] if j >= 0 and toks[j].tag not in (".", ",") else None
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    nounish_next = nxt is not None and nxt.tag in _NOUNISH and nxt.low not in lx.PLAIN_ADJECTIVES
    objects_next = nxt is not None and (nxt.low in lx.OBJECT_STARTERS or nxt.tag == "P")
    if prev is not None and prev.low in lx.VERB_TRIGGERS:
        return True
    if toks[i].form == "s":
        if prev is None or prev.low in _SUBJECT_S or prev.tag in ("N", "P", "G"):
            return nxt is not None and not nounish_next
        if prev.poss or prev.low in lx.DETERMINERS or prev.tag in ("J", "D"):
            return False
        return objects_next
    if prev is not None and prev.tag == "P" and j > 0 and toks[j - 1].low in lx.AUXILIARIES:
        return True
    if prev is not None and prev.tag == "N" and prev.low.endswith("s"):
        return not prev.low.endswith("ss")
    if prev is not None and (prev.poss or prev.low in lx.DETERMINERS):
        return False
    if objects_next:
        return True
    if prev is None and nxt is not None:
        return nxt.low in _PERSONAL or nxt.low == "you"
    return False


def _skip_adverbs(toks: list[Tok], i: int) -> int:
    """Index of the closest token before ``i`` that is not an adverb (at most 2 skipped)."""
    j = i - 1
    while j >= 0 and j > i - 3 and (toks[j].tag == "A" or toks[j].low in lx.ADVERBS):
        j -= 1
    return j


def tag_tokens(toks: list[Tok]) -> None:
    """Tag every word token in place: context-free tags, then context rules."""
    caps_elsewhere = {t.low for t in toks if not t.initial and t.surface[:1].isupper()}
    for tok in toks:
        if not tok.tag:
            tok.tag = _base_tag(tok, caps_elsewhere)
    for i, tok in enumerate(toks):
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if tok.poss and (nxt is None or nxt.tag not in "NXGPEMT"):
            tok.poss = False
        prev = toks[i - 1] if i and toks[i - 1].tag != "." else None
        tok.tag = _context_tag(toks, i, prev, nxt)


def _context_tag(toks: list[Tok], i: int, prev: Tok | None, nxt: Tok | None) -> str:
    """Resolve a token's tag from its neighbours (left ones already resolved)."""
    tok = toks[i]
    tag = tok.tag
    if _opens_name(tok, nxt):
        return "P"
    if tag == "X":
        return "V" if _is_verb(toks, i) else "N"
    if tag == "E":
        modifier = prev is not None and (
            prev.poss or prev.low in lx.DETERMINERS or prev.tag in ("J", "M")
        )
        return "M" if modifier and nxt is not None and nxt.tag in "NXGP" else "V"
    if tag == "G" and prev is not None:
        if prev.low in lx.INTENSIFIERS:
            return "J"
        if nxt is not None and (nxt.low in _OBJECT_PRONOUNS or nxt.low in _VERB_NEXT):
            return "V"
        if prev.low in _PREDICATIVE and (nxt is None or nxt.tag not in CONTENT):
            return "J"
        if prev.low in lx.COPULAS and nxt is not None and nxt.tag in "NXPS":
            return "V" if nxt.tag != "S" or nxt.low in lx.OBJECT_STARTERS else tag
    if tag == "N" and not tok.lemma and prev is not None:
        if _verb_slot(toks, i):
            return "V"
        if prev.low in lx.INTENSIFIERS and (nxt is None or nxt.tag not in _NOUNISH):
            return "J"
    if tag == "T" and tok.low in lx.MODIFIABLE_TIME_WORDS and nxt is not None:
        return "N" if nxt.tag in "NXG" and not _qualified(prev) else tag
    return tag


def _opens_name(tok: Tok, nxt: Tok | None) -> bool:
    """Whether a capitalised sentence-initial word starts a name ("Grand Canyon is ...")."""
    if tok.tag not in ("N", "G", "J") or not tok.initial or not tok.surface[:1].isupper():
        return False
    return nxt is not None and nxt.tag == "P" and not nxt.initial


def _qualified(prev: Tok | None) -> bool:
    """Whether a time word is qualified ("last summer") rather than a modifier."""
    return prev is not None and prev.low in lx.RELATIVE_QUALIFIERS


def _verb_slot(toks: list[Tok], i: int) -> bool:
    """Whether an unknown word sits where only a verb fits: "does Melanie ~",
    "the colors really ~".
    """
    j = _skip_adverbs(toks, i)
    if j < 0:
        return False
    anchor = toks[j]
    if anchor.tag == "P" and not anchor.poss:
        k = j
        while k > 0 and toks[k - 1].tag == "P":
            k -= 1
        return k > 0 and toks[k - 1].low in lx.AUXILIARIES
    if anchor.low in _PERSONAL or anchor.low in _MODALS:
        return True
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    if anchor.low == "you" and j == i - 1:
        return nxt is not None and nxt.low in lx.OBJECT_STARTERS
    if j == i - 1:
        followed = nxt is not None and (nxt.tag in "NXG" or nxt.low in lx.OBJECT_STARTERS)
        return anchor.low == "to" and followed
    return anchor.tag == "N" and anchor.low.endswith("s")
