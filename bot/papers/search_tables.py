"""What search reads beside the papers table, rebuilt from it after every load: the titles-only full-text table,
word frequencies for typo correction, learned acronyms, the people table, paper names by key, and the b-tree indexes
its filters use."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from bot.text import acronyms
from bot.text.names import name_key
from bot.text.person_names import fold_name

if TYPE_CHECKING:
    import sqlite_utils

FTS_TOKENIZE = "porter unicode61 remove_diacritics 2"  # papers_fts and titles_fts alike: one query fits both
TITLES_FTS = "titles_fts"
NAME_KEYS = "name_keys"


def rebuild(db: sqlite_utils.Database) -> None:
    """Every table and index here, from the papers as they are now (inside the caller's load transaction)."""
    compact_fts(db)
    rebuild_titles(db)
    rebuild_vocab(db)
    rebuild_acronyms(db)
    rebuild_people(db)
    rebuild_name_keys(db)
    ensure_search_indexes(db)


def rebuild_vocab(db: sqlite_utils.Database) -> None:
    """Document frequency of every raw (unstemmed) word in names, titles and abstracts, for typo correction.

    SQLite's own tokenizer counts them (a throwaway unstemmed FTS5 table and its fts5vocab view): ten times faster
    than tokenizing 100,000 abstracts in Python.
    """
    db.execute("DROP TABLE IF EXISTS temp.vocab_words")
    db.execute(
        "CREATE VIRTUAL TABLE temp.vocab_words USING fts5(body, content='', detail=none, "
        "tokenize='unicode61 remove_diacritics 0')"
    )
    db.execute(
        "INSERT INTO temp.vocab_words(rowid, body) "
        "SELECT rowid, coalesce(name, '') || ' ' || title || ' ' || abstract FROM papers"
    )
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab_counts USING fts5vocab(temp, vocab_words, 'row')")
    db.execute("DELETE FROM vocab")
    db.execute("INSERT INTO vocab(word, df) SELECT term, doc FROM temp.vocab_counts")
    db.execute("DROP TABLE temp.vocab_counts")
    db.execute("DROP TABLE temp.vocab_words")


def rebuild_acronyms(db: sqlite_utils.Database) -> None:
    """Acronyms the papers define ("Mixture of Experts (MoE)"), so search can expand MoE and its long form."""
    if not db["acronyms"].exists():
        db.table("acronyms").create({"key": str, "form": str, "long": str, "papers": int}, pk=("key", "long"))
    db.execute("DELETE FROM acronyms")
    rows = db.execute("SELECT title, abstract FROM papers")
    pairs = acronyms.learn(f"{title}. {abstract}" for title, abstract in rows)
    db.table("acronyms").insert_all(
        ({"key": k, "form": f, "long": lf, "papers": n} for k, f, lf, n in pairs), pk=("key", "long")
    )


def rebuild_name_keys(db: sqlite_utils.Database) -> None:
    """Every paper name by its letters-only key (names.name_key: `knapsack-rl` for Knapsack RL), so that finding the
    papers a query word names is one indexed read; without it, a process's first search reads every name (~0.1 s a
    word at 110,000 papers)."""
    db.execute(
        f"CREATE TABLE IF NOT EXISTS {NAME_KEYS} (key TEXT, paper INTEGER, PRIMARY KEY (key, paper)) WITHOUT ROWID"
    )
    db.execute(f"DELETE FROM {NAME_KEYS}")
    rows = db.execute("SELECT rowid, name FROM papers WHERE name IS NOT NULL").fetchall()
    keyed = {(key, rowid) for rowid, name in rows if (key := name_key(name))}
    db.conn.executemany(f"INSERT INTO {NAME_KEYS} (key, paper) VALUES (?, ?)", sorted(keyed))


def rebuild_people(db: sqlite_utils.Database) -> None:
    """Every author once, by folded name (first and last word indexed), with their papers' rowids: search finds a
    person typed in either order, with an initial or a typo, in a few indexed look-ups instead of reading authors.
    (last, first) together: `Y. Wang` reads the 250 Wangs whose first name starts with y, not all 1,600 Wangs."""
    if not db["people"].exists():
        db.table("people").create(
            {"key": str, "name": str, "first": str, "last": str, "papers": int, "rowids": str}, pk="key"
        )
        db.table("people").create_index(["first"])
    db.execute("DROP INDEX IF EXISTS idx_people_last")  # (indexes built before: the pair below covers it)
    db.table("people").create_index(["last", "first"], if_not_exists=True)
    found: dict[str, tuple[str, tuple[str, ...], list[int]]] = {}
    for rowid, authors in db.execute("SELECT rowid, authors FROM papers ORDER BY rowid"):
        for name in json.loads(authors or "[]"):
            words = fold_name(name)
            if len(words) < 2:
                continue
            key = " ".join(words)
            entry = found.get(key)
            if entry is None:
                found[key] = (name, words, [rowid])
                continue
            if entry[2][-1] != rowid:
                entry[2].append(rowid)
            if _cased_words(name) > _cased_words(entry[0]):  # Min Zhang, not the Min zhang or Min ZHANG seen first
                found[key] = (name, entry[1], entry[2])
    db.execute("DELETE FROM people")
    db.conn.executemany(
        "INSERT INTO people(key, name, first, last, papers, rowids) VALUES (?, ?, ?, ?, ?, ?)",
        (
            (key, name, words[0], words[-1], len(rowids), json.dumps(rowids))
            for key, (name, words, rowids) in found.items()
        ),
    )


def _cased_words(name: str) -> int:
    """How many words of a name are written as names usually are: a capital, then no more capitals only (Zhang,
    McDonald, J.; not zhang or ZHANG)."""
    return sum(1 for w in name.split() if w[:1].isupper() and not w[1:].isupper())


def rebuild_titles(db: sqlite_utils.Database) -> None:
    """A full-text index of titles alone (one segment), tokenized like papers_fts: search asks it what titles hold,
    and a title word's postings there are a fraction of that word's postings in whole papers (title queries 3x
    faster at 110,000 papers). An index without it still searches, through a {title} filter on papers_fts."""
    if not db[TITLES_FTS].exists():
        db.execute(
            f"CREATE VIRTUAL TABLE {TITLES_FTS} USING fts5(title, content='papers', content_rowid='rowid', "
            f"tokenize='{FTS_TOKENIZE}')"
        )
    db.execute(f"INSERT INTO {TITLES_FTS}({TITLES_FTS}) VALUES('rebuild')")
    db.execute(f"INSERT INTO {TITLES_FTS}({TITLES_FTS}) VALUES('optimize')")


def compact_fts(db: sqlite_utils.Database) -> None:
    """The full-text index as one segment, not the several a rebuild leaves (7 at 5,863 papers): each query term is
    then one b-tree to read, and searches at 110,000 papers take ~7% less CPU (bench/speed/search.py)."""
    db.execute("INSERT INTO papers_fts(papers_fts) VALUES('optimize')")


def ensure_search_indexes(db: sqlite_utils.Database) -> None:
    """Indexes for search's status: and has:code filters, so they never read whole paper rows, and for pasted links
    (a scan of the links reads every row: 0.2 s at 110,000 papers)."""
    db.table("papers").create_index(["site_url"], if_not_exists=True)
    db.table("papers").create_index(["url"], if_not_exists=True)
    db.table("papers").create_index(["status"], if_not_exists=True)
    db.table("papers").create_index(["code_url"], if_not_exists=True)
    db.table("papers").create_index(["venue", "track"], if_not_exists=True)
