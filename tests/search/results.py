"""Helpers the search tests share: the ids a response lists, and a one-author paper record for small indexes."""

from __future__ import annotations

from typing import Any

from bot import search


def ids(response: search.SearchResponse) -> list[str]:
    """The results' index ids, in order."""
    return [r.paper["id"] for r in response.results]


def source_ids(response: search.SearchResponse) -> list[str | None]:
    """The results' ids in their source lists (None for a seed abstract: sort with key=str)."""
    return [r.paper["source_id"] for r in response.results]


def paper(pid: str, title: str, abstract: str) -> dict[str, Any]:
    """A source record by one author, for the small indexes tests build."""
    return {"id": pid, "title": title, "abstract": abstract, "authors": ["Ada Lovelace"]}
