"""The short name a paper introduces (``Vegas``, ``RACO``, ``μA``), from its title, abstract or code link."""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import urlsplit

from bot.text.cleanup import to_plain_text
from bot.text.sentences import claims, split_sentences
from bot.text.urls import BARE_URL_RE, is_code_url, urls
from bot.text.words import HYPHEN_PREFIXES, word_set

_COMMON_ACRONYMS = word_set(
    """llm llms lm lms mllm mllms lvlm lvlms vlm vlms vla vlas slm slms rl rlhf rlvr rlaif grpo ppo dpo trpo sac ddpg
    dqn moe moes cot cots tot uq kv gpu gpus tpu tpus cpu sota auroc auc auprc roc lora qlora peft sft qaf vqa nlp
    nlu nlg cv cnn cnns rnn rnns lstm gru gnn gnns mlp mlps vit vits bert gpt gpts ai agi ml dl dnn dnns api apis
    sdk ocr asr tts pde pdes ode odes sde sdes mcts mdp mdps pomdp pomdps rag iid kl js ot em vae vaes gan gans
    ddpm ddim ntk svd pca ica lda knn svm nas fl hpo hp eeg ecg fmri mri ct 2d 3d 4d 1d nd io url html json sql
    gsm8k math mmlu imagenet cifar coco humaneval mbpp swe sat smt ner qa mcq fid is clip dino sam llama qwen gemma
    mistral mixtral deepseek claude gemini gpt4 gpt4o o1 o3 r1 iou psnr ssim lpips bleu rouge wer cer mse mae rmse
    ece nll ppl elbo sgd adam adamw relu gelu ffn attn rope gqa mha mqa bpe eos bos cls fp16 fp8 bf16 int8 int4 fp32
    cuda tf pytorch jax ssm ssms rnnt ctc sim2real nerf 3dgs gs sds icl ood id mil ssl gcn gat sota rlvf prm prms
    orm orms rm rms dpo simpo kto orpo ipo vllm sglang fsdp zero moa mcp ui gui guis llava internvl ocr vlm ar nar
    dit dits unet vit usd eu us uk aaai icml iclr neurips cvpr acl emnlp arxiv hf rlft kd pt ft ood ie eg wrt
    mcmc sae saes erm lidar marl mas fhe irl automl dp llmops mlops sota lrm lrms mllm vla imu rlhf sgd
    fft dft gp bo ea ga pso ilp milp lp qp sdp admm pinn pinns fno deeponet kan kans mamba transformer
    transformers resnet unet vae dm dms ldm ldms sd sdxl flux wan hunyuan cogvideox sora veo dalle midjourney
    webarena swebench osworld alfworld minigrid atari mujoco d4rl dmc metaworld libero calvin robomimic
    openai anthropic google meta microsoft nvidia openreview github huggingface"""
)
_GENERIC_NAME_WORDS = frozenset(
    """a an the our this that these those it its their we they two three four several novel new simple
    unified general generic method methods model models framework frameworks approach approaches algorithm
    algorithms system systems benchmark benchmarks dataset datasets task tasks paper work study analysis
    technique techniques strategy strategies pipeline architecture module modules loss objective theory
    ours name sys tool alg algo proposed ourmethod modelname methodname system network networks agent agents
    llm llms results experiments extensive large small first second finally"""
)
_FRAMEWORK_NOUNS = (
    "framework|method|model|approach|algorithm|system|benchmark|dataset|agent|pipeline|architecture|technique|"
    "strategy|toolkit|library|suite|procedure|scheme|paradigm|estimator|optimizer|policy|network|module|loss|"
    "objective|attack|defense|protocol|metric|family|recipe|solver|planner|engine|platform|tool|environment"
)
_FAMILY_SPLIT_RE = re.compile(r"[-\d.]")
_DIGIT_RE = re.compile(r"\d")
_ADJ_TAIL_RE = re.compile(r"-[a-z]{3,}$")
_PLURAL_ACR_RE = re.compile(r"^[A-Z]{2,}s$")
_OUR_NAME_RE = re.compile(rf"\b[Oo]ur\s+(?:proposed\s+|new\s+|novel\s+)?([^\s,;:()]+)\s+(?:{_FRAMEWORK_NOUNS})s?\b")
_ADJ_SUFFIX_RE = re.compile(
    r"-(?:inspired|based|driven|aware|free|guided|style|like|specific|level|wise|scale|agnostic|efficient|"
    r"constrained|oriented|centric|informed|augmented|enhanced|preserving|conditioned|only|shot|stage)$",
    re.I,
)
_SIZE_RE = re.compile(r"^\d+(?:\.\d+)?[KMBT]?$|^\d+(?:\.\d+)?[kmb]$|^\d+(?:st|nd|rd|th|D|x|×)$")
_TOKEN_RE = re.compile(r"(?<![\w-])[^\W_][\w.+²³¹⁰-⁹₀-₉-]*(?:[\w²³¹⁰-⁹₀-₉+]|(?<=\w)\+\+?)?(?![\w-])")
_NAME_TOKEN = r"[^\W\d_a-z][\w+²³¹⁰-⁹₀-₉-]*|[\d][\w-]*[A-Za-z][\w-]*|[a-zμ][\w-]*[A-Z][\w+-]*"
_NAME_AFTER_VERB_RE = re.compile(
    rf"^\s*(?P<name>(?:{_NAME_TOKEN})(?:\s+(?:{_NAME_TOKEN})){{0,3}})(?P<after>\s*(?:,|:|—|–|\(|\s+-\s+|\.?$)"
    rf"\s*(?P<next>[\w“\"]+)?|\s+(?P<rel>which|that|as|to|for|with|wherein|where)\b)"
)
_PAREN_ANY_RE = re.compile(r"\(([^()\s,;]{2,20})\)")
_ACR_LEFT = frozenset(" ”\"'*")
_PAREN_ACR_RE = re.compile(r"(?<=[\w”\"'*]) ?\(([^()\s,;]{2,20})\)")
_LOWER_FUNC_WORDS = word_set("of for and in on to with via the a an by from under over at as")


