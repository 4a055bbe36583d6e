"""Run every case of ``tests/real_pkgs`` under ``vectorize`` and ``vmap`` and print the counts.

    python tests/real_pkgs/report.py [--verbose] [--only SUBSTRING] [--seed K] [--no-numba]

Each function is checked at N = 0, 1, 5 and 1000 (see `harness.py`); the output lists per
package the equal / refused / wrong / crash counts, the refusal reasons, and every wrong or
crashing function with its first difference. ``--no-numba`` imports the packages as if
numba were not installed (PsychroLib then hands out its plain functions instead of numba's
compiled ones).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]

from harness import STATUSES, check_vectorize, check_vmap, default_draws  # noqa: E402


def all_cases():
    from cases import ALL
    return ALL


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-numba", action="store_true")
    opts = ap.parse_args(argv)
    if opts.no_numba:
        sys.modules["numba"] = None     # `import numba` raises ImportError
    per_pkg = {}
    reasons = Counter()
    bad = []
    for case in all_cases():
        if opts.only not in case.name:
            continue
        draws = default_draws(case, opts.seed)
        for mode, check in (("vectorize", check_vectorize), ("vmap", check_vmap)):
            status, detail = check(case, draws)
            pkg = case.name.split(".")[0]
            per_pkg.setdefault((pkg, mode), Counter())[status] += 1
            if status == "refused":
                reasons[(mode, detail.splitlines()[0].split(": ", 1)[-1])] += 1
            elif status in ("wrong", "crash"):
                bad.append((case.name, mode, status, detail))
            if opts.verbose:
                print(f"{case.name:60s} {mode:9s} {status}", flush=True)
    print(f"{'package':14s} {'mode':10s} " + " ".join(f"{s:>7s}" for s in STATUSES))
    total = {m: Counter() for m in ("vectorize", "vmap")}
    for (pkg, mode), c in sorted(per_pkg.items()):
        total[mode].update(c)
        print(f"{pkg:14s} {mode:10s} " + " ".join(f"{c[s]:7d}" for s in STATUSES))
    for mode, c in total.items():
        print(f"{'ALL':14s} {mode:10s} " + " ".join(f"{c[s]:7d}" for s in STATUSES))
    print("\nrefused, by reason:")
    for (mode, reason), k in reasons.most_common():
        print(f"  {k:3d}  {mode:9s} {reason[:160]}")
    if bad:
        print("\nwrong / crash:")
        for name, mode, status, detail in bad:
            print(f"  {status:5s} {mode:9s} {name}: {detail[:400]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
