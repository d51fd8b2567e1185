"""BibTeX entries for papers, always written here: a correct @inproceedings (or @misc) from the index's fields.

A list's `bibtex` field (OpenReview's entry, or whatever a list put there) is never copied: it is parsed, and it
lends only its key, booktitle and year, each only when it is plain text (no TeX command, no special character), so
no `\\input`, `\\write18` or `javascript:` link can reach an export. Keys are stable (`smith2026toksuite`: first
author's surname, year, first significant title word), unique within one export, and LaTeX's special characters are
escaped so that BibTeX and LaTeX print the text the index holds (ligatures such as `--` are left to mean what they
mean in LaTeX, as the sources that wrote them meant).
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
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
# a word's leading and trailing punctuation stay unbraced
_EDGES = re.compile(r"(\W*)(.*?)(\W*)", re.DOTALL)
_SPECIAL = re.compile(r"[\\&%$#_~^{}]")
# A list's own entry: `@type{key,` then `name = {value}` / `"value"` / digits, separated by commas, then `}`.
_ENTRY_HEAD = re.compile(r"\s*@\s*([A-Za-z]+)\s*\{\s*([^\s,{}\"#%'()=\\]+)\s*,")
_FIELD_NAME = re.compile(r"\s*([A-Za-z][A-Za-z0-9_-]*)\s*=\s*")
_NUMBER = re.compile(r"\d+")
_ENTRY_TAIL = re.compile(r"\s*(,\s*)?\}\s*\Z")
_COMMA = re.compile(r"\s*,")
# a real entry is well under 2,000 characters; longer text is not read at all
MAX_ENTRY_CHARS = 20_000
_SAFE_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_:.-]{0,79}")  # keys LaTeX's \cite takes as they are
# Text nothing acts on: no TeX command or special, no markup, no control or bidi character (braces are dropped).
_PLAIN_VALUE = re.compile(r"[^\\$%#^_~&@<>|`\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]*")
_YEAR = re.compile(r"\d{4}")

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


@dataclass(frozen=True)
class Borrowed:
    """What an entry the index holds (OpenReview's) may lend ours: its key, booktitle and year, each only if safe."""

    key: str | None = None
    booktitle: str | None = None  # plain text, not yet escaped
    year: str | None = None


def parse_entry(text: str) -> tuple[str, str, dict[str, str]] | None:
    """(type, key, raw field values by lower-case name) of one well-formed entry; None for anything else."""
    if len(text) > MAX_ENTRY_CHARS:
        return None
    head = _ENTRY_HEAD.match(text)
    if head is None:
        return None
    fields: dict[str, str] = {}
    pos = head.end()
    while not _ENTRY_TAIL.match(text, pos):
        name = _FIELD_NAME.match(text, pos)
        if name is None:
            return None
        value, pos = _field_value(text, name.end())
        if value is None or name[1].lower() in fields:
            return None
        fields[name[1].lower()] = value
        comma = _COMMA.match(text, pos)
        if comma is None and not _ENTRY_TAIL.match(text, pos):
            return None
        pos = comma.end() if comma else pos
    return head[1].lower(), head[2], fields


def _field_value(text: str, pos: int) -> tuple[str | None, int]:
    """A `{…}` (braces paired), `"…"` or number value at `pos`, and where it ends; (None, pos) otherwise."""
    number = _NUMBER.match(text, pos)
    if number:
        return number[0], number.end()
    if pos >= len(text) or text[pos] not in '{"':
        return None, pos  # (macros and # concatenation: not an entry we take anything from)
    close, depth = ("}" if text[pos] == "{" else '"'), 0
    for i in range(pos + 1, len(text)):
        c = text[i]
        if c == close and depth == 0:
            return text[pos + 1 : i], i + 1
        depth += {"{": 1, "}": -1}.get(c, 0)
        if depth < 0:
            return None, pos
    return None, pos


def _plain(value: str) -> str | None:
    """A field value as plain text when it holds no TeX command or special character (braces only protect
    capitals, so they go); None otherwise."""
    text = " ".join(value.replace("{", "").replace("}", "").split())
    return text if text and _PLAIN_VALUE.fullmatch(text) else None


def borrowed(paper: Mapping[str, Any]) -> Borrowed:
    """What the index's own `bibtex` entry for a paper lends the one written here (nothing when it is not one
    well-formed entry)."""
    parsed = parse_entry(str(paper.get("bibtex") or "").strip())
    if parsed is None:
        return Borrowed()
    _, key, fields = parsed
    year = fields.get("year", "").strip()
    return Borrowed(
        key=key if _SAFE_KEY.fullmatch(key) else None,
        booktitle=_plain(fields["booktitle"]) if "booktitle" in fields else None,
        year=year if _YEAR.fullmatch(year) else None,
    )


def unique_keys(papers: Sequence[Mapping[str, Any]]) -> list[str]:
    """One key per paper, in order: clashes get a, b, … suffixes in paper-id order, so a rerun gives the same keys."""
    wanted = [borrowed(paper).key or base_key(paper) for paper in papers]
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
    """One paper's entry under `key`, written from the index's fields (OpenReview's booktitle and year when its
    entry has safe ones)."""
    lent = borrowed(paper)
    proceedings = lent.booktitle or booktitle(paper)
    fields: list[tuple[str, str]] = [("title", title_field(str(paper.get("title") or "")))]
    authors = [str(a) for a in paper.get("authors") or [] if str(a).strip()]
    if authors:
        fields.append(("author", " and ".join(name_field(a) for a in authors)))
    if proceedings:
        fields.append(("booktitle", escape(proceedings)))
    year = str(paper.get("year") or "") or lent.year
    if year:
        fields.append(("year", escape(year)))
    url = web_url(paper.get("url")) or web_url(paper.get("pdf_url"))
    if url:
        fields.append(("url", url))
    kind = "inproceedings" if proceedings else "misc"
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{kind}{{{key},\n{body}\n}}"


def bibliography(papers: Sequence[Mapping[str, Any]]) -> str:
    """A .bib file for these papers, in their order, keys unique within it."""
    return "".join(entry(paper, key) + "\n\n" for paper, key in zip(papers, unique_keys(papers), strict=True))