def _is_acronymish(tok: str) -> bool:
    """True for ``GPS``, ``μA``, ``ExSQF``, ``RACO``: short, several capitals or a Greek prefix, no spaces."""
    core = tok.rstrip("s") if tok.endswith("s") and sum(c.isupper() for c in tok) >= 2 else tok
    if not core or len(core) > 15 or " " in core:
        return False
    caps = sum(1 for c in core if c.isupper())
    if caps >= 2:
        return True
    return bool(re.match(r"^[α-ωΑ-Ω][A-Za-z0-9-]*$", core) and caps >= 1)


def _is_coined(tok: str) -> bool:
    """True for an invented name: a part in CamelCase (HiDe), letters with digits (GSM8K) or all capitals (RL)."""
    t = tok.strip("-")
    if len(t) < 2 or _SIZE_RE.match(t):
        return False
    segs = t.split("-")
    if len(segs) > 1 and segs[0] in HYPHEN_PREFIXES:
        return False  # "non-Euclidean", "pre-SFT"
    for seg in segs:
        letters = sum(1 for c in seg if c.isalpha())
        if not letters:
            continue
        upper = sum(1 for c in seg if c.isupper())
        if upper and upper < letters and any(c.isupper() for c in seg[1:]):
            return True  # CamelCase / mixed: HiDe, TokSuite, μA, sEEG
        if letters >= 2 and any(c.isdigit() for c in seg):
            return True
        if letters >= 2 and upper == letters:
            return True
    return False


