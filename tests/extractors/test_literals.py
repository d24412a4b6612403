"""One pattern for many literal strings (``verify/literals.py``) finds what the alternation of
the strings, longest first, finds: the currency marks, the region names of every locale and
the company forms of verification and of the receipt rules included, on the receipts' kind of
text and on text packed with the strings themselves."""

from __future__ import annotations

import random
import re

import pytest

from bench.locale_cues import alternation
from evidex.extractors.llm.rules.issuer import _legal_form
from evidex.extractors.verify.currency import symbol_table
from evidex.extractors.verify.literals import Edges, literals
from evidex.extractors.verify.locales import _legal_forms, _regions


def found(pattern: re.Pattern[str], text: str) -> list[tuple[int, str]]:
    return [(m.start(), m.group()) for m in pattern.finditer(text)]


@pytest.mark.parametrize(
    ("text", "edges", "want"),
    [
        ("FIRM paid RM 7.70 or $3", "letters", [(10, "RM"), (21, "$")]),
        ("R$10,00 and Rs.500", "letters", [(0, "R$"), (12, "Rs.")]),
        ("RMX RM", "none", [(0, "RM"), (4, "RM")]),
        ("Rs.x RM", "always", [(0, "Rs"), (5, "RM")]),  # "Rs." touches a letter: "Rs" does not
    ],
)
def test_the_longest_string_wins_and_edges_hold(text: str, edges: Edges, want: list) -> None:
    strings = ["R", "RM", "R$", "Rs", "Rs.", "$"]
    pattern = literals(strings, edges)
    assert found(pattern, text) == want
    assert found(pattern, text) == found(alternation(strings, edges), text)


def _packed(strings: list[str], seed: int) -> list[str]:
    """Text packed with ``strings`` in either case, run together or apart, with letters,
    digits and marks between them."""
    rng = random.Random(seed)
    fillers = ["x", "A", " ", ".", ",", "12.50", "7", "("]
    texts = []
    for _ in range(3000):
        parts = [rng.choice(strings + fillers) for _ in range(rng.randint(1, 6))]
        parts = [p.upper() if rng.random() < 0.3 else p for p in parts]
        texts.append(rng.choice(["", " ", "-"]).join(parts))
    return texts


def test_currency_marks_are_found_as_their_alternation_finds_them() -> None:
    marks = list(symbol_table())
    trie, plain = literals(marks, "letters"), alternation(marks, "letters")
    for text in _packed(marks, 1):
        assert found(trie, text) == found(plain, text), text


def test_region_names_are_found_as_their_alternation_finds_them() -> None:
    names = list(_regions()[0])  # "b.c.", "col." among them: edges held after a full stop
    trie = literals(names, "always", re.IGNORECASE)
    plain = alternation(names, "always", re.IGNORECASE)
    for text in _packed(names, 2):
        assert found(trie, text) == found(plain, text), text


def test_company_forms_spelled_with_dots_and_spaces_are_found_as_before() -> None:
    pattern, forms = _legal_forms()
    plain = alternation(list(forms), "always", re.IGNORECASE, r"[.\s]*")
    before = re.compile(rf"(?:{plain.pattern})\.?(?=\s*(?:[)(,;]|$))", re.IGNORECASE)
    texts = [*_packed(list(forms), 3), "ACME S.D.N B.H.D", "Acme Sdn. Bhd.", "Muster GmbH, Berlin"]
    assert found(pattern, "Muster GmbH, Berlin") == [(7, "GmbH")]
    for text in texts:
        assert found(pattern, text) == found(before, text), text


def test_the_receipt_rules_company_forms_are_found_as_before() -> None:
    from cleanco.termdata import terms_by_type

    terms = {re.sub(r"[^a-z/]", "", t.lower()) for ts in terms_by_type.values() for t in ts}
    keys = [t for t in terms if len(t.replace("/", "")) >= 2]  # "a/s" among them
    plain = alternation(keys, "none", between=r"[.\s]*").pattern
    before = re.compile(rf"(?i)(?<![A-Za-z])(?:{plain})\.?(?![A-Za-z])")
    texts = [*_packed(keys, 4), "NORDISK A/S", "AEON CO. (M) BHD", "Acme S.D.N B.H.D."]
    assert found(_legal_form(), "Acme S.D.N B.H.D.") == [(5, "S.D.N B.H.D.")]
    for text in texts:
        assert found(_legal_form(), text) == found(before, text), text
