"""Start-up time of the CLI: ``evidex --help`` and ``evidex schemas`` beside ``python -c pass``,
interleaved in the same run (the machine's load hits all three alike; compare the ratios).

    .venv/bin/python -m bench.cli_start [--runs 7] [--before DIR]

``--before DIR``: also time the CLI of another checkout's ``evidex`` package (e.g.
``git archive <commit> evidex | tar -x -C DIR``), interleaved in the same run.
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


def _once(argv: list[str], cwd: str | None) -> float:
    started = time.perf_counter()  # ``-m`` puts the working directory first on sys.path
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=cwd)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--before", help="a directory holding another version's evidex package")
    args = ap.parse_args(argv)
    runs = args.runs
    commands: dict[str, tuple[list[str], str | None]] = {
        name: (command, None) for name, command in COMMANDS.items()
    }
    if args.before:
        for name in ("evidex --help", "evidex schemas"):
            commands[f"before: {name}"] = (COMMANDS[name], args.before)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):  # interleaved: each round times every command one after the other
        for name, (command, cwd) in commands.items():
            times[name].append(_once(command, cwd))
    base = statistics.median(times["python -c pass"])
    print(f"{'command':24} {'median s':>9} {'min s':>7} {'minus python':>13}  ({runs} runs)")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:24} {median:9.3f} {min(values):7.3f} {median - base:13.3f}")


if __name__ == "__main__":
    main()
