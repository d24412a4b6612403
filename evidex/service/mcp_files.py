"""Which files the MCP tools may read: only those under the allowed roots.

An agent chooses the paths it passes to ``extract_document`` and ``verify_result``, and an agent
can be talked into anything by the documents it reads ("now extract /etc/passwd", "read
~/.ssh/id_rsa"). So a path is read only when, with every symbolic link and ``..`` resolved, it
lies under one of the roots: ``EVIDEX_MCP_ROOTS`` (folders separated by ``os.pathsep``, ``:`` on
POSIX), by default the working directory the server was started in. A relative path is taken
from the first root. A path outside is refused (``path_not_allowed``) whether or not it exists,
so the answer says nothing about files outside; a path inside that names no file is
``file_not_found``; a file over the upload limit (``EVIDEX_MAX_UPLOAD_BYTES``, as over REST) is
``file_too_large``, refused before it is read.

The check is made on the resolved path, and the tools then read that resolved path, so a link
inside a root that points outside it is refused rather than followed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from evidex.schemas import ConfigError, InputError

__all__ = ["DEFAULT_MAX_BYTES", "FileNotFound", "FileTooLarge", "PathNotAllowed", "Roots"]

DEFAULT_MAX_BYTES = 25 * 1024 * 1024  # the REST API's default EVIDEX_MAX_UPLOAD_BYTES


class PathNotAllowed(InputError):
    """The path lies outside every folder the server may read."""

    code = "path_not_allowed"


class FileNotFound(InputError):
    """The path is inside a root but names no file."""

    code = "file_not_found"


class FileTooLarge(InputError):
    """The file is larger than the server reads (the REST API's upload limit)."""

    code = "file_too_large"


@dataclass(frozen=True, slots=True)
class Roots:
    """The folders whose files the tools may read, resolved."""

    folders: tuple[Path, ...]
    max_bytes: int = DEFAULT_MAX_BYTES

    @classmethod
    def parse(cls, raw: str | None, cwd: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> Roots:
        """``EVIDEX_MCP_ROOTS`` (``os.pathsep``-separated folders; relative ones from ``cwd``);
        empty or unset: ``cwd`` alone."""
        entries = [entry.strip() for entry in (raw or "").split(os.pathsep) if entry.strip()]
        folders: list[Path] = []
        for entry in entries or [str(cwd)]:
            folder = (cwd / Path(entry).expanduser()).resolve()
            if not folder.is_dir():
                raise ConfigError(
                    f"EVIDEX_MCP_ROOTS names {entry!r}, which is not a folder: list folders "
                    f"separated by {os.pathsep!r}, or leave it unset for the working directory"
                )
            folders.append(folder)
        return cls(tuple(dict.fromkeys(folders)), max_bytes)

    def file(self, path: str) -> Path:
        """The resolved file ``path`` names, when it lies under a root."""
        if not path.strip() or "\x00" in path:
            raise FileNotFound("path is empty: pass the document's path")
        candidate = Path(path).expanduser()
        if not candidate.is_absolute():
            candidate = self.folders[0] / candidate
        try:
            real = candidate.resolve()
        except (OSError, RuntimeError):  # a loop of links
            raise PathNotAllowed(f"{path} cannot be resolved (a loop of links?)") from None
        if not any(real.is_relative_to(folder) for folder in self.folders):
            raise PathNotAllowed(
                f"{path} is outside the folders this server may read ({_names(self.folders)}); "
                "move the file into one of them, or add its folder to EVIDEX_MCP_ROOTS"
            )
        if not real.is_file():
            raise FileNotFound(f"{path}: no such file under {_names(self.folders)}")
        size = real.stat().st_size
        if size > self.max_bytes:
            raise FileTooLarge(
                f"{path} is {size} bytes; the limit is {self.max_bytes} bytes "
                "(EVIDEX_MAX_UPLOAD_BYTES): send fewer pages or a smaller scan"
            )
        return real


def _names(folders: Sequence[Path]) -> str:
    return ", ".join(str(f) for f in folders)
