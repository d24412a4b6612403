"""Page selection for documents larger than the model's window.

Pure: the line table and a query in, page numbers and reasons out.

Pages are ranked by lexical relevance to the fields asked for: BM25 (``bm25s``) over each page's
visible text, the query made of the fields' names, descriptions and the usual words of their
kinds, compared by stem (PyStemmer's Snowball English: "governed by the laws" matches a field
named ``governing_law``). Lexical rather than semantic because it needs no model and no
download, explains itself (a page ranks for the words it shares with the fields) and does well
where it matters most: contracts name what they define ("Governing Law", "Events of Default").

The first page is always sent (it names the document, the parties, the date), then pages by
rank until the budget is full; the pages chosen are sent in page order so the model reads the
document as written, with its global line numbers unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import bm25s
import pandas as pd
import Stemmer

from evidex.schemas import LeafSpec

__all__ = [
    "KIND_WORDS",
    "PageChoice",
    "PageIndex",
    "choose_pages",
    "field_query",
    "page_texts",
    "rank_pages",
]

# The words a document uses around a value of each kind (the query adds them to the fields' own).
KIND_WORDS: dict[str, str] = {
    "amount": "amount price fee fees total sum payable USD EUR dollars",
    "date": "date dated effective day",
    "duration": "term period months years days",
    "percentage": "percent per cent rate",
    "currency": "currency dollars euros",
    "email": "email e-mail",
    "phone": "phone telephone tel",
    "url": "website url",
    "iban": "IBAN account bank",
    "bic": "BIC SWIFT bank",
    "vat_id": "VAT tax identification number",
    "address": "address street",
    "years": "years experience",
    "boolean": "shall",
}

_SPLIT = re.compile(r"[_\W]+")
# "governed by the laws" must match a field named governing_law: words are compared by stem.
_STEMMER = Stemmer.Stemmer("english")


def field_query(leaves: Iterable[LeafSpec]) -> str:
    """The query for a group of fields: their path words, descriptions and kind words."""
    parts: list[str] = []
    for leaf in leaves:
        parts.append(" ".join(w for w in _SPLIT.split(leaf.path) if w))
        parts.append(leaf.description)
        parts.append(KIND_WORDS.get(leaf.kind, ""))
        parts.extend(leaf.enum)
    return " ".join(p for p in parts if p)


def page_texts(lines: pd.DataFrame) -> dict[int, str]:
    """Each page's visible text, in page order (pages without visible text map to "")."""
    visible = lines[lines["visible"]]
    grouped = visible.groupby("page", sort=True)["text"].apply(lambda s: "\n".join(map(str, s)))
    out = {int(p): "" for p in sorted(lines["page"].unique())}
    out.update(dict(zip(map(int, grouped.index.tolist()), map(str, grouped.tolist()), strict=True)))
    return out


class PageIndex:
    """A BM25 index over the pages' text, built once and queried per group of fields."""

    def __init__(self, texts: Mapping[int, str]) -> None:
        self.pages = list(texts)
        corpus = bm25s.tokenize(
            [texts[p] for p in self.pages],
            stopwords="en",
            stemmer=_STEMMER,
            show_progress=False,
            return_ids=False,
        )
        self._empty = not any(corpus)
        self._retriever = bm25s.BM25()
        if not self._empty:
            self._retriever.index(corpus, show_progress=False)

    def rank(self, query: str) -> list[tuple[int, float]]:
        """Pages by BM25 score for ``query``, best first; ties (and zero scores) in page order."""
        tokens = bm25s.tokenize(
            [query], stopwords="en", stemmer=_STEMMER, show_progress=False, return_ids=False
        )[0]
        if not tokens or self._empty:
            return [(p, 0.0) for p in self.pages]
        scores = self._retriever.get_scores(list(tokens))
        pairs = zip(self.pages, (float(s) for s in scores), strict=True)
        return sorted(pairs, key=lambda x: -x[1])


def rank_pages(texts: Mapping[int, str], query: str) -> list[tuple[int, float]]:
    """Pages by BM25 score for ``query``, best first (one query: see :class:`PageIndex`)."""
    return PageIndex(texts).rank(query) if texts else []


@dataclass(frozen=True, slots=True)
class PageChoice:
    """Pages to send (in page order), why each, their estimated tokens, and what was left."""

    pages: tuple[int, ...]
    why: Mapping[int, str]
    tokens: int
    left_out: int  # pages of the document not sent


def choose_pages(
    costs: Mapping[int, int],
    ranked: Sequence[int],
    budget: int,
    *,
    must: Mapping[int, str] | None = None,
    reasons: Mapping[int, str] | None = None,
) -> PageChoice:
    """Fill ``budget`` tokens with pages: ``must`` first (page -> why), then ``ranked`` in order.

    ``costs`` are the estimated tokens of each page of the document; a ranked page that does
    not fit is skipped, smaller ones further down may still fit. ``reasons`` says why a ranked
    page is there (default: its rank).
    """
    why: dict[int, str] = {}
    used = 0
    for page, reason in (must or {}).items():
        if page in costs and page not in why:
            why[page] = reason
            used += costs[page]
    for rank, page in enumerate(ranked, 1):
        if page in why or page not in costs:
            continue
        if used + costs[page] > budget:
            continue
        why[page] = (reasons or {}).get(page) or f"rank {rank} by relevance"
        used += costs[page]
    pages = tuple(sorted(why))
    return PageChoice(pages, {p: why[p] for p in pages}, used, len(costs) - len(pages))
