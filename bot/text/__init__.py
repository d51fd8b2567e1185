"""Text cleanup for paper titles and abstracts: LaTeX/Markdown/HTML → Slack mrkdwn or plain text, plus derived names.

The work is split by job: ``cleanup`` (the pipeline, using ``latex``, ``markup``, ``hyphens``, ``urls`` and
``markers``), ``names``, ``headlines`` (with ``sentences``), ``tokens`` and ``words`` (the word pattern and the
lone-surrogate guard); this module re-exports what the rest of the bot calls. ``acronyms`` and ``stopwords`` are
imported from their own modules.
"""

from __future__ import annotations

from bot.text.cleanup import to_mrkdwn, to_plain_text
from bot.text.headlines import derive_title, headline
from bot.text.markup import unescape_html
from bot.text.names import derive_name, name_from_title
from bot.text.tokens import normalize_title, tokenize
from bot.text.urls import code_url, urls
from bot.text.words import valid_text

__all__ = [
    "code_url",
    "derive_name",
    "derive_title",
    "headline",
    "name_from_title",
    "normalize_title",
    "to_mrkdwn",
    "to_plain_text",
    "tokenize",
    "unescape_html",
    "urls",
    "valid_text",
]
