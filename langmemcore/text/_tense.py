"""The tense a time expression is said in, behind :mod:`langmemcore.text.dates` (private).

Bare weekdays and months ("on Monday", "in March") name a day or month on either side of
the moment the words were said; the tense of the words around them picks the side. The
rule, word lists only (no tagger):

* The sentence is cut at sentence ends (not at "St." or "Mrs.") and into clauses at
  commas, colons, semicolons and conjunctions ("and", "but", "so", "when", ...).
* Every word is read as a tense marker or not: past ("went", "started", "was", "did",
  "had", "have / has + participle"), future ("will", "'ll", "going to", "gonna",
  "plan to", "about to", "see you") or present ("am / is / are", "do / does", a verb right
  after "I / we / you / they", "can", "should"). An "-ed" word after a linking verb ("I'm
  excited", "it's booked") is an adjective, not a past.
* The marker nearest to the time expression within its clause decides; without one in
  the clause, the nearest in the sentence; without any verb, the time words around it
  ("yesterday", "ago", "tomorrow", "soon"). Present counts as future ("I start on
  Monday"), unless the sentence says it is a habit ("usually", "every", "always").
* No evidence (a verbless "Monday?") or a habit leaves the tense unknown: ``0``.
"""

from __future__ import annotations

from langmemcore.text._lexicon import ADVERBS, AUXILIARIES, STOPWORDS, word_set
from langmemcore.text.tokens import fold_apostrophes, word_and_mark_spans

__all__ = ["tense_at"]

PAST, PRESENT, FUTURE = -1, 0, 1

_PAST_FORMS = word_set(
    """was were wasn't weren't did didn't had hadn't went came got made took saw met bought
    gave told found left won lost felt thought said knew brought kept began spent sent built
    paid heard sat stood sang spoke held wrote rode rose ate drank drove fell flew forgot
    grew hid hung led lent ran swam shook shot slept stole stuck struck swore threw woke
    wore became chose broke blew drew fed fought forgave sought bit dug lit caught taught
    sold meant fled bled froze gotten dealt dreamt burnt learnt spelt understood overcame
    began rang sank shrank stank sprang slid spun wove wept beat bent bound ground
    withdrew arose awoke forbade mislaid mistook misunderstood overheard overslept oversaw
    overtook rebuilt redid remade rewrote undid upset agreed freed fleed guaranteed"""
)
_PARTICIPLES = _PAST_FORMS | word_set(
    """been gone done seen taken given known eaten fallen driven ridden risen written spoken
    flown forgotten grown hidden sung swum shaken stolen thrown woken worn chosen broken
    blown drawn forgiven bitten begun drunk shrunk sunk sprung come become run put set let
    cut hit hurt quit read spread"""
)
# "-ed" words that are not past forms (the "-eed" words are skipped by the rule itself).
_ED_NOT_PAST = word_set(
    """bed red shed wed hundred sacred naked wicked sled shred embed kindred rugged ragged
    beloved infrared moped biped ted ned fred med jed ed"""
)
_FUTURE_WORDS = word_set(
    """will won't shall shan't gonna wanna i'll you'll he'll she'll it'll we'll they'll
    that'll there'll who'll let's gotta"""
)
# Words that mark the future only before "to": "going to", "plan to", "about to".
_FUTURE_BEFORE_TO = word_set(
    """going about plan plans planning planned hope hoping hopes want wants wanting intend
    intends aim aims need needs have has got"""
)
_PRESENT_WORDS = word_set(
    """am is are isn't aren't i'm you're we're they're it's that's there's here's he's
    she's what's who's do does don't doesn't can can't could couldn't should shouldn't
    must might would wouldn't i'd you'd we'd they'd he'd she'd have has"""
)
_PERFECT_AUX = word_set(
    """have has haven't hasn't i've you've we've they've who've should've would've
    could've might've must've i'd you'd we'd they'd he'd she'd it'd"""
)
_LINKING = word_set(
    """am is are was were be being been i'm you're we're they're it's that's he's she's
    get gets getting got feel feels felt seem seems seemed look looks looked become
    becomes became stay stays isn't aren't wasn't weren't"""
)
_SUBJECTS = word_set("i we you they")
_PRONOUNS = _SUBJECTS | word_set("he she it")
_HABITUAL = word_set(
    """usually always often normally generally typically sometimes regularly every each
    weekly daily rarely seldom frequently mostly"""
)
_WEAK_PAST = word_set("yesterday ago last earlier previously recently lately")
_WEAK_FUTURE = word_set("tomorrow soon later upcoming next tonight")
_CONJUNCTIONS = word_set(
    """and but so because while whereas although though or then when after before since
    until till unless if that cause cuz"""
)
_ABBREVIATIONS = word_set("mr mrs ms dr st mt jr sr vs etc prof approx")
_CLAUSE_MARKS = ',;:()\u2014\u2013"'
_SENTENCE_ENDS = ".!?\n"


def _sentence(text: str, begin: int, end: int) -> tuple[int, int]:
    """Bounds of the sentence around ``text[begin:end]``, not cut at "St." or "Mrs."."""
    ends = [at for at, char in enumerate(text) if char in _SENTENCE_ENDS]
    before = (at + 1 for at in reversed(ends) if at < begin and not _is_abbreviation(text, at))
    after = (at for at in ends if at >= end and not _is_abbreviation(text, at))
    return next(before, 0), next(after, len(text))


