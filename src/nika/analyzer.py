"""Text analysis for search: any text in, search terms out, the same way for tools and queries.

The pipeline, applied to a tool's definition and to an agent's live context alike:

1. **Normalise.** NFKC (full-width Latin becomes ASCII, compatibility forms fold), then, for
   text that is not ASCII, combining marks are dropped (Thai vowel and tone marks, Arabic
   harakat, Devanagari signs): `\\w` does not match them, and keeping them would cut words in
   two. Terms are case-folded (`casefold`, so `ß` matches `ss`).
2. **Segment by script.** Han, Kana and Hangul runs become overlapping character bigrams, as
   Lucene's CJK analyzer does (a lone character stays a unigram): no dictionary, no model, and
   a query's bigrams meet a description's bigrams whatever the word boundaries. Thai, Lao,
   Khmer and Myanmar, also written without spaces, are bigrammed the same way. Every other
   script splits on Unicode word boundaries; a script change always splits (`查询github状态`
   yields `github`).
3. **Split identifiers.** Every non-alphanumeric character separates (`:`, `/`, `_`, `.`);
   camelCase and acronym boundaries split (`getHTTPResponse` → get, http, response); digits
   stay glued to the letters they follow (`s3`, `ec2`); bare numbers are dropped.
4. **Compounds.** A two-part compound (`to-do`, `ToDo`, `e-mail`, `check-in`) one of whose
   parts is filler or a single letter also yields its parts joined (todo, email, checkin), so
   it meets the spelling without a hyphen; the filler part is dropped like any other
   (`to-do` no longer reads as "do"). Other compounds just split (`real-time` → real, time).
5. **Stop terms.** `STOP_WORDS` holds English function words and chat/instruction filler
   ("please", "help", "how many", "my", "thanks"); `FILLER_PHRASES` holds the same filler in the
   other scripts, reduced to terms by this very pipeline. One-letter Latin terms are dropped.
6. **Stem.** Snowball stemmers from PyStemmer (the C build of the Snowball project's
   algorithms), chosen by script: English for Latin, Arabic, Russian for Cyrillic, Greek,
   Hindi for Devanagari. Measured in `bench/router_bench.py` (same stems): PyStemmer costs
   0.1-0.5 µs per token, the pure-Python `snowballstemmer` 30-70 µs, over a hundred times
   more; stems are also memoised per process (~40 ns per token), and so are analysed words.

7. **Subwords** (`subwords`, a separate, low-weight field in the router): the character
   bigrams of each term in a spaced script other than Latin. Arabic and Hebrew build words
   from a root with infixes and prefixes a light stemmer cannot undo (the imperative حوّل
   "convert" and the noun تحويل "conversion" share no stem, but share the bigram حو),
   and no Snowball stemmer exists for most of the other scripts: bigrams let such a request
   meet its tool through a shared piece of a word rather than fail open. Latin words get
   none: Snowball covers their morphology (measured in `bench/router_bench.py`: a
   four-letter-prefix subword field for Latin words lowered all-gold recall on the dev split).

Deterministic: the output depends only on the text (no locale, no hash order).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Final

import Stemmer

# Han, Kana, Hangul (syllables and jamo), CJK compatibility forms, the iteration mark 々.
_CJK: Final = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3005-\u3007\u3040-\u30ff\u3100-\u312f\u3130-\u318f"
    "\u31a0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff"
    "\U00020000-\U0003134f"
)
# Scripts of South-East Asia written without spaces between words: Thai, Lao, Myanmar, Khmer.
_UNSPACED: Final = "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"
_WORD: Final = rf"[^\W_{_CJK}{_UNSPACED}]"
# A hyphen joins a compound only before a letter: `value-123` is a word and a number.
_RUN_RE: Final = re.compile(
    rf"[{_CJK}]+|[{_UNSPACED}]+|{_WORD}+(?:[-\u2010](?=[^\W\d_]){_WORD}+)*"
)
_ASCII_RUN_RE: Final = re.compile(r"[A-Za-z0-9]+(?:-(?=[A-Za-z])[A-Za-z0-9]+)*")
"""`_RUN_RE` restricted to ASCII text, which needs no script alternatives (the common case)."""
_BIGRAMMED_RE: Final = re.compile(rf"[{_CJK}{_UNSPACED}]")
_HYPHEN_RE: Final = re.compile("[-\u2010]")
# camelCase splitting inside one word: `[^\W\d_A-Z]` is "a letter that is not ASCII
# upper-case". Alternatives, in order: an acronym before a capitalised word (HTTPServer ->
# HTTP), a word with at most one leading capital, an acronym. Digits stay glued to the letters
# they follow; bare numbers match nothing.
_PART_RE: Final = re.compile(
    r"[A-Z]+[0-9]*(?=[A-Z][^\W\d_A-Z])|[A-Z]?[^\W\d_A-Z]+[0-9]*|[A-Z]+[0-9]*"
)

STOP_WORDS: Final = frozenset(
    (
        "a", "about", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been",
        "being", "but", "by", "can", "could", "did", "do", "does", "doing", "done", "for", "from",
        "get", "got", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his",
        "how", "i", "if", "in", "into", "is", "it", "its", "just", "kindly", "let", "lets", "like",
        "many", "may", "me", "might", "more", "most", "much", "must", "my", "myself", "need",
        "needs", "no", "not", "now", "of", "off", "ok", "okay", "on", "once", "only", "or", "our",
        "ours", "out", "over", "please", "pls", "plz", "really", "shall", "she", "should", "so",
        "some", "such", "than", "that", "the", "their", "theirs", "them", "then", "there", "these",
        "they", "this", "those", "to", "too", "us", "very", "want", "wanted", "wants", "was", "we",
        "were", "what", "whats", "when", "where", "which", "while", "who", "whom", "whose", "why",
        "will", "with", "would", "yes", "you", "your", "yours", "hi", "hello", "hey", "heya",
        "hiya", "thanks", "thank", "thx", "ty", "cheers", "bye", "goodbye", "great", "cool",
        "awesome", "nice", "sure", "alright", "help", "helps", "assist", "someone", "something",
        "anything", "thing", "things", "way", "ll", "ve", "re", "able", "tell", "know", "think",
        "give"
    )
)  # fmt: skip
"""English function words and chat/instruction filler: they name no tool. Dropped from
queries and documents alike, so a tool described as "Help me count how many tickets" no longer
matches every chatty request."""

FILLER_PHRASES: Final = (
    # Chinese: please, help me, a bit, can/could, I want, how, what, thanks, hello, question
    "请 请问 帮我 帮忙 一下 可以 能否 我想 我要 怎么 什么 谢谢 你好 麻烦 吗 呢 吧 的 了 是 我 给",
    # Japanese: please, thanks, hello, want to, can you, I
    "ください お願い します ありがとう こんにちは したい できます 教えて 私",
    # Korean: please, thanks, hello, want, can you, me
    "주세요 해주세요 감사합니다 고마워 안녕하세요 싶어요 할 수 있나요 저 제 좀",
    # Thai: help, a bit, polite particle, thanks, hello, want (no two-letter filler: cut out
    # of an unspaced run it would maim longer words)
    "ช่วย หน่อย ครับ ขอบคุณ สวัสดี ต้องการ อยาก",
    # Arabic: please, thanks, hello, I want, help me, can you, for me, question particle
    "من فضلك لو سمحت شكرا مرحبا أريد اريد ساعدني هل يمكنك ممكن لي"
    " في على إلى الى عن مع هذا هذه التي الذي ما",
)
"""Chat filler in other scripts, as written; `_fillers` turns it into stop terms with this
module's own pipeline (normalised, stemmed), so the two can never drift apart."""

