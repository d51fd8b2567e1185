"""A morning digest for W workspaces x C channels due at one minute, on R replicas and a rate-limiting fake Slack.

W installed workspaces x C subscribed channels, all due at the same minute, served by R `icml-bot serve --http`
replicas on one PostgreSQL, against a fake Slack that enforces Slack's limits.

Run: python -m bench fanout [--workspaces 1000] [--channels 10] [--replicas 3] [--quick] [--outage 60]
     [--load-seconds 20] [--clients 4] [--rate 20] [--takeover 90] [--seeds-only] [--no-faults] [--idle-seconds 30]
`--quick`: 100 workspaces x 5 channels on the 19 bundled abstracts, a 10 s outage, 10 s of load. The run with faults
lasts over 10 minutes whatever the size: the digests the killed replica was posting wait until their claims are 10
minutes old (`--no-faults` skips that run).

Setup: the 5,863-paper index (seeds merged with ../shared/data/icml2026.jsonl), a throwaway PostgreSQL
(tests/support/postgres.py), the fake Slack in a process of its own with its rate limits on (tests/support/
slack_limits.py: chat.postMessage about 1/s per channel and a workspace-wide 300/min with bursts of 10, views.publish
and conversations.history by tier, 429 with Retry-After), and W workspaces written straight into the installation
store (each with its own bot token, as "Add to Slack" leaves them). Each channel subscribes to a digest at the same
minute (topics drawn from a short list, or none), and R replicas start as behind a load balancer.

Two fan-outs, each on a fresh database:
1. clean: signed `/icml` commands, `--rate` a second from `--clients` clients (spread over the replicas, from the
   installed workspaces), for `--load-seconds` before the digests are due (the baseline), and the same from the due
   minute until every digest is in Slack; then the replicas' CPU for `--idle-seconds` with nothing left to post;
2. faults, in order as the digests go out: `kill -9` of the replica that posts (a supervisor starts it again), a
   restart of PostgreSQL, a burst of 5xx from chat.postMessage (half of them after Slack did post the message), and
   Slack unreachable (connections refused) for `--outage` seconds.
Reported for each: the time from the due minute until the last digest is in its channel, beside the floor Slack's
limits allow (each workspace's posts at its own limits, every workspace at once); duplicates and digests lost, read
from the channels' histories in the fake Slack (both must be 0); the p99 of `/icml` answers during the fan-out beside
the baseline; each replica's memory (RSS) idle and at its peak. Exit status 1 on a duplicate, a loss, or a fan-out
unfinished at its deadline.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import multiprocessing
import os
import random
import re
import signal
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from bench.common import ICML2026, build_index
from tests.support.processes import children
from tests.support.robust import QUERIES, BotProcess, LoadResult, serve_http
from tests.support.slack_limits import SlackLimits
from tests.support.slack_oauth import CLIENT_ID, CLIENT_SECRET
from tests.support.slack_requests import form_body, sign, slash_form

SECRET = "fanout-bench-signing-secret"
TOPICS = (
    *("", "", ""),  # three in thirteen channels take every paper, in the default order
    *("kv cache", "diffusion models", "reinforcement learning", "graph neural networks", "quantization"),
    *("mixture of experts", "speculative decoding", "federated learning", "protein structure", "world models"),
)
# A fan-out not finished this long after its due minute is reported unfinished
DEADLINE_SECONDS = 900
TICK = os.sysconf("SC_CLK_TCK")
# The due minute is at least this far after the replicas are up and the baseline was measured
LEAD_SECONDS = 40


# ---------------------------------------------------------------------- the fake Slack, in a process of its own


def fake_slack_process(conn: Connection) -> None:
    """Serve a FakeSlack with Slack's limits on and do what the bench asks over `conn` (one reply per request)."""
    from tests.support.fake_slack import FakeSlack

    with FakeSlack() as fake:
        fake.limits.enable(SlackLimits())
        conn.send(fake.api_url)
        while True:
            what, args = conn.recv()
            if what == "stop":
                conn.send(None)
                return
            conn.send(_fake_command(fake, what, args))


