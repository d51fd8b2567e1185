"""Shared by the robustness tests and bench/abuse/robustness.py: input strategies, the checks every Slack message must
pass, a real `icml-bot serve` process, a signed-request load driver, and a snapshot of what users created."""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from hypothesis import strategies as st
from slack_sdk.models.blocks import Block

from bot.papers.row import PaperRow
from bot.slack import blocks
from tests.support import block_checks
from tests.support.seed_ids import DEFENSIVE_KV
from tests.support.slack_requests import form_body, sign, slash_form

ROOT = Path(__file__).resolve().parents[2]

# ---------------------------------------------------------------------- inputs

# Pieces people (and attackers) type: Slack markup, entities, query operators, subcommands, odd Unicode.
SLACK_BITS = (
    "<!channel>",
    "<!here>",
    "<!everyone>",
    "@channel",
    "@here",
    "@Everyone",
    "<@U12345>",
    "<@W0ABC>",
    "<#C12345|general>",
    "<https://evil.example|x>",
    "<mailto:a@b.c>",
    "&lt;!here&gt;",
    "&amp;",
    "&lt;",
    "&gt;",
    "&",
    "<",
    ">",
    "|",
    "*",
    "_",
    "~",
    "`",
    "```",
    "\n>",
    "\n",
    "\t",
    "\r",
    "\u200b",
    "\ufeff",
    "\u202e",
    "\x00",
    "\x1b",
    "\u2028",
    "é",
    "漢字",
    "🙂",
    "👩‍🔬",
    '"',
    "'",
    "“",
    "”",
    "-",
    "--",
    ":",
    "author:",
    "status:oral",
    "status:",
    "has:code",
    "has:",
    "title:",
    "-title:",
    "AND",
    "OR",
    "NOT",
    "NEAR(",
    "(",
    ")",
    "{",
    "}",
    "^",
    "+",
    "kv",
    "cache",
    "kv-cache",
    "speculative",
    "decoding",
    "MoE",
    "RAG",
    "Vegas",
    "DefensiveKV",
    "paper",
    "similar",
    "random",
    "stats",
    "digest",
    "help",
    "subscribe",
    "unsubscribe",
    "status",
    "preview",
    "now",
    "at",
    "09:00",
    "25:99",
    "Asia/Seoul",
    "Mars/Base",
    "KST",
    "on",
    "mon-fri",
    "xyz-abc",
    "3",
    "papers",
    "99",
    "all",
    " ",
    "  ",
)
slack_text = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(st.sampled_from(SLACK_BITS), st.text(max_size=6)), max_size=40).map(" ".join),
    st.lists(st.sampled_from(SLACK_BITS), max_size=40).map("".join),
)
"""Anything a user could put after `/icml` or after a mention."""

paper_text = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=600),
    st.lists(st.one_of(st.sampled_from(SLACK_BITS), st.text(max_size=8)), max_size=60).map(" ".join),
)
"""Any field of a paper record (titles, abstracts, authors, sessions, URLs)."""

urls = st.one_of(
    st.none(),
    paper_text,
    st.sampled_from(
        [
            "https://openreview.net/forum?id=abc&x=<1>",
            "javascript:alert(1)",
            "https://a.org/a|b>c",
            "http://x",
            "ftp://x",
            "https://github.com/a/b>|<!here>",
            "https://" + "a" * 3100,
            "  https://ok.example/p  ",
        ]
    ),
)


@st.composite
def papers(draw: st.DrawFn, paper_id: str | None = None) -> PaperRow:
    """A paper as the index hands it to the Slack layer, with hostile text in every field."""
    title = draw(paper_text)
    return cast(  # the columns the Slack layer reads
        PaperRow,
        {
            "id": paper_id
            or draw(st.one_of(st.text(min_size=1, max_size=40), st.sampled_from(["evil0001", DEFENSIVE_KV]))),
            "name": draw(st.one_of(st.none(), paper_text.map(lambda t: t[:40]))),
            "title": title,
            "headline": draw(paper_text),
            "abstract": draw(st.one_of(paper_text, st.text(max_size=9000))),
            "authors": draw(st.lists(paper_text.map(lambda t: t[:80]), max_size=40)),
            "url": draw(urls),
            "pdf_url": draw(urls),
            "code_url": draw(urls),
            "status": draw(st.one_of(st.none(), st.sampled_from(["Oral", "Spotlight", "Poster"]), paper_text)),
            "session": draw(st.one_of(st.none(), paper_text)),
            "area": draw(st.one_of(st.none(), paper_text)),
        },
    )


