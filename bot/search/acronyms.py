"""Acronyms search knows without the corpus: the built-in list, merged at query time with the pairs the index learned.

Search uses them both ways: the query "MoE" also matches "mixture of experts", and "retrieval-augmented generation"
also matches "RAG". Learning pairs from abstracts is the index's job (bot.text.acronyms).
"""

from __future__ import annotations

from bot.text.acronyms import AcronymPair, long_key, short_key

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


def builtin_pairs() -> list[AcronymPair]:
    """The built-in list in the shape of learned pairs: (key, display form, long-form key, papers=0)."""
    return [AcronymPair(short_key(s), s, long_key(lf.split()), 0) for s, longs in BUILTIN.items() for lf in longs]
