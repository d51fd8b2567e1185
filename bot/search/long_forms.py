"""Acronyms at query time: the built-in list plus the pairs the index learned, looked up in both directions.

The query "MoE" also matches "mixture of experts", and "retrieval-augmented generation" also matches "RAG"; LongForms
decides which meanings are safe for the planner (bot.search.plan). Learning pairs from abstracts is the index's job
(bot.text.acronyms, bot.papers.learned_acronyms); this module only reads the table the index wrote.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from bot.papers import fts, learned_acronyms, matching
from bot.papers.reading import Reader
from bot.search.matching import Alternative
from bot.text.acronyms import AcronymPair, long_key, short_key

# Common ML acronyms whose expansion is not in doubt; learned pairs add the rest.
BUILTIN: dict[str, tuple[str, ...]] = {
    "AE": ("autoencoder",),
    "AGI": ("artificial general intelligence",),
    "ASR": ("automatic speech recognition",),
    "BO": ("bayesian optimization",),
    "CNN": ("convolutional neural network",),
    "CoT": ("chain of thought",),
    "DDPM": ("denoising diffusion probabilistic model",),
    "DiT": ("diffusion transformer",),
    "DPO": ("direct preference optimization",),
    "DRL": ("deep reinforcement learning",),
    "EBM": ("energy based model",),
    "FL": ("federated learning",),
    "GAN": ("generative adversarial network",),
    "GCN": ("graph convolutional network",),
    "GNN": ("graph neural network",),
    "GP": ("gaussian process",),
    "GRPO": ("group relative policy optimization",),
    "ICL": ("in context learning",),
    "KD": ("knowledge distillation",),
    "KG": ("knowledge graph",),
    "KV": ("key value",),
    "LLM": ("large language model",),
    "LM": ("language model",),
    "LoRA": ("low rank adaptation",),
    "LVLM": ("large vision language model",),
    "MARL": ("multi agent reinforcement learning",),
    "MCMC": ("markov chain monte carlo",),
    "MCTS": ("monte carlo tree search",),
    "MDP": ("markov decision process",),
    "MLLM": ("multimodal large language model",),
    "MLP": ("multilayer perceptron", "multi layer perceptron"),
    "MoE": ("mixture of experts",),
    "MSE": ("mean squared error",),
    "NAS": ("neural architecture search",),
    "NeRF": ("neural radiance field",),
    "NLP": ("natural language processing",),
    "NTK": ("neural tangent kernel",),
    "ODE": ("ordinary differential equation",),
    "OOD": ("out of distribution",),
    "OT": ("optimal transport",),
    "PDE": ("partial differential equation",),
    "PEFT": ("parameter efficient fine tuning",),
    "PINN": ("physics informed neural network",),
    "PPO": ("proximal policy optimization",),
    "RAG": ("retrieval augmented generation",),
    "RL": ("reinforcement learning",),
    "RLHF": ("reinforcement learning from human feedback",),
    "RLVR": ("reinforcement learning with verifiable rewards",),
    "RNN": ("recurrent neural network",),
    "SAE": ("sparse autoencoder",),
    "SDE": ("stochastic differential equation",),
    "SFT": ("supervised fine tuning",),
    "SGD": ("stochastic gradient descent",),
    "SNN": ("spiking neural network",),
    "SVD": ("singular value decomposition",),
    "SSM": ("state space model",),
    "VAE": ("variational autoencoder",),
    "ViT": ("vision transformer",),
    "VLA": ("vision language action",),
    "VLM": ("vision language model",),
    "VQA": ("visual question answering",),
}


def builtin_pairs() -> list[AcronymPair]:
    """The built-in list in the shape of learned pairs: (key, display form, long-form key, papers=0)."""
    return [AcronymPair(short_key(s), s, long_key(lf.split()), 0) for s, longs in BUILTIN.items() for lf in longs]


# Table entries are plain tuples, unpacked where they are read: a large index has ~16,000 of them, all built while
# its first query waits, and a NamedTuple costs ten times a tuple to build.
# One meaning of an acronym: (acronym as written, long-form words, papers defining the pair, on the built-in list).
LongForm = tuple[str, tuple[str, ...], int, bool]
# One acronym a long form may be written as: (short_key, acronym as written, papers, on the built-in list).
ShortForm = tuple[str, str, int, bool]


def trust(entry: LongForm | ShortForm) -> tuple[bool, int]:
    """Sort key of a table entry: built-in pairs first, then the pairs most papers define."""
    _, _, papers, builtin = entry
    return not builtin, -papers


_K = TypeVar("_K", contravariant=True)
_V = TypeVar("_V")


class Lookup(Protocol[_K, _V]):
    """What the planner asks of a table's side: a dict, or the index asked key by key (rows_for)."""

    def __contains__(self, key: object, /) -> bool: ...

    def __getitem__(self, key: _K, /) -> _V: ...

    def get(self, key: _K, default: _V, /) -> _V: ...


