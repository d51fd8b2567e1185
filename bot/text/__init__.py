"""Text cleanup for paper titles and abstracts: LaTeX/Markdown/HTML → plain text and its emphasis, plus derived names.

The work is split by job: ``cleanup`` (the pipeline, using ``latex``, ``markup``, ``hyphens``, ``urls`` and
``markers``), ``names``, ``headlines`` (with ``sentences``), ``tokens`` and ``words`` (the word pattern and the
lone-surrogate guard); this module re-exports what the rest of the bot calls. ``acronyms`` and ``stopwords`` are
imported from their own modules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from bot.text.tokens import normalize_title, tokenize

# Eager: the submodule `urls` would otherwise shadow the function
from bot.text.urls import code_url, urls
from bot.text.words import valid_text

if TYPE_CHECKING:
    from bot.text.cleanup import to_marked_text, to_plain_text
    from bot.text.headlines import derive_title, headline
    from bot.text.markup import unescape_html
    from bot.text.names import derive_name, name_from_title

# What cleans sources, imported on first use: searching reads clean text and needs none of its many patterns.
_CLEANING = {
    "to_marked_text": "cleanup",
    "to_plain_text": "cleanup",
    "derive_title": "headlines",
    "headline": "headlines",
    "unescape_html": "markup",
    "derive_name": "names",
    "name_from_title": "names",
}

__all__ = [
    "code_url",
    "derive_name",
    "derive_title",
    "headline",
    "name_from_title",
    "normalize_title",
    "to_marked_text",
    "to_plain_text",
    "tokenize",
    "unescape_html",
    "urls",
    "valid_text",
]


def __getattr__(name: str) -> Any:
    """The cleaning functions (see _CLEANING), imported when first asked for."""
    if name in _CLEANING:
        return getattr(importlib.import_module(f"bot.text.{_CLEANING[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