FIELD_NAMES = (
    "id",
    "paper_id",
    "title",
    "abstract",
    "abs",
    "summary",
    "authors",
    "author",
    "url",
    "pdf_url",
    "code_url",
    "github",
    "status",
    "decision",
    "session",
    "area",
    "topic",
    "conference",
    "year",
    "track",
    "keywords",
    "tags",
)
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), paper_text),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)
record = st.dictionaries(st.one_of(st.sampled_from(FIELD_NAMES), st.text(max_size=10)), json_values, max_size=10)
good_record = st.fixed_dictionaries(
    {"title": paper_text, "abstract": st.text(min_size=80, max_size=1500)},
    optional={
        "authors": st.one_of(paper_text, st.lists(paper_text, max_size=6)),
        "url": urls,
        "code_url": urls,
        "status": paper_text,
        "session": paper_text,
        "id": st.text(max_size=20),
    },
)


@st.composite
def jsonl_files(draw: st.DrawFn) -> bytes:
    """A JSON Lines file: mostly paper objects, sometimes other JSON, blank lines or garbage."""
    lines = draw(
        st.lists(
            st.one_of(
                good_record.map(json.dumps),
                record.map(json.dumps),
                json_values.map(json.dumps),
                st.sampled_from(["", "   ", "{", "[1,", '{"title": "x"', "\ufeff{}", "null"]),
                st.text(max_size=50),
            ),
            min_size=1,
            max_size=8,
        )
    )
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        return data
    return data + draw(st.binary(max_size=40))  # sometimes bytes that are not UTF-8 at the end


@st.composite
def csv_files(draw: st.DrawFn) -> bytes:
    """A CSV file: a header naming (mostly) our fields, rows of hostile text, sometimes ragged or badly quoted."""
    import csv
    import io

    header = draw(st.lists(st.one_of(st.sampled_from(FIELD_NAMES), st.text(max_size=8)), min_size=0, max_size=8))
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=draw(st.sampled_from([",", "\t", ";"])))
    if header:
        writer.writerow(header)
    for row in draw(
        st.lists(st.lists(st.one_of(paper_text, st.text(min_size=80, max_size=400)), max_size=10), max_size=6)
    ):
        writer.writerow(row)
    text = buf.getvalue()
    if draw(st.booleans()):
        text += draw(st.sampled_from(['"unterminated,quote\n', "a,b,c,d,e,f,g,h,i,j,k\n", "\x00\n", '"",""\n']))
    return text.encode("utf-8", "surrogatepass")


@st.composite
def seed_files(draw: st.DrawFn) -> bytes:
    """The seed format: an optional header, then paragraphs (some too short, some with LaTeX and markup)."""
    header = draw(
        st.one_of(
            st.just(""),
            st.sampled_from(["ICML 2026 论文列表\n\n", "NeurIPS'25\n", "x.\n"]),
            paper_text.map(lambda t: t[:100] + "\n"),
        )
    )
    paragraphs = draw(
        st.lists(
            st.one_of(
                paper_text,
                st.text(min_size=80, max_size=1200),
                st.sampled_from(["We propose $\\alpha$-Net \\textbf{x} " * 4, "Code: https://github.com/a/b. " * 4]),
            ),
            max_size=6,
        )
    )
    sep = draw(st.sampled_from(["\n\n", "\r\n\r\n", "\n \n\n", "\r\r"]))
    return (header + sep.join(paragraphs)).encode("utf-8", "surrogatepass")


# ---------------------------------------------------------------------- what every message must satisfy

