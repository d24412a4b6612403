"""Plain client schemas, as a client writes them without evidex's annotations (names and JSON
types only, no ``x-evidex-kind``), for the tests and the benches: :func:`plain` builds one, and
:data:`NDA` is the Kleister-NDA task's (``party``, ``jurisdiction``, ``term``,
``effective_date``), which the backend must map to what each field means."""

from __future__ import annotations

from typing import Any

__all__ = ["NDA", "STRINGS", "plain"]

STRINGS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}


def plain(**fields: str | dict[str, Any]) -> dict[str, Any]:
    """An object schema of ``fields``: each keyword a field, its value a JSON type name
    (``"string"``, ``"number"`` ...) or the field's own schema."""
    return {
        "type": "object",
        "properties": {
            name: {"type": given} if isinstance(given, str) else given
            for name, given in fields.items()
        },
    }


NDA = plain(party=STRINGS, jurisdiction="string", term="string", effective_date="string")
