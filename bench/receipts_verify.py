"""Receipts read from the annotators' transcript: what verification and the rules backend make of
them when OCR has lost nothing.

    .venv/bin/python -m bench.receipts_verify [--split tune|held_out|all] [--show]
                                              [--source gold|tesseract|rapidocr|auto]
                                              [--cache DIR] [--worse [HOW]]

Over ``shared/eval/sroie`` (images, ``keys/<n>.json`` as printed, ``ocr_gold/<n>.csv``: the
annotators' transcript, one box and text per segment), each receipt's line table is built from
the transcript (segments on one row joined left to right, rows top to bottom), so extraction is
measured apart from OCR. Two measurements, with a plain schema ``{company, date, address,
total}`` (four strings, no descriptions):

(a) **a careful model**: for each key the receipt's transcript holds, the true value quoted with
    the line(s) that hold it, through the real verification: the share verified; then a wrong
    value with the same true quote (a digit changed in the total or the address, the other
    day/month reading of the date or the next day, another line of the receipt's top block as
    the company): the number verified, which must be 0;
(b) **the rules backend** on the same line tables: F1 per key with SROIE's exact-match rule (a
    date compared as written, ``value.original``; a value sent to review counts as answered),
    how many values it marked verified that are wrong, and how many of its right values it
    marked verified (honesty by sending everything to review would show there).

Receipts 000-049 are the tuning half, 050-099 the held-out half: report them apart. Where
``EVIDEX_EVAL_DIR`` holds all 626 of SROIE's training receipts in the same layout, 100-399
(``more_tune``) add to the tuning half and 400-625 (``more_held_out``) to the held-out one; a
receipt whose photo is byte for byte one numbered before its split (SROIE holds a few twice) is
left out, so no receipt is measured in two splits.

``--source`` picks what the line tables are read from: ``gold`` (the transcript, the default)
or an OCR engine run on ``images/<n>.jpg`` exactly as ``--ocr`` runs it. OCR takes seconds per
receipt, so with ``--cache DIR`` each receipt's OCR line table is stored once, as
``DIR/<n>.<engine>.json`` (the image's sha256 inside: a changed image is read again), and
later runs read it from there; delete the file to read a receipt again after the OCR changes.
Whatever the source, a value is *wrong* against the key and *printed* against the transcript:
a wrong value verified counts where the transcript prints the key (an OCR misreading the rules
verified counts), apart where the key is not what the receipt prints. ``strict`` counts every
verified value that is not the key exactly (spacing and punctuation included), as
``bench.receipts`` does.

``--worse [HOW]`` (with an OCR source) reads each receipt made a poorer photo first, one of
nine ways (:data:`WORSE`): ``blur`` (the default), ``small`` (photographed from further off),
``shade`` (a shadow across the page, dark at its left edge), ``cut`` (the photo's left edge
cuts through the print), ``table`` (laid on a dark grained table), ``tilt`` (photographed at a
slant: the top narrower than the foot), ``dark`` (poor light), ``fade`` (a faded thermal slip),
``warp`` (a curled slip). OCR misreads more, so a
check that keeps misread values from verifying has more to catch than on the receipts as
scanned, where the tuning half leaves it almost nothing. The images and their line tables are
stored under ``DIR/worse`` (``DIR/worse-small`` and so on) with ``--cache``.

``--lose`` measures instead what the rules backend does when OCR loses the line that holds a
key (the most common loss on a real photo): for each receipt and each key its line table holds,
the line(s) holding the key are taken out and the rules run on what is left. The key is then
not printed, so any value marked verified is wrong (unless the slip prints the same value
again, counted apart as still right). With any ``--source`` and ``--worse``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageFilter

from bench import receipts
from bench.common import eval_dir
from bench.ocr_cache import ocr_document
from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.pipeline import extract_parsed
from evidex.schemas import InputError, SchemaDef, get_schema, schema_from_json

KEYS = ("company", "date", "address", "total")
# the built-in schema's fields for the four keys
BUILTIN_PATHS = {
    "company": "merchant_name",
    "date": "date",
    "address": "merchant_address",
    "total": "total",
}
SCHEMA = {"type": "object", "properties": {k: {"type": "string"} for k in KEYS}}
SPLITS = {
    "tune": range(0, 50),
    "held_out": range(50, 100),
    "all": range(0, 100),
    # the rest of SROIE's 626 training receipts, where EVIDEX_EVAL_DIR holds them all
    "more_tune": range(100, 400),
    "more_held_out": range(400, 626),
}


SOURCES = ("gold", "tesseract", "rapidocr", "auto")
# Ways to make a photo poorer (``--worse NAME``), each as a sentence and as what it does
WORSE = {
    "blur": "70% of its size, a 0.6-pixel blur, turned 1.5 degrees, saved at JPEG quality 35",
    "small": "45% of its size, turned -1 degree, saved at JPEG quality 50",
    "shade": "its contrast halved under a shadow across the page, grain added, JPEG quality 40",
    "cut": "its left edge cut off through the print, 15% of the print's width in, JPEG quality 50",
    "table": "laid on a dark grained table a fifth wider and taller each side, JPEG quality 50",
    "tilt": "photographed from below its foot: the top a fifth narrower than the foot, JPEG 50",
    "dark": "taken in poor light: every level at 40% of its brightness, sensor noise, JPEG 50",
    "fade": "a faded thermal slip: the ink a third as dark against the paper, JPEG 50",
    "warp": "a curled slip: each column shifted up or down along a wave a page wide, JPEG 50",
}


def _spoil(rgb: Image.Image, how: str) -> Image.Image:
    if how == "blur":
        size = (round(rgb.width * 0.7), round(rgb.height * 0.7))
        rgb = rgb.resize(size, Image.Resampling.BILINEAR).filter(ImageFilter.GaussianBlur(0.6))
        return rgb.rotate(1.5, expand=True, fillcolor=(200, 200, 200))
    if how == "small":
        size = (round(rgb.width * 0.45), round(rgb.height * 0.45))
        rgb = rgb.resize(size, Image.Resampling.BILINEAR)
        return rgb.rotate(-1.0, expand=True, fillcolor=(200, 200, 200))
    if how == "cut":
        grey = np.asarray(rgb.convert("L"))
        xs = np.nonzero(grey < 128)[1]  # the print's columns, specks aside
        low, high = np.percentile(xs, [2, 98]) if len(xs) else (0, 0)
        left = int(low + 0.15 * (high - low))
        return rgb.crop((left, 0, rgb.width, rgb.height))
    if how == "table":
        grain = np.random.default_rng(11).normal(0, 14, (rgb.height // 4 + 1, rgb.width // 4 + 1))
        wood = Image.fromarray(np.clip(70 + grain, 0, 255).astype(np.uint8)).resize(
            (round(rgb.width * 1.4), round(rgb.height * 1.4)), Image.Resampling.BICUBIC
        )
        table = Image.merge(
            "RGB", (wood, wood.point(lambda v: v * 0.8), wood.point(lambda v: v * 0.6))
        )
        table.paste(rgb, (round(rgb.width * 0.2), round(rgb.height * 0.2)))
        return table
    if how == "tilt":
        w, h = rgb.size
        inset = 0.1 * w  # the top edge drawn in on both sides
        corners = [(inset, 0), (w - inset, 0), (w, h), (0, h)]  # where the page's corners land
        rows = []
        for (x, y), (u, v) in zip(corners, [(0, 0), (w, 0), (w, h), (0, h)], strict=True):
            rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y, u])
            rows.append([0, 0, 0, x, y, 1, -v * x, -v * y, v])
        a = np.array(rows, dtype=float)
        coeffs = np.linalg.solve(a[:, :8], a[:, 8])
        return rgb.transform(
            (w, h),
            Image.Transform.PERSPECTIVE,
            tuple(coeffs),
            Image.Resampling.BICUBIC,
            fillcolor=(200, 200, 200),
        )
    if how == "dark":
        pixels = np.asarray(rgb, dtype=np.float32) * 0.4
        noise = np.random.default_rng(5).normal(0, 5, pixels.shape).astype(np.float32)
        return Image.fromarray(np.clip(pixels + noise, 0, 255).astype(np.uint8))
    if how == "fade":
        pixels = np.asarray(rgb, dtype=np.float32)
        return Image.fromarray(np.clip(255 - (255 - pixels) * 0.35, 0, 255).astype(np.uint8))
    if how == "warp":
        pixels = np.asarray(rgb)
        amplitude = 0.012 * rgb.height
        shifts = np.round(amplitude * np.sin(np.linspace(0, 2 * np.pi, rgb.width))).astype(int)
        out = np.full_like(pixels, 200)
        for x, dy in enumerate(shifts):
            if dy >= 0:
                out[dy:, x] = pixels[: rgb.height - dy, x]
            else:
                out[:dy, x] = pixels[-dy:, x]
        return Image.fromarray(out)
    # shade: ink and paper pulled together, a shadow from dark (left) to light, grain
    pixels = np.asarray(rgb, dtype=np.float32)
    pixels = 128 + (pixels - 128) * 0.5
    shadow = np.linspace(0.6, 1.0, pixels.shape[1], dtype=np.float32)[None, :, None]
    grain = np.random.default_rng(7).normal(0, 6, pixels.shape).astype(np.float32)
    return Image.fromarray(np.clip(pixels * shadow + grain, 0, 255).astype(np.uint8))


def worse_image(image: Path, folder: Path, how: str = "blur") -> Path:
    """``image`` made a poorer photo (:data:`WORSE` ``how``), stored in ``folder`` once."""
    out = folder / image.name
    if not out.is_file():
        with Image.open(image) as photo:
            rgb = _spoil(photo.convert("RGB"), how)
        folder.mkdir(parents=True, exist_ok=True)
        part = out.with_name(f".{out.name}.{os.getpid()}")  # whole or not at all: a run
        rgb.save(part, format="JPEG", quality={"blur": 35, "shade": 40}.get(how, 50))
        part.replace(out)  # beside this one may be reading the same photo
    return out


def _worse_folder(how: str) -> str:
    """Where a spoilt set is cached: ``worse`` for the first way (as it always was)."""
    return "worse" if how == "blur" else f"worse-{how}"


def gold_document(path: Path) -> ParsedDocument:
    """The transcript as a line table, its lines verified as OCR lines are."""
    return receipts.gold_document(path, source="ocr")


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text).upper()


def holding_lines(texts: list[str], value: str, last: bool = False) -> tuple[int, int] | None:
    """The shortest run of consecutive lines (0-based, inclusive) whose text holds ``value``,
    spaces aside: the first such run, or with ``last`` the last one (a total is printed after
    the items that may hold the same figure)."""
    want = _squash(value)
    if not want:
        return None
    best: tuple[int, int] | None = None
    for i in range(len(texts)):
        for j in range(i, min(len(texts), i + 8)):
            if want in _squash(" ".join(texts[i : j + 1])):
                if (
                    best is None
                    or j - i < best[1] - best[0]
                    or (last and j - i == best[1] - best[0])
                ):
                    best = (i, j)
                break
    return best


def true_iso(written: str) -> str | None:
    """What a SROIE date means: day first unless the digits say month first (these receipts
    are Malaysian); ``20180304`` and ``2018/03/04`` as year, month, day; ``05 MAR 2018`` and
    ``05-MAR-2018`` by its month name."""
    months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
    if m := re.fullmatch(r"(\d{4})[-/]?(\d{2})[-/]?(\d{2})", written):
        y, mo, d = int(m[1]), int(m[2]), int(m[3])
    elif m := re.fullmatch(r"(\d{1,2})[\s/-]+([A-Z]{3})[\s/-]+(\d{2,4})", written.upper()):
        y, mo, d = int(m[3]), months.index(m[2]) + 1, int(m[1])
    elif m := re.fullmatch(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{2,4})", written):
        a, b, y = int(m[1]), int(m[2]), int(m[3])
        d, mo = (b, a) if b > 12 else (a, b)
    else:
        return None
    y = y + 2000 if y < 100 else y
    try:
        return dt.date(y, mo, d).isoformat()
    except ValueError:
        return None


def _other_digit(text: str) -> str:
    """``text`` with its last non-zero digit changed (up by one, a 9 down by one)."""
    spots = [i for i, c in enumerate(text) if c.isdigit() and c != "0"]
    if not spots:
        return text + " 1"
    i = spots[-1]
    digit = int(text[i])
    return text[:i] + str(digit + 1 if digit < 9 else digit - 1) + text[i + 1 :]


def wrong_date(iso: str, written: str) -> tuple[str, str]:
    """The other day/month reading where it is a different date, else the next day."""
    day = dt.date.fromisoformat(iso)
    if day.day <= 12 and day.day != day.month:
        return dt.date(day.year, day.day, day.month).isoformat(), written
    return (day + dt.timedelta(days=1)).isoformat(), written


@dataclass
class Tally:
    held: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KEYS, 0))
    verified: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KEYS, 0))
    wrong: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KEYS, 0))
    wrong_verified: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KEYS, 0))
    missed: list[str] = field(default_factory=list)
    caught_not: list[str] = field(default_factory=list)


def _leaf(
    schema: SchemaDef, key: str, value: Any, doc: ParsedDocument, span: tuple[int, int]
) -> dict[str, Any]:
    texts = doc.lines["text"].tolist()
    numbers = doc.lines["line"].tolist()
    quote = " ".join(texts[span[0] : span[1] + 1])
    return {
        "value": value,
        "quote": quote,
        "page": 1,
        "line_start": numbers[span[0]],
        "line_end": numbers[span[1]],
    }


def _value(kind: str, key: str, written: str) -> Any:
    if kind == "date":
        return {"iso": true_iso(written), "original": written}
    if kind == "amount":
        number = re.sub(r"[^\d.]", "", written)
        return {"value": float(number), "currency": None}
    return written


def careful(
    n: str,
    doc: ParsedDocument,
    keys: dict[str, str],
    schema: SchemaDef,
    tally: Tally,
    paths: dict[str, str] | None = None,
) -> None:
    """A careful model's true and wrong answers for each key, as ``schema``'s field
    ``paths[key]`` (the key itself by default)."""
    paths = paths or {k: k for k in KEYS}
    kinds = {
        paths_key: leaf.kind
        for leaf in schema.leaves
        for paths_key in KEYS
        if paths[paths_key] == leaf.path
    }
    texts = doc.lines["text"].tolist()
    for key in KEYS:
        written = (keys.get(key) or "").strip()
        span = holding_lines(texts, written, last=key == "total")
        if not written or span is None or (key == "date" and true_iso(written) is None):
            continue
        tally.held[key] += 1
        value = _value(kinds[key], key, written)
        path = paths[key]
        leaf = _leaf(schema, key, value, doc, span)
        answer = ScriptedLLM(build_answer(schema, {path: leaf}))
        result = extract_parsed(doc, schema, llm=answer, gate=False)
        got = result.fields[path]
        if got.status.value == "verified":
            tally.verified[key] += 1
        else:
            tally.missed.append(f"{n} {key}: {written!r} <- {leaf['quote']!r}: {got.reasons}")
        wrong = _wrong(key, written, value, texts, span)
        if wrong is None:
            continue
        tally.wrong[key] += 1
        if kinds[key] == "amount" and isinstance(wrong, str):
            wrong = _value("amount", key, wrong)
        leaf = _leaf(schema, key, wrong, doc, span)
        answer = ScriptedLLM(build_answer(schema, {path: leaf}))
        result = extract_parsed(doc, schema, llm=answer, gate=False)
        if result.fields[path].status.value == "verified":
            tally.wrong_verified[key] += 1
            tally.caught_not.append(f"{n} {key}: wrong {wrong!r} <- {leaf['quote']!r}")


def _wrong(key: str, written: str, value: Any, texts: list[str], span: tuple[int, int]) -> Any:
    if key == "date":
        iso, original = wrong_date(value["iso"], written)
        return {"iso": iso, "original": original}
    if key == "company":
        others = [
            t.strip()
            for i, t in enumerate(texts[:8])
            if not span[0] <= i <= span[1] and re.search(r"[A-Za-z]{3}", t)
        ]
        return others[0] if others else None
    return _other_digit(written)


def exact(a: Any, b: str) -> bool:
    return isinstance(a, str) and a.strip() == b.strip()


def fold(text: str) -> str:
    """Letters and digits only, upper case: spacing and punctuation aside."""
    return re.sub(r"[^0-9A-Z]", "", text.upper())


def rules_f1(
    n: str,
    doc: ParsedDocument,
    keys: dict[str, str],
    schema: SchemaDef,
    out: dict[str, Any],
    printed_texts: list[str] | None = None,
) -> None:
    """F1 by SROIE's exact match (and apart, how many answers are the key but for its case); a
    value marked verified is *wrong* when it differs from the key beyond spacing and
    punctuation (dates: in meaning), counted apart where the key is not what the transcript
    (``printed_texts``, else ``doc``'s own lines) prints (an annotator's correction no
    reader of the print can make). ``strict`` counts every verified value that is not the
    key exactly."""
    try:  # as ``evidex extract`` runs it: the pre-call gate included
        result = extract_parsed(doc, schema, llm=RulesBackend())
    except InputError as exc:
        out["refused"].append(f"{n}: {exc.code}")
        out["gold"] = {k: out["gold"][k] + bool((keys.get(k) or "").strip()) for k in KEYS}
        return
    texts = printed_texts if printed_texts is not None else doc.lines["text"].tolist()
    for key in KEYS:
        gold = (keys.get(key) or "").strip()
        got = result.fields[key]
        value = _answer(got)
        answered = got.status.value in ("verified", "needs_review") and value not in (None, "")
        right = answered and exact(value, gold)
        out["answered"][key] += answered
        out["gold"][key] += bool(gold)
        out["right"][key] += right
        out["right_but_case"] += bool(answered and not right and str(value).upper() == gold)
        out["right_verified"] += right and got.status.value == "verified"
        if answered and not right and got.status.value == "verified":
            out["strict"] += 1
        if answered and not right:
            if got.status.value == "verified" and not _right(key, got, gold):
                printed = holding_lines(texts, gold) is not None or in_order(texts, gold)
                out["wrong_verified" if printed else "wrong_unprinted"] += 1
                why = (
                    ""
                    if printed
                    else " (the key is empty)"
                    if not gold
                    else " (the key is not in the transcript)"
                )
                out["wrong_list"].append(f"{n} {key}: {value!r} (key {gold!r}) verified{why}")
            out["misses"].append(f"{n} {key}: got {value!r} [{got.status.value}] key {gold!r}")
        elif not answered and gold:
            out["misses"].append(f"{n} {key}: not found; key {gold!r}")


def _answer(got: Any) -> Any:
    """A field's value as SROIE writes it: a date as written, an amount's figure."""
    value = got.value
    if isinstance(value, dict):
        value = value.get("original") if "original" in value else value.get("value")
    return value


def _right(key: str, got: Any, gold: str) -> bool:
    """Whether ``got`` (a field result) says the key's value, spacing, punctuation, a
    date's writing and a total's currency mark aside (a key "RM 8.60" for a total 8.60: the
    annotators wrote the mark for some receipts only)."""
    value = _answer(got)
    if key == "total":
        gold = re.sub(r"^[^\d.-]+", "", gold.strip())
    return (
        exact(value, gold)
        or (isinstance(value, str) and fold(value) == fold(gold))
        or (
            key == "date" and isinstance(got.value, dict) and got.value.get("iso") == true_iso(gold)
        )
    )


def without_lines(doc: ParsedDocument, first: int, last: int) -> ParsedDocument:
    """``doc`` with lines ``first``..``last`` (0-based, inclusive) lost, renumbered."""
    keep = [i for i in range(len(doc.lines)) if not first <= i <= last]
    lines = doc.lines.iloc[keep].reset_index(drop=True)
    lines["line"] = range(1, len(lines) + 1)
    lines["line_in_page"] = lines.groupby("page").cumcount() + 1
    return replace(doc, lines=lines)


def lost_key_lines(
    n: str, doc: ParsedDocument, keys: dict[str, str], schema: SchemaDef, out: dict[str, Any]
) -> None:
    """For each key ``doc``'s lines hold, the rules backend run once those lines are lost:
    counted in ``out[key]`` as [runs, wrong verified, right verified]."""
    texts = doc.lines["text"].tolist()
    for key in KEYS:
        gold = (keys.get(key) or "").strip()
        span = holding_lines(texts, gold, last=key == "total")
        if span is None:
            continue
        try:
            result = extract_parsed(without_lines(doc, *span), schema, llm=RulesBackend())
        except InputError:
            continue
        got = result.fields[key]
        out[key][0] += 1
        if got.status.value != "verified":
            continue
        right = _right(key, got, gold)
        out[key][2 if right else 1] += 1
        if not right:
            lost = f"line {span[0] + 1}" + (f"-{span[1] + 1}" if span[1] > span[0] else "")
            out["list"].append(
                f"{n} {key}: {lost} lost; verified {_answer(got)!r} from {got.quote!r} "
                f"(key {gold!r})"
            )


def in_order(texts: list[str], value: str) -> bool:
    """Whether every word of ``value`` is printed, in order, in the transcript: a key split
    across lines that hold other text too (an address continued after a phone number on the
    same row) is still printed, and a wrong reading of it still counts as wrong."""
    words = re.findall(r"[0-9A-Z]+", value.upper())
    text, at = fold(" ".join(texts)), 0
    for word in words:
        at = text.find(word, at)
        if at < 0:
            return False
        at += len(word)
    return bool(words)


def _f1(right: int, answered: int, gold: int) -> float:
    p = right / answered if answered else 0.0
    r = right / gold if gold else 0.0
    return 100 * 2 * p * r / (p + r) if p + r else 0.0


def run(
    split: str,
    show: bool,
    source: str = "gold",
    cache: Path | None = None,
    worse: str = "",
    lose: bool = False,
) -> None:
    root = eval_dir()
    if root is None or not (root / "sroie").is_dir():
        raise SystemExit("no shared/eval/sroie here: set EVIDEX_EVAL_DIR")
    if worse and source == "gold":
        raise SystemExit("--worse needs an OCR --source: the transcript has no image to spoil")
    scratch = tempfile.TemporaryDirectory()  # the spoilt photos when nothing is cached
    worse_dir = (cache or Path(scratch.name)) / _worse_folder(worse) if worse else None
    sroie = root / "sroie"
    schema = schema_from_json(SCHEMA, name="receipt_keys")
    receipt = get_schema("receipt")
    tally, builtin = Tally(), Tally()
    rules: dict[str, Any] = {
        "answered": dict.fromkeys(KEYS, 0),
        "gold": dict.fromkeys(KEYS, 0),
        "right": dict.fromkeys(KEYS, 0),
        "right_but_case": 0,
        "wrong_verified": 0,
        "wrong_unprinted": 0,
        "strict": 0,
        "refused": [],
        "right_verified": 0,
        "wrong_list": [],
        "misses": [],
    }
    lost: dict[str, Any] = {**{k: [0, 0, 0] for k in KEYS}, "list": []}
    count = 0
    earlier = _photos(sroie, range(SPLITS[split].start))
    for i in SPLITS[split]:
        n = f"{i:03d}"
        gold = sroie / "ocr_gold" / f"{n}.csv"
        key_file = sroie / "keys" / f"{n}.json"
        if not gold.exists() or not key_file.exists() or _photo(sroie, n) in earlier:
            continue
        count += 1
        transcript = gold_document(gold)
        doc = transcript
        if worse_dir is not None:
            image = worse_image(sroie / "images" / f"{n}.jpg", worse_dir / "images", worse)
            doc = ocr_document(image, source, worse_dir)
        elif source != "gold":
            doc = ocr_document(sroie / "images" / f"{n}.jpg", source, cache)
        keys = json.loads(key_file.read_text(encoding="utf-8"))
        if lose:
            lost_key_lines(n, doc, keys, schema, lost)
            continue
        careful(n, doc, keys, schema, tally)
        careful(n, doc, keys, receipt, builtin, BUILTIN_PATHS)
        rules_f1(n, doc, keys, schema, rules, transcript.lines["text"].tolist())
    span = f"{SPLITS[split].start:03d}-{SPLITS[split].stop - 1:03d}"
    made = f", each made worse first ({WORSE[worse]})" if worse else ""
    print(f"receipts {split} ({span}): {count}, read from {source}{made}")
    if lose:
        report_lost(lost, show)
        return
    print(f"(a) careful model on the line tables ({source})")
    held, verified = sum(tally.held.values()), sum(tally.verified.values())
    for key in KEYS:
        print(f"    {key:8} true verified {tally.verified[key]:3}/{tally.held[key]:<3}"
              f"  wrong verified {tally.wrong_verified[key]}/{tally.wrong[key]}")  # fmt: skip
    share = 100 * verified / max(held, 1)
    wrongs = f"{sum(tally.wrong_verified.values())}/{sum(tally.wrong.values())}"
    print(f"    all      true verified {verified}/{held} = {share:.1f}%  wrong verified {wrongs}")
    held, verified = sum(builtin.held.values()), sum(builtin.verified.values())
    wrongs = f"{sum(builtin.wrong_verified.values())}/{sum(builtin.wrong.values())}"
    print(
        f"    built-in receipt schema (total an amount): true verified {verified}/{held} = "
        f"{100 * verified / max(held, 1):.1f}%  wrong verified {wrongs}"
    )
    print("(b) rules backend, plain schema {company, date, address, total}")
    for key in KEYS:
        f1 = _f1(rules["right"][key], rules["answered"][key], rules["gold"][key])
        print(f"    {key:8} F1 {f1:5.1f}  right {rules['right'][key]}/{rules['gold'][key]}"
              f"  answered {rules['answered'][key]}")  # fmt: skip
    total = _f1(
        sum(rules["right"].values()), sum(rules["answered"].values()), sum(rules["gold"].values())
    )
    print(
        f"    all      F1 {total:5.1f}  wrong values verified {rules['wrong_verified']} "
        f"in {count} receipts (+{rules['wrong_unprinted']} where the key is not what the "
        f"transcript prints); strict (any difference) {rules['strict']}"
    )
    cased = sum(rules["right"].values()) + rules["right_but_case"]
    uncased = _f1(cased, sum(rules["answered"].values()), sum(rules["gold"].values()))
    print(
        f"    all      F1 {uncased:5.1f} with case aside: {rules['right_but_case']} answers are "
        "the key but for case (SROIE's keys are written in capitals, whatever the print)"
    )
    if rules["refused"]:
        print(f"    refused by the gate (every key missed): {', '.join(rules['refused'])}")
    right = sum(rules["right"].values())
    print(
        f"    right values verified {rules['right_verified']}/{right}; the rest went to review "
        "with a reason"
    )
    if show:
        print("\nnot verified when true:", *tally.missed, *builtin.missed, sep="\n  ")
        print("\nverified when wrong (built-in):", *builtin.caught_not, sep="\n  ")
        print("\nverified when wrong:", *tally.caught_not, sep="\n  ")
        print("\nrules misses:", *rules["misses"], sep="\n  ")
        print("\nrules wrong verified:", *rules["wrong_list"], sep="\n  ")


def _photo(sroie: Path, n: str) -> str:
    image = sroie / "images" / f"{n}.jpg"
    return hashlib.sha256(image.read_bytes()).hexdigest() if image.is_file() else n


def _photos(sroie: Path, numbers: range) -> set[str]:
    """The photos of receipts ``numbers``, each by its bytes' hash."""
    return {_photo(sroie, f"{i:03d}") for i in numbers}


