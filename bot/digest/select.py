"""The order in which a channel reads the papers: its topics first, then orals, spotlights and the rest, areas mixed;
then what the channel liked (More like this) pulls close papers forward and what it disliked pushes them back."""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

from bot import search
from bot.papers.lookup import order_fields
from bot.papers.reading import Reader
from bot.papers.venues import Scope
from bot.search import query as ql
from bot.search import scope
from bot.search.cache import index_cache

TOPIC_MATCHES = 200  # papers matching a channel's topics that go first, best match first
# Default orders kept (one per scope: ICML_BOT_VENUES, or venues a channel's topics name)
KEPT_SCOPES = 8
KEPT_TOPICS = 512  # channels' topics whose matches are kept (~200 ids each)
T = TypeVar("T")
STATUS_RANK = {"oral": 0, "spotlight": 1}


def spread(rows: list[dict[str, Any]]) -> list[str]:
    """The default reading order: orals, then spotlights, then the rest; within each, one area after another."""
    tiers: dict[int, dict[str, list[str]]] = defaultdict(dict)
    for row in sorted(rows, key=lambda r: r["seq"]):
        tier = STATUS_RANK.get((row.get("status") or "").strip().lower(), 2)
        tiers[tier].setdefault((row.get("area") or "").strip().lower(), []).append(str(row["id"]))
    order: list[str] = []
    for tier in sorted(tiers):
        queues = list(tiers[tier].values())
        depth = max(len(q) for q in queues)
        order.extend(q[i] for i in range(depth) for q in queues if i < len(q))
    return order


class _Orders:
    """What every channel's order is made of, per index version: the default order of each scope, and what each
    channel's topics matched. Many channels due at one minute share them: a fan-out reads the whole index once per
    scope and searches once per topic, not once per channel."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spread: OrderedDict[tuple[Hashable, ...], list[str]] = OrderedDict()
        self._matched: OrderedDict[tuple[Hashable, ...], dict[str, list[str]]] = OrderedDict()

    def spread(self, key: tuple[Hashable, ...], make: Callable[[], list[str]]) -> list[str]:
        """The default order of a scope (made once per index version)."""
        return self._get(self._spread, key, make, KEPT_SCOPES)

    def matched(self, key: tuple[Hashable, ...], make: Callable[[], dict[str, list[str]]]) -> dict[str, list[str]]:
        """What some topics matched, best first (searched once per index version)."""
        return self._get(self._matched, key, make, KEPT_TOPICS)

    def _get(
        self, table: OrderedDict[tuple[Hashable, ...], T], key: tuple[Hashable, ...], make: Callable[[], T], keep: int
    ) -> T:
        with self._lock:
            if key in table:
                table.move_to_end(key)
                return table[key]
        # Outside the lock: two threads may both make it; the same answer either way
        made = make()
        with self._lock:
            table[key] = made
            while len(table) > keep:
                table.popitem(last=False)
        return made


_ORDERS = _Orders()


def paper_order(db: Reader, topics: str = "", venues: Scope | None = None) -> tuple[list[str], dict[str, list[str]]]:
    """Every paper id in scope in the order a channel sees them (topic matches first), and the ids that matched,
    in order, each with the authors the topics named (a digest following a person shows where they are).

    The scope is the topics' venue:/year:/track: when they name one, else `venues` (ICML_BOT_VENUES)."""
    parsed = ql.parse(topics)
    venues = venues or Scope()
    cache = index_cache(db)
    resolved = scope.resolve(db, parsed, venues, cache)
    version = cache.version or id(db)  # (an index in memory has no version: kept per connection)

    def default_order() -> list[str]:
        rowids = scope.in_scope(db, resolved, cache)
        rows = order_fields(db)
        if rowids is not None:
            rows = [r for r in rows if r["_rowid"] in rowids]
        return spread(rows)

    def topic_matches() -> dict[str, list[str]]:
        found = search.search(db, topics, limit=TOPIC_MATCHES, scope=venues).results
        return {str(r.paper["id"]): r.named for r in found}

    order = _ORDERS.spread((version, resolved.keys), default_order)
    matched: dict[str, list[str]] = {}
    if parsed.terms:  # words to match, not only venue filters
        matched = _ORDERS.matched((version, " ".join(topics.split()), venues), topic_matches)
    return list(dict.fromkeys([*matched, *order])), dict(matched)


# papers close to each liked or disliked paper that move (the "similar" list, best first)
NEIGHBOURS = 40
VOTES_USED = 20  # a channel's newest likes and dislikes that steer its order


def closeness(voted: Sequence[str], neighbours: Callable[[str], Sequence[str]]) -> dict[str, float]:
    """How close each paper is to any of `voted`: 1/(1+rank) in the nearest one's similar list, 1 for a voted paper."""
    close: dict[str, float] = {}
    for paper_id in voted[:VOTES_USED]:
        close[paper_id] = 1.0
        for rank, other in enumerate(neighbours(paper_id)[:NEIGHBOURS]):
            close[other] = max(close.get(other, 0.0), 1.0 / (2.0 + rank))
    return close


def learned_order(
    remaining: Sequence[str],
    liked: Sequence[str],
    disliked: Sequence[str],
    neighbours: Callable[[str], Sequence[str]],
) -> list[str]:
    """The rest of a round reordered by a channel's votes: papers close to what it liked first (closest first), papers
    close to what it disliked last (closest last), everything else in between in its usual order. Only the order
    changes, so every paper still comes once per round."""
    if not liked and not disliked:
        return list(remaining)
    towards, away = closeness(liked, neighbours), closeness(disliked, neighbours)
    front: list[tuple[float, int, str]] = []
    middle: list[str] = []
    back: list[tuple[float, int, str]] = []
    for position, paper_id in enumerate(remaining):
        pull = towards.get(paper_id, 0.0) - away.get(paper_id, 0.0)
        if pull > 0:
            front.append((-pull, position, paper_id))
        elif pull < 0 or paper_id in away:
            back.append((-pull, position, paper_id))  # the closer to a disliked paper, the later
        else:
            middle.append(paper_id)
    return [p for _, _, p in sorted(front)] + middle + [p for _, _, p in sorted(back)]
