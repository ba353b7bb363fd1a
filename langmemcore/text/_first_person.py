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
from langmemcore.text.tokens import after_spaces, fold_apostrophes, word_spans

_ENDS = ".!?;:"
_CLAUSE_MARKS = ",;:.!?("
_APOSTROPHES = "'\u2019"
_PRONOUNS = {
    "i": "i",
    "i'm": "m",
    "i've": "ve",
    "i'd": "d",
    "i'll": "ll",
    "me": "obj",
    "myself": "obj",
    "my": "poss",
    "mine": "poss",
}
_MINE_AFTER = word_set("of is was are were be and or")
_INVERTING = word_set("am have do don't haven't was wasn't")
_CONJUNCTIONS = ("and", "or", "nor")
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


def _is_word_char(char: str) -> bool:
    """Whether ``char`` is a letter, a digit or ``_``."""
    return char.isalnum() or char == "_"


def _is_letter(char: str) -> bool:
    """Whether ``char`` is an ASCII letter."""
    return char.isascii() and char.isalpha()


@dataclass(frozen=True)
class _Mention:
    """A first-person word: where it is, as written, and its kind (``i``, a contraction's
    tail ``m`` / ``ve`` / ``d`` / ``ll``, ``obj`` or ``poss``).
    """

    start: int
    end: int
    written: str
    kind: str

    @property
    def tail(self) -> str:
        """The contraction's tail, ``""`` for anything but ``I'm`` / ``I've`` / ...."""
        return "" if self.kind in ("i", "obj", "poss") else self.kind


def _pronoun_kind(word: str) -> str | None:
    """The kind of a first-person word (see `_Mention`), ``None`` for any other word."""
    return _PRONOUNS.get(fold_apostrophes(word).lower())


def _mentions(text: str) -> list[_Mention]:
    """The first-person words of ``text`` in order (not the ``i`` of ``i.e.``)."""
    found = []
    for start, end in word_spans(text):
        if text[start] not in "iImM" or end - start > 6:
            continue
        kind = _pronoun_kind(text[start:end])
        after = text[end : end + 2]
        if kind is None or (
            kind == "i" and len(after) == 2 and after[0] in "'\u2019." and _is_word_char(after[1])
        ):
            continue
        found.append(_Mention(start, end, text[start:end], kind))
    return found


def _boundaries(text: str) -> list[int]:
    """0 and the offset after each sentence end: ``.`` ``!`` ``?`` ``;`` ``:`` before a
    space or the text's end, and a line break.
    """
    ends = [0]
    for mark in "\n" + _ENDS:
        at = text.find(mark)
        while at >= 0:
            if mark == "\n" or at + 1 == len(text) or text[at + 1].isspace():
                ends.append(at + 1)
            at = text.find(mark, at + 1)
    return sorted(ends)


def _word_after(text: str, pos: int) -> tuple[int, int] | None:
    """The span of the word after the spaces at ``pos`` (ASCII letters and apostrophes,
    opening with a letter); ``None`` when no space or no such word follows.
    """
    start = after_spaces(text, pos)
    if start == pos or start == len(text) or not _is_letter(text[start]):
        return None
    end = start + 1
    while end < len(text) and (_is_letter(text[end]) or text[end] in _APOSTROPHES):
        end += 1
    return start, end


def _name_at(text: str, pos: int) -> str | None:
    """The capitalised words after the spaces at ``pos`` (``Tomas Ferreira``), if any."""
    i = after_spaces(text, pos)
    if i == pos:
        return None
    start, end = i, None
    while i < len(text) and "A" <= text[i] <= "Z":
        i += 1
        while i < len(text) and (_is_word_char(text[i]) or text[i] in "'\u2019-"):
            i += 1
        end, i = i, after_spaces(text, i)
    return None if end is None else text[start:end]


def _mine_is_owned(text: str, at: int) -> bool:
    """Whether the ``mine`` at ``at`` is the possessive: it opens a clause or follows a
    link word (``of mine``, ``it's mine``, ``Lena's and mine``).
    """
    before = text[:at].rstrip()
    if not before or before[-1] in ",;:.!?":
        return True
    k = len(before)
    while k and _is_word_char(before[k - 1]):
        k -= 1
    word = before[k:].lower()
    if word in _MINE_AFTER:
        return True
    return word == "s" and k >= 2 and before[k - 1] == "'" and _is_word_char(before[k - 2])


def _compound(text: str, at: int) -> bool:
    """Whether the ``I`` at ``at`` ends a compound subject (``My sister and I``)."""
    before = text[:at]
    head = before.rstrip()
    if head == before:
        return False
    for word in _CONJUNCTIONS:
        if head.endswith(word) and len(head) > len(word) and head[-len(word) - 1].isspace():
            lead_text = head[: -len(word)]
            break
    else:
        return False
    cut = max(lead_text.rfind(mark) for mark in _CLAUSE_MARKS)
    lead = lead_text[cut + 1 :].split()
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


def _unbracketed(text: str) -> str:
    """``text`` with each ``[...]`` (an annotated date) blanked."""
    kept, pos = [], 0
    while (opening := text.find("[", pos)) >= 0 and (closing := text.find("]", opening)) >= 0:
        kept.append(text[pos:opening] + " ")
        pos = closing + 1
    return "".join(kept) + text[pos:]