def _common(tok: str) -> bool:
    """True for a well-known acronym or model family (LLMs, GRPO, Qwen2.5-VL) that a paper does not introduce."""
    t = tok.rstrip("'’")
    if t.endswith(("'s", "’s")):
        t = t[:-2]
    low = t.lower()
    if low in _COMMON_ACRONYMS or (t.endswith("s") and low[:-1] in _COMMON_ACRONYMS):
        return True
    # model families with versions: "Qwen2.5-VL", "Llama-3", "GPT-4o", "Gemma-3"
    head = _FAMILY_SPLIT_RE.split(low, maxsplit=1)[0]
    return head in _COMMON_ACRONYMS and head != low


def _valid_name(name: str) -> bool:
    """Whether a candidate reads as a name: short, not generic, not a phrase, not a well-known acronym."""
    name = name.strip()
    if not name or len(name) < 2 or len(name) > 40:
        return False
    parts = name.split()
    if parts[0].lower() in _GENERIC_NAME_WORDS or len(parts) > 4:
        return False
    if any(p.lower() in _LOWER_FUNC_WORDS for p in parts):
        return False
    if len(parts) == 1 and _common(name):
        return False
    if all(_common(p) for p in parts):
        return False
    if _SIZE_RE.match(parts[0]):
        return False
    return not _ADJ_SUFFIX_RE.search(name)


def _defined_acronyms(text: str) -> set[str]:
    """Every ``(ACR)`` that directly follows a word: an abbreviation the text defines for something else."""
    return {m.group(1) for m in _PAREN_ANY_RE.finditer(text) if m.start() and text[m.start() - 1] in _ACR_LEFT}


_BREAK_BEFORE_ACR_RE = re.compile(r"[;.]\s|\b(?:which|that|where|such as|including|based on|e\.g|i\.e)\b")
_AFTER_ACR_OK = word_set(
    "that which to for as with where whereby wherein whose in on by and is are a an the via using from of"
)
_NEXT_WORD_RE = re.compile(r"\s*([A-Za-z]+)")
# Words that open a description after "NAME, ...": "We propose Vegas, a method ..." names Vegas.
_DESCRIPTION_OPENERS = word_set("a an the which that our one two three consisting comprising")


def name_from_claim(rest: str, loose: bool = False) -> tuple[str | None, str | None]:
    """Name introduced right after a contribution verb: acronym pair first, else a name followed by ', a ...'."""
    clause = rest
    # (a) Long Form (ACR) within the first dozen words after the verb
    for m in _PAREN_ACR_RE.finditer(clause, 0, 200):
        acr = m.group(1).strip()
        between = clause[: m.start()]
        if not between.strip() or _BREAK_BEFORE_ACR_RE.search(between):
            break
        nxt = _NEXT_WORD_RE.match(clause, m.end())
        if nxt and nxt.group(1).islower() and nxt.group(1) not in _AFTER_ACR_OK:
            continue  # "distributional dynamic programming (DP) methods": a modifier, not a name
        if _is_acronymish(acr) and not _common(acr) and _valid_name(acr):
            return acr, between
    # (b) a name right after the verb
    found = _NAME_AFTER_VERB_RE.match(clause)
    if found:
        name = found.group("name").strip()
        after = found.group("after") or ""
        next_word = (found.group("next") or "").lower()
        ok = False
        if found.group("rel"):
            ok = True
        elif after.lstrip().startswith(("(",)):
            ok = False
        elif after.strip().startswith((",", ":", "—", "–", "-")):
            ok = next_word in _DESCRIPTION_OPENERS
            ok = ok or (len(name.split()) == 1 and _is_coined(name)) or next_word.endswith("ing")
        elif not after.strip():
            ok = len(name.split()) == 1 and (_is_coined(name) or name[:1].isupper())
        if loose and after.strip()[:1] in (",", ".", ";", ":", ")", ""):
            ok = True
        parts = name.split()
        if len(parts) > 1 and not any(_is_coined(p) for p in parts):
            # "Preference Learning", "Proactive Document-Guided Action": a phrase, not a name
            ok = False
        if ok and _valid_name(name):
            return name, None
    return None, None


_CALLED_RE = re.compile(r"\b(?:called|named|dubbed|termed|coined|denoted)\s+(?:as\s+)?")
_REPO_GENERIC = word_set(
    """code codes src source main master repo repository project projects paper papers release official
    implementation impl demo home page website site github io index anonymous r tree blob"""
)


