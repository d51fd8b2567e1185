"""Papers the query names outright (an id, an OpenReview id, a paper name): they are pinned first, whatever the
ranking of the words would say, but still obey the query's filters and exclusions."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import sqlite_utils

from bot.search import query as ql
from bot.search.cache import IndexCache
from bot.search.matching import coined, counter, found_alt, name_key, norm
from bot.search.plan import QueryPlanner, RetrievalPlan
from bot.search.questions import WANTED
from bot.search.retrieve import read_columns
from bot.text.stopwords import FUNCTION_WORDS

MAX_PINNED = 20
NAME_AMONG_WORDS = 4  # most query terms among which one paper's name pins that paper
_OPENREVIEW_ID = re.compile(r"openreview\.net/\w+\?(?:\S*&)?id=(?P<id>[\w-]+)", re.IGNORECASE)
_SAYS_WHICH = FUNCTION_WORDS | WANTED  # words beside a name that only say which paper ("the ... method")
_LINK_COLUMNS = ("site_url", "url", "code_url")  # indexed (bot.papers.search_tables.ensure_search_indexes)
_REFERENCE_SQL = (
    "SELECT rowid FROM papers WHERE id = ? UNION ALL "
    "SELECT papers.rowid FROM aliases JOIN papers ON papers.id = aliases.paper_id WHERE alias = ? UNION ALL "
    "SELECT papers.rowid FROM paper_keys JOIN papers ON papers.id = paper_keys.paper_id WHERE key = ?"
)


def pinned_papers(
    db: sqlite_utils.Database, cache: IndexCache, parsed: ql.ParsedQuery, plan: RetrievalPlan, planner: QueryPlanner
) -> dict[int, str]:
    """Rowids of the papers the query names, with why (`id:…`, `name:…`), in the order they go first."""
    out = linked_papers(db, parsed.links)
    positive = parsed.positive
    if not positive:
        return _obeying_filters(db, plan, out) if out and _narrowed(plan) else out
    if len(positive) == 1 and len(positive[0].text) >= 4:
        ref = positive[0].text.strip()
        row = db.execute(_REFERENCE_SQL, [ref.lower(), ref.lower(), f"id:{ref}"]).fetchone()
        if row:
            out[row[0]] = f"id:{ref}"
    names = cache.names(db)

    def named(text: str, most: int, among: bool = False) -> list[int]:
        """Papers called `text`: typed as the name is written (HiDe, REAL), or a name that is no common word
        (a paper called "Learning" must not take over the query "learning"). `among` other words, a name in
        capitals that papers use as a term is that term (`PAC Bayesian bounds`, not the papers called PAC)."""
        key = name_key(text)
        entries = names.get(key, [])
        if not entries or len(entries) > most:
            return []
        exact = [rowid for rowid, name in entries if name == text and coined(name) and not (among and name.isupper())]
        rare = not key.isalpha() or planner.df([key])[key] <= max(5, 3 * len(entries))
        return [rowid for rowid, _ in entries] if rare else exact

    typed = " ".join(t.text for t in positive)
    for text in dict.fromkeys((typed, plan.free_text)):
        for rowid in named(text, MAX_PINNED):
            out.setdefault(rowid, f"name:{text}")
    if 1 < len(positive) <= NAME_AMONG_WORDS:
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


def _about_every_group(db: sqlite_utils.Database, plan: RetrievalPlan, rowids: list[int]) -> list[int]:
    """Of papers a name among other words names, those whose text holds the other words too: `TokSuite tokenizer`
    is TokSuite, but `lottery ticket` is about lottery tickets, not about LOTTERY, a two-sample test."""
    texts = _texts(db, rowids)
    return [r for r in rowids if r in texts and all(found_alt(g.counters, texts[r][0]) >= 0 for g in plan.groups)]


def _texts(db: sqlite_utils.Database, rowids: list[int]) -> dict[int, tuple[bytes, bytes]]:
    """Papers' name, title and abstract as one text, and their authors, as matching.norm gives them."""
    rows = read_columns(db, "name, title, abstract, authors", rowids) if rowids else {}
    return {r: (norm(f"{n or ''} {t} {a}"), norm(au or "")) for r, (n, t, a, au) in rows.items()}


def _narrowed(plan: RetrievalPlan) -> bool:
    """Whether filters, exclusions or author: terms narrow the query (named papers obey them too)."""
    return bool(plan.filtered or plan.negatives or plan.authors or plan.neg_authors)


def linked_papers(db: sqlite_utils.Database, links: tuple[str, ...]) -> dict[int, str]:
    """The papers pasted links name: an OpenReview link by its id, any other by the paper's page on the conference
    site, its main link or its code, whatever the case of the host, with or without https://, www., a query or a
    trailing slash."""
    out: dict[int, str] = {}
    for link in links:
        openreview = _OPENREVIEW_ID.search(link)
        if openreview:
            ref = openreview["id"]
            rows = db.execute(_REFERENCE_SQL, [ref.lower(), ref.lower(), f"id:{ref}"]).fetchall()
        else:
            parts = urlsplit(link if "://" in link else f"https://{link}")
            host = parts.netloc.lower().removeprefix("www.")
            path = parts.path.rstrip("/")
            forms = [f"{scheme}{www}{host}{path}{slash}" for scheme in ("https://", "http://") for www in ("", "www.")
                     for slash in ("", "/")]  # fmt: skip
            marks = ",".join("?" * len(forms))
            rows = db.execute(
                " UNION ".join(f"SELECT rowid FROM papers WHERE {column} IN ({marks})" for column in _LINK_COLUMNS),
                forms * len(_LINK_COLUMNS),
            ).fetchall()
        for (rowid,) in rows[:MAX_PINNED]:
            out[rowid] = f"{out[rowid]} {link}" if rowid in out else f"link:{link}"  # (every link that found it)
    return out


def found_links(pinned: dict[int, str]) -> set[str]:
    """The pasted links that found a paper (which passed the filters), read off pinned_papers' labels."""
    return {link for label in pinned.values() if label.startswith("link:") for link in label[5:].split(" ")}


def _obeying_filters(db: sqlite_utils.Database, plan: RetrievalPlan, pinned: dict[int, str]) -> dict[int, str]:
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
