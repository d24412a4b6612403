"""Blobs as files under one root directory (a single machine, or a shared volume).

A key such as ``"acme/job_1f…/document"`` is a relative path under ``root``. Keys come from our
own code, but they embed tenant names and job ids, so they are checked as if hostile: only
``[A-Za-z0-9._-]`` segments joined by ``/``, no segment starting with a dot (which rules out
``.`` and ``..`` and keeps the temporary files of writes apart from keys), no absolute paths, no
backslashes. A key that fails is a programming error and raises ``ValueError`` before any file is
touched, so no key can ever name a file outside ``root``.

Writes go to a temporary file in the target directory and are renamed over the key with
``os.replace``: a reader sees the old bytes or the new bytes, never half a file, even when a
worker is killed mid-write.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

from evidex.workers.stores import BlobNotFound

__all__ = ["LocalBlobStore", "validate_key"]

_SEGMENT = r"[A-Za-z0-9_-][A-Za-z0-9._-]*"
_KEY = re.compile(rf"{_SEGMENT}(?:/{_SEGMENT})*")
_MAX_KEY = 1024


def validate_key(key: str) -> str:
    """Return ``key`` when it is a safe relative blob key, else raise ``ValueError``."""
    if len(key) > _MAX_KEY or not _KEY.fullmatch(key):
        raise ValueError(
            f"invalid blob key {key!r}: use '/'-separated segments of letters, digits, "
            "'.', '_' and '-', none starting with '.'"
        )
    return key


class LocalBlobStore:
    """A :class:`~evidex.workers.stores.BlobStore` over files under ``root``."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).resolve()

    def _path(self, key: str) -> Path:
        path = self.root / validate_key(key)
        # Belt and braces: the key rules already forbid escaping; this also catches a
        # symlink planted inside root that points elsewhere.
        if not path.resolve().is_relative_to(self.root):
            raise ValueError(f"invalid blob key {key!r}: it resolves outside the store")
        return path

    def put(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def get(self, key: str) -> bytes:
        path = self._path(key)
        try:
            return path.read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise BlobNotFound(key) from None

    def delete(self, key: str) -> None:
        path = self._path(key)
        with contextlib.suppress(FileNotFoundError, IsADirectoryError, NotADirectoryError):
            path.unlink()

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()
