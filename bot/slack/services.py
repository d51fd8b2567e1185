"""The services every listener works with (papers, state, digests), passed in rather than reached through globals."""

from __future__ import annotations

from dataclasses import dataclass

from bot.digest.service import DigestService
from bot.search.reader import Papers
from bot.state import State


@dataclass(frozen=True)
class Services:
    """The paper index (one connection per thread) and the state database (None in read-only CLI previews)."""

    papers: Papers
    state: State | None = None
    # Daily digest: /icml digest … (bot/slack/digest_commands.py)
    digests: DigestService | None = None
