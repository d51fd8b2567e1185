"""Papers the query names outright (an id, an OpenReview id, a paper name, a whole title): they are pinned first,
whatever the ranking of the words would say, but still obey the query's filters and exclusions."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from bot.papers import fts, references
from bot.papers.fulltext import title_matches
from bot.papers.matching import columns_of
from bot.papers.reading import Reader
from bot.search import query as ql
from bot.search.cache import IndexCache
from bot.search.framing import WANTED
from bot.search.matching import coined, counter, found_alt, norm
from bot.search.plan import QueryPlanner
from bot.search.retrieval_plan import RetrievalPlan
from bot.text.names import name_key
from bot.text.stopwords import FUNCTION_WORDS
from bot.text.tokens import normalize_title

MAX_PINNED = 20
NAME_AMONG_WORDS = 4  # most query terms among which one paper's name pins that paper
# Fewest words a query must have to be read as a whole title (two are a topic as often)
TITLE_WORDS = 3
# Longest words of a title that find it (with a title's words, few papers hold them all)
TITLE_CLUES = 4
# most words before the topic tried as a title's first words (a request may take "From", "On the")
TITLE_LEAD = 6
# titles holding them, shortest first, read to find the one the query is whole
TITLE_CANDIDATES = 50
_OPENREVIEW_ID = re.compile(r"openreview\.net/\w+\?(?:\S*&)?id=(?P<id>[\w-]+)", re.IGNORECASE)
_WORD_START = re.compile(r"(?<!\S)\S")
# words beside a name that only say which paper ("the ... method")
_SAYS_WHICH = FUNCTION_WORDS | WANTED


def pinned_papers(
    db: Reader, cache: IndexCache, parsed: ql.ParsedQuery, plan: RetrievalPlan, planner: QueryPlanner
) -> dict[int, str]:
    """Rowids of the papers the query names, with why (`id:…`, `name:…`), in the order they go first."""
    out = linked_papers(db, parsed.links)
    positive = parsed.positive
    if not positive:
        return _obeying_filters(db, plan, out) if out and _narrowed(plan) else out
    if len(positive) == 1 and len(positive[0].text) >= 4:
        ref = positive[0].text.strip()
        rowid = references.rowid_named(db, ref)
        if rowid is not None:
            out[rowid] = f"id:{ref}"

    def named(text: str, most: int, among: bool = False) -> list[int]:
        """Papers called `text`: typed as the name is written (HiDe, REAL), or a name that is no common word
        (a paper called "Learning" must not take over the query "learning"). `among` other words, a name in
        capitals that papers use as a term is that term (`PAC Bayesian bounds`, not the papers called PAC)."""
        key = name_key(text)
        entries = cache.named(db, key)
        if not entries or len(entries) > most:
            return []
        exact = [rowid for rowid, name in entries if name == text and coined(name) and not (among and name.isupper())]
        rare = not key.isalpha() or planner.df([key])[key] <= max(5, 3 * len(entries))
        return [rowid for rowid, _ in entries] if rare else exact

    typed = " ".join(t.text for t in positive)
    titled = _titled(db, cache, parsed, typed)
    for rowid, why in titled.items():
        out.setdefault(rowid, why)
    for text in dict.fromkeys((typed, plan.free_text)):
        for rowid in named(text, MAX_PINNED):
            out.setdefault(rowid, f"name:{text}")
    # a title's words are not names among words
    if 1 < len(positive) <= NAME_AMONG_WORDS and not titled:
        # One distinctive name among other words ("TokSuite tokenizer"): that paper first. (A longer query is a
        # title or a sentence: "Dynamic Fractal Mamba: ..." is not about the paper called FRACTAL.)
        for term in positive:
            if len(name_key(term.text)) >= 3:
                # ("the FOCUS method": request words beside a name leave it alone)
                among = any(t is not term and not set(t.words) <= _SAYS_WHICH for t in positive)
                found = named(term.text, 3, among=among)
                for rowid in _about_every_group(db, plan, found) if among else found:
                    out.setdefault(rowid, f"name:{term.text}")
    return _obeying_filters(db, plan, out) if out and _narrowed(plan) else out


def _titled(db: Reader, cache: IndexCache, parsed: ql.ParsedQuery, typed: str) -> dict[int, str]:
    """Papers whose whole title the query is, whatever its punctuation or LaTeX: pasted after a request (`papers
    similar to ...`: labelled as a name typed alone is, so that papers like it are the answer), request words it
    starts or ends with included ("... to From Data to Models", "... A Survey"), or in quotes (`paper "..."`)."""
    positive, text = parsed.positive, parsed.text
    first, last = positive[0].span[0], positive[-1].span[1]
    whole = normalize_title(typed)
    # a title's first words
    starts = [m.start() for m in _WORD_START.finditer(text, 0, first)][-TITLE_LEAD:]
    said = [(text[s:end], s > 0) for s in sorted({0, *starts, first}) for end in (last, len(text))]
    if text.count('"') > 1:  # (a title with quotes in it, quoted: `paper "A "B" C"`)
        said.append((text[text.find('"') + 1 : text.rfind('"')], False))
    labels: dict[str, str] = {}  # a title's words → why
    for title, asked in said + [(t.text, False) for t in positive if t.quoted]:
        key = normalize_title(title)
        if key.count(" ") + 1 >= TITLE_WORDS:
            labels.setdefault(key, f"name:{typed if asked or key == whole else title}")
    clues = " OR ".join(dict.fromkeys(filter(None, map(_clue, labels))))
    if not clues:
        return {}
    # titles alone, when the index has them: fewer postings
    expression = fts.in_columns(("title",), f"({clues})")
    found = title_matches(db, expression, TITLE_CANDIDATES, titles_only=cache.titles_table(db))
    titles = columns_of(db, "title", found)
    out: dict[int, str] = {}
    for rowid, (title,) in sorted(titles.items()):
        why = labels.get(normalize_title(title))
        if why and len(out) < MAX_PINNED:
            out[rowid] = why
    return out


def _clue(key: str) -> str:
    """The longest plain words of a title, ANDed, to find it by: words in other scripts, or from LaTeX and
    compatibility forms (A$^2$SG, A²SG, A2SG), may be tokenized otherwise in the index."""
    words = sorted({w for w in key.split() if w.isascii() and w.isalpha()}, key=lambda w: (-len(w), w))
    return " AND ".join(fts.phrase((w,)) for w in words[:TITLE_CLUES])


def _about_every_group(db: Reader, plan: RetrievalPlan, rowids: list[int]) -> list[int]:
    """Of papers a name among other words names, those whose text holds the other words too: `TokSuite tokenizer`
    is TokSuite, but `lottery ticket` is about lottery tickets, not about LOTTERY, a two-sample test."""
    texts = _texts(db, rowids)
    return [r for r in rowids if r in texts and all(found_alt(g.counters, texts[r][0]) >= 0 for g in plan.groups)]


def _texts(db: Reader, rowids: list[int]) -> dict[int, tuple[bytes, bytes]]:
    """Papers' name, title and abstract as one text, and their authors, as matching.norm gives them."""
    rows = columns_of(db, "name, title, abstract, authors", rowids) if rowids else {}
    return {r: (norm(f"{n or ''} {t} {a}"), norm(au or "")) for r, (n, t, a, au) in rows.items()}