def _repo_name(url: str | None) -> str | None:
    """Coined repository name from a code URL (``github.com/FFY0/DefensiveKV`` → ``DefensiveKV``)."""
    if not url:
        return None
    try:
        parts = urlsplit(url if "://" in url else "https://" + url)
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    segs = [p for p in parts.path.split("/") if p]
    cand: str | None = None
    if host.endswith(".github.io"):
        cand = segs[0] if segs else None
        if cand:
            cand = re.sub(r"\.github\.io$", "", cand, flags=re.I)
    elif host == "anonymous.4open.science":
        cand = segs[1] if len(segs) >= 2 and segs[0] in ("r", "anonymize") else None
        if cand:
            cand = re.sub(r"-[0-9A-F]{4}$", "", cand)
    elif len(segs) >= 2:
        cand = segs[1] if host != "huggingface.co" or segs[0] not in ("datasets", "spaces") else segs[-1]
    if not cand:
        return None
    cand = re.sub(r"\.git$", "", cand)
    if cand.count("-") > 2 or any(p.islower() and len(p) <= 3 for p in cand.split("-")[1:]):
        return None  # "Spectral-Energy-Shifts-in-GAD" is a description, not a name
    if cand.lower() in _REPO_GENERIC or not re.fullmatch(r"[A-Za-z][A-Za-z0-9-]{1,30}", cand):
        return None
    has_internal_cap = any(c.isupper() for c in cand[1:]) and any(c.islower() for c in cand)
    if has_internal_cap and not _common(cand):
        return cand
    if cand.isupper() and 3 <= len(cand) <= 10 and not _common(cand):
        return cand
    return None


def derive_name(abstract: str, code_url: str | None = None) -> str | None:
    """Return the short name a paper introduces (``Vegas``, ``RACO``, ``μA``) or None, for titles and search."""
    if not abstract or not abstract.strip():
        return _repo_name(code_url)
    text = to_plain_text(abstract)
    found = _claimed_name(text) or _called_name(text) or _our_name(text)
    if found:
        return found
    # (e, strong) repository name that also appears in the abstract
    repo = _repo_name(code_url) or _repo_name(next((u for u in urls(abstract) if is_code_url(u)), None))
    if repo and repo in text and repo in _TOKEN_RE.findall(text):
        return repo
    # (d) a coined token repeated, else (e) the repository name alone
    return _repeated_name(text) or repo


def _claimed_name(text: str) -> str | None:
    """(a)/(b): the name right after a contribution verb, in any sentence (strongest evidence first)."""
    sentences = split_sentences(text)
    for wanted in (0, 1):  # "we propose/introduce X" before "we formulate ... as Y (ACR)"
        for sent in sentences:
            for rank, _verb, rest in claims(sent):
                if rank != wanted:
                    continue
                name, _long = name_from_claim(rest)
                if name:
                    return name
    return None


def _called_name(text: str) -> str | None:
    """A name given with "called/named/dubbed/termed NAME"."""
    for m in _CALLED_RE.finditer(text):
        cand, _long = name_from_claim(text[m.end() : m.end() + 200].split(". ", 1)[0], loose=True)
        if cand and not _common(cand):
            return cand
    return None


def _our_name(text: str) -> str | None:
    """(c) "our NAME framework"."""
    for m in _OUR_NAME_RE.finditer(text):
        cand = m.group(1).strip(".")
        if _is_coined(cand) and _valid_name(cand) and not _common(cand):
            return cand
    return None


