"""Start-up time of the CLI: ``evidex --help`` and ``evidex schemas`` beside ``python -c pass``,
interleaved in the same run (the machine's load hits all three alike; compare the ratios).

    .venv/bin/python -m bench.cli_start [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "evidex --help": [sys.executable, "-m", "evidex.service.cli", "--help"],
    "evidex schemas": [sys.executable, "-m", "evidex.service.cli", "schemas"],
}


def _once(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=7)
    runs = ap.parse_args(argv).runs
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(runs):  # interleaved: each round times the three one after the other
        for name, command in COMMANDS.items():
            times[name].append(_once(command))
    base = statistics.median(times["python -c pass"])
    print(f"{'command':16} {'median s':>9} {'min s':>7} {'minus python':>13}  ({runs} runs)")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:16} {median:9.3f} {min(values):7.3f} {median - base:13.3f}")


if __name__ == "__main__":
    main()
