"""Page selection for documents larger than the model's window.

Pure: the line table and a query in, page numbers and reasons out.

Pages are ranked by lexical relevance to the fields asked for: BM25 (``bm25s``) over each page's
visible text, the query made of the fields' names, descriptions and the usual words of their
kinds, compared by stem (PyStemmer's Snowball English: "governed by the laws" matches a field
named ``governing_law``). Lexical rather than semantic because it needs no model and no
download, explains itself (a page ranks for the words it shares with the fields) and does well
where it matters most: contracts name what they define ("Governing Law", "Events of Default").

Two things a contract says about its own structure count beside the words (:mod:`.outline`):

* **definitions outrank uses**: a page that defines a term the field's words ask about (the
  borrower field, ``Halvorsen Maritime AS (the "Borrower")``) gains the field's best score
  (words and headings), so it ranks above every page that only uses the term; a term met in
  the field's description rather than its name gains half of it (:data:`DEFINITION_WEIGHT`,
  :data:`DESCRIPTION_SHARE`). Terms and fields are compared by whole words ("Servicer" is not
  "services"), and a term counts as defined on the first :data:`DEFINING_PAGES` pages that
  define it (a cover page and the parties block): the schedule or exhibit that restates the
  parties later uses the terms more than it defines them;
* **headings carry weight**: a page's section headings are scored on their own against the
  field's name and description and added (:data:`HEADING_WEIGHT`): "Section 9.07 Governing
  Law." speaks for the page whatever its body repeats.

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

from evidex.extractors.plan.outline import PageOutline, outline
from evidex.schemas import LeafSpec

__all__ = [
    "DEFINING_PAGES",
    "DEFINITION_WEIGHT",
    "DESCRIPTION_SHARE",
    "HEADING_WEIGHT",
    "KIND_WORDS",
    "PageChoice",
    "PageIndex",
    "Ranked",
    "choose_pages",
    "field_query",
    "page_texts",
    "rank_pages",
    "subject_words",
]

DEFINITION_WEIGHT = 1.0  # a page defining the field's term gains this share of its best score
DESCRIPTION_SHARE = 0.5  # ... counted at this share when the term is in the description only
DEFINING_PAGES = 2  # pages that count as defining a term: a cover page and the parties block
HEADING_WEIGHT = 1.0  # weight of a page's headings' score against the field, added to its own
# Words that say what form a value takes, not what it is about: "borrower_name" asks about the
# borrower, so a page defining "Name" does not define what the field asks for.
VALUE_WORDS = (
    "name names legal full official registered date dated title amount amounts value number no "
    "id type text description details clause provision"
)

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
_STOP = frozenset(bm25s.stopwords.STOPWORDS_EN)


def stems(text: str) -> frozenset[str]:
    """The stems of ``text``'s words (lower-cased, stopwords left out), as the index sees them."""
    words = [w for w in _SPLIT.split(text.lower()) if w and w not in _STOP]
    return frozenset(_STEMMER.stemWords(words))


def term_words(text: str) -> frozenset[str]:
    """The words of a defined term or a field's name as compared with each other: lower-cased,
    in the singular, stopwords left out. Whole words, not stems: "Servicer" is not "services"."""
    words = (w for w in _SPLIT.split(text.lower()) if w and w not in _STOP)
    return frozenset(_singular(w) for w in words)


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


_VALUE_STEMS = stems(VALUE_WORDS)
_VALUE_WORDS = term_words(VALUE_WORDS)


@dataclass(frozen=True, slots=True)
class Ranked:
    """A page's score for a group of fields, and what raised it (a definition, a heading)."""

    page: int
    score: float
    why: str = ""


def field_query(leaves: Iterable[LeafSpec]) -> str:
    """The query for a group of fields: their path words, descriptions and kind words, without
    the words of a value's form (:func:`subject_words`)."""
    parts: list[str] = []
    for leaf in leaves:
        words = [*_SPLIT.split(leaf.path), *_SPLIT.split(leaf.description)]
        words += _SPLIT.split(KIND_WORDS.get(leaf.kind, ""))
        parts.append(" ".join(subject_words(words)))
        parts.extend(leaf.enum)
    return " ".join(p for p in parts if p)