def _repeated_name(text: str) -> str | None:
    """(d) a coined token repeated at least twice that is not an acronym of something else (camel case before all
    capitals, then the most repeated, then the first)."""
    acronyms = _defined_acronyms(text)
    counts, first = _coined_tokens(text)
    best: tuple[int, int, int, str] | None = None
    for tok, n in counts.items():
        if n < 2 or tok in acronyms or tok.rstrip("s") in acronyms:
            continue
        if len(tok) < 3 or (tok.isupper() and sum(c.isalpha() for c in tok) < 3):
            continue
        if tok.lower() in _GENERIC_NAME_WORDS:
            continue
        camel = 0 if any(c.islower() for c in tok) else 1  # prefer HiDe over an all-caps token
        key = (camel, -n, first[tok], tok)
        if best is None or key < best:
            best = key
    return best[3] if best else None


def _coined_tokens(text: str) -> tuple[dict[str, int], dict[str, int]]:
    """How often each coined token occurs (links left out), and the position of its first occurrence."""
    counts: dict[str, int] = {}
    first: dict[str, int] = {}
    bare = BARE_URL_RE.sub(" ", text) if "." in text else text
    for i, m in enumerate(_TOKEN_RE.finditer(bare)):
        tok = m.group().rstrip(".-")
        rest = tok[1:]
        if (rest.islower() or not rest) and not _DIGIT_RE.search(rest):
            continue  # cheap pre-check: no inner capital and no digit, so not coined
        if tok.endswith(("'s", "’s")):
            tok = tok[:-2]
        if not _is_coined(tok) or _common(tok) or _PLURAL_ACR_RE.match(tok) or "." in tok:
            continue
        if _ADJ_TAIL_RE.search(tok):
            continue  # "AC-trivial", "LLM-based": an adjective built on an acronym
        if tok.endswith("s") and tok[:-1] in counts:
            tok = tok[:-1]  # "InvGNNs" counts for "InvGNN"
        counts[tok] = counts.get(tok, 0) + 1
        first.setdefault(tok, i)
    return counts, first


_GENERIC_TITLE_PREFIX = word_set(
    """position survey overview review introduction tutorial perspective perspectives commentary abstract preface
    erratum correction corrigendum note notes editorial keynote report vision opinion rebuttal summary conclusion
    beyond on towards toward rethinking revisiting understanding when why how what where which who is are do does
    can should learning scaling not no less more closing breaking bridging unlocking mind lost from into through
    against tracing mapping measuring benchmarking evaluating escaping stop don't one the a an"""
)
_TITLE_PAREN_ACR_RE = re.compile(r"\(([^\W_][\w²³¹⁰-⁹₀-₉-]{1,15})\)\s*$")


def name_from_title(title: str) -> str | None:
    """Return the system name a title leads with (``TokSuite: Measuring ...`` → ``TokSuite``), else None."""
    if not title or ":" not in title:
        return None
    text = to_plain_text(title)
    if ":" not in text:
        return None
    head = text.split(":", 1)[0].strip()
    if not head:
        return None
    m = _TITLE_PAREN_ACR_RE.search(head)
    if m and _is_acronymish(m.group(1)):
        return m.group(1)
    tokens = head.split()
    if not 1 <= len(tokens) <= 4 or len(head) > 40:
        return None
    if tokens[0].lower().strip("'’") in _GENERIC_TITLE_PREFIX:
        return None
    if len(tokens) == 1:
        tok = tokens[0]
        if len(tok) < 2 or (tok.lower().endswith("ing") and tok[1:].islower()):
            return None
        return tok
    if any(t.isalpha() and t.islower() for t in tokens) or any(t.lower() in _LOWER_FUNC_WORDS for t in tokens):
        return None  # "RePack then Refine", "Reasoning in LLMs": a phrase, not a name
    if any(_is_coined(t) and not _common(t) for t in tokens):
        return head
    if any(any(c.isdigit() for c in t) for t in tokens[1:]) and not tokens[0].lower().endswith("ing"):
        return head  # "NaturalSpeech 3", "Gemma 3"
    return None


def name_key(name: str) -> str:
    """Names compare by letters and digits only: `Knapsack RL`, `knapsack-rl` and `KnapsackRL` are one name."""
    return "".join(c for c in unicodedata.normalize("NFKC", name).casefold() if c.isalnum())
