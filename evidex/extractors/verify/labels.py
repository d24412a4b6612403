"""Which amount in a quote belongs to which label.

A quote may hold one line of several labelled amounts: "Subtotal: $250.00 Tax: $20.00 Total:
$270.00". Every number of it is *in* the quote, so a total of 250 would pass a plain number
check; it is the subtotal's. When the field's own name labels one of the quote's amounts, the
value must be that amount, or at least not an amount another money label owns. A label that does
not name money ("Total (2 items): 270.00": "items") never takes a value away, so a label's own
aside cannot fail a true value.

Pure; labels are compared as words (``Sub-total`` is ``subtotal``, ``Total Due`` holds
``total``), never as substrings (``Subtotal`` does not hold ``total``).
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal

from evidex.extractors.verify.readings import NUMBER, PERCENT, readings
from evidex.schemas.kinds import label_kind, name_tokens

__all__ = ["own_label"]

# words a field name may add to its label without the document writing them
_GENERIC = frozenset({"amount", "value", "sum", "betrag", "montant", "importe", "monto"})


def _words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in folded if not unicodedata.combining(c)).lower()
    return re.findall(r"[a-z]+", plain)


def _forms(name: str) -> set[str]:
    tokens = [t for t in name_tokens(name) if not t.isdigit()]
    forms = {"".join(tokens)} if tokens else set()
    specific = [t for t in tokens if t not in _GENERIC]
    if specific:
        forms.add("".join(specific))
    return forms


def _names(words: list[str], forms: set[str]) -> bool:
    return any(
        "".join(words[i:j]) in forms
        for i in range(len(words))
        for j in range(i + 1, len(words) + 1)
    )


def _close(a: Decimal, b: float) -> bool:
    return abs(float(a) - b) <= 0.005 + 1e-9 * abs(b)


def own_label(values: list[float], quote: str, name: str) -> str:
    """Why ``values`` (readings of one amount) are another label's amount in ``quote``, or ""."""
    forms = _forms(name) if name else set()
    if not forms:
        return ""
    masked = PERCENT.sub(lambda m: " " * len(m.group()), quote)
    segments: list[tuple[list[str], str, set[Decimal]]] = []
    previous = 0
    for m in NUMBER.finditer(masked):
        segments.append((_words(masked[previous : m.start()]), m.group(), readings(m.group())))
        previous = m.end()
    own = [(words, token, got) for words, token, got in segments if _names(words, forms)]
    if not own:
        return ""
    if any(_close(n, v) for _, _, got in own for n in got for v in values):
        return ""
    for words, token, got in segments:
        if not words or _names(words, forms) or label_kind(words) not in ("amount", "percentage"):
            continue
        if any(_close(n, v) for n in got for v in values):
            label = " ".join(words)
            return (
                f"value {token.strip()} is the amount labelled {label!r} in the quote; "
                f"{name!r} there is {own[0][1].strip()}"
            )
    return ""
