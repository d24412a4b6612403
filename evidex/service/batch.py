"""``evidex extract`` over many documents: one result per file, a summary, resumable.

::

    evidex extract in/ more/*.pdf --schema invoice --out-dir out/ --jobs 4

    out/<name>.result.json     one per document that succeeded (the CLI's result JSON)
    out/summary.csv            one row per file: file, status, error, counts per field status,
                               then each field's value and status
    out/summary.jsonl          the same rows as JSON lines (values keep their JSON shape)

Inputs are files, folders (every PDF, PNG, JPEG and TIFF below them, sorted) and globs
(``**`` recurses), in the order given. A file that cannot be read or extracted is one failed row
with its error code, never the end of the batch. A file whose result is already in the folder for
the same content (sha256), schema and evidex version is not extracted again, so a batch that was
stopped carries on where it stopped. Results are written whole (a temporary file renamed into
place), so Ctrl-C keeps every finished result and never leaves half of one.

``--jobs N`` extracts N files at once in local processes (spawned, each with the same options).
The exit code is 0 only when every file succeeded, 1 when any failed, 130 when interrupted; the
last line counts them.
"""

from __future__ import annotations

import argparse
import csv
import glob
import hashlib
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from functools import partial
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from evidex import __version__
from evidex.schemas import EvidexError, InputError, Result, Status
from evidex.service.csvcell import csv_cell

__all__ = [
    "DOCUMENT_SUFFIXES",
    "ExtractFile",
    "Row",
    "expand_inputs",
    "is_batch",
    "result_names",
    "run_batch",
    "summary_rows",
]

DOCUMENT_SUFFIXES = frozenset({".pdf", ".png", ".jpg", ".jpeg", ".tif", ".tiff"})
COUNTS = tuple(status.value for status in Status)
_GLOB = set("*?[")

ExtractFile = Callable[[argparse.Namespace, Path], tuple[Result, bytes]]
"""``(the extract command's options, a file) -> (result, the file's bytes)``."""


@dataclass
class Row:
    """One file of the batch: what became of it."""

    file: str
    result: str  # the result file's name in the output folder
    status: str = "failed"  # succeeded | failed
    resumed: bool = False
    error_code: str = ""
    error: str = ""
    sha256: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    fields: dict[str, dict[str, Any]] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "result": self.result if self.status == "succeeded" else None,
            "status": self.status,
            "resumed": self.resumed,
            "error": {"code": self.error_code, "message": self.error} if self.error_code else None,
            "sha256": self.sha256,
            "summary": self.counts,
            "fields": self.fields,
        }


def is_batch(args: argparse.Namespace) -> bool:
    """Whether ``evidex extract`` was given many files (or asked for an output folder)."""
    files: list[Path] = args.file
    if args.out_dir is not None or len(files) > 1:
        return True
    only = files[0]
    return only.is_dir() or (not only.exists() and bool(_GLOB & set(str(only))))


def expand_inputs(inputs: Sequence[Path]) -> list[Path]:
    """Files, folders and globs as a list of files, in the order given, without duplicates.

    A path that names nothing stays in the list: it becomes a failed row, not a silent skip.
    """
    found: list[Path] = []
    for raw in inputs:
        text = str(raw)
        if raw.is_dir():
            found += _documents_below(raw)
        elif raw.exists() or not (_GLOB & set(text)):
            found.append(raw)
        else:
            for match in sorted(glob.glob(text, recursive=True)):
                path = Path(match)
                found += _documents_below(path) if path.is_dir() else [path]
    return list(dict.fromkeys(found))


def _documents_below(folder: Path) -> list[Path]:
    return sorted(
        p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in DOCUMENT_SUFFIXES
    )