def report_lost(lost: dict[str, Any], show: bool) -> None:
    print("rules backend, plain schema, once the line(s) holding each key are lost")
    for key in KEYS:
        runs, wrong, right = lost[key]
        print(f"    {key:8} runs {runs:3}  wrong verified {wrong:3}  still right verified {right}")
    runs, wrong = sum(lost[k][0] for k in KEYS), sum(lost[k][1] for k in KEYS)
    print(f"    all      runs {runs:3}  wrong verified {wrong:3}")
    if show:
        print("\nverified when its lines were lost:", *lost["list"], sep="\n  ")


def fill_cache(split: str, source: str, cache: Path | None, worse: str = "") -> None:
    """Read the split's images by ``source`` into ``cache`` (made poorer first with ``worse``,
    as a measuring run reads them), measuring nothing (so the held-out half can be read ahead
    of the one run that measures it)."""
    root = eval_dir()
    if source == "gold" or cache is None or root is None:
        raise SystemExit("--ocr-only needs an OCR --source, --cache and shared/eval/sroie")
    folder = cache / _worse_folder(worse) if worse else cache
    for i in SPLITS[split]:
        image = root / "sroie" / "images" / f"{i:03d}.jpg"
        if image.is_file():
            if worse:
                image = worse_image(image, folder / "images", worse)
            ocr_document(image, source, folder)
            print(f"  {i:03d} stored", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=sorted(SPLITS), default="tune")
    parser.add_argument("--show", action="store_true", help="list every miss")
    parser.add_argument(
        "--source", choices=SOURCES, default="gold", help="the transcript or an OCR engine"
    )
    parser.add_argument("--cache", type=Path, help="where OCR line tables are stored and read")
    parser.add_argument(
        "--ocr-only", action="store_true", help="store the split's OCR line tables and stop"
    )
    parser.add_argument(
        "--worse",
        nargs="?",
        const="blur",
        default="",
        choices=sorted(WORSE),
        help="spoil each photo first: "  # argparse formats help with %: "70%" must be "70%%"
        + "; ".join(f"{k}: {v}" for k, v in WORSE.items()).replace("%", "%%"),
    )
    parser.add_argument(
        "--lose",
        action="store_true",
        help="run the rules with each key's line(s) lost, counting values verified all the same",
    )
    args = parser.parse_args()
    if args.ocr_only:
        fill_cache(args.split, args.source, args.cache, args.worse)
        return
    run(args.split, args.show, args.source, args.cache, args.worse, args.lose)


if __name__ == "__main__":
    main()
