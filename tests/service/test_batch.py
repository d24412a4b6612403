"""``evidex extract`` over many files: results, summaries, failed rows, resume, Ctrl-C."""

from __future__ import annotations

import csv
import gc
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
from sample_answers import SAMPLES

from evidex import __version__
from evidex.service import batch
from evidex.service.batch import expand_inputs, result_names
from evidex.service.cli import main

INVOICE = SAMPLES / "invoice.pdf"


def _inbox(tmp_path: Path, copies: int = 2) -> Path:
    inbox = tmp_path / "in"
    (inbox / "sub").mkdir(parents=True)
    for n in range(copies):
        shutil.copyfile(INVOICE, inbox / f"inv{n}.pdf")
    (inbox / "sub" / "broken.pdf").write_bytes(b"%PDF-1.7\nthis is not really a PDF\n")
    (inbox / "notes.txt").write_text("not a document: skipped when a folder is expanded")
    return inbox


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_batch_writes_results_and_summaries_and_counts_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inbox, out = _inbox(tmp_path), tmp_path / "out"
    missing = tmp_path / "gone.pdf"
    argv = ["extract", str(inbox), str(missing), "--schema", "invoice", "--llm", "rules"]
    code = main([*argv, "--out-dir", str(out), "--jobs", "2"])
    assert code == 1  # not every file succeeded
    printed = capsys.readouterr().out.strip().splitlines()
    assert printed[-1] == "4 files: 2 succeeded, 2 failed"
    assert sorted(p.name for p in out.iterdir()) == [
        "inv0.result.json", "inv1.result.json", "summary.csv", "summary.jsonl",
    ]  # fmt: skip
    result = json.loads((out / "inv0.result.json").read_text())
    assert result["fields"]["payment.iban"]["status"] == "verified"
    assert result["trace"]["evidex_version"] == __version__

    rows = _csv(out / "summary.csv")
    assert [Path(r["file"]).name for r in rows] == [
        "inv0.pdf",
        "inv1.pdf",
        "broken.pdf",
        "gone.pdf",
    ]
    ok, broken, gone = rows[0], rows[2], rows[3]
    assert ok["status"] == "succeeded" and ok["result"] == "inv0.result.json"
    assert ok["payment.iban"].replace(" ", "") == "DE45100400000482700203"
    assert ok["payment.iban.status"] == "verified"
    counts = {k: int(ok[k]) for k in ("verified", "needs_review", "unsupported", "not_found")}
    assert counts == result["summary"]
    assert (broken["status"], broken["error_code"]) == ("failed", "pdf_corrupt")
    assert (gone["status"], gone["error_code"], gone["result"]) == ("failed", "bad_input", "")
    assert "no such file" in gone["error"]

    lines = [json.loads(x) for x in (out / "summary.jsonl").read_text().splitlines()]
    assert [x["status"] for x in lines] == ["succeeded", "succeeded", "failed", "failed"]
    assert lines[0]["fields"]["total"] == {
        "value": result["fields"]["total"]["value"], "status": "verified"
    }  # fmt: skip
    assert lines[2]["error"]["code"] == "pdf_corrupt" and lines[2]["result"] is None


def test_rerun_skips_what_is_done_and_redoes_what_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inbox, out = tmp_path / "in", tmp_path / "out"
    inbox.mkdir()
    for name in ("a.pdf", "b.pdf", "c.pdf"):
        shutil.copyfile(INVOICE, inbox / name)
    argv = ["extract", str(inbox / "*.pdf"), "--schema", "invoice", "--llm", "rules"]
    argv += ["--out-dir", str(out)]
    assert main(argv) == 0
    capsys.readouterr()
    # b: another document under the same name; c: a result made by another evidex version.
    shutil.copyfile(SAMPLES / "cv.pdf", inbox / "b.pdf")
    stored = json.loads((out / "c.result.json").read_text())
    stored["trace"]["evidex_version"] = "0.0.1"
    (out / "c.result.json").write_text(json.dumps(stored))
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1] == "3 files: 3 succeeded (1 already done), 0 failed"
    assert any(line.endswith("a.pdf: already done") for line in printed)
    rows = [json.loads(x) for x in (out / "summary.jsonl").read_text().splitlines()]
    assert [r["resumed"] for r in rows] == [True, False, False]
    assert json.loads((out / "b.result.json").read_text())["document"]["filename"] == "b.pdf"
    assert (
        rows[1]["sha256"] == json.loads((out / "b.result.json").read_text())["document"]["sha256"]
    )
    assert json.loads((out / "c.result.json").read_text())["trace"]["evidex_version"] == (
        __version__
    )
    # Another schema is another result: nothing is skipped.
    assert main([*argv[:2], "--schema", "contract", *argv[4:]]) == 0
    assert "0 already done" not in capsys.readouterr().out


