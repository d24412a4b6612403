"""The CPU time of the service's processes, read from ``/proc``: the API's session, the worker
process, and the worker's other processes (its parse processes), with the children each reaped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Cpu", "service_cpu"]


@dataclass(frozen=True)
class Cpu:
    """CPU seconds (user + system, with reaped children) of the API's processes, of the worker
    process itself and of the worker's other processes (its parse processes)."""

    api: float = 0.0
    worker: float = 0.0
    parsers: float = 0.0

    @property
    def total(self) -> float:
        return self.api + self.worker + self.parsers

    def __sub__(self, other: Cpu) -> Cpu:
        return Cpu(self.api - other.api, self.worker - other.worker, self.parsers - other.parsers)


def service_cpu(api: int, worker: int) -> Cpu:
    """:class:`Cpu` now; the API and the worker each lead a session (``start_new_session``), which
    holds the processes they start."""
    tick = os.sysconf("SC_CLK_TCK")
    seen = {"api": 0, "worker": 0, "parsers": 0}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # fields[0] is stat's 3rd field, the state
        session, own, reaped = int(fields[3]), fields[11:13], fields[13:15]
        ticks = sum(int(v) for v in own + reaped)
        if session == api:
            seen["api"] += ticks
        elif int(entry.name) == worker:  # its reaped children are parse processes it replaced
            seen["worker"] += sum(int(v) for v in own)
            seen["parsers"] += sum(int(v) for v in reaped)
        elif session == worker:
            seen["parsers"] += ticks
    return Cpu(seen["api"] / tick, seen["worker"] / tick, seen["parsers"] / tick)
