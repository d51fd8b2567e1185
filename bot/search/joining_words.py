"""Wording: what the query's small words say about its ideas. Function words separate ideas ("transformers | for |
time series forecasting"); machine learning named as the means narrows nothing at ICML ("weather forecasting with
machine learning"); "without training" asks for training-free papers.

The planner calls these on its groups and slots (bot.search.plan), before long forms merge groups.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from bot.search.groups import Slot, TermGroup
from bot.search.matching import Alternative

# Words that name the field itself: at ICML an idea made only of them ("with machine learning", "ML for") says
# nothing about which papers, beside an idea that does. (Deep learning and neural networks name a kind of method:
# `deep learning for tabular data` is not `tabular data`.)
FIELD_WORDS = frozenset(("machine", "learning", "artificial", "intelligence", "ai", "ml"))
FIELD_ACRONYMS = frozenset(("ai", "ml"))  # ...the words that name it alone
# ...a specific idea: its rarest word is used by at most this share of the field idea's
FIELD_IDEA_RARER = 0.25
# Words nearly every paper here could use of its method: they say which papers only when nothing more specific is
# asked (an idea of them alone is broad, see broad_ideas).
GENERIC_WORDS = frozenset(("neural", "network", "networks", "deep", "learning", "method", "methods"))
# One crude stem: reward models are reward modeling
GENERIC_WORDS |= {"model", "models", "modeling", "modelling"}
# "without X" means X-free when this many papers write it (training-free, reward-free)
FREE_FORM_PAPERS = 3
# "X with machine learning": ML is the means
_BY_MEANS = frozenset(("with", "using", "via", "through"))
_MEANS_FOR = frozenset(("for", "in", "to"))  # "ML for X" opening a query: the means too
# The field idea is then one side of the topic
_BOTH = frozenset(("and", "or", "vs", "versus", "between", "than"))


def free_forms(
    groups: list[TermGroup], slots: list[Slot], known: Callable[[str], bool], papers: Callable[[Alternative], int]
) -> None:
    """`image editing without training` asks for training-free image editing, not for papers about training: a
    word after *without* that papers write as its -free form (training-free, reward-free) matches that form or
    "without <word>". Any other word after *without* stays a plain word: `learning without forgetting` and
    `sampling without replacement` are topics, and papers without X mostly say X. `known`: whether the index has a
    word; `papers`: how many papers hold a phrase, counted up to FREE_FORM_PAPERS."""
    for i, slot in enumerate(slots):
        if slot.group is not None or slot.word != "without":
            continue
        # "with and without training": both
        if [s.word for s in slots[max(0, i - 2) : i]] == ["with", "and"]:
            continue
        words = itertools.takewhile(lambda s: s.group is not None, slots[i + 1 :])
        run = list(dict.fromkeys(s.group for s in words if s.group is not None))
        if len(run) != 1 or len(groups[run[0]].alts[0].words) != 1 or groups[run[0]].quoted:
            continue
        group, word = groups[run[0]], groups[run[0]].alts[0].words[0]
        if word.endswith("s") and known(word[:-1]):
            word = word[:-1]  # without labels: label-free
        free = Alternative((word, "free"))
        if papers(free) >= FREE_FORM_PAPERS:
            alts = [free, Alternative(("without", *group.alts[0].words))]
            # Whole, not in part
            group.label, group.alts, group.quoted = f"{word}-free", alts, True


def generic(group: TermGroup) -> bool:
    """Whether a group is made of generic words only ("neural networks")."""
    return set(group.alts[0].words) <= GENERIC_WORDS


def broad_ideas(groups: list[TermGroup]) -> set[int]:
    """The ideas made of generic words only (`... of neural networks`), when another idea is specific: they say
    little of which papers beside it. (With no specific idea, none is broad.)"""
    ideas = {g.concept for g in groups}
    broad = ideas - {g.concept for g in groups if not generic(g)}
    return broad if broad != ideas else set()


def number_ideas(groups: list[TermGroup], slots: list[Slot], gap: str) -> None:
    """Number the query's ideas: a function word between words starts a new one ("transformers for | time series
    forecasting"), so ranking can prefer papers about every idea to papers about one of them at length. `gap`: the
    word of a quoted phrase's slot."""
    concept, started, numbered = 0, False, set()
    for slot in slots:
        group = slot.quoted if slot.word == gap else slot.group
        if group is None:  # a function word
            if started:
                concept, started = concept + 1, False
            continue
        if group not in numbered:
            groups[group].concept = concept
            numbered.add(group)
        started = True


def means(groups: list[TermGroup], slots: list[Slot]) -> set[int]:
    """The ideas the query names as a means: after *with*, *using*, *via*, *through* ("... with machine
    learning"), or opening it before *for*, *in*, *to* ("ML for ..."). Read while slots index the groups as typed,
    before long forms merge them; only queries holding a field word ask."""
    if not any(s.word in FIELD_WORDS for s in slots):
        return set()
    out = set()
    # A quoted phrase's slot: its group
    typed = [s.group if s.group is not None else s.quoted for s in slots]
    for concept in {g.concept for g in groups}:
        at = [i for i, g in enumerate(typed) if g is not None and groups[g].concept == concept]
        if not at:
            continue
        before = slots[at[0] - 1].word if at[0] > 0 else None
        after = slots[at[-1] + 1].word if at[-1] + 1 < len(slots) else None
        opens = all(s.group is None for s in slots[: at[0]])
        if before in _BY_MEANS or (opens and after in _MEANS_FOR):
            out.add(concept)
    return out


def without_field_ideas(
    groups: list[TermGroup], typed: list[str], means: set[int], papers: Callable[[list[Alternative]], int]
) -> list[TermGroup]:
    """`weather forecasting with machine learning` is `weather forecasting` at a machine learning conference: an
    idea of field words only, named as the means (*with*/*using* ML, *ML for*), is dropped beside a far rarer
    idea. It stays as the object (`fairness of machine learning`), beside a common idea (`theory of machine
    learning`), and where the query sets the two side by side (`machine learning and physics`). `typed`: the
    query's words; `papers`: about how many papers hold a group's alternatives."""
    if not means or any(w in _BOTH for w in typed):
        return groups
    ideas: dict[int, list[TermGroup]] = {}
    for g in groups:
        ideas.setdefault(g.concept, []).append(g)
    if len(ideas) < 2:
        return groups

    # `learning` alone is no field: `learning to rank`
    def field_only(members: list[TermGroup]) -> bool:
        words = [w for g in members for w in g.alts[0].words]
        plain = all(not g.quoted and g.scope is None for g in members)
        return plain and set(words) <= FIELD_WORDS and (len(words) > 1 or words[0] in FIELD_ACRONYMS)

    # About how many papers hold every word of the idea
    def held_by(members: list[TermGroup]) -> int:
        return min(papers(g.alts) for g in members)

    field = [c for c, members in ideas.items() if field_only(members) and c in means]
    others = [held_by(members) for c, members in ideas.items() if c not in field]
    if not field or not others:
        return groups
    specific = min(others)
    drop = {c for c in field if specific <= FIELD_IDEA_RARER * held_by(ideas[c]) or not held_by(ideas[c])}
    if not drop:
        return groups
    kept = [g for g in groups if g.concept not in drop]
    number = {c: i for i, c in enumerate(sorted({g.concept for g in kept}))}
    for g in kept:  # (ideas stay numbered from 0: a query of one idea has only concept 0)
        g.concept = number[g.concept]
    return kept
