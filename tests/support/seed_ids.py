"""The 19 seed papers' ids (seeds/icml2026_abstracts.txt), named once: deterministic, see tests/papers/test_index.py."""

from __future__ import annotations

VEGAS = "yg1gm3"  # Vegas: a self-speculative decoding method
SCM_GRPO = "ht2wjw"  # SCM-GRPO
CALIBRATION = "tnfj31"  # Two measures to calibrate prediction confidence
KEYSTONE = "n1gpqj"  # A supervised fine-tuning approach that updates only keystone neurons
VIEWMASK = "eq8s3g"  # ViewMask-1-to-3
RACO = "bv9000"  # RACO
DEFENSIVE_KV = "txyyds"  # DefensiveKV: critical KV cache entries
TOKSUITE = "y681dq"  # TokSuite
SOFTMOE = "mehwh5"  # SoftMoE
EXSQF = "bjbrc2"  # ExSQF
INTRINSIC_DIMENSION = "mp9vvx"  # Intrinsic dimensionality as a quantitative measure ...
GPS = "hwac05"  # GPS: Generalizable Predictive Prompt Selection
MU_A = "g1m65n"  # μA: Maximal-Update Adaptation
CAUSCIBENCH = "hyws0w"  # CauSciBench
KNAPSACK = "yxwzbq"  # Knapsack RL
HIDE = "tr2n8h"  # HiDe: The Hierarchical Decoupling Framework
MULTI_ANSWER = "e2racf"  # A multi-answer reinforcement learning approach for training LMs ...
TOKENSWAP = "z4byn6"  # TokenSwap
LOGIC_VERIFICATION = "bw5nc1"  # A formal logic verification-guided framework ...

# The order the digest shows them in (no status or area in the seeds: index order).
SEED_ORDER = [
    VEGAS,
    SCM_GRPO,
    CALIBRATION,
    KEYSTONE,
    VIEWMASK,
    RACO,
    DEFENSIVE_KV,
    TOKSUITE,
    SOFTMOE,
    EXSQF,
    INTRINSIC_DIMENSION,
    GPS,
    MU_A,
    CAUSCIBENCH,
    KNAPSACK,
    HIDE,
    MULTI_ANSWER,
    TOKENSWAP,
    LOGIC_VERIFICATION,
]