_STEMMERS: Final = {
    "latin": "english",
    "arabic": "arabic",
    "cyrillic": "russian",
    "greek": "greek",
    "devanagari": "hindi",
}
_SCRIPT_OF: Final = (
    ("\u0370", "\u03ff", "greek"),
    ("\u0400", "\u04ff", "cyrillic"),
    ("\u0600", "\u06ff", "arabic"),
    ("\u0900", "\u097f", "devanagari"),
)


class _Marks(dict[int, int | None]):
    """A `str.translate` table that drops combining marks (categories Mn, Mc, Me) and the
    Arabic tatweel, filled lazily: only characters actually seen are looked up."""

    def __missing__(self, code: int) -> int | None:
        keep = unicodedata.category(chr(code))[0] != "M" and code != 0x0640
        self[code] = value = code if keep else None
        return value


_MARKS: Final = _Marks()
_STEM_CACHE_MAX: Final = 1 << 16
_RUN_CACHE_MAX: Final = 1 << 16
_RUNS: dict[str, tuple[str, ...]] = {}


class _Stems:
    """Snowball stemmers by script, memoised (a stem is a pure function of the word)."""

    def __init__(self) -> None:
        self._stemmers = {s: Stemmer.Stemmer(a) for s, a in _STEMMERS.items()}
        self._cache: dict[str, str] = {}

    def __call__(self, word: str) -> str:
        stem = self._cache.get(word)
        if stem is None:
            if len(self._cache) >= _STEM_CACHE_MAX:
                self._cache.clear()
            script = _script(word)
            stemmer = self._stemmers.get(script) if script else None
            stem = stemmer.stemWord(word) if stemmer is not None else word
            self._cache[word] = stem
        return stem


