"""Which pages fill the calls of a job, and why each: evidence first, then by relevance.

Pure: each field's ranked pages (:mod:`.pages`) and each page's cost in tokens in; pages and
reasons out.

A call's **evidence pages** are, for each of its fields, the best page and the second when it
scores at least :data:`SECOND_PAGE_SHARE` of the best (for a list, the page after each of them
too: a list runs on). Every other page a field ranks is **offered** at its relevance: its score
as a share of the field's best page's; the page after a ranked page, where a clause runs over,
at :data:`NEXT_PAGE_SHARE` of that page's, the page before at :data:`PREVIOUS_PAGE_SHARE`.

When a job makes several calls, its pages are shared out among them (:func:`share`): a page
goes to every call whose fields have it as evidence, any other page to one call only, the one
whose fields offer most for it among those it still fits in. Sending a page to a second call
whose fields rank it lower would cost a page's tokens for little: the calls together read more
of the document instead, and a document the calls can hold is sent once over them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from evidex.extractors.plan.pages import Ranked

__all__ = [
    "FILLS_THE_BUDGET",
    "NEXT_PAGE_SHARE",
    "PREVIOUS_PAGE_SHARE",
    "SECOND_PAGE_SHARE",
    "Fill",
    "Rankings",
    "evidence",
    "fill_order",
    "offers",
    "share",
]

SECOND_PAGE_SHARE = 0.5  # a field's second page is evidence when it scores this share of the best
NEXT_PAGE_SHARE = 0.5  # the page after a ranked page: a clause may run over onto it
PREVIOUS_PAGE_SHARE = 0.25  # the page before: a clause may start at its foot
FILLS_THE_BUDGET = "fills the budget"

Rankings = Sequence[tuple[str, Sequence[Ranked], bool]]
"""Each field of a call: its name, the pages it ranks above zero (best first), whether a list."""


def reason(rank: int, name: str, ranked: Ranked) -> str:
    """``rank 1 for borrower``, with what raised the page: ``(defines "Borrower")``."""
    return f"rank {rank} for {name}" + (f" ({ranked.why})" if ranked.why else "")


def evidence(rankings: Rankings, costs: Mapping[int, int]) -> dict[int, str]:
    """The evidence pages of a call's fields, each field's best before any field's second, and
    why each."""
    order: dict[int, str] = {}
    for depth in range(2):
        for name, ranked, is_list in rankings:
            share = SECOND_PAGE_SHARE if depth else 1.0
            if depth < len(ranked) and ranked[depth].score >= ranked[0].score * share:
                page = ranked[depth].page
                order.setdefault(page, reason(depth + 1, name, ranked[depth]))
                if is_list and page + 1 in costs:  # a list runs on
                    where = f"page {page} (rank {depth + 1} for {name})"
                    order.setdefault(page + 1, f"follows {where}: a list runs on")
    return order


def offers(rankings: Rankings, costs: Mapping[int, int]) -> dict[int, tuple[float, str]]:
    """Every page a call's fields rank or neighbour, with its relevance to the field it serves
    best, and why."""
    out: dict[int, tuple[float, str]] = {}

    def offer(page: int, relevance: float, why: str) -> None:
        if page in costs and relevance > out.get(page, (0.0, ""))[0]:
            out[page] = (relevance, why)

    for name, ranked, _ in rankings:
        for i, r in enumerate(ranked):
            relevance = r.score / ranked[0].score
            where = f"page {r.page} (rank {i + 1} for {name})"
            offer(r.page, relevance, reason(i + 1, name, r))
            offer(r.page + 1, NEXT_PAGE_SHARE * relevance, f"follows {where}")
            offer(r.page - 1, PREVIOUS_PAGE_SHARE * relevance, f"precedes {where}")
    return out


def fill_order(rankings: Rankings, costs: Mapping[int, int]) -> dict[int, str]:
    """The pages one call takes while they fit, in order, and why each: its evidence pages,
    the pages offered by relevance, then the rest in page order."""
    order = evidence(rankings, costs)
    offered = offers(rankings, costs)
    for page, (_, why) in sorted(offered.items(), key=lambda o: (-o[1][0], o[0])):
        order.setdefault(page, why)
    for page in costs:
        order.setdefault(page, FILLS_THE_BUDGET)
    return order


@dataclass
class Fill:
    """The pages of one call while a job's calls are planned: why each, and the room left."""

    names: Sequence[str]
    room: int
    why: dict[int, str] = field(default_factory=dict)
    part: tuple[int, int] | None = None  # (page, lines): the top of one more page

    def take(self, page: int, why: str, cost: int, force: bool = False) -> bool:
        """Add ``page`` when it fits (``force``: whatever it costs); whether it was added."""
        if page in self.why or (cost > self.room and not force):
            return False
        self.why[page] = why
        self.room -= cost
        return True

    def pages(self) -> tuple[int, ...]:
        """The whole pages taken (not the page of ``part``)."""
        top = self.part[0] if self.part else None
        return tuple(sorted(p for p in self.why if p != top))


def share(
    fills: Sequence[Fill],
    rankings: Sequence[Rankings],
    costs: Mapping[int, int],
    first_page: int,
) -> list[dict[int, str]]:
    """Share the document's pages out among the calls ``fills`` (``rankings[i]`` is call i's):
    each call's first page and evidence pages; then every other page by relevance, each to the
    call that offers most for it and has room, once; then the pages no field ranks, in page
    order, each to the call with most room. Returns, per call, the pages no call was sent in the
    order it would have taken them (what may fill its room left with a page's first lines)."""
    sent: set[int] = set()
    for fill, ranked in zip(fills, rankings, strict=True):
        fill.take(first_page, "first page", costs[first_page], force=True)
        for page, why in evidence(ranked, costs).items():
            fill.take(page, why, costs[page])
        sent.update(fill.why)
    offered = sorted(
        (-relevance, page, i, why)
        for i, ranked in enumerate(rankings)
        for page, (relevance, why) in offers(ranked, costs).items()
    )
    for _, page, i, why in offered:
        if page not in sent and fills[i].take(page, why, costs[page]):
            sent.add(page)
    for page in costs:
        room = [f for f in fills if f.room >= costs[page]]
        if page not in sent and room:
            max(room, key=lambda f: f.room).take(page, FILLS_THE_BUDGET, costs[page])
            sent.add(page)
    left: list[dict[int, str]] = []
    for i in range(len(fills)):
        order = {page: why for _, page, j, why in offered if j == i and page not in sent}
        left.append(order | {p: FILLS_THE_BUDGET for p in costs if p not in sent | set(order)})
    return left
