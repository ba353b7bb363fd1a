"""First-person resolution: restate a speaker's "I" / "me" / "my" as readable English.

Rules, applied sentence by sentence (a sentence ends at ``.`` ``!`` ``?`` ``;`` ``:`` or a
line break; splitting too often only repeats the name):

* The first mention of the speaker in a sentence is the name (``"Priya"``,
  ``"Priya's"``); once the name was the subject, later mentions are the neutral pronoun
  (``they`` / ``them`` / ``their`` / ``theirs`` / ``themselves``) unless another possible
  referent came earlier in the sentence (a third-person or plural pronoun, a capitalised
  word that may be a name, a plural-looking or person noun such as ``kids``, ``sister``
  or ``physio``): then the name again, never an ambiguous pronoun.
* The verb after a resolved subject agrees: ``Priya lives`` / ``has`` / ``is`` /
  ``does`` / ``goes``, but ``they live`` / ``are`` / ``were``; modal verbs and past forms
  stay (``Priya can``, ``Priya went``); after ``X and I`` the verb stays plural.
  Inverted questions agree too (``Am I`` -> ``Is Priya``).
* A self-introduction does not state ``X is X``: ``I'm Tomas Ferreira`` said by Tomas
  becomes ``this is Tomas Ferreira``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from langmemcore.text._lexicon import (
    ADVERBS,
    FILLERS,
    INTENSIFIERS,
    STOPWORDS,
    TIME_WORDS,
    word_set,
)
from langmemcore.text.keywords import lookup_verb

_BOUNDARY_RE = re.compile(r"[.!?;:]+(?=\s|$)|\n")
_INTRO_RE = re.compile(r"\bI(?:['\u2019]m|\s+am)\b")
_PRONOUN_RE = re.compile(
    r"\b(?:i['\u2019](?P<tail>m|ve|d|ll)|(?P<i>i)(?!['\u2019.]\w)|(?P<obj>me|myself)"
    r"|(?P<poss>my|mine))\b",
    re.IGNORECASE,
)
_WORD_RE = re.compile(r"\s+(?P<word>[A-Za-z][A-Za-z'\u2019]*)")
_MINE_AFTER_RE = re.compile(
    r"(?:^|[,;:.!?]|\b(?:of|is|was|are|were|be|and|or|that's|it's|'s))\s*$", re.IGNORECASE
)
_INVERTED_RE = re.compile(r"\b(?P<aux>am|have|do|don't|haven't|was|wasn't)(?P<gap>\s+)$", re.I)
_COMPOUND_RE = re.compile(r"(?:^|[,;:.!?(]\s*)(?P<lead>[^,;:.!?(]*?)\s+(?:and|or|nor)\s+$")
_BRACKETS_RE = re.compile(r"\[[^\]]*\]")
_TOKEN_RE = re.compile(r"[A-Za-z][A-Za-z'\u2019]*")
_NAME_RE = re.compile(r"\s+(?P<name>[A-Z][\w'\u2019-]*(?:\s+[A-Z][\w'\u2019-]*)*)")

_NAME_AGREEMENT = {
    "am": "is",
    "have": "has",
    "do": "does",
    "don't": "doesn't",
    "haven't": "hasn't",
    "dont": "doesnt",
    "havent": "hasnt",
}
_THEY_AGREEMENT = {"am": "are", "was": "were", "wasn't": "weren't", "wasnt": "werent"}
_TAILS = {"m": "am", "ve": "have", "ll": "will"}
_HAD_NEXT = word_set("been had gone done seen never already just better rather")
_PAST_OR_FIXED = word_set(
    """read put set cut hit hurt let quit spread cost shut bet can could may might must will
    would shall should ought did was were had am is are been being used dare
    arose awoke bore beat became began bent bit bled blew broke bred brought built burnt
    burst bought caught chose clung came crept dealt dug dove drew dreamt drank drove ate
    fell fed felt fought found fled flung flew forbade forgot forgave froze got gave went
    ground grew hung heard hid held kept knelt knew laid led leant leapt learnt left lent
    lay lit lost made meant met paid rode rang rose ran said saw sought sold sent shook shed
    shone shot shrank sang sank sat slept slid slung smelt spoke sped spelt spent spilt spun
    spat split spoilt sprang stood stole stuck stung stank strode struck strove swore swept
    swam swung took taught tore told thought threw thrust trod understood woke wore wove
    wept won wound wrung wrote"""
)
_NOT_VERBS = word_set(
    """and or but nor too also alone myself who that which personally here there then now
    again both all only as at in on with for of from to so if when while because though
    although not no yes either neither"""
)
_LY_VERBS = word_set("apply reply rely fly supply comply imply multiply rally tally bully")
_OTHER_REFERENTS = word_set(
    """he him his himself she her hers herself they them their theirs themselves we us our
    ours ourselves people children men women folk family team everyone everybody someone
    somebody group crew class staff couple friend mom mum mother dad father sister brother
    son daughter wife husband partner boyfriend girlfriend boss colleague coworker kid baby
    girl boy guy man woman teacher neighbour neighbor cousin aunt uncle grandma grandpa
    parent child nephew niece fiance fiancee roommate physio doctor nurse therapist coach
    trainer"""
)
_COMPOUND_LEADS = word_set("my the our his her their your a an me")
_COMMON_STARTERS = STOPWORDS | FILLERS | TIME_WORDS | word_set("last next yes no well")
_NOT_PLURAL = word_set(
    """this is was has does its as yes always perhaps sometimes whereas thus plus less
    unless afterwards towards upwards besides news lots"""
)


def _compound(text: str, at: int) -> bool:
    """Whether the ``I`` at ``at`` ends a compound subject (``My sister and I``)."""
    m = _COMPOUND_RE.search(text, 0, at)
    if m is None:
        return False
    lead = m["lead"].split()
    if not lead or len(lead) > 3:
        return False
    first = lead[0].replace("\u2019", "'")
    if first.lower() in _COMPOUND_LEADS:
        return True
    return first[0].isupper() and first.lower() != "i" and not first.lower().startswith("i'")


def _third_person(verb: str) -> str:
    """``love`` -> ``loves``, ``watch`` -> ``watches``, ``try`` -> ``tries``."""
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in ("a", "e", "i", "o", "u"):
        return verb[:-1] + "ies"
    return verb + "s"


def _is_adverb(low: str) -> bool:
    """Whether a word between a subject and its verb is an adverb to skip."""
    if low in ADVERBS or low in INTENSIFIERS:
        return True
    return low.endswith("ly") and low not in _LY_VERBS and lookup_verb(low) is None


def _agree(word: str, pronoun: bool) -> str:
    """The form of the verb ``word`` after a third-person singular name or ``they``."""
    low = word.lower().replace("\u2019", "'")
    if pronoun:
        return _THEY_AGREEMENT.get(low, word)
    if low in _NAME_AGREEMENT:
        return _NAME_AGREEMENT[low]
    entry = lookup_verb(low)
    if entry is not None and entry[1] != "base":
        return word
    if not word.isalpha() or word != low or low in _PAST_OR_FIXED or low in _NOT_VERBS:
        return word
    if low.endswith(("ed", "ing")) and entry is None:
        return word
    return _third_person(word)


def _name_like(low: str) -> bool:
    """Whether a capitalised sentence-initial word may be a name (not ``The``, ``So``)."""
    return not (low in _COMMON_STARTERS or low in ADVERBS or low in INTENSIFIERS)


def _other_referent(prefix: str, aliases: frozenset[str]) -> bool:
    """Whether the sentence so far names someone a pronoun could be mistaken for."""
    words = _TOKEN_RE.findall(_BRACKETS_RE.sub(" ", prefix))
    for index, word in enumerate(words):
        low = word.lower().replace("\u2019", "'")
        if low in ("i", "me", "my", "mine", "myself") or low.startswith("i'") or low in aliases:
            continue
        if low in _OTHER_REFERENTS or (word[0].isupper() and (index > 0 or _name_like(low))):
            return True
        plural = low.endswith("s") and not low.endswith(("ss", "us", "'s"))
        if plural and len(low) > 3 and low not in _NOT_PLURAL:
            return True
    return False


@dataclass
class _Sentence:
    """Resolution state while walking the text; ``start`` is the current sentence's."""

    text: str
    name: str
    aliases: frozenset[str]
    start: int = 0
    mentioned: bool = False
    """Whether the speaker was already named as the subject in this sentence."""
    pieces: list[str] = field(default_factory=list)
    pos: int = 0

    def pronoun_ok(self, at: int) -> bool:
        """Whether a mention at ``at`` may be the neutral pronoun."""
        return self.mentioned and not _other_referent(self.text[self.start : at], self.aliases)

    def enter(self, at: int, boundaries: list[int]) -> None:
        """Start a new sentence when a boundary lies between the last one and ``at``."""
        start = boundaries[bisect_right(boundaries, at) - 1]
        if start != self.start:
            self.start, self.mentioned = start, False