def _fake_command(fake: Any, what: str, args: tuple[Any, ...]) -> Any:
    if what == "install":
        return {team: fake.oauth.installed(team) for team in args[0]}
    if what == "reset":
        fake.reset()
        return None
    if what == "fail":
        method, error, status, times, carried_out = args
        fake.fail_next(method, error, status=status, times=times, carried_out=carried_out)
        return None
    if what == "offline":
        fake.offline()
        return None
    if what == "online":
        fake.online()
        return None
    if what == "digests":  # every digest message in the channels: (team, channel, date) and its ts
        found = []
        with fake._cond:
            channels = list(fake.web._messages)
        for channel in channels:
            for message in fake.history(channel):
                payload = (message.get("metadata") or {}).get("event_payload") or {}
                if (message.get("metadata") or {}).get("event_type") == "icml_digest":
                    found.append((payload.get("team", ""), channel, payload.get("date"), float(message["ts"])))
        return found
    if what == "count":
        with fake._cond:
            return sum(
                1
                for msgs in fake.web._messages.values()
                for m in msgs
                if (m.get("metadata") or {}).get("event_type") == "icml_digest"
            )
    if what == "refused":
        return dict(fake.limits.refused)
    if what == "calls":
        return Counter(c.method for c in fake.calls())
    raise ValueError(what)


class Slack:
    """The bench's handle on the fake Slack process."""

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=fake_slack_process, args=(child,), daemon=True)
        self.proc.start()
        self.api_url: str = self.conn.recv()
        self._lock = threading.Lock()

    def ask(self, what: str, *args: Any) -> Any:
        with self._lock:
            self.conn.send((what, args))
            return self.conn.recv()

    def stop(self) -> None:
        if self.proc.is_alive():
            self.ask("stop")
        self.proc.join(timeout=10)


# ---------------------------------------------------------------------- the workspaces and their subscriptions


@dataclass
class Fleet:
    """The installed workspaces (team → token) and their subscribed channels (team, channel)."""

    tokens: dict[str, str]
    channels: list[tuple[str, str]]


def make_fleet(workspaces: int, channels: int, seed: int = 39) -> tuple[list[str], list[tuple[str, str]]]:
    """Workspace ids and channel ids as Slack makes them (random-looking, unique), channels per workspace."""
    rng = random.Random(seed)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    seen: set[str] = set()

    def slack_id(prefix: str) -> str:
        while True:
            made = prefix + "".join(rng.choice(alphabet) for _ in range(10))
            if made not in seen:
                seen.add(made)
                return made

    teams = [slack_id("T") for _ in range(workspaces)]
    return teams, [(team, slack_id("C")) for team in teams for _ in range(channels)]


def config_for(index_path: Path, url: str) -> Any:
    """The Config a replica builds from its environment, for the bench's own writes into the state."""
    from tests.support.digest import config

    return config(index_path, url, client_id=CLIENT_ID, client_secret=CLIENT_SECRET, bot_token="")


def prepare_state(index_path: Path, url: str, fleet: Fleet, due: datetime) -> None:
    """Migrate the database, write the installations and one subscription per channel, all due at `due` (UTC)."""
    from bot.state import State
    from bot.state.digests import SubscriptionRow
    from tests.support.slack_install import write_installations

    state = State(url)
    try:
        write_installations(config_for(index_path, url), fleet.tokens)
        rng = random.Random(9)
        made = time.time()
        with state.immediate():
            for team, channel in fleet.channels:
                state.digests.save_subscription(
                    SubscriptionRow(
                        channel=channel,
                        team=team,
                        enterprise="",
                        topics=rng.choice(TOPICS),
                        at=f"{due:%H:%M}",
                        tz="UTC",
                        days="mon-sun",
                        size=3,
                        source="slack",
                        active=True,
                        created_by="UADMIN",
                        created_at=made,
                        updated_at=made,
                        schedule_from=made,
                        last_error=None,
                        last_error_at=None,
                    )
                )
    finally:
        state.close()


def floor_seconds(channels_per_workspace: int, limits: SlackLimits) -> float:
    """The least time Slack's limits allow for every workspace's posts, all workspaces at once (one post a channel)."""
    burst, rate = limits.workspace_posts.burst, limits.workspace_posts.per_second
    return max(0.0, (channels_per_workspace - burst) / rate)


# ---------------------------------------------------------------------- replicas