def _other_referent(prefix: str, aliases: frozenset[str]) -> bool:
    """Whether the sentence so far names someone a pronoun could be mistaken for."""
    unbracketed = _unbracketed(prefix)
    words = [unbracketed[start:end] for start, end in word_spans(unbracketed)]
    for index, word in enumerate(words):
        low = fold_apostrophes(word).lower()
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


def _possessive(s: _Sentence, m: _Mention, pronoun: bool) -> str:
    """``my`` -> ``Priya's`` / ``their``; ``mine`` -> ``Priya's`` / ``theirs``."""
    word = m.written.lower()
    if word == "mine" and not _mine_is_owned(s.text, m.start):
        return m.written
    if pronoun:
        return "their" if word == "my" else "theirs"
    return s.name + "'s"


def _object(m: _Mention, pronoun: bool, name: str) -> str:
    """``me`` -> ``Priya`` / ``them``; ``myself`` -> ``Priya`` / ``themselves``."""
    if not pronoun:
        return name
    return "themselves" if m.written.lower() == "myself" else "them"


def _introduction(s: _Sentence, end: int) -> str | None:
    """The introduced full name when ``I'm`` / ``I am`` at ``end`` introduces the speaker."""
    name = _name_at(s.text, end)
    if name is None or name.split()[0] != s.name.split()[0]:
        return None
    return name


def _subject(s: _Sentence, m: _Mention, pronoun: bool, inverted: bool) -> str:
    """Resolve a subject ``I`` / ``I'm`` / ``I've`` / ``I'll`` / ``I'd`` and its verb."""
    text, tail = s.text, m.tail
    verb = _word_after(text, m.end)
    if tail in ("", "m") and (tail == "m" or (verb and text[verb[0] : verb[1]].lower() == "am")):
        intro_end = verb[1] if not tail and verb else m.end
        if _introduction(s, intro_end) is not None:
            s.pos = intro_end
            return "this is"
    subject = "they" if pronoun else s.name
    if tail:
        aux = _TAILS.get(tail, "would")
        nxt = text[verb[0] : verb[1]].lower() if verb else ""
        if aux == "would" and (nxt in _HAD_NEXT or nxt.endswith("ed")):
            aux = "had"
        return f"{subject} {_agree(aux, pronoun)}"
    if inverted or _compound(text, m.start):
        return subject
    skipped = 0
    while verb and _is_adverb(text[verb[0] : verb[1]].lower()) and skipped < 2:
        verb = _word_after(text, verb[1])
        skipped += 1
    if verb is None or _pronoun_kind(text[verb[0] : verb[1]]) is not None:
        return subject
    s.pos = verb[1]
    return subject + text[m.end : verb[0]] + _agree(text[verb[0] : verb[1]], pronoun)


def _inverted(s: _Sentence, pronoun: bool) -> bool:
    """Make an auxiliary right before a resolved ``I`` agree (``Am I`` -> ``Is Priya``)."""
    before = "".join(s.pieces)
    gap = len(before.rstrip())
    k = gap
    while k and (_is_word_char(before[k - 1]) or before[k - 1] == "'"):
        k -= 1
    while k < gap and before[k] == "'":
        k += 1
    written = before[k:gap]
    if gap == len(before) or written.lower() not in _INVERTING:
        return False
    aux = _agree(written, pronoun)
    if written[0].isupper():
        aux = aux[0].upper() + aux[1:]
    s.pieces = [before[:k], aux, before[gap:]]
    return True


def _introductions(text: str, mentions: list[_Mention]) -> list[int]:
    """Where each ``I'm`` / ``I am`` among ``mentions`` ends."""
    ends = []
    for m in mentions:
        following = _word_after(text, m.end) if m.written == "I" else None
        if m.written in ("I'm", "I\u2019m"):
            ends.append(m.end)
        elif following is not None and text[following[0] : following[1]] == "am":
            ends.append(following[1])
    return ends


def _aliases(text: str, name: str, mentions: list[_Mention]) -> frozenset[str]:
    """The speaker's name words, plus those of a name they introduce themselves with."""
    words = {name[start:end].lower() for start, end in word_spans(name)}
    probe = _Sentence(text, name, frozenset(words))
    for end in _introductions(text, mentions):
        words.update(w.lower() for w in (_introduction(probe, end) or "").split())
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
    mentions = _mentions(text)
    if not mentions:
        return text
    s = _Sentence(text, name, _aliases(text, name, mentions))
    boundaries = _boundaries(text)
    for m in mentions:
        if m.start < s.pos:
            continue
        s.pieces.append(text[s.pos : m.start])
        s.pos = m.end
        s.enter(m.start, boundaries)
        pronoun = s.pronoun_ok(m.start)
        if m.kind == "poss":
            out = _possessive(s, m, pronoun)
        elif m.kind == "obj":
            out = _object(m, pronoun, name)
        else:
            inverted = not m.tail and _inverted(s, pronoun)
            out = _subject(s, m, pronoun, inverted)
        if out.startswith("this") and not text[s.start : m.start].strip():
            out = "T" + out[1:]
        subject = m.kind not in ("poss", "obj")
        s.mentioned = s.mentioned or (subject and out != m.written)
        s.pieces.append(out)
    s.pieces.append(text[s.pos :])
    return "".join(s.pieces)