def _possessive(s: _Sentence, m: re.Match[str], pronoun: bool) -> str:
    """``my`` -> ``Priya's`` / ``their``; ``mine`` -> ``Priya's`` / ``theirs``."""
    word = m.group("poss").lower()
    if word == "mine" and not _MINE_AFTER_RE.search(s.text, 0, m.start()):
        return m.group("poss")
    if pronoun:
        return "their" if word == "my" else "theirs"
    return s.name + "'s"


def _object(m: re.Match[str], pronoun: bool, name: str) -> str:
    """``me`` -> ``Priya`` / ``them``; ``myself`` -> ``Priya`` / ``themselves``."""
    if not pronoun:
        return name
    return "themselves" if m.group("obj").lower() == "myself" else "them"


def _introduction(s: _Sentence, end: int) -> str | None:
    """The introduced full name when ``I'm`` / ``I am`` at ``end`` introduces the speaker."""
    m = _NAME_RE.match(s.text, end)
    if m is None or m.group("name").split()[0] != s.name.split()[0]:
        return None
    return m.group("name")


def _subject(s: _Sentence, m: re.Match[str], pronoun: bool, inverted: bool) -> str:
    """Resolve a subject ``I`` / ``I'm`` / ``I've`` / ``I'll`` / ``I'd`` and its verb."""
    tail = (m.group("tail") or "").lower()
    end = m.end()
    verb_match = _WORD_RE.match(s.text, end)
    if tail in ("", "m") and (tail == "m" or (verb_match and verb_match["word"].lower() == "am")):
        intro_end = verb_match.end() if not tail and verb_match else end
        if _introduction(s, intro_end) is not None:
            s.pos = intro_end
            return "this is"
    subject = "they" if pronoun else s.name
    if tail:
        aux = _TAILS.get(tail, "would")
        nxt = verb_match["word"].lower() if verb_match else ""
        if aux == "would" and (nxt in _HAD_NEXT or nxt.endswith("ed")):
            aux = "had"
        return f"{subject} {_agree(aux, pronoun)}"
    if inverted or _compound(s.text, m.start()):
        return subject
    skipped = 0
    while verb_match and _is_adverb(verb_match["word"].lower()) and skipped < 2:
        verb_match = _WORD_RE.match(s.text, verb_match.end())
        skipped += 1
    if verb_match is None or _PRONOUN_RE.fullmatch(verb_match["word"]):
        return subject
    verb = _agree(verb_match["word"], pronoun)
    s.pos = verb_match.end()
    return subject + s.text[end : verb_match.start("word")] + verb