@dataclass
class Replica:
    """One `icml-bot serve --http` process and what it is measured by."""

    bot: BotProcess
    port: int
    idle_mb: float = 0.0
    peak_mb: float = 0.0

    def pids(self) -> list[int]:
        """The replica's processes: `serve --http` and the worker it keeps."""
        return [self.bot.pid, *children(self.bot.pid)]

    def rss_mb(self) -> float:
        """Resident memory now (MiB) of the replica's processes together, 0 once they are gone."""
        total = 0
        for pid in self.pids():
            try:
                found = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
            except OSError:
                continue
            total += int(found.group(1)) if found else 0
        return total / 1024

    def cpu_seconds(self) -> float:
        """User and system CPU time of the replica's processes so far."""
        total = 0
        for pid in self.pids():
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            total += int(fields[11]) + int(fields[12])
        return total / TICK

    def kill9(self) -> None:
        """kill -9 of every process of the replica at once (a machine or container lost mid-post)."""
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.bot.kill()

    def schedules(self) -> bool:
        """Whether this replica's log says it took the digest lease (and last said so)."""
        took = [m.start() for m in re.finditer(r"this process \(.*\) schedules the daily digests", self.bot.log())]
        lost = [m.start() for m in re.finditer(r"another icml-bot process \(.*\) schedules", self.bot.log())]
        return bool(took) and (not lost or took[-1] > lost[-1])


def start_replica(api_url: str, index_path: Path, url: str, takeover: int) -> Replica:
    """One replica in many-workspace mode (SLACK_CLIENT_ID/SECRET), on PostgreSQL."""
    bot, port = serve_http(
        api_url,
        index_path,
        url,
        SECRET,
        SLACK_CLIENT_ID=CLIENT_ID,
        SLACK_CLIENT_SECRET=CLIENT_SECRET,
        ICML_DIGEST_TAKEOVER=str(takeover),
    )
    return Replica(bot, port)


class Sampler(threading.Thread):
    """Samples each replica's RSS every half second (peak kept on the replica)."""

    def __init__(self, replicas: list[Replica]) -> None:
        super().__init__(daemon=True)
        self.replicas = replicas
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(0.5):
            for replica in list(self.replicas):
                replica.peak_mb = max(replica.peak_mb, replica.rss_mb())


# ---------------------------------------------------------------------- load


def spread_load(
    replicas: list[Replica],
    teams: list[str],
    seconds: float,
    clients: int,
    rate: float,
    until: threading.Event | None = None,
) -> LoadResult:
    """Signed /icml commands at `rate` a second from `clients` clients (client n → replica n mod R, from an installed
    workspace), each on a new connection, for `seconds` or until `until` is set. A paced load, as people type: the
    same offered load before and during the fan-out, so the two p99s compare."""
    result = LoadResult(seconds, clients)
    lock = threading.Lock()
    started = time.monotonic()
    interval = clients / rate

    def client(n: int) -> None:
        team = teams[(n * 7919) % len(teams)]
        due, sent = started + n * interval / clients, 0
        while (until is None and time.monotonic() - started < seconds) or (until is not None and not until.is_set()):
            time.sleep(max(0.0, due - time.monotonic()))
            due += interval
            # A replica started again after a crash has a new port
            port = replicas[n % len(replicas)].port
            body = form_body(slash_form(QUERIES[(n + sent) % len(QUERIES)], user_id=f"U{n:04d}", team_id=team))
            headers = {"Content-Type": "application/x-www-form-urlencoded", **sign(SECRET, body)}
            began, error = time.perf_counter(), ""
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                conn.request("POST", "/slack/events", body=body, headers=headers)
                resp = conn.getresponse()
                answer = resp.read()
                conn.close()
                if resp.status != 200:
                    error = f"HTTP {resp.status}"
                elif b'"blocks"' not in answer and b'"text"' not in answer:
                    error = "no answer"
            except (OSError, http.client.HTTPException) as exc:
                error = f"{type(exc).__name__}: {exc}"
            took = time.perf_counter() - began
            sent += 1
            with lock:
                result.latencies.append(took)
                if error:
                    result.errors.append(error)

    threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result.seconds = time.monotonic() - started
    return result


# ---------------------------------------------------------------------- one fan-out


@dataclass
class FanOut:
    """What one fan-out measured."""

    name: str
    expected: int
    due: datetime
    finished_after: float | None = None  # seconds from the due minute to the last digest in Slack
    duplicates: int = 0
    lost: int = 0
    baseline: LoadResult | None = None
    during: LoadResult | None = None
    replicas: list[Replica] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)
    exits: list[int] = field(default_factory=list)
    # CPU seconds per minute of each replica, after the fan-out
    idle_cpu: list[float] = field(default_factory=list)
    # replicas killed during the run (their logs are kept too)
    gone: list[Replica] = field(default_factory=list)

    def note(self, text: str) -> None:
        """A timed line (seconds after the due minute) in the run's log, printed as it happens."""
        line = f"  +{(datetime.now(UTC) - self.due).total_seconds():6.1f} s  {text}"
        self.events.append(line)
        print(line, flush=True)