def subject_words(words: Iterable[str]) -> list[str]:
    """``words`` without those that say what form a value takes (:data:`VALUE_WORDS`), unless
    nothing else is left. "Name of the borrower" asks about the borrower: the pages that say
    "Name:" most are the signature blocks, and "Date:", "Title:" and "No." stand on every form
    and schedule. A field named only by its form ("title", "date") keeps its words."""
    words = [w for w in words if w]
    subject = [w for w in words if not stems(w) <= _VALUE_STEMS]
    return subject if any(stems(w) for w in subject) else words


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
        self.outlines: dict[int, PageOutline] = {p: outline(texts[p]) for p in self.pages}
        self._body = _Bm25([texts[p] for p in self.pages])
        self._headings = _Bm25(["\n".join(self.outlines[p].headings) for p in self.pages])
        self._defined: dict[int, list[tuple[str, frozenset[str]]]] = {p: [] for p in self.pages}
        defining: dict[str, int] = {}
        for page in self.pages:  # a term is defined once: later "definitions" restate it
            for term in self.outlines[page].defines:
                words = term_words(term)
                if defining.get(term.lower(), 0) < DEFINING_PAGES and words:
                    defining[term.lower()] = defining.get(term.lower(), 0) + 1
                    self._defined[page].append((term, words))

    def rank(self, query: str) -> list[tuple[int, float]]:
        """Pages by BM25 score for ``query``, best first; ties (and zero scores) in page order."""
        pairs = zip(self.pages, self._body.scores(query, len(self.pages)), strict=True)
        return sorted(pairs, key=lambda x: -x[1])

    def rank_fields(self, leaves: Sequence[LeafSpec]) -> list[Ranked]:
        """Pages for a group of fields, best first: BM25 of the page's words for
        :func:`field_query`, plus its headings' score, plus the definition bonus (see the module
        docstring); ties in page order."""
        n = len(self.pages)
        body = self._body.scores(field_query(leaves), n)
        heads = self._headings.scores(_heading_query(leaves), n)
        plain = [b + HEADING_WEIGHT * h for b, h in zip(body, heads, strict=True)]
        best = max(plain, default=0.0) or 1.0
        named, described = _subject(leaves)
        out: list[Ranked] = []
        for i, page in enumerate(self.pages):
            share, term = self._definition(page, named, described)
            score = plain[i] + DEFINITION_WEIGHT * best * share
            why = f'defines "{term}"' if share else ""
            if not why and heads[i] > 0:
                why = f'heading "{self._heading(page, leaves)}"'
            out.append(Ranked(page, score, why))
        return sorted(out, key=lambda r: -r.score)

    def _definition(
        self, page: int, named: frozenset[str], described: frozenset[str]
    ) -> tuple[float, str]:
        """1 when ``page`` defines a term the fields' names ask for (:data:`DESCRIPTION_SHARE`
        when only their descriptions do), else 0; and the term."""
        best, chosen = 0.0, ""
        for term, words in self._defined[page]:
            share = _share(words, named) or DESCRIPTION_SHARE * _share(words, described)
            if share > best:
                best, chosen = share, term
        return best, chosen

    def _heading(self, page: int, leaves: Sequence[LeafSpec]) -> str:
        """The page's heading sharing most words with the fields."""
        wanted = stems(_heading_query(leaves))
        headings = self.outlines[page].headings
        return max(headings, key=lambda h: len(stems(h) & wanted)) if headings else ""


class _Bm25:
    """One BM25 index (``bm25s``) over a list of texts, empty ones allowed."""

    def __init__(self, texts: Sequence[str]) -> None:
        corpus = bm25s.tokenize(
            list(texts), stopwords="en", stemmer=_STEMMER, show_progress=False, return_ids=False
        )
        self._empty = not any(corpus)
        self._retriever = bm25s.BM25()
        if not self._empty:
            self._retriever.index(corpus, show_progress=False)

    def scores(self, query: str, n: int) -> list[float]:
        tokens = bm25s.tokenize(
            [query], stopwords="en", stemmer=_STEMMER, show_progress=False, return_ids=False
        )[0]
        if not tokens or self._empty:
            return [0.0] * n
        return [float(s) for s in self._retriever.get_scores(list(tokens))]


def _heading_query(leaves: Iterable[LeafSpec]) -> str:
    """What a heading is matched against: the fields' names and descriptions, without the words
    of a value's form ("Termination Date" says nothing about an effective date)."""
    parts: list[str] = []
    for leaf in leaves:
        parts += _SPLIT.split(leaf.path)
        parts += _SPLIT.split(leaf.description)
    return " ".join(w for w in parts if w and not stems(w) <= _VALUE_STEMS)


def _subject(leaves: Iterable[LeafSpec]) -> tuple[frozenset[str], frozenset[str]]:
    """The words (:func:`term_words`) of the fields' names and of their descriptions."""
    named: set[str] = set()
    described: set[str] = set()
    for leaf in leaves:
        named |= term_words(" ".join(_SPLIT.split(leaf.path)))
        described |= term_words(leaf.description)
    return frozenset(named), frozenset(described)


def _share(term: frozenset[str], asked: frozenset[str]) -> float:
    """1 when every word of a term is ``asked`` for and one of them is a word of substance (not
    one of :data:`VALUE_WORDS`), else 0: "Cap Agreement" is no definition of a cap on
    liability, nor "Date" of an effective date."""
    return 1.0 if term and term <= asked and term - _VALUE_WORDS else 0.0


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