def test_many_files_need_an_output_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["extract", str(INVOICE), str(INVOICE), "--schema", "invoice"]) == 2
    assert capsys.readouterr().err.startswith("evidex: bad_input: several files")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["extract", str(empty), "--schema", "invoice", "--out-dir", str(tmp_path)]) == 2
    assert "no documents found" in capsys.readouterr().err


def test_inputs_expand_in_order_and_names_stay_unique(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    for folder in ("x", "y"):
        shutil.copyfile(INVOICE, tmp_path / folder / "same.pdf")
    (tmp_path / "x" / "scan.TIFF").write_bytes(b"II*\x00")
    files = expand_inputs([tmp_path / "x", tmp_path / "**" / "same.pdf"])
    assert [p.relative_to(tmp_path).as_posix() for p in files] == [
        "x/same.pdf", "x/scan.TIFF", "y/same.pdf",
    ]  # fmt: skip
    names = result_names(files)
    assert names[1] == "scan.result.json"
    assert names[0] != names[2] and names[0].startswith("same-")
    assert result_names(files) == names  # the same on every run: a rerun finds its results


def test_ctrl_c_keeps_finished_results_and_a_rerun_finishes(tmp_path: Path) -> None:
    inbox, out = tmp_path / "in", tmp_path / "out"
    inbox.mkdir()
    for n in range(12):
        shutil.copyfile(INVOICE, inbox / f"inv{n:02}.pdf")
    argv = [sys.executable, "-m", "evidex.service.cli", "extract", str(inbox)]
    argv += ["--schema", "invoice", "--llm", "rules", "--out-dir", str(out)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list(out.glob("*.result.json")):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    last = stdout.strip().splitlines()[-1]
    assert "not run (interrupted)" in last and "Traceback" not in stderr
    kept = sorted(p.name for p in out.glob("*.result.json"))
    rows = [json.loads(x) for x in (out / "summary.jsonl").read_text().splitlines()]
    assert sorted(r["result"] for r in rows) == kept and 0 < len(kept) < 12
    assert not list(out.glob(".*"))  # no half-written result left behind
    for name in kept:
        json.loads((out / name).read_text())  # each one whole
    again = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip().splitlines()[-1] == (
        f"12 files: 12 succeeded ({len(kept)} already done), 0 failed"
    )


class _SignalsInItsFinaliser:
    """Ctrl-C arriving while Python runs an object's ``__del__``: the KeyboardInterrupt raised
    there is only reported ("Exception ignored in …"), never seen by the caller."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the point here
def test_a_ctrl_c_python_swallows_in_a_finaliser_still_stops_the_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reported: list[BaseException | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: reported.append(u.exc_value))
    done: list[str] = []

    def work(path: Path, target: Path) -> batch.Row:
        finaliser = _SignalsInItsFinaliser()
        del finaliser
        gc.collect()
        done.append(path.name)
        return batch.Row(file=str(path), result=target.name, status="succeeded")

    todo = [(i, tmp_path / f"f{i}.pdf", tmp_path / f"f{i}.json") for i in range(3)]
    rows: list[batch.Row | None] = [None] * 3
    before = signal.getsignal(signal.SIGINT)  # a shell's background job starts with SIG_IGN
    with pytest.raises(KeyboardInterrupt), batch._CtrlC() as ctrl_c:
        batch._run(todo, work, 1, rows, batch._Progress(3), ctrl_c)
    assert done == ["f0.pdf"]  # the first document's row is kept, the others are not run
    assert [r.status if r else None for r in rows] == ["succeeded", None, None]
    assert signal.getsignal(signal.SIGINT) is before  # the handler found is put back
    # the press is not reported as an error where Python swallowed it; other reports still are
    assert reported == []
    sys.unraisablehook(types.SimpleNamespace(exc_value=ValueError("kept")))
    assert [str(e) for e in reported] == ["kept"]