def _is_abbreviation(text: str, dot: int) -> bool:
    """Whether the character at ``dot`` is the full stop of an abbreviation ("St.")."""
    if text[dot] != ".":
        return False
    start = dot
    while start > max(0, dot - 6) and text[start - 1].isascii() and text[start - 1].isalpha():
        start -= 1
    word = text[start:dot].lower()
    return len(word) == 1 or word in _ABBREVIATIONS


def _is_past_ed(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` is a regular past ("started"), not an adjective ("excited")."""
    word = words[i]
    if len(word) < 4 or not word.endswith("ed") or word.endswith("eed") or word in _ED_NOT_PAST:
        return False
    j = i - 1
    while j >= 0 and words[j] in ADVERBS:
        j -= 1
    return j < 0 or words[j] not in _LINKING


def _after_perfect(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` ("have", "'ve") starts a perfect ("have started", "'ve been")."""
    j = i + 1
    while j < len(words) and (words[j] in ADVERBS or words[j] in _PRONOUNS):
        j += 1
    if j >= len(words):
        return False
    nxt = words[j]
    return nxt in _PARTICIPLES or (nxt.endswith("ed") and _is_past_ed(words, j))


def _marker(words: list[str], caps: list[bool], i: int) -> int | None:
    """The tense ``words[i]`` marks (PAST, PRESENT, FUTURE), or ``None``.

    Args:
        words: The sentence's words, lowercase.
        caps: Whether each word was written with a capital.
        i: The word to read.

    Returns:
        The tense, or ``None`` for a word that marks none (or the verb of a question, "did
        you go", whose auxiliary carries the tense).
    """
    word = words[i]
    following = words[i + 1] if i + 1 < len(words) else ""
    subject = _word_before(words, i)
    if subject > 0 and words[subject] in _PRONOUNS and words[subject - 1] in AUXILIARIES:
        return None
    if word in _FUTURE_WORDS or (word in _FUTURE_BEFORE_TO and following == "to"):
        return PAST if word in ("planned", "had", "got") else FUTURE
    if word in ("see", "looking", "wait") and following in ("you", "forward", "until"):
        return FUTURE
    if word in _PERFECT_AUX and _after_perfect(words, i):
        return PAST
    if word in _PAST_FORMS or _is_past_ed(words, i):
        return PAST
    if word in _PRESENT_WORDS:
        return PRESENT
    if word in STOPWORDS or not word.isalpha() or subject < 0:
        return None
    if words[subject] in _SUBJECTS:
        return PRESENT
    third_person = word.endswith("s") and not word.endswith("ss")
    named = caps[subject] and (subject == 0 or not words[subject - 1][0].isalpha())
    return PRESENT if third_person and (words[subject] in _PRONOUNS or named) else None


def _word_before(words: list[str], i: int) -> int:
    """Index of the word before ``words[i]``, skipping adverbs ("I usually go"); -1 if none."""
    j = i - 1
    while j >= 0 and words[j] in ADVERBS:
        j -= 1
    return j


def _clause(offsets: list[int], words: list[str], begin: int, end: int) -> tuple[int, int]:
    """Character bounds of the clause holding ``[begin, end)``.

    The clause runs between the nearest punctuation or conjunction on either side.
    """
    low, high = 0, 1 << 30
    for offset, word in zip(offsets, words, strict=True):
        if word[0].isalpha() and word not in _CONJUNCTIONS:
            continue
        if offset < begin:
            low = offset
        elif offset >= end:
            high = offset
            break
    return low, high


def _tokens(text: str, left: int, right: int) -> list[tuple[int, str]]:
    """The words of ``text[left:right]`` that open with a letter, and its clause marks
    (punctuation and a dash between spaces), each with its offset.
    """
    found = []
    for start, end in word_and_mark_spans(text[left:right]):
        token = text[left + start : left + end]
        spaced_dash = token == "-" and text[left + start - 1 : left + start].isspace()
        if (
            token[0].isalpha()
            or token in _CLAUSE_MARKS
            or (spaced_dash and text[left + end : left + end + 1].isspace())
        ):
            found.append((left + start, token))
    return found


def tense_at(text: str, begin: int, end: int) -> int:
    """The tense governing the time expression ``text[begin:end]``.

    Args:
        text: The whole text the expression was found in.
        begin: Offset of the expression's first character.
        end: Offset just past its last character.

    Returns:
        ``-1`` past, ``1`` future (or a one-off present, "I start on Monday"), ``0`` when
        the words give no evidence or describe a habit.
    """
    left, right = _sentence(text, begin, end)
    tokens = _tokens(fold_apostrophes(text), left, right)
    words = [word.lower() for _, word in tokens]
    low, high = _clause([offset for offset, _ in tokens], words, begin, end)

    def rank(i: int) -> tuple[bool, int]:
        offset = tokens[i][0]
        return not low <= offset < high, begin - offset if offset < begin else offset - end

    outside_span = (
        i for i, (at, word) in enumerate(tokens) if word[0].isalpha() and not begin <= at < end
    )
    order = sorted(outside_span, key=rank)
    caps = [word[0].isupper() for _, word in tokens]
    tense = next((t for t in (_marker(words, caps, i) for i in order) if t is not None), None)
    if tense is None:
        weak = [words[i] for i in order if words[i] in _WEAK_PAST or words[i] in _WEAK_FUTURE]
        return (PAST if weak[0] in _WEAK_PAST else FUTURE) if weak else 0
    if tense == PRESENT:
        return 0 if any(word in _HABITUAL for word in words) else FUTURE
    return tense
