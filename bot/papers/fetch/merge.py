"""One record per paper from the site and OpenReview: each source's fields where that source is the better one.

OpenReview is the better source for what the authors wrote (abstract, authors, PDF, keywords, TL;DR, code link,
BibTeX, licence); the site for what the conference decided (status, sessions, times, room, poster position, topic,
page). Papers match by OpenReview forum id, else by normalised title within the same year and track, and only
when that title is unique on both sides: two different papers are never merged. Institutions follow their authors
by name: the site's are kept only for the authors OpenReview lists under the same name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from bot import text
from bot.papers.fetch.record import Fetched
from bot.text.person_names import fold_name


@dataclass
class Merged:
    """The merged papers, and how they were matched."""

    papers: list[Fetched] = field(default_factory=list)
    by_forum: int = 0
    by_title: int = 0
    site_only: int = 0
    openreview_only: int = 0

    @property
    def matched(self) -> int:
        """Papers found in both sources."""
        return self.by_forum + self.by_title


def merge(site: Iterable[Fetched], openreview: Iterable[Fetched]) -> Merged:
    """Site papers (in their order) merged with their OpenReview twins, then the papers only OpenReview has."""
    site, openreview = list(site), list(openreview)
    result = Merged()
    by_forum = {p.forum: p for p in openreview if p.forum}
    used: set[int] = set()
    pending: list[Fetched] = []
    for paper in site:
        twin = by_forum.get(paper.forum) if paper.forum else None
        if twin is not None and id(twin) not in used:
            used.add(id(twin))
            result.papers.append(combine(paper, twin))
            result.by_forum += 1
        else:
            result.papers.append(paper)
            pending.append(paper)
    # Title matching only for site papers without a forum id: a forum id OpenReview lacks names another paper.
    untitled = [p for p in pending if not p.forum]
    rest = [p for p in openreview if id(p) not in used]
    if untitled and rest:
        _match_titles(site, untitled, rest, used, result)
    result.site_only = len(site) - result.matched
    only = [p for p in openreview if id(p) not in used]
    result.openreview_only = len(only)
    result.papers.extend(only)
    return result


def _match_titles(
    site: list[Fetched], untitled: list[Fetched], rest: list[Fetched], used: set[int], result: Merged
) -> None:
    """Merge site papers without a forum id with their OpenReview twin, by a title unique on both sides."""
    site_titles = Counter(_title_key(p) for p in site)
    or_titles = Counter(_title_key(p) for p in rest)
    or_by_title = {_title_key(p): p for p in rest}
    position = {id(p): n for n, p in enumerate(result.papers)}
    for paper in untitled:
        key = _title_key(paper)
        if site_titles[key] != 1 or or_titles[key] != 1:
            continue
        twin = or_by_title[key]
        used.add(id(twin))
        result.papers[position[id(paper)]] = combine(paper, twin)
        result.by_title += 1


def combine(site: Fetched, openreview: Fetched) -> Fetched:
    """One paper from its site record and its OpenReview note."""
    return replace(
        site,
        title=openreview.title or site.title,
        abstract=openreview.abstract or site.abstract,
        authors=openreview.authors or site.authors,
        institutions=_institutions(site, openreview) if openreview.authors else site.institutions,
        forum=openreview.forum or site.forum,
        status=site.status or openreview.status,
        area=site.area or openreview.area,
        keywords=openreview.keywords or site.keywords,
        url=openreview.url or site.url,
        pdf_url=openreview.pdf_url or site.pdf_url,
        code_url=openreview.code_url or site.code_url,
        dataset_url=openreview.dataset_url or site.dataset_url,
        tldr=openreview.tldr,
        bibtex=openreview.bibtex,
        license=openreview.license,
        origins=[*site.origins, *openreview.origins],
        parts=[*site.parts, *openreview.parts],
    )


def _institutions(site: Fetched, openreview: Fetched) -> list[str]:
    """The site's institutions for OpenReview's authors, matched by name ("" for an author the site names otherwise);
    empty when no name matches."""
    by_name: dict[tuple[str, ...], str] = {}
    for author, institution in zip(site.authors, site.institutions, strict=False):
        by_name.setdefault(_name_key(author), institution)
    matched = [by_name.get(_name_key(author), "") for author in openreview.authors]
    return matched if any(matched) else []


def _name_key(name: str) -> tuple[str, ...]:
    """A name as compared: folded words in any order (`Bansal, Mohit` = `Mohit Bansal`)."""
    return tuple(sorted(fold_name(name)))


def _title_key(paper: Fetched) -> tuple[str, int, str, str]:
    return paper.conference.lower(), paper.year, paper.track, text.normalize_title(paper.title)
