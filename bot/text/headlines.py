"""Titles and one-line headlines derived from an abstract, for papers whose source has no title."""

from __future__ import annotations

import re

from bot.text.cleanup import to_plain_text
from bot.text.names import name_from_claim
from bot.text.sentences import claims, contribution, split_sentences
from bot.text.words import word_set

_TITLE_MAX = 90
_HEADLINE_MAX = 200
# A headline comes from the first sentences: longer text is read this far (as indexing caps it)
SCANNED_CHARS = 20_000
# Openers that frame a sentence rather than say what the paper does; dropped from titles and headlines.
_LEADING_FRAME_RE = re.compile(
    r"^(?:(?:In|Within) (?:this|the present|our) (?:paper|work|study|article|note),?\s*|"
    r"To (?:this end|address (?:this|these)(?: [\w-]+){0,3}|bridge this gap|fill this gap|tackle (?:this|these)"
    r"(?: [\w-]+){0,2}|overcome (?:this|these)(?: [\w-]+){0,2}|solve (?:this|these)(?: [\w-]+){0,2}),\s*|"
    r"(?:Here|Therefore|Thus|Hence|Instead|Consequently|Motivated by (?:this|these)(?: [\w-]+){0,3}|"
    r"Building on (?:this|these)(?: [\w-]+){0,3}|Based on (?:this|these)(?: [\w-]+){0,3}|First|Second|Third|"
    r"Finally|Specifically|In response|In contrast|Accordingly|To this end),\s*)+"
)
_TRAILING_CLAUSE_RE = re.compile(r"[,;:]?\s+(?:which|that|and|thereby|while|whereby)\s*$")
_WHICH_VERB_RE = re.compile(
    r"^(?:which|that)\s+(?:is|are)\s+(?=(?:a|an|the)\b)|^(?:which|that)\s+(?:([a-z]+ly)\s+)?([a-z]+)\b"
)


def _shorten(s: str, limit: int) -> str:
    """Cut at a word boundary and add an ellipsis when longer than limit."""
    s = s.strip()
    if len(s) <= limit:
        return s
    cut = s[: limit - 1]
    sp = cut.rfind(" ")
    if sp > limit // 2:
        cut = cut[:sp]
    cut = cut.rstrip(" ,;:–—-(")
    return cut + "…"


def _gerund(verb: str) -> str:
    """``replaces`` → ``replacing``; crude but right for the usual "X, which <verb>s ..." case."""
    v = verb
    if v.endswith("ies") and len(v) > 4:
        v = v[:-3] + "y"
    elif v.endswith(("sses", "shes", "ches", "xes", "zes")):
        v = v[:-2]
    elif v.endswith("s") and not v.endswith("ss"):
        v = v[:-1]
    if v.endswith("ie"):
        return v[:-2] + "ying"
    if v.endswith("e") and not v.endswith(("ee", "ye", "oe")):
        return v[:-1] + "ing"
    vowels = "aeiou"
    if 2 < len(v) <= 4 and v[-1] not in vowels + "wxy" and v[-2] in vowels and v[-3] not in vowels:
        return v + v[-1] + "ing"  # run → running, map → mapping
    return v + "ing"


def _cap(s: str) -> str:
    """Capitalise the first letter only (``str.capitalize`` would lowercase acronyms and names)."""
    return s[:1].upper() + s[1:] if s else s


_LEAD_ADVERB_RE = re.compile(r"^(?:here|first|also)\s+")
_AUXILIARIES = word_set("is are was were be has have had can could may might will would shall should must does do")
_LEAD_TO_RE = re.compile(r"^to\s+([a-z]+)\b")
_LEAD_THAT_RE = re.compile(r"^(?:that|how)\s+")
_NOVEL_RE = re.compile(r"^(an?|An?)\s+(?:novel|new)\s+(?!and\b|or\b)")
_AFTER_NAME_RE = re.compile(r"^\s*(?:\([^()]*\))?\s*(?:,|:|—|–|-)?\s*")