def due_minute(after: datetime) -> datetime:
    """The first whole minute at least LEAD_SECONDS after `after`."""
    start = (after + timedelta(seconds=LEAD_SECONDS)).replace(second=0, microsecond=0)
    return start + timedelta(minutes=1)


def count_digests(slack: Slack) -> int:
    return int(slack.ask("count"))


def judge(slack: Slack, run: FanOut, fleet: Fleet) -> None:
    """Duplicates and losses from the channels' histories; the time of the last digest."""
    day = run.due.date().isoformat()
    found = [(team, channel) for team, channel, date, _ in slack.ask("digests") if date == day]
    times = [ts for _, _, date, ts in slack.ask("digests") if date == day]
    counts = Counter(found)
    run.duplicates = sum(n - 1 for n in counts.values() if n > 1)
    run.lost = sum(1 for key in fleet.channels if counts.get(key, 0) == 0)
    if not run.lost and times:
        run.finished_after = max(times) - run.due.timestamp()
    run.refused = slack.ask("refused")


def wait_all(slack: Slack, run: FanOut, deadline: float, step: float = 0.5) -> bool:
    """Until every digest is in Slack (or the deadline passes); True when they all are. A line every 30 s."""
    said = time.monotonic()
    while time.time() < deadline:
        if (n := count_digests(slack)) >= run.expected:
            return True
        if time.monotonic() - said >= 30:
            run.note(f"{n:,} digests in Slack")
            said = time.monotonic()
        time.sleep(step)
    return False


def wait_count(slack: Slack, at_least: int, deadline: float) -> int:
    while (n := count_digests(slack)) < at_least and time.time() < deadline:
        time.sleep(0.2)
    return n


def run_fanout(
    name: str,
    slack: Slack,
    index_path: Path,
    url: str,
    fleet: Fleet,
    args: argparse.Namespace,
    faults: Any = None,
) -> FanOut:
    """Start the replicas on a fresh database, measure the baseline, wait for the due minute, fan out, judge."""
    slack.ask("reset")
    started = datetime.now(UTC)
    estimate = started + timedelta(seconds=(40 if args.seeds_only else 60) + args.load_seconds)
    due = due_minute(estimate)
    prepare_state(index_path, url, fleet, due)
    run = FanOut(name, len(fleet.channels), due)
    print(f"\n{name}: {len(fleet.channels):,} digests due at {due:%H:%M:%S} UTC", flush=True)
    replicas: list[Replica] = []
    sampler = Sampler(replicas)
    try:
        for _ in range(args.replicas):
            replicas.append(start_replica(slack.api_url, index_path, url, args.takeover))
        run.replicas = replicas
        for replica in replicas:
            replica.idle_mb = replica.rss_mb()
        sampler.start()
        teams = list(fleet.tokens)
        if datetime.now(UTC) + timedelta(seconds=args.load_seconds + 5) < due:
            run.baseline = spread_load(replicas, teams, args.load_seconds, args.clients, args.rate)
        else:
            print("  (no baseline: the replicas were slow to start)")
        for replica in replicas:
            replica.idle_mb = replica.rss_mb()
        time.sleep(max(0.0, (due - datetime.now(UTC)).total_seconds()))
        run.note("due")
        done = threading.Event()
        loaded: list[LoadResult] = []
        loader = threading.Thread(
            target=lambda: loaded.append(spread_load(replicas, teams, 0, args.clients, args.rate, until=done)),
            daemon=True,
        )
        loader.start()
        deadline = due.timestamp() + DEADLINE_SECONDS
        try:
            if faults is not None:
                faults(slack, run, replicas, deadline)
            complete = wait_all(slack, run, deadline)
            run.note("every digest is in Slack" if complete else "deadline: not every digest is in Slack")
        finally:
            done.set()
            loader.join(timeout=30)
        run.during = loaded[0] if loaded else None
        time.sleep(2.0)  # a post answered at the very end may still be recorded
        judge(slack, run, fleet)
        # what the replicas cost when every digest is out (the scheduler's ticks)
        if args.idle_seconds > 0:
            before = [replica.cpu_seconds() for replica in replicas]
            time.sleep(args.idle_seconds)
            run.idle_cpu = [
                60 * (replica.cpu_seconds() - cpu) / args.idle_seconds
                for replica, cpu in zip(replicas, before, strict=True)
            ]
        run.exits = [replica.bot.terminate(timeout=60) for replica in replicas]
        if args.logs:  # each replica's log, to read what it did (takeover, retries) after the run
            folder = Path(args.logs)
            folder.mkdir(parents=True, exist_ok=True)
            for n, replica in enumerate([*replicas, *run.gone]):
                (folder / f"{name}-replica-{n + 1}-{replica.bot.pid}.log").write_text(replica.bot.log())
    finally:
        sampler.stopping.set()
        for replica in replicas:
            replica.bot.kill()
    return run


