"""Links fit for a file someone will click: http(s) only, characters that break BibTeX or Markdown encoded."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

# Kept as they are: RFC 3986's reserved characters, unreserved ones and "%" (already encoded). Encoded: spaces,
# quotes, <>, {}, \, ^, `, | and parentheses, which end a Markdown link or unbalance a BibTeX field.
_SAFE = ":/?#[]@!$&'*+,;=%~-._"


def web_url(value: object) -> str | None:
    """`value` as an http(s) URL safe in BibTeX, CSV and Markdown, or None (javascript:, empty, not a URL)."""
    if not isinstance(value, str):
        return None
    url = value.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return quote(url, safe=_SAFE)
