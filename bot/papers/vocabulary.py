"""How many papers use each word (the index's `vocab` table): what tells a rare topic word from a common one."""

from __future__ import annotations

import json
from collections.abc import Iterable

from bot.papers.reading import Reader


def document_frequencies(db: Reader, words: Iterable[str]) -> dict[str, int]:
    """Papers using each of these words; a word no paper uses is left out."""
    sql = "SELECT word, df FROM vocab WHERE word IN (SELECT value FROM json_each(?))"
    return dict(db.execute(sql, [json.dumps(list(words))]).fetchall())
