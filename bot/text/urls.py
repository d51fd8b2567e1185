"""Finding links in raw abstracts (LaTeX, Markdown, bare, scheme-less) and keeping them intact through cleanup."""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import urlsplit

from bot.text.controls import CONTROL_RE
from bot.text.markers import URL_BASE, URL_PLACEHOLDER_RE, drop_private_use
from bot.text.markup import unescape_html

_URL_TRAIL = ".,;:!?)]}'\"*_>’”"
_CODE_HOSTS = ("github.com", "gitlab.com", "huggingface.co", "bitbucket.org", "codeberg.org", "anonymous.4open.science")
_SCHEMELESS = (
    r"(?:www\.|(?:github\.com|gitlab\.com|huggingface\.co|bitbucket\.org|codeberg\.org)/|[\w-]+\.github\.io\b)"
)
_URL_BODY = r"(?:[^\s<>\"{}\\`*]|\\[_%#&~])+"
BARE_URL_RE = re.compile(rf"https?://{_URL_BODY}", re.I)
_SCHEMELESS_URL_RE = re.compile(rf"(?<![\w./@-]){_SCHEMELESS}{_URL_BODY}", re.I)
_SCHEMELESS_HINTS = (
    "www.", "github.com/", "gitlab.com/", "huggingface.co/", "bitbucket.org/", "codeberg.org/", ".github.io",
)  # fmt: skip
_URL_ESC_RE = re.compile(r"\\([_%#&~])")
# from a run of \ at its start only
_TEX_URL_RE = re.compile(r"(?<!\\)\\+(?:url|path)\s*\{([^{}]*)\}")
_TEX_HREF_RE = re.compile(r"(?<!\\)\\+(?:href|hyperlink)\s*\{([^{}]*)\}\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_MD_LINK_RE = re.compile(r"\[([^\[\]\n]{1,300})\]\(\s*(https?://[^\s()]+(?:\([^\s()]*\)[^\s()]*)*)\s*\)")
_ANGLE_URL_RE = re.compile(r"<(https?://[^\s<>]+)>")
# Whitespace too: never in a link
_INVISIBLE_RE = re.compile("[\u00ad\u180e\u200b-\u200d\u2060-\u2064\ufeff\\s]")
# What makes a text read as a link (a title written as one): a scheme, `www.`, a domain with a path, or a lone domain.
_LINKISH_RE = re.compile(r"[a-z][a-z0-9+.-]*://\S+|www\.\S+|(?:[\w-]+\.)+[a-z]{2,}/\S*", re.I)
_DOMAIN_RE = re.compile(r"(?:[\w-]+\.)+[a-z]{2,}\.?", re.I)


def _strip_url(url: str) -> str:
    """Drop trailing punctuation from a URL, keeping a closing bracket that closes one inside the URL."""
    while url and url[-1] in _URL_TRAIL:
        last = url[-1]
        if last == ")" and url.count("(") >= url.count(")"):
            break
        if last == "]" and url.count("[") >= url.count("]"):
            break
        url = url[:-1]
    return url


def _looks_like_url(s: str) -> bool:
    """Whether a link label is itself a URL, so ``label (url)`` would only repeat it."""
    s = s.strip()
    return (
        bool(s) and " " not in s and (s.lower().startswith(("http://", "https://", "www.")) or ("/" in s and "." in s))
    )


class UrlStash:
    """Replaces URLs with single placeholder characters so later passes cannot mangle `_`, `~` or `%` in them."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[str] = []

    def put(self, url: str) -> str:
        """Stash a URL (TeX escapes and trailing punctuation removed); returns its placeholder."""
        url = _strip_url(_URL_ESC_RE.sub(r"\1", url.strip()))
        if not url:
            return ""
        self.items.append(url)
        return chr(URL_BASE + len(self.items) - 1)

    def put_with_tail(self, url: str) -> str:
        """Stash a bare URL; punctuation stripped from its end goes back into the text."""
        stripped = _strip_url(url)
        return self.put(stripped) + url[len(stripped) :]

    def restore(self, text: str) -> str:
        """Put the stashed URLs back in place of their placeholders."""
        if not self.items:
            return text
        return URL_PLACEHOLDER_RE.sub(lambda m: self.items[ord(m.group()) - URL_BASE], text)


def has_url_hint(text: str) -> bool:
    """Cheap pre-check: whether a text may hold a link worth stashing before cleanup."""
    return (
        "://" in text
        or "\\url" in text
        or "www." in text
        or ".io" in text
        or ".com/" in text
        or ".co/" in text
        or ".org/" in text
    )


def stash_urls(text: str, stash: UrlStash) -> str:
    """Replace every link (``\\url``, ``\\href``, Markdown, ``<..>``, bare, scheme-less) with a placeholder."""
    if "\\" in text:
        text = _TEX_URL_RE.sub(lambda m: stash.put(m.group(1)), text)
        if "href" in text or "hyperlink" in text:

            def _href(m: re.Match[str]) -> str:
                label = m.group(2).strip()
                ph = stash.put(m.group(1))
                if not label or _looks_like_url(label):
                    return ph
                return f"{label} ({ph})"

            text = _TEX_HREF_RE.sub(_href, text)
    if "](" in text:

        def _md(m: re.Match[str]) -> str:
            label = m.group(1).strip()
            ph = stash.put(m.group(2))
            if not label or _looks_like_url(label):
                return ph
            return f"{label} ({ph})"

        text = _MD_LINK_RE.sub(_md, text)
    if "<" in text:
        text = _ANGLE_URL_RE.sub(lambda m: stash.put(m.group(1)), text)
    if "://" in text:
        text = BARE_URL_RE.sub(lambda m: stash.put_with_tail(m.group()), text)
    lower = text.lower()
    if any(h in lower for h in _SCHEMELESS_HINTS):
        text = _SCHEMELESS_URL_RE.sub(lambda m: stash.put_with_tail(m.group()), text)
    return text


def is_plain_link(url: str) -> bool:
    """Whether a link shows where it goes: http(s) to a host, no `user:pass@` before the host (which `https://
    openreview.net@evil.example` uses to look like another), no control, bidi or invisible character (which reorder
    or hide parts of it)."""
    if CONTROL_RE.search(url) or _INVISIBLE_RE.search(url):
        return False
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(host) and "@" not in parts.netloc


def host_of(url: str) -> str | None:
    """A link's host, lowercase and without `www.`; None when it has none."""
    try:
        host = urlsplit(url if "://" in url else f"http://{url}").hostname
    except ValueError:
        return None
    return host.rstrip(".").removeprefix("www.") if host else None


def hosts_named(text: str) -> list[str | None]:
    """The hosts a text (a link label) reads as naming, as a reader would take them: one per link written in it, or
    the text itself when it is a domain (`openreview.net`); empty for ordinary words. None: a link without a host."""
    seen = unicodedata.normalize("NFKC", text).strip()  # (full-width ｈｔｔｐｓ：／／ reads as a link too)
    found = [host_of(m.group().rstrip(_URL_TRAIL)) for m in _LINKISH_RE.finditer(seen)]
    return found or ([host_of(seen)] if _DOMAIN_RE.fullmatch(seen) else [])


def urls(text: str) -> list[str]:
    """Return the URLs in a raw text, in order and deduplicated, without trailing punctuation (for link buttons);
    links that disguise where they go (is_plain_link) are left out."""
    if not text:
        return []
    stash = UrlStash()
    s = drop_private_use(unescape_html(text))
    marked = stash_urls(s.replace("\\\\", "\\"), stash)
    out: list[str] = []
    # in reading order, whatever syntax each link used
    for ph in URL_PLACEHOLDER_RE.findall(marked):
        u = stash.items[ord(ph) - URL_BASE]
        if not u.lower().startswith(("http://", "https://")):
            u = "https://" + u
        if u not in out and is_plain_link(u):
            out.append(u)
    return out


def is_code_url(url: str) -> bool:
    """Whether a URL points at code or a project page (GitHub, GitLab, Hugging Face, *.github.io, ...)."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    host = host.removeprefix("www.")
    return host in _CODE_HOSTS or host.endswith(".github.io") or host.endswith(".gitlab.io")


def code_url(text: str) -> str | None:
    """Return the first code or project-page link (GitHub, GitLab, Hugging Face, *.github.io, ...) in a text."""
    for u in urls(text):
        if is_code_url(u):
            return u
    return None
