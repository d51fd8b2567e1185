"""Hostile traffic against the served app, each figure beside its baseline measured in the same run.

Run: python bench/abuse_bench.py [--only serving|install|clicks|markup]

- serving: `/healthz` and a signed `/icml` answered while 50 half-open connections are held, beside none held
  (bench/abuse_serving.py);
- install: rows 500 unsigned `GET /slack/install` requests add to the state database (bench/abuse_install.py);
- clicks: 60 Save clicks acked while `views.publish` answers 429, and another workspace's mention meanwhile, beside
  the same with Slack answering (bench/abuse_clicks.py);
- markup: CPU to read a 40,000-character raw-markup mention, beside a short one and the old unbounded pattern
  (bench/abuse_markup.py).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PARTS = {"serving": "abuse_serving", "install": "abuse_install", "clicks": "abuse_clicks", "markup": "abuse_markup"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=sorted(PARTS), action="append", help="run only these parts")
    args = parser.parse_args()
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)  # (a flood queues tasks: that is the point)
    for name in args.only or PARTS:
        started = time.perf_counter()
        print(f"== {name}", flush=True)
        lines = importlib.import_module(PARTS[name]).figures()
        print("\n".join(f"   {line}" for line in lines))
        print(f"   ({time.perf_counter() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