def _narrowed(plan: RetrievalPlan) -> bool:
    """Whether filters, exclusions or author: terms narrow the query (named papers obey them too)."""
    return bool(plan.filtered or plan.negatives or plan.authors or plan.neg_authors)


def linked_papers(db: Reader, links: tuple[str, ...]) -> dict[int, str]:
    """The papers pasted links name: an OpenReview link by its id, any other by the paper's page on the conference
    site, its main link or its code, whatever the case of the host, with or without https://, www., a query or a
    trailing slash."""
    out: dict[int, str] = {}
    for link in links:
        openreview = _OPENREVIEW_ID.search(link)
        if openreview:
            ref = openreview["id"]
            rows = references.rowids_named(db, ref)
        else:
            parts = urlsplit(link if "://" in link else f"https://{link}")
            host = parts.netloc.lower().removeprefix("www.")
            path = parts.path.rstrip("/")
            forms = [f"{scheme}{www}{host}{path}{slash}" for scheme in ("https://", "http://") for www in ("", "www.")
                     for slash in ("", "/")]  # fmt: skip
            rows = references.rowids_linked(db, forms)
        for rowid in rows[:MAX_PINNED]:
            # Every link that found it
            out[rowid] = f"{out[rowid]} {link}" if rowid in out else f"link:{link}"
    return out


def found_links(pinned: dict[int, str]) -> set[str]:
    """The pasted links that found a paper (which passed the filters), read off pinned_papers' labels."""
    return {link for label in pinned.values() if label.startswith("link:") for link in label[5:].split(" ")}


def _obeying_filters(db: Reader, plan: RetrievalPlan, pinned: dict[int, str]) -> dict[int, str]:
    """Named papers still obey filters, exclusions and author: terms."""
    keep = [rowid for rowid in pinned if plan.passes_filters(rowid)]
    texts = _texts(db, keep)
    out = {}
    for rowid in keep:
        body, people = texts[rowid]
        if any(found_alt([counter(a) for a in g.alts], body) >= 0 for g in plan.negatives):
            continue
        if not all(all((" " + w + " ").encode() in people for w in words) for words in plan.author_words):
            continue
        out[rowid] = pinned[rowid]
    return out
