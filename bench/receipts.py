"""Receipts read by each OCR engine: how much of what is printed survives, how fast, and what the
rules backend makes of it.

    .venv/bin/python -m bench.receipts [--range 0-49] [--source tesseract,rapidocr,auto,gold]
                                       [--no-rules] [--show] [--calibrate] [--turn 90]

Over ``shared/eval/sroie`` (``images/<n>.jpg``, ``keys/<n>.json``, ``ocr_gold/<n>.csv``; skipped
with a message when absent). Receipts 000-049 are the tuning half, 050-099 the held-out half:
report them apart (``--range 0-49``, ``--range 50-99``).

Sources: ``tesseract``, ``rapidocr``, ``auto`` (``OcrParser(engine=...)`` on the image, exactly
what ``--ocr`` runs), and ``gold``: the annotators' transcript, the ceiling: its segments in
file order for the survival figures, and as a line table for the rules (segments whose boxes
overlap vertically by half the smaller height are one line, left to right). The transcript
holds 100% of the key values by ``near`` but not by ``kept``: the keys differ from the print
now and then ("124." for a printed "124", "BHD" for "BND").

Figures per source (the same definitions are printed above the table):

* **kept**: the share of key values (company, date, address, total of ``keys/<n>.json``) found
  in the page's text: its lines joined in reading order (the order of the line table; for
  ``gold``, the transcript's segments in file order), so a value the OCR split over two lines
  counts. Compared with every whitespace character removed on both sides (the keys add spaces
  after commas that the receipts do not print) and letters in upper case (the keys are upper
  case where a receipt prints "Sungai Rengit").
* **near**: as kept, but the value may differ from some stretch of the joined text by at most
  one edit (insertion, deletion or substitution) per 10 characters of the value, rounded down:
  an address of 60 characters may have 6, a total of 4 characters none.
* **1-line**: the strict rule: company, date and total inside one line; the address inside a
  run of consecutive lines (their texts joined).
* **by label**: the share of totals that sit in a line with a total's label (TOTAL, AMOUNT,
  NETT, JUMLAH, DUE) or in the line right after one: whether the line table reads a receipt's
  label and its amount together, as a model must to tell the total from the cash and change.
* **words**: the share of the transcript's words (split at whitespace) that the page's text
  holds as whole words, each counted as often as both hold it: how well spaces were put back,
  which the key values, compared without spaces, do not show.
* Per key: kept per key.
* **s/receipt**: wall seconds of the parse per receipt (mean), and CPU seconds (this process and
  its Tesseract children), which stays fair when the machine is shared.
* **rules**: the public extract path (``extract_parsed`` with ``RulesBackend``) with a plain
  schema ``{company, date, address, total}`` (four string properties). F1 per key with SROIE's
  exact-match rule (the value, stripped, equal to the key's; a date compared as written), a
  value counting as answered when its status is verified or needs_review; a key the
  annotators left empty is left out, as from "kept"; and the number of
  wrong values marked verified, and how many of those are wrong as text (case and whitespace
  set aside: the keys are upper case and respaced where a receipt prints "05 Mar 2018", which
  OCR may read "05Mar2018"; such a value is the printed one, differently written).
* ``--turn DEG``: each photo is read turned 90, 180 or 270 degrees anticlockwise (saved again
  as JPEG at quality 95), as a receipt photographed lying that way: how well pages are set
  upright. The transcript is not turned (``gold`` is the same), and it cannot go with
  ``--calibrate``, which compares the transcript's boxes with the lines'.
* ``--calibrate``: per engine, the reliability of the raw line confidence against the
  transcript (a line is read right when its text, spaces aside, equals the transcript segments
  whose centres lie in its box, joined: an isotonic fit of the share read right per score), and
  the curve to paste into ``evidex/extractors/parse/ocr/calibrate.py``: the raw score under
  which only 5% of the lines read right fall is mapped to 0.6 (verification's "low OCR
  confidence"), 0 to 0 and 1 to 1, linearly between; then, with it, the share of right lines
  flagged low and of wrong lines not flagged. The same for words (``WORD_CURVES``): a word of
  such a line is read right when the line's text and the transcript's, spaces aside, align
  every character of it.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import re
import resource
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from PIL import Image
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from bench.common import eval_dir
from evidex.extractors.document import ParsedDocument, make_lines, make_pages
from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.parse.ocr import OcrParser
from evidex.extractors.parse.ocr import calibrate as calibration
from evidex.extractors.pipeline import extract_parsed
from evidex.schemas import schema_from_json

KEYS = ("company", "date", "address", "total")
SCHEMA = {"type": "object", "properties": {k: {"type": "string"} for k in KEYS}}
SOURCES = ("tesseract", "rapidocr", "auto", "gold")
OCR_LOW = 0.6  # as evidex.extractors.verify.fields.OCR_LOW
RIGHT_FLAGGED = 0.05  # the share of lines read right that the curve lets fall under OCR_LOW


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text).upper()


def _segments(path: Path) -> list[tuple[float, float, float, float, str]]:
    out = []
    with path.open(encoding="utf-8", errors="replace", newline="") as fh:
        for cells in csv.reader(fh):
            if len(cells) < 9:
                continue
            xs, ys = [float(v) for v in cells[0:8:2]], [float(v) for v in cells[1:8:2]]
            text = ",".join(cells[8:]).strip()
            if text:
                out.append((min(xs), min(ys), max(xs), max(ys), text))
    return out


def gold_document(path: Path, source: str = "transcript") -> ParsedDocument:
    """The transcript as a line table (see the module's "Sources"): segments whose boxes overlap
    vertically by half the smaller height are one line, read left to right, joined by a space;
    ``source`` names where the lines came from (``ocr``: verified as OCR lines are)."""
    rows: list[list[tuple[float, float, float, float, str]]] = []
    for seg in sorted(_segments(path), key=lambda s: (s[1] + s[3]) / 2):
        for row in rows:
            y0, y1 = min(s[1] for s in row), max(s[3] for s in row)
            if min(y1, seg[3]) - max(y0, seg[1]) >= 0.5 * min(y1 - y0, seg[3] - seg[1]):
                row.append(seg)
                break
        else:
            rows.append([seg])
    line_rows: list[dict[str, Any]] = []
    for row in rows:
        row.sort(key=lambda s: s[0])
        text, words = "", []
        for x0, y0, x1, y1, seg_text in row:
            text += " " if text else ""
            for m in re.finditer(r"\S+", seg_text):
                words.append((len(text) + m.start(), len(text) + m.end(), x0, y0, x1, y1))
            text += seg_text
        box = [f(s[i] for s in row) for f, i in ((min, 0), (min, 1), (max, 2), (max, 3))]
        line_rows.append(
            {"page": 1, "text": text, "x0": box[0], "y0": box[1], "x1": box[2], "y1": box[3],
             "font_size": max(s[3] - s[1] for s in row), "visible": True, "hidden_reason": "",
             "words": words}
        )  # fmt: skip
    pages = make_pages(
        [{"page": 1, "width": max((r["x1"] for r in line_rows), default=600.0),
          "height": max((r["y1"] for r in line_rows), default=800.0), "rotation": 0,
          "parser": "ocr", "has_text_layer": False}]
    )  # fmt: skip
    return ParsedDocument(
        make_lines(line_rows, source),
        pages,
        hashlib.sha256(path.read_bytes()).hexdigest(),
        path.stem + ".jpg",
        source,
        "image/jpeg",
    )


@dataclass(frozen=True)
class Survival:
    """How one key value survived in a page's text (see the module's "Figures")."""

    kept: bool
    near: bool
    one_line: bool


def survival(key: str, value: str, texts: list[str]) -> Survival:
    """The survival rules of the module docstring for ``value`` over the lines ``texts``."""
    want = squash(value)
    if not want:
        return Survival(False, False, False)
    lines = [squash(t) for t in texts]
    joined = "".join(lines)
    kept = want in joined
    return Survival(kept, kept or _near(want, joined), _one_line(key, want, lines))


def _near(want: str, text: str) -> bool:
    """Whether some stretch of ``text`` is within one edit per 10 characters of ``want``."""
    edits = len(want) // 10
    if not edits:
        return False
    stretches = [
        text[i : i + size]
        for size in range(max(1, len(want) - edits), len(want) + edits + 1)
        for i in range(0, max(1, len(text) - size + 1))
    ]
    return (
        process.extractOne(want, stretches, scorer=Levenshtein.distance, score_cutoff=edits)
        is not None
    )


def _one_line(key: str, want: str, lines: list[str]) -> bool:
    if key != "address":
        return any(want in line for line in lines)
    return any(want in "".join(lines[i:j]) for i in range(len(lines)) for j in (i + 1, i + 8))


@dataclass
class Tally:
    keys: Counter[str] = field(default_factory=Counter)
    kept: Counter[str] = field(default_factory=Counter)
    near: Counter[str] = field(default_factory=Counter)
    one_line: Counter[str] = field(default_factory=Counter)
    by_label: int = 0
    wall: float = 0.0
    cpu: float = 0.0
    receipts: int = 0
    answered: Counter[str] = field(default_factory=Counter)
    right: Counter[str] = field(default_factory=Counter)
    wrong_verified: int = 0
    wrong_as_text: int = 0  # of those, wrong even with case and spaces set aside
    lost: list[str] = field(default_factory=list)
    words: Counter[str] = field(default_factory=Counter)  # "found", "printed" (see "words")
    calib: list[tuple[float, bool]] = field(default_factory=list)
    calib_words: list[tuple[float, bool]] = field(default_factory=list)


def count(tally: Tally, receipt: str, keys: dict[str, str], texts: list[str]) -> None:
    """Add one receipt's key values, as they survive in ``texts``, to ``tally``."""
    for key in KEYS:
        value = keys.get(key) or ""
        if not value.strip():
            continue
        found = survival(key, value, texts)
        tally.keys[key] += 1
        tally.kept[key] += found.kept
        tally.near[key] += found.near
        tally.one_line[key] += found.one_line
        if key == "total":
            tally.by_label += by_label(value, texts)
        if not found.kept:
            tally.lost.append(f"{receipt} {key}: {value!r}{' (near)' if found.near else ''}")