_LOOSE_AMP = re.compile(r"&(?!(?:amp|lt|gt);)")
_OUR_MARKUP = re.compile(r"<(?:https?://[^|<>\s]+(?:\|[^<>|]*)?|@[UW][A-Z0-9]+|#[CG][A-Z0-9]+)>")  # (channels: history)
_MENTION = re.compile(r"<@([UW][A-Z0-9]+)>")
_TYPED_MENTION = re.compile(r"@(?:channel|here|everyone)\b", re.IGNORECASE)  # Slack may parse it without `verbatim`


def mrkdwn_objects(node: Any) -> Iterator[dict[str, Any]]:
    """Every mrkdwn text object in a message's blocks (or a view)."""
    if isinstance(node, dict):
        if node.get("type") == "mrkdwn" and isinstance(node.get("text"), str):
            yield node
        for value in node.values():
            yield from mrkdwn_objects(value)
    elif isinstance(node, list):
        for item in node:
            yield from mrkdwn_objects(item)


def texts_of(msg: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(where, "mrkdwn" | "plain_text", text) for the fallback and every text object in the blocks."""
    yield "text", "mrkdwn", str(msg.get("text") or "")

    def walk(node: Any, where: str) -> Iterator[tuple[str, str, str]]:
        if isinstance(node, dict):
            if node.get("type") in ("mrkdwn", "plain_text") and isinstance(node.get("text"), str):
                yield where, node["type"], node["text"]
            for key, value in node.items():
                yield from walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for i, item in enumerate(node):
                yield from walk(item, f"{where}[{i}]")

    yield from walk(msg.get("blocks") or [], "blocks")


def message_problems(msg: dict[str, Any], users: Iterable[str] = ()) -> list[str]:
    """Every way `msg` breaks Block Kit's limits or lets user/paper text ping, link or break out of its markup.

    `users` are the user ids the bot itself means to mention (the one who shared a paper).
    """
    found = list(block_checks.problems(msg))
    allowed = set(users)
    if not str(msg.get("text") or "").strip():
        found.append("no text fallback")
    if len(msg.get("blocks") or []) > blocks.MAX_BLOCKS:
        found.append("more than 50 blocks")
    for where, kind, text in texts_of(msg):
        if kind == "plain_text":
            if "<" in text or ">" in text:
                found.append(f"{where}: angle bracket in plain_text {text[:80]!r}")
            continue
        if amp := _LOOSE_AMP.search(text):
            found.append(f"{where}: raw & in mrkdwn {text[amp.start() :][:40]!r}")
        rest = _OUR_MARKUP.sub("", text)
        if "<" in rest or ">" in rest:
            found.append(f"{where}: raw < or > in mrkdwn {text[:120]!r}")
        found.extend(f"{where}: mentions {m}" for m in _MENTION.findall(text) if m not in allowed)
        found.extend(f"{where}: typed special mention {m!r}" for m in _TYPED_MENTION.findall(text))
    found.extend(
        f"mrkdwn without verbatim: {o['text'][:80]!r}"
        for o in mrkdwn_objects(msg.get("blocks"))
        if not o.get("verbatim")
    )
    for i, block in enumerate(msg.get("blocks") or []):
        if len(str(block.get("block_id") or "")) > 255:
            found.append(f"block {i}: block_id over 255")
        if block.get("type") == "context" and len(block.get("elements") or []) > blocks.MAX_CONTEXT_ELEMENTS:
            found.append(f"block {i}: more than 10 context elements")
        elements = [*(block.get("elements") or []), *([block["accessory"]] if block.get("accessory") else [])]
        for element in elements:
            if element.get("type") == "button":
                if len(element["text"]["text"]) > blocks.MAX_BUTTON_TEXT:
                    found.append(f"block {i}: button text over 75")
                if len(element.get("value", "")) > blocks.MAX_BUTTON_VALUE:
                    found.append(f"block {i}: button value over 2000")
        try:
            parsed = Block.parse(block)
            assert parsed is not None, f"block {i}: not a block"
            parsed.to_dict()  # slack_sdk's own limits
        except Exception as exc:  # SlackObjectFormationError and friends
            found.append(f"block {i}: slack_sdk rejects it: {exc}")
    try:
        json.dumps(msg)
    except (TypeError, ValueError) as exc:
        found.append(f"not JSON: {exc}")
    return found


# ---------------------------------------------------------------------- what users created (data lost = 0)


def snapshot(state_path: Path) -> dict[str, set[tuple[Any, ...]]]:
    """The rows that must survive anything: subscriptions, posted digests and the papers they showed."""
    conn = sqlite3.connect(f"file:{state_path}?mode=ro", uri=True, timeout=30)
    try:
        return {
            "subscriptions": set(
                conn.execute("SELECT channel, topics, at, tz, days, size, active FROM digest_subscriptions")
            ),
            "digests": set(conn.execute("SELECT channel, day, ts, papers FROM digest_runs WHERE status = 'posted'")),
            "papers shown": set(conn.execute("SELECT channel, round, paper_id, day FROM digest_papers")),
        }
    finally:
        conn.close()


def lost(before: dict[str, set[tuple[Any, ...]]], after: dict[str, set[tuple[Any, ...]]]) -> dict[str, int]:
    """Rows present before and missing (or changed) after, per table."""
    return {name: len(rows - after.get(name, set())) for name, rows in before.items()}


# ---------------------------------------------------------------------- a real `icml-bot serve` process

SLACK_VARS = (
    "SLACK_BOT_TOKEN",
    "SLACK_APP_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_API_URL",
    "SLACK_CLIENT_ID",
    "SLACK_CLIENT_SECRET",
)


def bot_env(api_url: str, index_path: Path, state_path: Path | str, **extra: str) -> dict[str, str]:
    """The environment of a bot process talking to a fake Slack: no real credentials, proxies or ICML_ settings."""
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in SLACK_VARS and not k.lower().endswith("_proxy") and not k.startswith("ICML_")
    }
    return {
        **base,
        "PYTHONPATH": str(ROOT),
        "ICML_BOT_DB": str(index_path),
        "ICML_BOT_STATE": str(state_path),
        "SLACK_API_URL": api_url,
        **extra,
    }


class BotProcess:
    """`icml-bot ARGS` in its own process, its stderr collected line by line."""

    def __init__(self, args: list[str], env: dict[str, str], module: bool = True) -> None:
        """Start it; `module=False` runs `python ARGS` instead of `python -m bot ARGS` (benchmarks' other servers)."""
        self.proc = subprocess.Popen(
            [sys.executable, *(["-m", "bot"] if module else []), *args],
            cwd=ROOT,
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None  # started with stderr=PIPE
        for line in self.proc.stderr:
            self.lines.put(line)

    @property
    def pid(self) -> int:
        """The process id (for /proc/PID/status)."""
        return self.proc.pid

    def log(self) -> str:
        """Everything written to stderr so far."""
        return "".join(list(self.lines.queue))

    def wait_for(self, pattern: str, timeout: float = 60, nth: int = 1) -> re.Match[str]:
        """The `nth` stderr line matching `pattern`; AssertionError with the log after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            ended = self.proc.poll() is not None
            if ended:
                self._reader.join(timeout=5)  # everything the process wrote is in self.lines now
            matches = [m for m in (re.search(pattern, line) for line in list(self.lines.queue)) if m]
            if len(matches) >= nth:
                return matches[nth - 1]
            if ended or time.monotonic() > deadline:
                raise AssertionError(f"no log line matching {pattern!r} (exit {self.proc.poll()}):\n{self.log()}")
            time.sleep(0.02)

    def peak_memory_mb(self) -> float:
        """The process's peak resident memory so far (VmHWM), in MiB."""
        status = Path(f"/proc/{self.pid}/status").read_text()
        peak = re.search(r"VmHWM:\s+(\d+) kB", status)
        assert peak is not None
        return int(peak.group(1)) / 1024

    def terminate(self, timeout: float = 30) -> int:
        """SIGTERM, then wait for the exit status (killed after `timeout` s)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self.kill()

    def kill(self) -> None:
        """Make sure the process is gone."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout=5)


def serve_http(
    api_url: str, index_path: Path, state_path: Path | str, secret: str, *, args: Sequence[str] = (), **extra: str
) -> tuple[BotProcess, int]:
    """`icml-bot serve --http [ARGS]` on 127.0.0.1 (a free port); returns the process and its port once it serves."""
    env = bot_env(api_url, index_path, state_path, SLACK_BOT_TOKEN="xoxb-test", SLACK_SIGNING_SECRET=secret, **extra)
    bot = BotProcess(["serve", "--http", "--host", "127.0.0.1", "--port", "0", *args], env)
    try:
        port = int(bot.wait_for(r"serving HTTP on http://127\.0\.0\.1:(\d+)/slack/events").group(1))
    except AssertionError:
        bot.kill()
        raise
    return bot, port


# ---------------------------------------------------------------------- load: signed slash commands, bounded


QUERIES = (
    "kv cache",
    "kv cahce",
    "speculative decoding",
    "diffusion models",
    "mixture of experts",
    "MoE",
    "RAG",
    "graph neural networks",
    "in-context learning",
    "vision transformer",
    "federated learning privacy",
    "protein structure",
    "LLM agents tool use",
    "quantization",
    "low rank adaptation",
    "world models",
    "GRPO",
    "speculatve decodng",
    "help",
    "stats",
    "random",
    "paper vegas",
    "similar vegas",
    "status:oral attention",
    "author:smith",
    '"sparse attention" -vision',
    "has:code tokenizer",
)


@dataclass
class LoadResult:
    """What a load run measured: one latency per request (seconds) and what went wrong."""

    seconds: float
    clients: int
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def requests(self) -> int:
        """Requests sent (answered or not)."""
        return len(self.latencies)

    def percentile(self, q: float) -> float:
        """The q-th percentile latency in ms (nearest rank)."""
        ordered = sorted(self.latencies)
        return 1000 * ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))] if ordered else 0.0

    @property
    def slow(self) -> int:
        """Acks slower than Slack's 3 seconds."""
        return sum(latency > 3.0 for latency in self.latencies)

    def summary(self) -> str:
        """One line of figures."""
        p50 = statistics.median(self.latencies) * 1000 if self.latencies else 0.0
        return (
            f"{self.requests:,} requests from {self.clients} clients in {self.seconds:.0f} s "
            f"({self.requests / max(self.seconds, 1e-9):,.0f}/s): p50 {p50:.0f} ms, p99 {self.percentile(99):.0f} "
            f"ms, max {max(self.latencies, default=0) * 1000:.0f} ms, errors {len(self.errors)}, "
            f"acks over 3 s {self.slow}"
        )


