"""What every Redis connection of this process tells the server about its client, worked out once.

redis-py names itself on each new connection (``CLIENT SETINFO``: library name and version), and
unless it is given a :class:`~redis.driver_info.DriverInfo` it looks its own version up in the
installed packages' metadata for every connection it opens: a scan of ``sys.path``, ~0.6 ms of
CPU. A pool opens a connection per thread or request in flight at once, so a burst of 64 jobs
paid that 64 times in the API and again in the worker. Every client evidex builds passes
:func:`driver_info`: the same names reach the server, looked up once per process.
"""

from __future__ import annotations

from functools import cache

from redis.driver_info import DriverInfo

__all__ = ["driver_info"]


@cache
def driver_info() -> DriverInfo:
    """redis-py's own name and version, for ``Redis(..., driver_info=driver_info())``."""
    return DriverInfo()
