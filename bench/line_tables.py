"""Whether a change to the PyMuPDF parser leaves its line tables exactly as they were: save the
line and page tables of every sample and ``shared/eval`` PDF (word tables and no tables), change
the parser, then compare.

    .venv/bin/python -m bench.line_tables save DIR
    .venv/bin/python -m bench.line_tables compare DIR

``compare`` prints each PDF whose tables differ in any value, type or order (floats compared
exactly) or whose refusal changed, and exits 1 if any did.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from bench.common import SAMPLES, eval_dir
from evidex.extractors.errors import DocumentError
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser

MODES = ("words", "off")


def pdfs() -> list[Path]:
    root = eval_dir()
    found = sorted(root.glob("*/pdfs/*.pdf")) if root is not None else []
    return found + sorted(SAMPLES.glob("*.pdf"))


def _family(path: Path) -> str:
    """What a saved table is named by besides its PDF's name: the ``shared/eval`` family, or
    ``samples`` (not the checkout's folder, so a clone compares against what another saved)."""
    return "samples" if path.parent == SAMPLES else path.parent.parent.name


def tables(parser: PyMuPDFParser, path: Path) -> Any:
    try:
        parsed = parser.parse(path.read_bytes(), path.name)
    except DocumentError as exc:
        return (type(exc).__name__, str(exc))
    return (parsed.lines, parsed.pages)


def differs(old: Any, new: Any) -> str:
    if isinstance(old[0], str) or isinstance(new[0], str):
        return "" if old == new else f"{old} -> {new}"
    try:
        for before, after in zip(old, new, strict=True):
            pd.testing.assert_frame_equal(before, after, check_exact=True)
    except AssertionError as exc:
        return str(exc)[:500]
    return ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=("save", "compare"))
    ap.add_argument("dir", type=Path)
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    files, changed = pdfs(), 0
    for mode in MODES:
        parser = PyMuPDFParser(tables=mode)
        for n, path in enumerate(files):
            kept = args.dir / f"{mode}-{n:04}-{_family(path)}-{path.stem}.pkl"
            found = tables(parser, path)
            if args.action == "save":
                kept.write_bytes(pickle.dumps(found))
            elif why := differs(pickle.loads(kept.read_bytes()), found):
                changed += 1
                print(f"DIFFERS tables={mode} {path}: {why}")
    print(f"{len(files)} PDFs x {len(MODES)} table modes; differing: {changed}")
    sys.exit(1 if changed else 0)


if __name__ == "__main__":
    main()
