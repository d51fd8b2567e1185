"""Links found in raw abstracts, in order, with the code link picked out."""

from __future__ import annotations

from bot import text
from tests.support.marks import mrkdwn
from tests.text.samples import seed_with


def test_seed_urls(seeds: list[str]) -> None:
    defensive = seed_with(seeds, "attention output perturbation")
    assert text.urls(defensive) == ["https://github.com/FFY0/DefensiveKV"]
    assert text.code_url(defensive) == "https://github.com/FFY0/DefensiveKV"
    assert text.code_url(seed_with(seeds, "verification-guided sparse attention")) == (
        "https://github.com/platformxlab/vegas"
    )
    assert text.code_url(seed_with(seeds, "Online prompt selection")) == "https://github.com/thu-rllab/GPS"
    assert text.code_url(seed_with(seeds, "high-resolution images")) == "https://tennine2077.github.io/HiDe.github.io/"
    assert text.code_url(seed_with(seeds, "Tokenizers provide the fundamental basis")) is None


def test_urls() -> None:
    raw = (
        "Code: https://github.com/a/b_c). See \\url{https://x.io/p?q=1}. "
        "[here](https://huggingface.co/org/Model) and (https://example.com/x_(y)) or github.com/u/repo."
    )
    assert text.urls(raw) == [
        "https://github.com/a/b_c",
        "https://x.io/p?q=1",
        "https://huggingface.co/org/Model",
        "https://example.com/x_(y)",
        "https://github.com/u/repo",
    ]
    assert text.code_url("Project page: https://foo.github.io/bar/.") == "https://foo.github.io/bar/"
    assert text.code_url("see https://arxiv.org/abs/1 and https://gitlab.com/a/b,") == "https://gitlab.com/a/b"
    assert text.code_url("see https://arxiv.org/abs/1") is None
    # underscores, tildes and percents inside URLs survive the Markdown/LaTeX passes
    assert mrkdwn("at https://x.org/a_b_c/~u/%20d.") == "at https://x.org/a_b_c/~u/%20d."
