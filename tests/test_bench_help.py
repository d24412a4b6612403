"""Every bench answers ``python -m bench.NAME --help`` with its usage (a help text argparse cannot
format crashed ``bench.receipts_verify --help`` with a TypeError)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

# The benches that take options (the others take none and run when started).
BENCHES = sorted(
    p.stem
    for p in (Path(__file__).parents[1] / "bench").glob("*.py")
    if "ArgumentParser(" in p.read_text()
)


@pytest.mark.parametrize("name", BENCHES)
def test_a_bench_prints_its_usage(
    name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", [f"bench.{name}", "--help"])
    monkeypatch.delitem(sys.modules, f"bench.{name}", raising=False)  # run afresh as __main__
    with pytest.raises(SystemExit) as ended:
        runpy.run_module(f"bench.{name}", run_name="__main__")
    assert ended.value.code == 0
    assert capsys.readouterr().out.startswith("usage:")
