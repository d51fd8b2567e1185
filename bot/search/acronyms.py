"""Acronyms and their long forms, learned from "Mixture of Experts (MoE)" in the corpus plus a small built-in list.

Search uses them both ways: the query "MoE" also matches "mixture of experts", and "retrieval-augmented generation"
also matches "RAG". Learning is pure (text in, pairs out) so index.py only stores what it returns.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable

# Common ML acronyms whose expansion is not in doubt; learned pairs add the rest.
BUILTIN: dict[str, tuple[str, ...]] = {
    "AE": ("autoencoder",),
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
    "MLP": ("multilayer perceptron",),
    "MoE": ("mixture of experts",),
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
    "SSM": ("state space model",),
    "VAE": ("variational autoencoder",),
    "ViT": ("vision transformer",),
    "VLA": ("vision language action",),
    "VLM": ("vision language model",),
    "VQA": ("visual question answering",),
}
# Words a long form may skip without giving the acronym a letter ("Reinforcement Learning from Human Feedback").
_SKIPPABLE = frozenset(
    ("of", "for", "from", "and", "the", "a", "an", "in", "on", "to", "with", "by", "via", "at", "as", "based")
)
_SHORT_RE = re.compile(r"\(\s*([A-Za-z][A-Za-z0-9-]{0,11}?)(?:\s*[,;][^()]{0,40})?\s*\)")
_WORD_SPLIT_RE = re.compile(r"[\s/]+")
_HYPHEN_RE = re.compile(r"[‐-―-]+")
_POSSESSIVE_RE = re.compile(r"['’]s$")
_CLAUSE_END_RE = re.compile(r"[.;:!?()\[\]{}]|, ")
_MARKUP_RE = re.compile(r"[*_`~]")
_EDGE_PUNCT = "\"'“”‘’,.;:!?"


def short_key(short: str) -> str:
    """Lookup key of an acronym: lowercase letters and digits, a plural `s` dropped (LLMs → llm)."""
    s = short.strip()
    if len(s) > 2 and s.endswith("s") and s[-2].isupper():
        s = s[:-1]
    return "".join(c for c in s.lower() if c.isalnum())


def long_key(words: Iterable[str]) -> str:
    """Lookup key of a long form: lowercase words, hyphens as spaces, the last word singular."""
    parts = [p for w in words for p in _HYPHEN_RE.split(_POSSESSIVE_RE.sub("", w.strip(_EDGE_PUNCT)).lower()) if p]
    if parts and len(parts[-1]) > 3 and parts[-1].endswith("s") and not parts[-1].endswith(("ss", "us", "is")):
        parts[-1] = parts[-1][:-1]
    return " ".join(parts)


def is_acronym(short: str) -> bool:
    """Looks like an acronym: 2-10 letters, at least two capitals, capitals first (MoE, LoRA, LLMs, GRPO)."""
    core = short[:-1] if len(short) > 2 and short.endswith("s") and short[-2].isupper() else short
    if not 2 <= len(core) <= 10 or not core[0].isupper() or not core.replace("-", "").isalpha():
        return False
    return sum(c.isupper() for c in core) >= 2


def _fits(letters: str, words: list[str]) -> bool:
    """True when every content word starts with the acronym's next letter; a word may give more letters in order.

    A hyphenated word is one word whose later parts may give letters: Retrieval-Augmented Generation (RAG).
    """
    n_letters, n_words = len(letters), len(words)

    def go(i: int, j: int) -> bool:
        if j == n_words:
            return i == n_letters
        word = words[j]
        if i < n_letters and word[0] == letters[i]:
            # The word gives its initial, then possibly further letters from inside it (LoRA: Low-Rank Adaptation).
            k, pos = i + 1, 1
            options = [k]
            while k < n_letters:
                found = word.find(letters[k], pos)
                if found < 0:
                    break
                k, pos = k + 1, found + 1
                options.append(k)
            if any(go(opt, j + 1) for opt in reversed(options)):
                return True
        return word in _SKIPPABLE and j > 0 and go(i, j + 1)

    return go(0, 0)


def long_form(short: str, before: str) -> list[str] | None:
    """The words just before "(SHORT)" that SHORT abbreviates, checked letter by letter against their initials."""
    letters = short_key(short)
    if not letters.isalpha():
        return None
    clause = _CLAUSE_END_RE.split(before)[-1]
    words = [w.strip(_EDGE_PUNCT) for w in _WORD_SPLIT_RE.split(clause)]
    words = [w for w in words if w][-(len(letters) + 4) :]
    lowered = [w.lower() for w in words]
    for k in range(1, len(words) + 1):
        cand = lowered[-k:]
        if cand[0][0] != letters[0] or cand[0] in _SKIPPABLE or not cand[0][0].isalpha():
            continue
        if sum(len(_HYPHEN_RE.split(w)) for w in cand) >= 2 and _fits(letters, cand):
            return words[-k:]
    return None


def pairs_in(text: str) -> list[tuple[str, str]]:
    """(acronym as written, long-form key) for every "Long Form (LF)" definition in one text."""
    if "(" not in text:
        return []
    out = []
    for m in _SHORT_RE.finditer(text):
        short = m.group(1)
        if not is_acronym(short):
            continue
        before = _MARKUP_RE.sub("", text[max(0, m.start() - 160) : m.start()])
        words = long_form(short, before)
        if words:
            out.append(
                (short[:-1] if short_key(short) != short.lower() and short.endswith("s") else short, long_key(words))
            )
    return out


def learn(texts: Iterable[str]) -> list[tuple[str, str, str, int]]:
    """(key, display form, long-form key, papers) for pairs defined in at least two papers, from one text per paper."""
    papers: Counter[tuple[str, str]] = Counter()
    forms: dict[str, Counter[str]] = defaultdict(Counter)
    for text in texts:
        seen = set()
        for short, long in pairs_in(text or ""):
            key = short_key(short)
            forms[key][short] += 1
            seen.add((key, long))
        papers.update(seen)
    return [(key, forms[key].most_common(1)[0][0], long, n) for (key, long), n in sorted(papers.items()) if n >= 2]


def builtin_pairs() -> list[tuple[str, str, str, int]]:
    """The built-in list in the same shape as learn(): (key, display form, long-form key, papers=0)."""
    return [(short_key(s), s, long_key(lf.split()), 0) for s, longs in BUILTIN.items() for lf in longs]