@dataclass(frozen=True)
class AcronymTable:
    """Every pair by acronym and by long form, built once per index version: each query word costs a dict look-up
    (or, for a process's first search, an indexed read: rows_for)."""

    by_short: Lookup[str, list[LongForm]]  # acronym key → its meanings, most trusted first
    by_long: Lookup[str, list[ShortForm]]  # long-form key → its acronyms, most trusted first
    longest: int  # most words in any long form
    # first word of a long form → most words of a long form starting with it
    firsts: Lookup[str, int]


def load_table(db: Reader) -> AcronymTable:
    """Built-in plus learned pairs, both directions (an index without an acronyms table gets the built-in list)."""
    return _table(_pairs(builtin_pairs(), learned_acronyms.learned_pairs(db)))


def rows_for(db: Reader) -> AcronymTable:
    """The same table, each side read from the index as the planner asks it (a few indexed or 8,000-row reads per
    query, a millisecond), for a process's first search: building the whole table (16,000 entries at 110,000 papers)
    would cost it more (docs/benchmarks.md). Each side holds what the whole table's does for the keys asked (rows in
    the table's order)."""
    builtin = builtin_pairs()

    def meanings(key: str) -> list[LongForm]:
        mine = [p for p in builtin if p[0] == key]
        return _table(_pairs(mine, learned_acronyms.learned_for_acronym(db, key))).by_short.get(key, [])

    def shorts(long: str) -> list[ShortForm]:
        mine = [p for p in builtin if p[2] == long]
        return _table(_pairs(mine, learned_acronyms.learned_for_long(db, long))).by_long.get(long, [])

    def first(word: str) -> int:
        # Then split as the whole table splits them
        learned = learned_acronyms.long_forms_holding(db, word)
        return max(
            (len(w) for long in [*(p[2] for p in builtin), *learned] if (w := long.split())[0] == word), default=0
        )

    # The planner asks only whether any long form is known
    longest = _table(_pairs(builtin, [])).longest
    return AcronymTable(_Asked(meanings, []), _Asked(shorts, []), longest, _Asked(first, 0))


class _Asked(Lookup[str, _V]):
    """One side of the table, each key read from the index when first asked, and kept."""

    def __init__(self, read: Callable[[str], _V], empty: _V) -> None:
        self._read, self._empty, self._kept = read, empty, dict[str, _V]()

    def __getitem__(self, key: str, /) -> _V:
        found = self._kept.get(key)
        if found is None:
            found = self._kept[key] = self._read(key)
        if found == self._empty:
            raise KeyError(key)
        return found

    def __contains__(self, key: object, /) -> bool:
        return isinstance(key, str) and self.get(key, self._empty) != self._empty

    def get(self, key: str, default: _V, /) -> _V:
        try:
            return self[key]
        except KeyError:
            return default


def _pairs(
    builtin: Iterable[AcronymPair], learned: Iterable[AcronymPair]
) -> dict[tuple[str, str], tuple[str, int, bool]]:
    """(key, long key) → (form, papers, on the built-in list): built-in pairs first, a learned one after them, except
    that a built-in pair the index learned too keeps its own spelling and takes the index's count."""
    pairs: dict[tuple[str, str], tuple[str, int, bool]] = {}
    for key, form, long, n in builtin:
        pairs[(key, long)] = (form, n, True)
    for key, form, long, n in learned:
        known = pairs.get((key, long))
        if known is None:
            pairs[(key, long)] = (form, n, False)
        else:  # a built-in pair keeps its own spelling
            builtin_form, _, _ = known
            pairs[(key, long)] = (builtin_form, n, True)
    return pairs