def slash_load(
    port: int, secret: str, seconds: float, clients: int, queries: Iterable[str] = QUERIES, check_every: int = 10
) -> LoadResult:
    """`clients` threads send signed `/icml` commands to 127.0.0.1:`port` for `seconds`, each on a new connection.

    Every `check_every`-th answer of each client is also checked against Slack's limits (checking costs the client
    CPU that the server would otherwise get).
    """
    chosen = list(queries)
    result = LoadResult(seconds, clients)
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def client(n: int) -> None:
        sent = 0
        while time.monotonic() < deadline:
            body = form_body(slash_form(chosen[(n + sent) % len(chosen)], user_id=f"U{n:04d}"))
            headers = {"Content-Type": "application/x-www-form-urlencoded", **sign(secret, body)}
            started = time.perf_counter()
            error = ""
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                conn.request("POST", "/slack/events", body=body, headers=headers)
                resp = conn.getresponse()
                payload = resp.read()
                conn.close()
                if resp.status != 200:
                    error = f"HTTP {resp.status}"
                elif sent % check_every == 0 and (problems := message_problems(json.loads(payload))):
                    error = f"bad message: {problems[0]}"
            except (OSError, http.client.HTTPException, ValueError) as exc:
                error = f"{type(exc).__name__}: {exc}"
            took = time.perf_counter() - started
            sent += 1
            with lock:
                result.latencies.append(took)
                if error:
                    result.errors.append(error)

    threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 30)
    result.seconds = time.monotonic() - started
    return result