def _inverted(s: _Sentence, pronoun: bool) -> bool:
    """Make an auxiliary right before a resolved ``I`` agree (``Am I`` -> ``Is Priya``)."""
    before = "".join(s.pieces)
    m = _INVERTED_RE.search(before)
    if m is None:
        return False
    aux = _agree(m["aux"], pronoun)
    if m["aux"][0].isupper():
        aux = aux[0].upper() + aux[1:]
    s.pieces = [before[: m.start()], aux, m["gap"]]
    return True


def _aliases(text: str, name: str) -> frozenset[str]:
    """The speaker's name words, plus those of a name they introduce themselves with."""
    words = {word.lower() for word in _TOKEN_RE.findall(name)}
    probe = _Sentence(text, name, frozenset(words))
    for m in _INTRO_RE.finditer(text):
        words.update(w.lower() for w in (_introduction(probe, m.end()) or "").split())
    return frozenset(words)


def resolve_first_person(text: str, speaker: str | None) -> str:
    """Restate first-person singular pronouns in the third person, naming the speaker.

    ``I`` / ``me`` / ``myself`` / ``my`` / ``mine`` become the speaker's name (possessive
    ``"Melanie's"``) at their first mention in a sentence and ``they`` / ``them`` /
    ``themselves`` / ``their`` / ``theirs`` after it, unless that pronoun could be read
    as someone else (then the name again). ``I'm`` / ``I've`` / ``I'll`` / ``I'd`` expand
    (``is`` / ``has`` / ``will`` / ``would``, ``had`` before a participle), the verb after
    a resolved ``I`` agrees (``Melanie loves``, ``they love``) and a self-introduction
    reads ``this is Tomas Ferreira``. Plural ``we`` / ``our`` are left alone.

    Args:
        text: The text as written by the speaker.
        speaker: The speaker's name; ``None`` returns the text unchanged.

    Returns:
        The resolved text.
    """
    if not speaker or not speaker.strip():
        return text
    name = speaker.strip()
    s = _Sentence(text, name, _aliases(text, name))
    boundaries = [0, *(m.end() for m in _BOUNDARY_RE.finditer(text))]
    for m in _PRONOUN_RE.finditer(text):
        if m.start() < s.pos:
            continue
        s.pieces.append(text[s.pos : m.start()])
        s.pos = m.end()
        s.enter(m.start(), boundaries)
        pronoun = s.pronoun_ok(m.start())
        if m.group("poss"):
            out = _possessive(s, m, pronoun)
        elif m.group("obj"):
            out = _object(m, pronoun, name)
        else:
            inverted = not m.group("tail") and _inverted(s, pronoun)
            out = _subject(s, m, pronoun, inverted)
        if out.startswith("this") and not text[s.start : m.start()].strip():
            out = "T" + out[1:]
        subject = not (m.group("poss") or m.group("obj"))
        s.mentioned = s.mentioned or (subject and out != m.group(0))
        s.pieces.append(out)
    s.pieces.append(text[s.pos :])
    return "".join(s.pieces)