def _script(word: str) -> str | None:
    """The stemmer script of an alphabetic word (by its first character), None for words
    with digits, which are identifiers (`s3`, `oauth2`) and keep their spelling."""
    if not word.isalpha():
        return None
    first = word[0]
    if first < "\u0250":
        return "latin"
    for low, high, script in _SCRIPT_OF:
        if low <= first <= high:
            return script
    return None


_stem: Final = _Stems()


def _bigrams(run: str) -> Iterator[str]:
    if len(run) == 1:
        yield run
    else:
        for i in range(len(run) - 1):
            yield run[i : i + 2]


def _words(run: str) -> list[str]:
    """The case-folded parts of one spaced-script run (identifier and compound splitting)."""
    if run.islower() and run.isalpha():  # the common case: one plain word
        return [run.casefold()]
    if "-" in run or "\u2010" in run:
        pieces = _HYPHEN_RE.split(run)
        parts = [p.casefold() for piece in pieces for p in _PART_RE.findall(piece)]
    else:
        pieces = parts = [p.casefold() for p in _PART_RE.findall(run)]
    # `to-do`, `ToDo`, `e-mail`, `check-in`: a part that filler would drop leaves the compound
    # meaningless, so the parts are also kept joined.
    if (
        len(pieces) == 2
        and all(p.isalpha() for p in pieces)
        and any(len(p) < 2 or p.casefold() in STOP_WORDS for p in pieces)
    ):
        parts = [*parts, "".join(pieces).casefold()]
    return parts


def _run_terms(run: str) -> list[str]:
    if run.isascii() and run.isalpha() and run.islower():  # one plain English word
        if len(run) < 2 or run in STOP_WORDS:
            return []
        term = _stem(run)
        return [] if term in _STOP_TERMS else [term]
    if _BIGRAMMED_RE.match(run):
        return [
            term
            for segment in _FILLER_RE.split(run)
            if segment
            for term in _bigrams(segment)
            if term not in _STOP_TERMS
        ]
    out = []
    for word in _words(run):
        if len(word) < 2 or word in STOP_WORDS:
            continue
        term = _stem(word)
        if term not in _STOP_TERMS:
            out.append(term)
    return out