# ---------------------------------------------------------------------- the faults


def inject_faults(server: Any, outage: float) -> Any:
    """The faults of the second fan-out, each once the one before is over and more digests went out."""

    def faults(slack: Slack, run: FanOut, replicas: list[Replica], deadline: float) -> None:
        total = run.expected
        n = wait_count(slack, max(1, total // 20), deadline)
        poster = next((r for r in replicas if r.schedules()), replicas[0])
        pids = poster.pids()
        poster.kill9()
        run.note(f"kill -9 of the replica that posts (pids {', '.join(map(str, pids))}) after {n:,} digests")
        new = _restart_like(slack.api_url)
        new.idle_mb = new.rss_mb()
        replicas[replicas.index(poster)] = new
        run.gone.append(poster)
        run.note(f"a supervisor started it again (pid {new.bot.pid})")
        n = wait_count(slack, max(n + 1, total * 3 // 10), deadline)
        run.note(f"PostgreSQL restarts after {n:,} digests")
        server.stop("fast")
        time.sleep(2.0)
        server.start()
        run.note("PostgreSQL is back")
        n = wait_count(slack, max(n + 1, total * 5 // 10), deadline)
        burst = max(10, total // 100)
        slack.ask("fail", "chat.postMessage", "internal_error", 500, burst // 2, True)
        slack.ask("fail", "chat.postMessage", "service_unavailable", 503, burst - burst // 2, False)
        run.note(f"the next {burst} posts get a 5xx (half of them after Slack posted) after {n:,} digests")
        n = wait_count(slack, max(n + 1, total * 7 // 10), deadline)
        slack.ask("offline")
        run.note(f"Slack unreachable for {outage:.0f} s after {n:,} digests")
        time.sleep(outage)
        slack.ask("online")
        run.note("Slack is back")

    return faults


_REPLICA_SETTINGS: dict[str, Any] = {}


def _restart_like(api_url: str) -> Replica:
    """The same replica started again (what a supervisor does after a crash)."""
    s = _REPLICA_SETTINGS
    return start_replica(api_url, s["index"], s["url"], s["takeover"])


# ---------------------------------------------------------------------- report


def report(runs: list[FanOut], floor: float, args: argparse.Namespace) -> bool:
    """Print the figures; True when every fan-out finished with no duplicate and no loss."""
    ok = True
    print(
        f"\n{'fan-out':<10}{'digests':>9}{'done after':>12}{'floor':>8}{'dupes':>7}{'lost':>6}"
        f"{'/icml p99 base':>16}{'p99 during':>12}{'errors':>8}{'429s':>7}"
    )
    for run in runs:
        base = run.baseline.percentile(99) if run.baseline else float("nan")
        during = run.during.percentile(99) if run.during else float("nan")
        errors = len(run.during.errors) if run.during else 0
        done = f"{run.finished_after:.1f} s" if run.finished_after is not None else "never"
        print(
            f"{run.name:<10}{run.expected:>9,}{done:>12}{floor:>7.1f}s{run.duplicates:>7}{run.lost:>6}"
            f"{base:>13.0f} ms{during:>9.0f} ms{errors:>8}{sum(run.refused.values()):>7}"
        )
        ok = ok and run.duplicates == 0 and run.lost == 0 and run.finished_after is not None
    for run in runs:
        print(f"\n{run.name}:")
        if run.baseline:
            print(f"  /icml before (baseline): {run.baseline.summary()}")
        if run.during:
            print(f"  /icml during the fan-out: {run.during.summary()}")
            if run.during.errors:
                print(f"  first errors: {Counter(run.during.errors).most_common(3)}")
        print(f"  429s from the fake Slack: {run.refused or 'none'}")
        for n, replica in enumerate(run.replicas):
            cpu = f", {run.idle_cpu[n]:.1f} CPU s a minute once every digest is out" if run.idle_cpu else ""
            print(f"  replica {n + 1}: RSS {replica.idle_mb:.0f} MiB idle, peak {replica.peak_mb:.0f} MiB{cpu}")
        if any(run.exits):
            print(f"  exit statuses: {run.exits}")
    print("\ntarget: every digest posted, 0 duplicates, 0 lost, within the deadline: " + ("met" if ok else "MISSED"))
    return ok


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, run the clean fan-out and the one with faults, print the figures and judge."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--workspaces", type=int, default=1000)
    parser.add_argument("--channels", type=int, default=10, help="subscribed channels per workspace (default 10)")
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="100 workspaces x 5 channels, seeds only, 10 s outage")
    parser.add_argument("--outage", type=float, default=None, help="seconds Slack is unreachable (default 60)")
    parser.add_argument("--load-seconds", type=float, default=None, help="baseline /icml load (default 20)")
    parser.add_argument("--clients", type=int, default=4, help="concurrent /icml clients (default 4)")
    parser.add_argument("--rate", type=float, default=20.0, help="/icml commands a second, all clients (default 20)")
    parser.add_argument("--takeover", type=int, default=90, help="ICML_DIGEST_TAKEOVER of the replicas (default 90)")
    parser.add_argument("--seeds-only", action="store_true", help="index only the 19 bundled abstracts")
    parser.add_argument("--no-faults", action="store_true", help="only the clean fan-out")
    parser.add_argument("--logs", default="", help="a folder to write each replica's log to")
    parser.add_argument(
        "--idle-seconds", type=float, default=30.0, help="CPU of the replicas measured this long after a fan-out"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.workspaces = min(args.workspaces, 100) if "--workspaces" not in (argv or sys.argv) else args.workspaces
        args.channels = min(args.channels, 5) if "--channels" not in (argv or sys.argv) else args.channels
        args.seeds_only = True
    args.outage = args.outage if args.outage is not None else (10.0 if args.quick else 60.0)
    args.load_seconds = args.load_seconds if args.load_seconds is not None else (10.0 if args.quick else 20.0)
    if not args.seeds_only and not ICML2026.exists():
        print(f"skipped: {ICML2026} is not available (--seeds-only runs it on the 19 bundled abstracts)")
        return 0
    from tests.support.postgres import PostgresServer

    bin_dir = PostgresServer.find()
    if bin_dir is None:
        print("skipped: PostgreSQL is not installed (apt-get install postgresql)")
        return 0
    server = PostgresServer(bin_dir)
    server.start()
    slack = Slack()
    runs: list[FanOut] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            index_path, papers = build_index(Path(tmp), args.seeds_only)
            teams, channels = make_fleet(args.workspaces, args.channels)
            fleet = Fleet(slack.ask("install", teams), channels)
            limits = SlackLimits()
            floor = floor_seconds(args.channels, limits)
            print(
                f"index: {papers:,} papers ({time.perf_counter() - started:.0f} s); {args.workspaces:,} workspaces x "
                f"{args.channels} channels = {len(channels):,} digests; {args.replicas} replicas on one PostgreSQL; "
                f"Slack's limits: {limits.channel_posts.per_second:.0f}/s per channel (burst "
                f"{limits.channel_posts.burst:.0f}), {limits.workspace_posts.per_second * 60:.0f}/min per workspace "
                f"(burst {limits.workspace_posts.burst:.0f}); floor {floor:.1f} s",
                flush=True,
            )
            url = server.new_database()
            _REPLICA_SETTINGS.update(index=index_path, url=url, takeover=args.takeover)
            runs.append(run_fanout("clean", slack, index_path, url, fleet, args))
            if not args.no_faults:
                url = server.new_database()
                _REPLICA_SETTINGS.update(url=url)
                runs.append(
                    run_fanout("faults", slack, index_path, url, fleet, args, inject_faults(server, args.outage))
                )
    finally:
        slack.stop()
        server.destroy()
    ok = report(runs, floor_seconds(args.channels, SlackLimits()), args)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