_TOTAL_LABEL = re.compile(r"(?i)total|amount|nett|jumlah|due")


def by_label(want: str, texts: list[str]) -> bool:
    """Whether the total ``want`` is in a line with a total's label or in the line after one
    (see "by label")."""
    want = squash(want)
    return bool(want) and any(
        want in squash(text)
        and (_TOTAL_LABEL.search(text) or (i and _TOTAL_LABEL.search(texts[i - 1])))
        for i, text in enumerate(texts)
    )


def whole_words(tally: Tally, texts: list[str], transcript: Path) -> None:
    """Add to ``tally.words`` how many of the transcript's words ``texts`` holds whole (each
    word counted as often as both hold it): a space dropped or put in the wrong place loses
    the words on both sides, which the key values, compared without spaces, do not show."""
    printed = Counter(word for seg in _segments(transcript) for word in seg[4].split())
    read = Counter(word for text in texts for word in text.split())
    tally.words["found"] += sum((printed & read).values())
    tally.words["printed"] += sum(printed.values())


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _answer(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("original") if "original" in value else value.get("value")
    return None if value in (None, "") else str(value)


def rules(doc: ParsedDocument, keys: dict[str, str], tally: Tally) -> None:
    schema = schema_from_json(SCHEMA, name="receipt_plain")
    result = extract_parsed(doc, schema, llm=RulesBackend())
    for key in KEYS:
        want = (keys.get(key) or "").strip()
        if not want:
            continue  # the annotators left it empty (033's total): nothing to compare with
        got = result.fields[key]
        value = _answer(got.value)
        answered = got.status.value in ("verified", "needs_review") and value is not None
        right = answered and (value or "").strip() == want
        tally.answered[key] += answered
        tally.right[key] += right
        wrong = answered and not right and got.status.value == "verified"
        tally.wrong_verified += wrong
        tally.wrong_as_text += wrong and squash(value or "") != squash(want)


def _truths(doc: ParsedDocument, transcript: Path) -> list[tuple[dict[Any, Any], str]]:
    """Each OCR line with the transcript's text in its box (segments whose centres lie in it,
    left to right, squashed)."""
    segs = _segments(transcript)
    out = []
    records: list[dict[Any, Any]] = doc.lines.to_dict("records")
    for row in records:
        inside = sorted(
            (s for s in segs if row["x0"] <= (s[0] + s[2]) / 2 <= row["x1"]
             and row["y0"] <= (s[1] + s[3]) / 2 <= row["y1"]),
            key=lambda s: s[0],
        )  # fmt: skip
        out.append((row, squash("".join(s[4] for s in inside))))
    return out


def right_lines(doc: ParsedDocument, transcript: Path) -> list[tuple[float, bool]]:
    """(raw line confidence, read right) per OCR line (see ``--calibrate``)."""
    return [
        (float(row["ocr_confidence"]), bool(truth) and squash(str(row["text"])) == truth)
        for row, truth in _truths(doc, transcript)
    ]


def right_words(doc: ParsedDocument, transcript: Path) -> list[tuple[float, bool]]:
    """(raw word confidence, read right) per word of the OCR lines the transcript has text
    for, words of no letter or digit left out: a word is read right when the line's text and
    the transcript's, spaces aside, align every character of it (and lose none inside or
    just after it)."""
    out = []
    for row, truth in _truths(doc, transcript):
        confs, text = list(row["word_confidence"]), str(row["text"])
        words = [text[w[0] : w[1]] for w in row["words"]]
        if not truth or len(confs) != len(words):
            continue
        squashed = [squash(w) for w in words]
        owner = [i for i, w in enumerate(squashed) for _ in w]
        read = "".join(squashed)
        right = [True] * len(words)
        for tag, i1, i2, _, _ in SequenceMatcher(None, read, truth, autojunk=False).get_opcodes():
            if tag in ("replace", "delete"):
                for k in range(i1, i2):
                    right[owner[k]] = False
            elif tag == "insert" and read:
                right[owner[max(0, i1 - 1)]] = False
        out += [
            (float(c), ok)
            for c, ok, w in zip(confs, right, words, strict=True)
            if any(ch.isalnum() for ch in w)
        ]
    return out


def isotonic(pairs: list[tuple[float, bool]], bins: int = 12) -> list[tuple[float, float]]:
    """Equal-count bins of raw score, their share right, made monotone by pooling adjacent
    violators; knots at each bin's mean score."""
    pairs = sorted(pairs)
    size = max(1, len(pairs) // bins)
    blocks = [pairs[i : i + size] for i in range(0, len(pairs), size)]
    pooled: list[list[float]] = []  # [sum score, sum right, count]
    for block in blocks:
        pooled.append([sum(p[0] for p in block), sum(p[1] for p in block), len(block)])
        while len(pooled) > 1 and pooled[-2][1] / pooled[-2][2] > pooled[-1][1] / pooled[-1][2]:
            last = pooled.pop()
            pooled[-1] = [a + b for a, b in zip(pooled[-1], last, strict=True)]
    return [(round(s / n, 3), round(r / n, 3)) for s, r, n in pooled]


def run(root: Path, first: int, last: int, sources: list[str], args: argparse.Namespace) -> None:
    if args.calibrate:
        for engine in ("tesseract", "rapidocr"):
            calibration.CURVES[engine] = ()
            calibration.WORD_CURVES[engine] = ()
    numbers = [f"{n:03}" for n in range(first, last + 1)]
    numbers = [n for n in numbers if (root / "images" / f"{n}.jpg").is_file()]
    print(f"receipts {first:03}-{last:03}: {len(numbers)} found in {root}")
    tallies = {s: Tally() for s in sources}
    for n in numbers:
        keys = json.loads((root / "keys" / f"{n}.json").read_text(encoding="utf-8"))
        gold = gold_document(root / "ocr_gold" / f"{n}.csv")
        for source in sources:
            tally = tallies[source]
            wall, cpu = time.perf_counter(), _cpu()
            if source == "gold":
                doc = gold
            else:
                data = _turned((root / "images" / f"{n}.jpg").read_bytes(), args.turn)
                doc = OcrParser(engine=source).parse(data, f"{n}.jpg")
            tally.wall += time.perf_counter() - wall
            tally.cpu += _cpu() - cpu
            tally.receipts += 1
            if source == "gold":
                texts = [s[4] for s in _segments(root / "ocr_gold" / f"{n}.csv")]
            else:
                texts = [str(t) for t in doc.lines["text"]]
            count(tally, n, keys, texts)
            whole_words(tally, texts, root / "ocr_gold" / f"{n}.csv")
            if not args.no_rules:
                rules(doc, keys, tally)
            if args.calibrate and source != "gold":
                tally.calib += right_lines(doc, root / "ocr_gold" / f"{n}.csv")
                tally.calib_words += right_words(doc, root / "ocr_gold" / f"{n}.csv")
        print(f"  {n} done", file=sys.stderr)
    report(tallies, args)


def _turned(data: bytes, degrees: int) -> bytes:
    """A JPEG receipt turned ``degrees`` anticlockwise, as a photo taken lying that way (see
    ``--turn``); as it is for 0."""
    if not degrees:
        return data
    with Image.open(io.BytesIO(data)) as photo:
        turned = photo.rotate(degrees, expand=True)
    out = io.BytesIO()
    turned.save(out, format="JPEG", quality=95)
    return out.getvalue()


def _f1(right: int, answered: int, gold: int) -> float:
    p = right / answered if answered else 0.0
    r = right / gold if gold else 0.0
    return 100 * 2 * p * r / (p + r) if p + r else 0.0


HEADER = """\
kept    key values (company, date, address, total) found in the page's lines joined in reading
        order (gold: the transcript's segments in file order), whitespace removed, upper case
near    as kept, allowing 1 edit per 10 characters of the value (rounded down: none under 10)
1-line  strict: company, date and total inside one line, the address in consecutive lines
words   the transcript's words (split at spaces) found whole in the page's text: spacing
label   totals in a line with a total's label or in the line after one: read together
per key kept/values; wall s and cpu s: seconds of the parse per receipt (cpu: this process and
        its children, fair on a shared machine)"""


def report(tallies: dict[str, Tally], args: argparse.Namespace) -> None:
    print("\n" + HEADER)
    print(f"\n{'source':10} {'kept':>6} {'near':>6} {'1-line':>6} {'words':>6} {'label':>7} "
          + " ".join(f"{k:>8}" for k in KEYS) + f" {'wall s':>7} {'cpu s':>6}")  # fmt: skip
    for source, t in tallies.items():
        total = max(sum(t.keys.values()), 1)
        shares = [100 * sum(c.values()) / total for c in (t.kept, t.near, t.one_line)]
        per_key = " ".join(f"{t.kept[k]:>3}/{t.keys[k]:<4}" for k in KEYS)
        n = max(t.receipts, 1)
        shares.append(100 * t.words["found"] / max(t.words["printed"], 1))
        cells = " ".join(f"{v:5.1f}%" for v in shares)
        label = f"{t.by_label:>3}/{t.keys['total']:<3}"
        print(f"{source:10} {cells} {label} {per_key} {t.wall / n:7.2f} {t.cpu / n:6.2f}")
    if not args.no_rules:
        print(f"\nrules F1 ({'plain schema'}) " + " ".join(f"{k:>8}" for k in KEYS)
              + "     all  wrong verified  (as text)")  # fmt: skip
        for source, t in tallies.items():
            f1 = [_f1(t.right[k], t.answered[k], t.keys[k]) for k in KEYS]
            every = _f1(sum(t.right.values()), sum(t.answered.values()), sum(t.keys.values()))
            cells = " ".join(f"{v:8.1f}" for v in f1)
            wrongs = f"{t.wrong_verified:6} {t.wrong_as_text:16}"
            print(f"{source:10}{'':16} {cells} {every:7.1f} {wrongs}")
    if args.calibrate:
        for source, t in tallies.items():
            for unit, pairs, curves in (
                ("lines", t.calib, calibration.CURVES),
                ("words", t.calib_words, calibration.WORD_CURVES),
            ):
                if pairs:
                    _fit(source, unit, pairs, curves)
    if args.show:
        for source, t in tallies.items():
            print(f"\n{source} lost:", *t.lost, sep="\n  ")


def _fit(
    source: str,
    unit: str,
    pairs: list[tuple[float, bool]],
    curves: dict[str, tuple[tuple[float, float], ...]],
) -> None:
    """Print the reliability of one engine's raw ``unit`` scores and the curve fitted to them
    (see ``--calibrate``), and how the curve sorts them."""
    right = sorted(c for c, ok in pairs if ok)
    wrong = [c for c, ok in pairs if not ok]
    print(f"\n{source}: {len(pairs)} {unit}, {len(right)} read right")
    print(f"  reliability (raw score, share read right): {tuple(isotonic(pairs))}")
    knee = round(right[int(RIGHT_FLAGGED * len(right))], 3) if right else OCR_LOW
    curve = ((0.0, 0.0), (knee, OCR_LOW), (1.0, 1.0))
    curves[source] = curve
    print(f"  curve: {curve}")
    flagged = sum(calibration.calibrated(source, c, curves) < OCR_LOW for c in right)
    passed = sum(calibration.calibrated(source, c, curves) >= OCR_LOW for c in wrong)
    print(f"  with it: right {unit} flagged low {flagged}/{len(right)}, "
          f"wrong {unit} not flagged {passed}/{len(wrong)}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--range", default="0-49", help="receipt numbers, e.g. 0-49 or 50-99")
    ap.add_argument(
        "--source", default=",".join(SOURCES), help="comma-separated: " + ", ".join(SOURCES)
    )
    ap.add_argument("--no-rules", action="store_true", help="OCR survival and time only")
    ap.add_argument("--show", action="store_true", help="list every key value lost")
    ap.add_argument("--calibrate", action="store_true", help="fit line-confidence curves")
    ap.add_argument(
        "--turn",
        type=int,
        choices=(0, 90, 180, 270),
        default=0,
        help="read each photo turned this many degrees anticlockwise (not with --calibrate)",
    )
    args = ap.parse_args()
    if args.turn and args.calibrate:
        ap.error("--calibrate compares the transcript's boxes with the lines': use it upright")
    base = eval_dir()
    root = base / "sroie" if base is not None else None
    if root is None or not (root / "images").is_dir():
        print("bench.receipts: shared/eval/sroie is not here; nothing to measure (skipped)")
        return
    first, _, last = args.range.partition("-")
    sources = [s.strip() for s in args.source.split(",") if s.strip()]
    unknown = [s for s in sources if s not in SOURCES]
    if unknown:
        ap.error(f"unknown source {unknown[0]!r}; use: {', '.join(SOURCES)}")
    run(root, int(first), int(last or first), sources, args)


if __name__ == "__main__":
    main()
