"""An in-memory :class:`~evidex.workers.stores.BlobStore`: the shipped fake.

For tests, the demo and other teams' tests. Thread-safe (one lock), and it keeps copies of the
bytes so a caller mutating a ``bytearray`` after ``put`` cannot change what is stored.
"""

from __future__ import annotations

import threading

from evidex.workers.stores import BlobNotFound

__all__ = ["MemoryBlobStore"]


class MemoryBlobStore:
    def __init__(self) -> None:
        self._blobs: dict[str, tuple[bytes, str]] = {}
        self._lock = threading.Lock()

    def put(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        if not key:
            raise ValueError("invalid blob key '': it must not be empty")
        with self._lock:
            self._blobs[key] = (bytes(data), content_type)

    def _stored(self, key: str) -> tuple[bytes, str]:
        with self._lock:
            try:
                return self._blobs[key]
            except KeyError:
                raise BlobNotFound(key) from None

    def get(self, key: str) -> bytes:
        return self._stored(key)[0]

    def content_type(self, key: str) -> str:
        """The content type given to ``put`` (for tests that check it)."""
        return self._stored(key)[1]

    def delete(self, key: str) -> None:
        with self._lock:
            self._blobs.pop(key, None)

    def exists(self, key: str) -> bool:
        with self._lock:
            return key in self._blobs

    def keys(self) -> list[str]:
        """Every stored key, sorted (for assertions)."""
        with self._lock:
            return sorted(self._blobs)