def result_names(files: Sequence[Path]) -> list[str]:
    """``<name>.result.json`` per file: the file's stem, or, where two files share a stem, the
    stem and a short hash of the path (the same on every run, so a rerun finds its results)."""
    stems = [f.stem or "document" for f in files]
    shared = {s for s in stems if stems.count(s) > 1}
    names = []
    for path, stem in zip(files, stems, strict=True):
        if stem in shared:
            stem += "-" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:8]
        names.append(f"{stem}.result.json")
    return names


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(partial(fh.read, 1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _row_of(row: Row, result: Result) -> Row:
    row.status = "succeeded"
    row.counts = result.summary.model_dump()
    row.fields = {
        path: {"value": f.value, "status": f.status.value} for path, f in result.fields.items()
    }
    return row


def _done_before(target: Path, sha256: str, schema: str) -> Result | None:
    """The stored result, when it is for this content, schema and evidex version."""
    try:
        result = Result.model_validate_json(target.read_bytes())
    except (OSError, ValueError):
        return None
    same = (result.document.sha256, result.schema_name, result.trace.evidex_version)
    return result if same == (sha256, schema, __version__) else None


def extract_one(
    extract_file: ExtractFile, args: argparse.Namespace, path: Path, target: Path
) -> Row:
    """Extract one file and write its result (whole, or not at all); never raises for the file's
    own problems: they become the row's error."""
    row = Row(file=str(path), result=target.name)
    try:
        result, data = extract_file(args, path)
        row.sha256 = hashlib.sha256(data).hexdigest()
        partial_file = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        partial_file.write_text(result.to_json() + "\n", encoding="utf-8")
        os.replace(partial_file, target)
    except EvidexError as exc:
        row.error_code, row.error = exc.code, exc.message
        return row
    except OSError as exc:
        row.error_code, row.error = "io_error", str(exc)
        return row
    except Exception as exc:  # a bug on one document must not end the batch
        row.error_code, row.error = "internal_error", f"{type(exc).__name__}: {exc}"
        return row
    return _row_of(row, result)


class _CtrlC:
    """Ctrl-C, remembered: its KeyboardInterrupt can land where Python only reports it and goes
    on (in an object's ``__del__``), so the batch also stops at the next document it finishes.
    Python's report of it there (a traceback on stderr) is left out: the press is not an error,
    and the batch says what it did with it."""

    def __init__(self) -> None:
        self.pressed = False
        self._before: Any = None
        self._report: Callable[[Any], object] | None = None

    def __enter__(self) -> _CtrlC:
        if threading.current_thread() is threading.main_thread():
            self._before = signal.signal(signal.SIGINT, self._press)
            self._report, sys.unraisablehook = sys.unraisablehook, self._unraisable
        return self

    def __exit__(self, *exc: object) -> None:
        if self._before is not None:
            signal.signal(signal.SIGINT, self._before)
        if self._report is not None:
            sys.unraisablehook = self._report

    def _unraisable(self, unraisable: Any) -> None:
        if not (self.pressed and isinstance(unraisable.exc_value, KeyboardInterrupt)):
            assert self._report is not None
            self._report(unraisable)

    def _press(self, signum: int, frame: Any) -> None:
        self.pressed = True
        raise KeyboardInterrupt

    def check(self) -> None:
        if self.pressed:
            raise KeyboardInterrupt


def _ignore_sigint() -> None:
    """Pool process initializer: Ctrl-C is the parent's to handle (it stops the pool)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def summary_rows(rows: Sequence[Row]) -> tuple[list[str], list[list[str]]]:
    """The CSV header and rows: file, result, status, error code and message, the counts, then
    ``<path>`` and ``<path>.status`` for every field path seen, in the order first seen."""
    paths = list(dict.fromkeys(path for row in rows for path in row.fields))
    header = ["file", "result", "status", "error_code", "error", *COUNTS]
    for path in paths:
        header += [path, f"{path}.status"]
    table = []
    for row in rows:
        cells = [row.file, row.result if row.status == "succeeded" else "", row.status]
        cells += [row.error_code, row.error]
        cells += [str(row.counts.get(name, "")) if row.counts else "" for name in COUNTS]
        for path in paths:
            leaf = row.fields.get(path)
            cells += [csv_cell(leaf["value"]), leaf["status"]] if leaf else ["", ""]
        table.append([csv_cell(c) for c in cells])  # values again: a number's "-5" is escaped too
    return header, table


def write_summary(out_dir: Path, rows: Sequence[Row]) -> None:
    header, table = summary_rows(rows)
    with (out_dir / "summary.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(table)
    with (out_dir / "summary.jsonl").open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row.as_json(), ensure_ascii=False) + "\n")


class _Progress:
    """A progress bar (rich) on a terminal; one plain line per finished file otherwise."""

    def __init__(self, total: int) -> None:
        self.total, self.done = total, 0
        self.bar: Any = None
        if sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            self.bar = Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                transient=True,
            )
            self.task = self.bar.add_task("extracting", total=total)
            self.bar.start()

    def advance(self, row: Row) -> None:
        self.done += 1
        if row.status == "succeeded":
            counts = ", ".join(f"{n} {k}" for k, n in row.counts.items() if n)
            what = "already done" if row.resumed else f"succeeded ({counts})"
        else:
            what = f"failed: {row.error_code}: {row.error}"
        line = f"[{self.done}/{self.total}] {row.file}: {what}"
        if self.bar is not None:
            self.bar.console.print(line, markup=False, highlight=False)
            self.bar.advance(self.task)
        else:
            print(line, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _run(
    todo: list[tuple[int, Path, Path]],
    work: Callable[[Path, Path], Row],
    jobs: int,
    rows: list[Row | None],
    progress: _Progress,
    ctrl_c: _CtrlC,
) -> None:
    if jobs <= 1:
        for index, path, target in todo:
            rows[index] = work(path, target)
            progress.advance(rows[index])  # type: ignore[arg-type]
            ctrl_c.check()
        return
    pool = ProcessPoolExecutor(
        min(jobs, len(todo)) or 1, mp_context=get_context("spawn"), initializer=_ignore_sigint
    )
    try:
        futures: dict[Future[Row], int] = {
            pool.submit(work, path, target): index for index, path, target in todo
        }
        for future in as_completed(futures):
            row = future.result()
            rows[futures[future]] = row
            progress.advance(row)
            ctrl_c.check()
    except BaseException:
        for process in list(pool._processes.values()):  # stop the documents in flight now
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _plan(
    files: Sequence[Path], out_dir: Path, schema: str
) -> Iterator[tuple[int, Path, Path, Row | None]]:
    """Each file with its target and, when its result is already there, its row."""
    for index, (path, name) in enumerate(zip(files, result_names(files), strict=True)):
        target = out_dir / name
        done: Row | None = None
        if target.is_file() and path.is_file():
            try:
                sha = _sha256(path)
            except OSError:
                sha = ""
            result = _done_before(target, sha, schema) if sha else None
            if result is not None:
                done = _row_of(Row(str(path), name, resumed=True, sha256=sha), result)
        yield index, path, target, done


def _last_line(rows: Iterable[Row | None], total: int, interrupted: bool) -> str:
    finished = [r for r in rows if r is not None]
    ok = [r for r in finished if r.status == "succeeded"]
    resumed = sum(r.resumed for r in ok)
    failed = len(finished) - len(ok)
    line = f"{total} files: {len(ok)} succeeded"
    line += f" ({resumed} already done)" if resumed else ""
    line += f", {failed} failed"
    if interrupted:
        line += f", {total - len(finished)} not run (interrupted)"
    return line


def run_batch(args: argparse.Namespace, extract_file: ExtractFile) -> int:
    """``evidex extract`` over many files; the process's exit code."""
    from evidex.service.cliargs import load_schema

    if args.out_dir is None:
        raise InputError("several files, a folder or a glob need --out-dir DIR for the results")
    if args.out or args.annotate:
        raise InputError("--out and --annotate take one document; with --out-dir, drop them")
    if args.jobs < 1:
        raise InputError("--jobs must be 1 or more")
    schema = load_schema(args.schema).name  # a bad schema fails the batch before any file
    files = expand_inputs(args.file)
    if not files:
        raise InputError(f"no documents found in {' '.join(map(str, args.file))}")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    rows: list[Row | None] = [None] * len(files)
    todo: list[tuple[int, Path, Path]] = []
    progress = _Progress(len(files))
    interrupted = False
    try:
        with _CtrlC() as ctrl_c:
            for index, path, target, done in _plan(files, args.out_dir, schema):
                if done is None:
                    todo.append((index, path, target))
                else:
                    rows[index] = done
                    progress.advance(done)
            work = partial(extract_one, extract_file, args)
            _run(todo, work, args.jobs, rows, progress, ctrl_c)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        progress.close()
        for stray in args.out_dir.glob(".*.result.json.*.tmp"):  # a write cut short
            stray.unlink(missing_ok=True)
        write_summary(args.out_dir, [r for r in rows if r is not None])
    print(_last_line(rows, len(files), interrupted), flush=True)
    if interrupted:
        return 130
    return 0 if all(r is not None and r.status == "succeeded" for r in rows) else 1
