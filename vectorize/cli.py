"""``python -m vectorize PATH...`` / ``vectorize PATH...``: rewrite files (docs/cli.md).

Modes, as ruff and black have them: print the rewritten file (default), ``--diff``,
``--check`` (exit 1 if a file would change), ``-w``/``--write`` (replace the files, atomically),
``--explain`` (which rule turned which line into which). Exit status: 0 nothing to do or done,
1 ``--check`` found a file to rewrite, 2 an error (the file it is about is left untouched;
the other files are processed). Diagnostics are ``path:line:col: error: message`` with the
source line and a caret, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import os
import sys
import tempfile
import tokenize
from dataclasses import dataclass

SKIPPED_DIRECTORIES = frozenset({"__pycache__", "build", "dist", "node_modules", "site-packages",
                                 "venv"})
"""Directories a recursive run does not enter (nor any whose name starts with a dot)."""


@dataclass
class Source:
    path: str                  # as given ("-" for stdin)
    name: str                  # as shown in messages
    data: bytes
    text: str | None = None
    encoding: str = "utf-8"


class Run:
    """One invocation: where messages go and what the exit status will be."""

    def __init__(self, args, out, err):
        self.args = args
        self.out = out
        self.err = err
        self.errors = 0
        self.changed = 0
        self.unchanged = 0
        self.matched_function = False
        self.reports = []        # --explain --html: one page for all files, at the end

    def error(self, exc) -> None:
        self.errors += 1
        self.err.write(render(exc, "error"))

    def warning(self, exc) -> None:
        self.err.write(render(exc, "warning"))

    def status(self) -> int:
        if self.errors:
            return 2
        return 1 if self.args.check and self.changed else 0


def render(exc, severity: str) -> str:
    """``path:line:col: severity: message``, the source line, a caret, the suggestion."""
    text = f"{exc.filename}:{exc.line}:{exc.col + 1}: {severity}: {exc.reason}\n"
    if exc.source_line:
        line = exc.source_line.rstrip("\r\n")
        expanded = line.expandtabs(8)
        caret = len(line[:exc.col].expandtabs(8))
        text += f"    {expanded}\n    {' ' * caret}^\n"
    if exc.suggestion:
        text += f"  suggestion: {exc.suggestion}\n"
    return text


def parser() -> argparse.ArgumentParser:
    from . import __version__, backends
    p = argparse.ArgumentParser(
        prog="vectorize",
        description="Rewrite the functions marked @vectorize / @vmap in Python files into "
                    "batched NumPy code, and loops over examples that call them into batched "
                    "calls. Prints the rewritten file unless told otherwise.",
        epilog="Exit status: 0 success or nothing to do, 1 --check would rewrite a file, "
               "2 errors. See docs/cli.md.")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="files or directories (recursively, *.py); - reads stdin")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("-w", "--write", action="store_true",
                      help="rewrite the files in place (atomically; only when the result "
                           "compiles)")
    mode.add_argument("--explain", action="store_true",
                      help="show, per rewritten line, the scalar line, the rule that fired "
                           "and the result; and why loops stay; writes nothing")
    p.add_argument("--html", action="store_true",
                   help="with --explain: one self-contained HTML page, the scalar and the "
                        "batched functions side by side (e.g. > page.html)")
    p.add_argument("--verbose", action="store_true",
                   help="with --explain: each rule's whole explanation, not its one-line "
                        "reason")
    p.add_argument("--rules-url", metavar="URL", default="docs/rules.md",
                   help="with --explain --html: where the rules reference is (its entries "
                        "are linked as URL#rule.name; default: docs/rules.md)")
    p.add_argument("--diff", action="store_true",
                   help="print a unified diff instead of the rewritten files")
    p.add_argument("--check", action="store_true",
                   help="exit 1 if any file would be rewritten; list them; write nothing")
    p.add_argument("--function", metavar="NAME",
                   help="rewrite only the marked function NAME (and the loops that call it)")
    p.add_argument("--backend", choices=tuple(backends.KNOWN), default=backends.DEFAULT,
                   help="the array library the rewritten functions are written for (default: "
                        "numpy); the rewritten file imports that library only")
    p.add_argument("--stdin-filename", metavar="NAME",
                   help="the name to show for stdin (and to find sibling modules by)")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary line")
    p.add_argument("--version", action="version", version=f"vectorize {__version__}")
    return p


def main(argv=None, out=None, err=None) -> int:
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    args = parser().parse_args(argv)
    if args.write and (args.diff or args.check):
        parser().error("-w/--write does not combine with --diff or --check")
    if args.explain and (args.diff or args.check):
        parser().error("--explain does not combine with --diff or --check")
    if (args.html or args.verbose) and not args.explain:
        parser().error("--html and --verbose go with --explain")
    run = Run(args, out, err)
    sources = list(_sources(args.paths, run))
    multiple = len(sources) > 1 or any(os.path.isdir(p) for p in args.paths)
    try:
        for source in sources:
            _process(source, run, multiple)
    except KeyboardInterrupt:
        err.write("interrupted\n")
        return 130
    if args.html:
        from .rewrite.explain_html import render_reports
        out.write(render_reports(run.reports, rules_url=args.rules_url))
    if args.function and not run.matched_function and not run.errors:
        err.write(f"error: no function named `{args.function}` is marked @vectorize or @vmap "
                  "in the given files\n")
        run.errors += 1
    if not args.quiet and (args.write or args.check) and sources:
        _summary(run)
    return run.status()


def _summary(run: Run) -> None:
    would = "would be " if run.args.check else ""
    parts = []
    if run.changed:
        parts.append(f"{run.changed} file{'s' * (run.changed != 1)} {would}rewritten")
    if run.unchanged:
        parts.append(f"{run.unchanged} file{'s' * (run.unchanged != 1)} {would}left unchanged")
    if run.errors:
        parts.append(f"{run.errors} error{'s' * (run.errors != 1)}")
    run.err.write(", ".join(parts or ["nothing to do"]) + ".\n")


def _sources(paths, run: Run):
    for path in paths:
        if path == "-":
            name = run.args.stdin_filename or "<stdin>"
            yield Source("-", name, sys.stdin.buffer.read())
        elif os.path.isdir(path):
            for found in _python_files(path):
                yield _read(found, run)
        elif os.path.exists(path):
            yield _read(path, run)
        else:
            run.err.write(f"{path}: error: no such file or directory\n")
            run.errors += 1
    return


def _read(path: str, run: Run) -> Source:
    try:
        with open(path, "rb") as f:
            return Source(path, path, f.read())
    except OSError as exc:
        return Source(path, path, b"", text=None, encoding=f"!{exc.strerror}")


def _python_files(directory: str):
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and d not in SKIPPED_DIRECTORIES)
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(root, name)


def _decode(source: Source):
    """The text of a file as Python reads it (PEP 263 encoding, BOM), or a located error."""
    from .errors import VectorizeError
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source.data).readline)
    except SyntaxError as exc:
        return VectorizeError(f"cannot read the file: {exc}", filename=source.name, line=1)
    try:
        source.text = source.data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        start = getattr(exc, "start", 0)
        before = source.data[:start]
        line = before.count(b"\n") + 1
        line_start = before.rfind(b"\n") + 1
        shown = source.data[line_start:].split(b"\n", 1)[0].decode(encoding, "replace") \
            if isinstance(exc, UnicodeDecodeError) else ""
        col = len(source.data[line_start:start].decode(encoding, "replace")) \
            if isinstance(exc, UnicodeDecodeError) else 0
        reason = exc.reason if isinstance(exc, UnicodeDecodeError) else str(exc)
        if isinstance(exc, UnicodeDecodeError):
            reason = f"byte 0x{source.data[start]:02x}: {reason}"
        return VectorizeError(f"cannot decode the file as {encoding}: {reason}",
                              filename=source.name, line=line, col=col, source_line=shown,
                              suggestion="save it as UTF-8, or declare its encoding in a "
                                         "`# -*- coding: ... -*-` comment (PEP 263)")
    source.encoding = encoding
    return None


def _process(source: Source, run: Run, multiple: bool) -> None:
    from .errors import VectorizeError
    if source.encoding.startswith("!"):
        run.err.write(f"{source.name}: error: cannot read the file: {source.encoding[1:]}\n")
        run.errors += 1
        return
    problem = _decode(source)
    if problem is not None:
        run.error(problem)
        return
    from .rewrite import rewrite_text
    from .transform import deep_recursion
    try:
        # imports the skeleton runs may print: never into the rewritten output; a sum of a
        # thousand terms needs more recursion than Python's default to be read
        with contextlib.redirect_stdout(run.err), deep_recursion():
            outcome = rewrite_text(source.text, source.name, only=run.args.function,
                                   explain=run.args.explain, backend=run.args.backend)
    except RecursionError:
        run.error(VectorizeError("the file is too deeply nested to rewrite (an expression of "
                                 "thousands of terms, or blocks nested hundreds deep)",
                                 filename=source.name, line=1,
                                 suggestion="split it into smaller expressions or functions"))
        return
    except Exception as exc:   # an engine bug: reported, the file untouched, the run goes on
        run.error(VectorizeError(f"internal error: {type(exc).__name__}: {exc}",
                                 filename=source.name, line=1,
                                 suggestion="please report this with the file"))
        return
    if outcome.rewritten or any(e for e in outcome.errors):
        run.matched_function = True
    for warning in outcome.warnings:
        run.warning(warning)
    for error in outcome.errors:
        run.error(error)
    if outcome.errors:
        return
    new = outcome.text
    changed = new != source.text
    run.changed += changed
    run.unchanged += not changed
    args = run.args
    if args.explain:
        from .rewrite.explain import collect_outcome
        report = collect_outcome(outcome, source.name)
        if args.html:
            run.reports.append(report)
        else:
            run.out.write(report.text(verbose=args.verbose))
        return
    if args.check and changed:
        run.out.write(f"would rewrite {source.name}\n")
    if args.diff:
        if changed:
            run.out.write(_diff(source.name, source.text, new))
        return
    if args.check:
        return
    if args.write:
        if source.path == "-":
            run.out.write(new)
        elif changed:
            try:
                _replace(source, new)
            except OSError as exc:
                run.err.write(f"{source.name}: error: cannot write the file: {exc}\n")
                run.errors += 1
                return
            if not args.quiet:
                run.err.write(f"rewrote {source.name}\n")
        return
    if multiple:
        if changed:
            run.out.write(f"# ==> {source.name} <==\n{new}")
    else:
        run.out.write(new)


def _diff(name: str, old: str, new: str) -> str:
    lines = difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                 fromfile=name, tofile=name)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)


def _replace(source: Source, text: str) -> None:
    """Write ``text`` over the file atomically: a temporary file in the same directory (same
    encoding, the same newlines as the text has, the file's permissions, owner and group),
    then ``os.replace``. Where the owner or group cannot be kept (another user's file, which
    root could write), nothing is written: the replaced file would belong to this user."""
    data = text.encode(source.encoding)
    directory = os.path.dirname(os.path.abspath(source.path))
    st = os.stat(source.path)
    mode = st.st_mode & 0o7777
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(source.path)}.",
                                     suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
            made = os.fstat(f.fileno())
            if hasattr(os, "fchown") and (made.st_uid, made.st_gid) != (st.st_uid, st.st_gid):
                try:
                    os.fchown(f.fileno(), st.st_uid, st.st_gid)
                except PermissionError:
                    raise PermissionError(
                        f"the file belongs to uid {st.st_uid}, gid {st.st_gid}, which a "
                        "replaced file could not keep; rewrite it as its owner") from None
        os.chmod(temporary, mode)    # (after the chown, which clears set-user-ID bits)
        os.replace(temporary, source.path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def main_entry() -> None:
    """The ``vectorize`` console script (and ``python -m vectorize``)."""
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:      # `vectorize src/ | head`: the reader stopped, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 1
    sys.exit(status)
