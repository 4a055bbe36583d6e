"""Whole-file differential fuzz of the file rewriter (``python -m vectorize``): random files
(``tests/fuzz/clihunt27_files.py``) are run as written, rewritten, and run again; the
rewritten file must print what the original printed (values, types, exception types), or
the rewriter must refuse the file with a located error (never an internal error, never a
file that does not run).

    python benchmarks/fuzz_clihunt27.py --n 200 --seed 0 [--backend torch|jax]

With ``--backend torch`` / ``jax`` the files print their numbers to 9 significant digits
(docs/jax.md: float64 results agree to 1e-12 relative) and no types. Prints each mismatch
with its seed, the counts and the top reasons loops stay loops; exit status 1 on a mismatch
or crash.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from fuzz import clihunt27_files  # noqa: E402


def run_file(path: Path, tolerant: bool, timeout: float = 60.0) -> tuple[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    env.pop("CLIHUNT27_TOLERANT", None)
    if tolerant:
        env["CLIHUNT27_TOLERANT"] = "1"
    try:
        res = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                             timeout=timeout, env=env, cwd=path.parent)
    except subprocess.TimeoutExpired:
        return "TIMEOUT", ""
    last = res.stderr.strip().splitlines()[-1] if res.returncode and res.stderr.strip() else ""
    exc = last.split(":")[0] if last else ""
    return res.stdout, exc


_CONTINUED = (" ", "\n", "for x", "MOD_OUT", "print('module'")


def _blocks(text: str) -> dict:
    """The call sites of a generated file: each ``def site_K():`` block and the module-level
    loop, by name."""
    lines, blocks, name = text.splitlines(keepends=True), {}, None
    for line in lines:
        if line.startswith("def site_") or line.startswith("MOD_OUT = []"):
            name = line
            blocks[name] = [line]
        elif name is not None and line.startswith(_CONTINUED):
            blocks[name].append(line)
        else:
            name = None
    return {k: "".join(v) for k, v in blocks.items()}


def splice(original: str, new: str) -> str:
    """``new`` with its call sites as ``original`` wrote them: the rewritten functions, the
    loops left as they were."""
    old_blocks = _blocks(original)
    for key, block in _blocks(new).items():
        if key in old_blocks and block != old_blocks[key]:
            new = new.replace(block, old_blocks[key])
    return new


def _warned(text: str, warnings: list, site: str) -> bool:
    """Whether the rewriter warned (docs/cli.md: the rewritten function computes otherwise
    on these items) at a line of the block ``def site():`` of ``text``."""
    lines = text.splitlines()
    head = "MOD_OUT = []" if site == "module" else f"def {site}("
    start = next((i + 1 for i, ln in enumerate(lines) if ln.startswith(head)), None)
    if start is None:
        return False
    end = next((i for i in range(start, len(lines)) if lines[i] and not lines[i][0].isspace()
                and not lines[i].startswith(("for ", "print('module'"))), len(lines))
    return any(start <= (w.line or 0) <= end for w in warnings)


def one(seed: int, backend: str, keep: Path | None = None):
    """-> (status, detail, stay reasons)"""
    from vectorize.rewrite import rewrite_text
    text = clihunt27_files.make_file(random.Random(seed), backend)
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / f"case{seed}.py"
        src.write_text(text)
        outcome = rewrite_text(text, str(src), backend=backend)
        reasons = [loop.reason for loop in outcome.loops if loop.reason]
        if outcome.errors:
            msg = str(outcome.errors[0]).splitlines()[0]
            if "internal error" in msg:
                return "crash", msg, reasons
            return "refused", msg.split("error: ")[-1].split(": ", 1)[-1][:90], reasons
        new = outcome.text
        dst = Path(d) / f"case{seed}_new.py"
        dst.write_text(new)
        if keep is not None:
            (keep / f"case{seed}.py").write_text(text)
            (keep / f"case{seed}_new.py").write_text(new)
        tolerant = backend != "numpy"
        a, ea = run_file(src, tolerant)
        b, eb = run_file(dst, tolerant)
        if backend != "numpy":
            imports = {ln.split()[1].split(".")[0] for ln in new.splitlines()
                       if ln.startswith(("import ", "from "))}
            wrong = imports & ({"numpy", "torch", "jax"} - {backend})
            if "vectorize" in imports:
                return "mismatch", "the rewritten file imports vectorize", reasons
            # the file's own `import numpy as np` stays (docs/cli.md): only the new imports
            del wrong
        if a == b and ea == eb:
            return ("same" if new != text else "unchanged"), "", reasons
        # which part differs: the rewritten functions (the loops kept) or the loops' rewrite
        kept = Path(d) / f"case{seed}_kept.py"
        kept.write_text(splice(text, new))
        if keep is not None:
            (keep / f"case{seed}_kept.py").write_text(kept.read_text())
        c, ec = run_file(kept, tolerant)
        if c == b and ec == eb:
            a, ea, b, eb = a, ea, c, ec
            status = "function-diff"     # the rewritten function itself (docs/cli.md's cases?)
        else:
            a, ea = c, ec
            status = "mismatch"          # the loop's rewrite changed what the file prints
        al, bl = a.splitlines(), b.splitlines()
        diff = [f"- {x}\n+ {y}" for x, y in zip(al, bl) if x != y][:3]
        # the sites that print otherwise, and where the rewritten file stops (raises) early,
        # the one it stopped at
        sites = [x.split()[0] for x, y in zip(al, bl) if x != y]
        if len(al) != len(bl):
            sites.append(al[len(bl)].split()[0] if len(al) > len(bl) and al[:len(bl)] == bl
                         else "?")
        if status == "function-diff" and all(_warned(text, outcome.warnings, site)
                                              for site in sites):
            status = "warned"            # each differing site has the rewriter's warning
        if len(al) != len(bl):
            diff.append(f"lines {len(al)} vs {len(bl)}")
        return status, f"exc {ea!r} vs {eb!r}\n" + "\n".join(diff), reasons


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--backend", default="numpy")
    p.add_argument("--keep", type=Path, default=None, help="a folder for the files that differ")
    opts = p.parse_args(argv)
    counts, reasons, refusals, bad = Counter(), Counter(), Counter(), []
    for seed in range(opts.seed, opts.seed + opts.n):
        status, detail, stays = one(seed, opts.backend)
        counts[status] += 1
        for r in stays:
            reasons[r.split(":")[0][:100]] += 1
        if status == "refused":
            refusals[detail] += 1
        if status in ("mismatch", "crash", "function-diff"):
            bad.append(seed)
            print(f"seed {seed}: {status}: {detail}", flush=True)
            if opts.keep:
                opts.keep.mkdir(parents=True, exist_ok=True)
                one(seed, opts.backend, opts.keep)
    print(dict(counts))
    print("loops left as they are, top reasons:")
    for r, c in reasons.most_common(8):
        print(f"  {c:5d}  {r}")
    print("files refused, top reasons:")
    for r, c in refusals.most_common(5):
        print(f"  {c:5d}  {r}")
    print("bad seeds:", bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
