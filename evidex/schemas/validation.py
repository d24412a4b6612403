"""One line for a pydantic ``ValidationError``: where its first problem is, and what it is.

Every edge that validates what a person supplied (a job's options, a request body, the settings
in the environment) reports the first problem the same way, ``"webhook_url: String should have
at most 2048 characters"``, so the person can find the value to fix. A problem with the whole
input rather than one field has an empty location; ``whole`` names the input instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError

__all__ = ["first_problem"]


def first_problem(exc: ValidationError, whole: str) -> str:
    """``"where: what"`` for the first of ``exc``'s errors; ``where`` is its dotted location,
    or ``whole`` when it has none."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or whole
    return f"{where}: {first['msg']}"
