"""BibTeX entries for papers: OpenReview's own entry when the index has one, else a correct @inproceedings.

Keys are stable (`smith2026toksuite`: first author's surname, year, first significant title word), unique within
one export, and LaTeX's special characters are escaped so that BibTeX and LaTeX print the text the index holds
(ligatures such as `--` are left to mean what they mean in LaTeX, as the sources that wrote them meant).
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from bot.team.links import web_url
from bot.text.words import WORD_RE

# Letters NFKD does not take apart into an ASCII letter and an accent.
_FOLD = str.maketrans(
    {"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "ı": "i", "ħ": "h", "Ħ": "H"}
    | {"æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ß": "ss", "þ": "th", "Þ": "TH"}
)
# Words a key skips to reach the one that says what the paper is (Google Scholar's keys do the same).
_KEY_STOPWORDS_TEXT = (
    "a an the of on in for to and or with without via from by at as is are be do does can we our what when how why "
    "which who your you toward towards into onto over under not no its it this that these those than beyond through "
    "about all"
)
_KEY_STOPWORDS = frozenset(_KEY_STOPWORDS_TEXT.split())
_NAME_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "v"})

# LaTeX's special characters as text-mode commands; braces get their own rule (BibTeX counts even escaped ones).
_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_EDGES = re.compile(r"(\W*)(.*?)(\W*)", re.DOTALL)  # a word's leading and trailing punctuation stay unbraced
_SPECIAL = re.compile(r"[\\&%$#_~^{}]")
_OPENREVIEW_HEAD = re.compile(r"\A\s*@\s*(?P<type>[A-Za-z]+)\s*\{\s*(?P<key>[^\s,{}\"#%'()=]+)\s*,")

# Proceedings names by conference: (template, year of the 0th edition) so the ordinal follows from the year.
_PROCEEDINGS: dict[str, tuple[str, int]] = {
    "icml": ("Proceedings of the {nth} International Conference on Machine Learning", 1983),
    "iclr": ("The {nth} International Conference on Learning Representations", 2012),
    "neurips": ("Advances in Neural Information Processing Systems", 1987),
    "nips": ("Advances in Neural Information Processing Systems", 1987),
}


def fold(text: str) -> str:
    """`text` in ASCII letters and digits, accents dropped (Łukasz → Lukasz, José → Jose), for keys."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return "".join(c for c in decomposed if c.isascii())