def _runs(text: str) -> list[str]:
    """The runs of `text`: maximal spans of one script's word characters (hyphenated
    compounds kept whole), after normalisation."""
    if text.isascii():
        return _ASCII_RUN_RE.findall(text)
    return _RUN_RE.findall(unicodedata.normalize("NFKC", text).translate(_MARKS))


def _analysed(run: str) -> tuple[str, ...]:
    """The terms of one run, memoised per process: tool observations repeat their words
    (log levels, JSON keys) turn after turn, and so do prompts."""
    got = _RUNS.get(run)
    if got is None:
        if len(_RUNS) >= _RUN_CACHE_MAX:
            _RUNS.clear()
        got = _RUNS[run] = tuple(_run_terms(run))
    return got


def tokenize(text: str) -> list[str]:
    """The search terms of `text`, in order, repeats kept (see the module docstring)."""
    out: list[str] = []
    for run in _runs(text):
        if not run.isdigit():
            out.extend(_analysed(run))
    return out


def terms(text: str) -> set[str]:
    """The distinct terms of `text`: `set(tokenize(text))`, cheaper on long, repetitive texts
    such as tool observations (each distinct run is analysed once)."""
    found: set[str] = set()
    cached = _RUNS.get
    for run in set(_runs(text)):
        got = cached(run)
        if got is None:
            if run.isdigit():  # bare numbers (ids, sizes, line numbers) yield nothing
                continue
            got = _analysed(run)
        found.update(got)
    return found


_IDENT_RE: Final = re.compile(r"[^\W_]+")


def words(text: str, *, fold: bool = True) -> list[str]:
    """The words of `text` as written, case-folded unless `fold` is false: identifiers split
    (camelCase, snake_case, paths), numbers and filler kept, nothing stemmed. For matching a
    tool's name as a phrase (`Search_Car_Rentals` and "the (Search Car Rentals) endpoint" both
    read search car rentals), where stems and dropped filler would make unrelated phrases
    meet."""
    out: list[str] = []
    for run in _IDENT_RE.findall(text if text.isascii() else unicodedata.normalize("NFKC", text)):
        if run.islower() and run.isalpha():  # the common case: one plain word
            out.append(run)
        elif fold:
            out.extend(part.casefold() for part in (_PART_RE.findall(run) or (run,)))
        else:
            out.extend(_PART_RE.findall(run) or (run,))
    return out


SUBWORD_MARK: Final = "#"
"""Prefixes subword terms: the analyzer's terms are word characters, so a subword term can
never equal a term."""


def subwords(terms: Iterable[str]) -> list[str]:
    """The subword terms of analysed `terms`, in order (see the module docstring, step 7):
    `#` + each character bigram of a term written in a spaced script other than Latin (a
    one-character term is its own unigram). Other terms (Latin, digits, the bigrams of
    CJK and Thai) yield none."""
    out: list[str] = []
    for term in terms:
        if term[0] < "\u0370" or not term.isalpha() or _BIGRAMMED_RE.match(term):
            continue
        out.extend(SUBWORD_MARK + gram for gram in _bigrams(term))
    return out


def _fillers() -> tuple[re.Pattern[str], frozenset[str]]:
    """Filler in unspaced scripts is cut out of a run before bigramming (so it leaves no
    bigram straddling its edges); a one-character filler only when it stands alone. Filler in
    spaced scripts becomes stop terms, stemmed as any word is."""
    cut: set[str] = set()
    alone: set[str] = set()
    for run in _runs(" ".join(FILLER_PHRASES)):
        if _BIGRAMMED_RE.match(run):
            (cut if len(run) > 1 else alone).add(run)
        else:
            alone.update(_stem(w) for w in _words(run))
    # Longest first: the alternation must prefer `해주세요` to `주세요`.
    pattern = "|".join(map(re.escape, sorted(cut, key=lambda f: (-len(f), f))))
    return re.compile(pattern), frozenset(alone)


_FILLER_RE, _STOP_TERMS = _fillers()
