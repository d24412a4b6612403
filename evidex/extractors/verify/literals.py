"""One regular expression for many literal strings (the currency marks, the company forms, the
region and country names), built as a trie so a search tests each position against the few
strings that start with its character rather than against every string in turn: on a 300-page
agreement the currency marks alone took 8 of verification's 12 seconds as a plain alternation.

Matching is what the alternation of the strings longest first gives: at a position, the longest
string that matches there (and holds its edges) wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

__all__ = ["Edges", "literals"]

# Where a match may not touch a letter: "none"; "letters": before a string that starts with a
# letter and after one that ends with one ("RM" not in "FIRM", "$" anywhere); "always": at both
# ends of every string.
Edges = Literal["none", "letters", "always"]

# after the first character, not before it: a branch that opens on a literal is tried only
# where that character stands
_LEFT = r"(?<![A-Za-z].)"
_RIGHT = r"(?![A-Za-z])"

_Node = dict[str, "_Node"]
_END = ""  # a key no character takes: a string ends at this node


def literals(
    strings: Iterable[str], edges: Edges = "none", flags: int = 0, between: str = ""
) -> re.Pattern[str]:
    r"""A pattern matching any of ``strings`` (an empty one is left out), its ``edges`` held;
    ``between``: a pattern allowed between two characters of a string (``[.\s]*``: "S.D.N
    B.H.D")."""
    root: _Node = {}
    for text in filter(None, strings):
        node = root
        for char in text:
            node = node.setdefault(char, {})
        node[_END] = {}
    branches = []
    for char, child in sorted(root.items()):
        left = _LEFT if _edged(edges, char) else ""
        branches.append(re.escape(char) + left + _body(child, char, edges, between))
    return re.compile("|".join(branches), flags)


def _edged(edges: Edges, char: str) -> bool:
    return edges == "always" or (edges == "letters" and char.isalpha())


def _body(node: _Node, edge: str, edges: Edges, between: str) -> str:
    """What may follow a node reached by the character ``edge``: the longer strings first,
    then the end of the one that stops here."""
    branches = [
        between + re.escape(char) + _body(child, char, edges, between)
        for char, child in sorted(node.items())
        if char != _END
    ]
    if _END in node:
        branches.append(_RIGHT if _edged(edges, edge) else "")
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