def _balanced(text: str) -> bool:
    depth = 0
    for c in text:
        depth += {"{": 1, "}": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0


def escape(text: str, balanced: bool | None = None) -> str:
    """Plain text as BibTeX field text: LaTeX specials escaped, non-ASCII kept as UTF-8, braces always balanced."""
    # BibTeX counts even an escaped brace, so \{ \} serve only when the braces pair up (in `text`, or in the longer
    # text the caller judged); otherwise \textbraceleft{} and \textbraceright{}, which leave nothing unpaired.
    pairs = _balanced(text) if balanced is None else balanced
    braces = {"{": r"\{", "}": r"\}"} if pairs else {"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}
    return _SPECIAL.sub(lambda m: braces.get(m[0]) or _SPECIALS[m[0]], text)


def _needs_protection(word: str) -> bool:
    # BibTeX styles lowercase titles: a capital after a word's first letter (TokSuite, LLMs, GPT-4, vLLM) must stay.
    letters = [c for c in word if c.isalpha()]
    return any(c.isupper() for c in letters[1:])


def title_field(title: str) -> str:
    """A title escaped, with acronyms and CamelCase words in braces so bibliography styles keep their capitals."""
    pairs = _balanced(title)
    fields = []
    for word in title.split():
        edges = _EDGES.fullmatch(word)
        lead, core, tail = edges.groups() if edges else ("", word, "")
        if _needs_protection(core):
            fields.append(escape(lead, pairs) + "{" + escape(core, pairs) + "}" + escape(tail, pairs))
        else:
            fields.append(escape(word, pairs))
    return " ".join(fields)


def name_field(name: str) -> str:
    """One author for the `author` field: escaped, and braced whole when a comma or an "and" would split it."""
    name = " ".join(name.split())
    escaped = escape(name)
    if "," in name or re.search(r"(?i)(?:^|\s)and(?:\s|$)", name):
        return "{" + escaped + "}"
    return escaped


def surname(name: str) -> str:
    """The family name of "First Last" (or "Last, First"), without Jr./III, as the key's first part."""
    if "," in name:
        return name.split(",", 1)[0].strip()
    words = [w for w in name.split() if w.strip(".").lower() not in _NAME_SUFFIXES] or name.split()
    return words[-1] if words else ""


def base_key(paper: Mapping[str, Any]) -> str:
    """The key before de-duplication: surname, year and first significant title word, ASCII lowercase."""
    authors = paper.get("authors") or []
    who = re.sub(r"[^a-z0-9]", "", fold(surname(str(authors[0]))).lower()) if authors else ""
    words = WORD_RE.findall(fold(str(paper.get("title") or "")).lower())
    what = next((w for w in words if w not in _KEY_STOPWORDS and not w.isdigit()), "")
    year = str(paper.get("year") or "")
    return f"{who or 'anon'}{year}{what}"


def openreview_entry(paper: Mapping[str, Any]) -> tuple[str, str] | None:
    """(key, entry) from the index's `bibtex` field when it holds one well-formed entry; None otherwise."""
    text = str(paper.get("bibtex") or "").strip()
    head = _OPENREVIEW_HEAD.match(text)
    if not head or not text.endswith("}") or not _balanced(text) or text.count("@") != 1:
        return None
    return head["key"], text


def _rekey(text: str, key: str) -> str:
    def swap(head: re.Match[str]) -> str:
        start, end = head.start("key") - head.start(), head.end("key") - head.start()
        return head[0][:start] + key + head[0][end:]

    return _OPENREVIEW_HEAD.sub(swap, text, count=1)


def unique_keys(papers: Sequence[Mapping[str, Any]]) -> list[str]:
    """One key per paper, in order: clashes get a, b, … suffixes in paper-id order, so a rerun gives the same keys."""
    wanted = []
    for paper in papers:
        found = openreview_entry(paper)
        wanted.append(found[0] if found else base_key(paper))
    holders: dict[str, list[int]] = {}
    for i, key in enumerate(wanted):
        holders.setdefault(key, []).append(i)
    keys = list(wanted)
    taken = set(wanted)
    for key, indexes in holders.items():
        suffixes = _suffixes()
        for i in sorted(indexes, key=lambda i: (str(papers[i].get("id")), i))[1:]:
            candidate = key + next(suffixes)
            while candidate in taken:
                candidate = key + next(suffixes)
            taken.add(candidate)
            keys[i] = candidate
    return keys


def _suffixes() -> Iterator[str]:
    """a, b, …, z, aa, ab, …"""
    n = 0
    while True:
        n += 1
        word, rest = "", n
        while rest:
            rest, digit = divmod(rest - 1, 26)
            word = string.ascii_lowercase[digit] + word
        yield word


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def booktitle(paper: Mapping[str, Any]) -> str | None:
    """The proceedings a paper appears in (ICML 2026 → Proceedings of the 43rd …); "{conference} {year}" otherwise."""
    conference = str(paper.get("conference") or "").strip()
    year = paper.get("year")
    if not conference:
        return None
    plain = f"{conference} {year}" if year else conference
    if paper.get("track") == "workshop":
        session = str(paper.get("session") or "").strip()
        return f"{session} at {plain}" if session else f"{plain} Workshops"
    known = _PROCEEDINGS.get(re.sub(r"[^a-z]", "", conference.lower()))
    if known is None or not isinstance(year, int) or year <= known[1]:
        return plain
    return known[0].format(nth=_ordinal(year - known[1]))


def entry(paper: Mapping[str, Any], key: str) -> str:
    """One paper's entry under `key`: OpenReview's own (re-keyed) when present, else one written from the fields."""
    found = openreview_entry(paper)
    if found:
        return _rekey(found[1], key)
    proceedings = booktitle(paper)
    fields: list[tuple[str, str]] = [("title", title_field(str(paper.get("title") or "")))]
    authors = [str(a) for a in paper.get("authors") or [] if str(a).strip()]
    if authors:
        fields.append(("author", " and ".join(name_field(a) for a in authors)))
    if proceedings:
        fields.append(("booktitle", escape(proceedings)))
    if paper.get("year"):
        fields.append(("year", str(paper["year"])))
    url = web_url(paper.get("url")) or web_url(paper.get("pdf_url"))
    if url:
        fields.append(("url", url))
    kind = "inproceedings" if proceedings else "misc"
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{kind}{{{key},\n{body}\n}}"


def bibliography(papers: Sequence[Mapping[str, Any]]) -> str:
    """A .bib file for these papers, in their order, keys unique within it."""
    return "".join(entry(paper, key) + "\n\n" for paper, key in zip(papers, unique_keys(papers), strict=True))