def _table(pairs: dict[tuple[str, str], tuple[str, int, bool]]) -> AcronymTable:
    """Both directions of these pairs, most trusted first."""
    by_short: dict[str, list[LongForm]] = {}
    by_long: dict[str, list[ShortForm]] = {}
    for (key, long), (form, n, builtin) in pairs.items():
        by_short.setdefault(key, []).append((form, tuple(long.split()), n, builtin))
        by_long.setdefault(long, []).append((key, form, n, builtin))
    for meanings in by_short.values():
        meanings.sort(key=trust)
    for shorts in by_long.values():
        shorts.sort(key=trust)
    firsts: dict[str, int] = {}
    for long in by_long:
        words = long.split()
        firsts[words[0]] = max(firsts.get(words[0], 0), len(words))
    return AcronymTable(by_short, by_long, max(firsts.values(), default=0), firsts)


class LongForms:
    """Which long forms a query's acronym stands for in this index (MoE: mixture of experts), and which acronyms a
    long form also matches, when the built-in list or enough of the papers agree. `table`: the acronym table (loaded
    when first asked); `spelled`: what spelled_out found, kept per index version; `df`: papers using each word;
    `share`: the share of an acronym's papers that must write a mined long form (Thresholds.spelled_out)."""

    def __init__(
        self,
        db: Reader,
        table: Callable[[], AcronymTable],
        spelled: dict[tuple[str, str], float],
        df: Callable[[Iterable[str]], dict[str, int]],
        share: float,
    ) -> None:
        self.db, self.table, self.spelled, self.df, self.share = db, table, spelled, df, share

    def expansions(self, word: str, typed: str) -> list[Alternative]:
        """Long forms of an acronym (MoE → mixture of experts), when the corpus or the built-in list agrees."""
        table = self.table()
        by_short = table.by_short
        key = word if word in by_short else word[:-1] if word.endswith("s") and word[:-1] in by_short else None
        if key is None:
            return []
        meanings = by_short[key]
        total = sum(max(papers, 1) for _, _, papers, _ in meanings)
        typed_as_acronym = any(c.isupper() for c in typed)
        df = self.df([key])[key]
        out = []
        for _form, long_words, papers, builtin in meanings:
            if not builtin and (papers < 2 or papers < 0.2 * total or (not typed_as_acronym and papers * 25 < df)):
                # A rare or minority meaning, or a common word that some paper also uses as an acronym
                continue
            if long_words != (word,):
                out.append(Alternative(long_words))
            if len(out) == 2:
                break
        return out

    def acronyms_for(self, long: str) -> list[str] | None:
        """Acronyms that stand for this long form and little else (no two-letter ones: CL, MT, GP mean too much);
        None when it is no long form worth merging. A mined acronym that papers mostly use without writing this
        long form means something else to them (MAE: mean absolute error, not masked autoencoder; ADD: the verb):
        the long form stays one idea, searched without it."""
        table = self.table()
        out = []
        for key, _form, papers, builtin in table.by_long.get(long, []):
            if len(key) < 3:
                continue
            share = max(papers, 1) / sum(max(n, 1) for _, _, n, _ in table.by_short[key])
            if share >= 0.67 and (builtin or (papers >= 2 and self.df([key])[key] <= 25 * papers)):
                out.append((key, builtin))
        if not out:
            return None
        return [key for key, builtin in out if builtin or self.spelled_out(key, long) >= self.share][:2]

    def spelled_out(self, key: str, long: str) -> float:
        """The share of the papers using an acronym that also write this long form (once per index version)."""
        memo = self.spelled
        if (key, long) not in memo:
            df = self.df([key])[key]
            both = fts.phrase((key,)) + " AND " + fts.phrase(tuple(long.split()))
            n = matching.count_all(self.db, both)
            memo[(key, long)] = n / df if df else 1.0
        return memo[(key, long)]
