"""Hostile traffic against the served app, each figure beside its baseline measured in the same run.

Run: python -m bench hostile [--only serving|install|clicks|markup]

- serving: `/healthz` and a signed `/icml` answered while 50 half-open connections are held, beside none held
  (bench/abuse/serving.py);
- install: rows 500 unsigned `GET /slack/install` requests add to the state database (bench/abuse/install.py);
- clicks: 60 Save clicks acked while `views.publish` answers 429, and another workspace's mention meanwhile, beside
  the same with Slack answering (bench/abuse/clicks.py);
- markup: CPU to read a 40,000-character raw-markup mention, beside a short one and the old unbounded pattern
  (bench/abuse/markup.py).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import time

PARTS = {name: f"bench.abuse.{name}" for name in ("serving", "install", "clicks", "markup")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=sorted(PARTS), action="append", help="run only these parts")
    args = parser.parse_args()
    # A flood queues tasks: that is the point
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    for name in args.only or PARTS:
        started = time.perf_counter()
        print(f"== {name}", flush=True)
        lines = importlib.import_module(PARTS[name]).figures()
        print("\n".join(f"   {line}" for line in lines))
        print(f"   ({time.perf_counter() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