def _describe(rest: str, name: str | None, long_form: str | None) -> str:
    """Turn the text after a contribution verb into a noun phrase describing the paper's contribution."""
    phrase = _LEAD_ADVERB_RE.sub("", rest.strip().rstrip(".").strip())
    to = _LEAD_TO_RE.match(phrase)
    if to:  # "we propose to bridge X" → "Bridging X"
        phrase = _gerund(to.group(1)) + phrase[to.end() :]
    if name:
        if long_form:
            return _drop_novel(long_form.rsplit(" as ", 1)[-1])
        bare = phrase[4:] if phrase.startswith("the ") else phrase
        if bare.startswith(name):
            phrase = _AFTER_NAME_RE.sub("", bare[len(name) :], count=1)
            w = _WHICH_VERB_RE.match(phrase)
            if w:
                adverb, verb = w.group(1), w.group(2)
                # "which is designed to ..." → "Designed to ..."
                if not verb or verb in _AUXILIARIES:
                    phrase = phrase[w.end() :].lstrip()
                else:  # "which (adaptively) allocates ..." → "(Adaptively) allocating ..."
                    phrase = (f"{adverb} " if adverb else "") + _gerund(verb) + phrase[w.end() :]
        if f"({name})" in phrase:
            phrase = phrase.replace(f" ({name})", "").replace(f"({name})", "")
    else:
        phrase = _LEAD_THAT_RE.sub("", phrase)
    return _drop_novel(phrase.strip())


def _drop_novel(phrase: str) -> str:
    """``a novel approach`` → ``an approach``: the adjective adds nothing to a title."""
    m = _NOVEL_RE.match(phrase)
    if not m:
        return phrase
    rest = phrase[m.end() :]
    article = "an" if rest[:1].lower() in "aeiou" and rest[:1] else "a"
    if m.group(1)[0].isupper():
        article = article.capitalize()
    return f"{article} {rest}"


_CLAUSE_BREAK_RE = re.compile(
    r"(?:,|;|\s[–—])\s+(?=(?:which|while|where|whereby|thereby|thus|and thus|resulting|leading|allowing|enabling|"
    r"providing|achieving|making|yielding|treating|using|and|but)\b|[a-z]+ing\b)"
)


def _cut_clause(title: str) -> str:
    """Drop a trailing participle/relative clause ("…, allowing …") when that brings the title under the limit."""
    for m in _CLAUSE_BREAK_RE.finditer(title):
        if m.start() < 30:
            continue
        if m.start() <= _TITLE_MAX:
            return title[: m.start()]
        break
    return title


def _fallback_sentence(sentences: tuple[str, ...]) -> str:
    """The first sentence: what an abstract without a contribution clause leads with."""
    return sentences[0] if sentences else ""


def derive_title(abstract: str, name: str | None) -> str:
    """Build a short headline-style title (≤ 90 chars) from the contribution sentence, for papers without titles."""
    text = to_plain_text((abstract or "")[:SCANNED_CHARS])
    if not text.strip():
        return _shorten(name, _TITLE_MAX) if name else "Untitled paper"
    sentences = split_sentences(text)
    phrase = ""
    chosen: tuple[int, str, str] | None = None
    if name:
        for i, sent in enumerate(sentences):
            claim = next((c for c in claims(sent) if c[0] < 3 and name in c[2]), None)
            if claim:
                chosen = (i, claim[1], claim[2])
                break
    if chosen is None:
        chosen = contribution(sentences)
    if chosen is not None:
        rest = chosen[2]
        long_form = None
        if name:
            found, between = name_from_claim(rest)
            if found == name and between:
                long_form = between.strip()
        phrase = _describe(rest, name, long_form)
    if not phrase:
        phrase = _fallback_sentence(sentences).rstrip(".")
    phrase = _LEADING_FRAME_RE.sub("", phrase).strip()
    phrase = _cap(phrase)
    if name and phrase and not phrase.startswith(name):
        title = f"{name}: {phrase}"
    elif name and not phrase:
        title = name
    else:
        title = phrase or name or "Untitled paper"
    if len(title) > _TITLE_MAX:
        title = _cut_clause(title)
    title = _shorten(title, _TITLE_MAX)
    title = _TRAILING_CLAUSE_RE.sub("…", title) if title.endswith("…") else title
    return title.strip() or "Untitled paper"


def headline(abstract: str) -> str:
    """One line (≤ 200 chars) saying what the paper does: its contribution sentence, else its first sentence."""
    text = to_plain_text((abstract or "")[:SCANNED_CHARS])
    if not text.strip():
        return ""
    sentences = split_sentences(text)
    found = contribution(sentences)
    sent = sentences[found[0]] if found else _fallback_sentence(sentences)
    sent = _cap(_LEADING_FRAME_RE.sub("", sent).strip())
    return _shorten(sent.replace("\n", " "), _HEADLINE_MAX)
