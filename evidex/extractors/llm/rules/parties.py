"""The parties of an agreement, from its opening sentence: "between X (the "Supplier") and Y",
"among X, Y and Z", "X, as Issuer, Y, as Depositor and Z", "BETWEEN:" over names on their own
lines; without such a sentence, "X (“A”) and Y (“B”) agree" (:func:`defined_pair`) or the legal
names the opening paragraphs give a role (:func:`named_roles`); after a cover page or a table of
contents, the first "This Agreement … between" sentence (:func:`opening`).

A name is capitalised words, initials and a company suffix (", Inc."); a term the agreement
defines ("the Company", "Employee") is a role, not a name, and is left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from .match import Span

__all__ = ["defined_pair", "named_roles", "opening", "parties", "party_spans", "sentence_end"]


# -- parties --------------------------------------------------------------------------------

# "BETWEEN:" over a list; "is entered into by X and Y"
_BETWEEN = re.compile(
    r"(?i)\b(?:between|among(?:st)?)\s*:?\s+"
    r"|\b(?:made|entered\s+into|executed)(?:\s+(?:as\s+of|on)\s+[^.;()]{4,40}?,?)?\s+by\s+(?=(?-i:[A-Z]))"
)
_AND = re.compile(r"(?:,\s*|\s+)(?:and|And|AND):?\s+")
# "(“TESARO”), GlaxoSmithKline LLC", "…, a Delaware corporation, Beta LLC": a list goes on
_AFTER_ROLE = re.compile(r"(?:\)|(?<=\s)(?i:corporation|company|partnership))\s*[,;]\s+")
# "VERIZON OWNER TRUST, as Issuer, VERIZON ABS LLC, as Depositor and …": a role after "as"
_AS_ROLE = re.compile(
    r",\s+as\s+(?:the\s+)?(?P<r>[A-Z][\w-]*(?:\s+(?:of\s+)?[A-Z][\w-]*){0,4}?)"
    r"(?P<p>\s*[,;]\s+|\s+and\s+|\s*[.)]|\s*$)"
)
_TOKEN = re.compile(r"\s*([^\s,;:()\[\]“”\"]+)")
_CONNECTORS = {"of", "and", "de", "für", "und", "&", "/"}
_ABBREV = {
    *("inc", "ltd", "co", "corp", "llc", "l.l.c", "s.a", "n.a", "b.v", "n.v", "plc", "ag"),
    *("l.p", "llp", "lp", "s.a.r.l", "gmbh", "limited", "incorporated", "pte", "pty", "s.p.a"),
    *("sa", "s.l", "spa"),
}
_NAME_ENDS = {"this", "dated", "whereas", "agreement", "witnesseth", "recitals"}
_LEGAL_WORDS = {"corporation", "incorporated", "company", "partnership", "trust", "bank"}
_INITIAL = re.compile(r"(?:[A-Z]|St|ST|Mt|Ft)\.")  # "Kenneth M. Bate", "The St. Paul …"
_SUFFIX = re.compile(
    r"(?i),\s*(?:Inc|Ltd|LLC|L\.L\.C|Corp|Co|GmbH|AG|S\.A|SA|S\.L|B\.V|N\.V|N\.A|plc|LLP|LP|L\.P|Limited"
    r"|S\.p\.A|SpA|Pty\s+Ltd|Pte\s+Ltd)\b\.?"
)
_ROLE = re.compile(
    r"\((?:[^()]{0,200}?[\s,])??(?:the\s+)?[\"“'‘](?P<r>[^\"”'’]{1,40})[\"”'’]\s*"
    r"(?:\)|or\b|,|and\b)"
)
# "the “Company”", "(“Employee”)": a term the agreement defines is no legal name
_DEFINES = re.compile(r"[“\"]([^“”\"]{1,40})[”\"]")
_ROLE_WORDS = {
    *("company", "employee", "employer", "executive", "recipient", "discloser", "party"),
    *("parties", "affiliates", "licensor", "licensee", "buyer", "seller", "purchaser"),
    *("customer", "supplier", "vendor", "consultant", "contractor", "client", "bank"),
    *("corporation", "agreement", "you"),
}
_NOT_ROLES = {"party", "parties", "agreement"}  # "(each a “Party”)" names no one's role
_THE = re.compile(r"the\s")
_DESCRIBES = re.compile(
    r"(?i),?\s+an?\s+(?:[\w.-]+\s+){0,4}(?:corporation|company|partnership|individual|bank"
    r"|association|trust)\b"
)
_TITLE = re.compile(
    r"(?:Mr|Mrs|Ms|Miss|Dr|Prof|MR|MRS|MS|MISS|DR|PROF)\.?\s+(?=[A-Z])"
)  # "Mr. John Smith"
_TITLES = {"mr", "mrs", "ms", "dr", "prof"}
_SENTENCE_END = re.compile(r"\.\s+(?=[A-Z“\"(])|\bWHEREAS\b|\bRECITALS\b")


def party_spans(text: str, start: int, end: int) -> tuple[Span, Span | None] | None:
    """The party's name (capitalised words, initials and ", Inc." kept) at ``start``, and
    the role it is given in the first parentheses that define a term, before ``end``."""
    pos = start + len(text[start:end]) - len(text[start:end].lstrip())
    if title := _TITLE.match(text, pos):
        pos = title.end()  # "Mr. John Smith": the name without the courtesy title
    if _THE.match(text, pos):
        return None  # "the Company", "the person whose name…": a reference, not a name
    tokens: list[tuple[int, int, str]] = []
    while m := _TOKEN.match(text, pos, end):
        word = m.group(1)
        first = not tokens and bool(re.search(r"[A-Z]|\.com$", word))  # "uDate.com"
        if not (word[0].isupper() or word[0].isdigit() or first or word in _CONNECTORS):
            break
        if tokens and word.lower() in _NAME_ENDS:
            break  # "… BETWEEN ALPHA AND BETA" / "THIS AGREEMENT is …": the next sentence
        tokens.append((m.start(1), m.end(1), word))
        pos = m.end()
        if word.endswith(".") and not _INITIAL.fullmatch(word):
            break
    while tokens and tokens[-1][2].lower() in _CONNECTORS:
        tokens.pop()
    if tokens and tokens[0][2].lower() in _CONNECTORS:
        return None  # "BETWEEN: / AND: / GLAMIS GOLD LTD." laid out of order
    if not tokens or not any(re.search(r"[A-Za-z]{2}", w) for _, _, w in tokens):
        return None
    name_end, last = tokens[-1][1], tokens[-1][2]
    if last.endswith(".") and last.rstrip(".").lower() not in _ABBREV:
        if _INITIAL.fullmatch(last):
            return None  # "Spencer L." ends a line: the name goes on where it cannot be quoted
        name_end -= 1
    elif suffix := _SUFFIX.match(text, name_end, end):
        name_end = suffix.end()
    if (named := _AS_ROLE.match(text, name_end, end)) is not None:
        return (tokens[0][0], name_end), named.span("r")
    roles = (r for r in _ROLE.finditer(text, name_end, end) if r["r"].lower() not in _NOT_ROLES)
    role = next(roles, None)
    return (tokens[0][0], name_end), (role.span("r") if role else None)


def _segments(text: str, start: int, end: int) -> list[tuple[int, int, bool]]:
    """Where each party's words begin and end: split at a top-level "and" before a name and
    after a closing role parenthesis ("X (“A”), Y (“B”) and Z") or a role after "as" ("X, as
    Issuer, Y"); and whether the list gives roles after "as" (then each party has one)."""
    cuts, depth, k, as_roles = [start], 0, start, False
    while k < end:
        c = text[k]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth = max(0, depth - 1)
        if depth == 0:
            m = _AND.match(text, k) or _AFTER_ROLE.match(text, k)
            if (named := _AS_ROLE.match(text, k)) is not None and "," in named["p"]:
                m = named  # ", as Issuer, VERIZON ABS LLC": the role stays with its name
            if m and m.end() < end and _name_start(text, m.end()):
                if m.re is _AND:
                    cut = k
                elif m.re is _AS_ROLE:
                    cut, as_roles = m.start("p"), True
                else:
                    cut = k + 1  # a role keeps its ")"
                cuts += [cut, m.end()]
                k = m.end()
                continue
        k += 1
    cuts.append(end)
    return [(a, b, as_roles) for a, b in zip(cuts[::2], cuts[1::2], strict=True)]


def _name_start(text: str, pos: int) -> bool:
    """A name starts at ``pos``: a capital or a digit, or "uDate.com", "salesforce.com"."""
    m = _TOKEN.match(text, pos)
    return m is not None and re.match(r"[A-Z0-9]|[a-z][\w.-]*(?:[A-Z]|\.com\b)", m[1]) is not None


def sentence_end(text: str, pos: int) -> int:
    """Where the sentence from ``pos`` ends: a full stop that ends neither an abbreviation
    ("Inc.") nor an initial ("M."), or the recitals; at most 900 characters on."""
    limit = min(len(text), pos + 900)
    for m in _SENTENCE_END.finditer(text, pos, limit):
        if m.group()[0] != ".":
            return m.start()
        word = text[text.rfind(" ", pos, m.start()) + 1 : m.start()].strip('(“"')
        known = word.lower().rstrip(".") in _ABBREV | _TITLES  # "Inc.", "Mr."
        if known or _INITIAL.fullmatch(word + ".") or "." in word:
            continue
        return m.start()
    return limit


def _opened(text: str, pos: int) -> bool:
    """``pos`` is inside parentheses opened earlier in its sentence ("(as defined in the
    Merger Agreement, by and among …)")."""
    back = max(0, pos - 400)
    ends = [m.end() for m in re.finditer(r"\.\s+(?=[A-Z])", text[back:pos])]
    chunk = text[back + (ends[-1] if ends else 0) : pos]
    return chunk.count("(") > chunk.count(")")


def _defined(name: str, defined: set[str]) -> bool:
    """``name`` is a term the agreement defines ("the Company"), not a legal name: a name with
    a company suffix stays a name even where a list of definitions quotes it."""
    words = name.lower().replace(",", " ").split()
    legal = any(w.rstrip(".") in _ABBREV or w in _LEGAL_WORDS for w in words[1:])
    return " ".join(words) in defined and not legal


def parties(text: str, stop: int, start: int = 0) -> Iterator[list[tuple[Span, Span | None]]]:
    """Each "between X and Y" / "among X, Y and Z" sentence between ``start`` and ``stop``, as
    its parties' (name, role) spans; names the agreement defines as a term are left out."""
    defined = {" ".join(m.group(1).lower().split()) for m in _DEFINES.finditer(text)}
    for b in _BETWEEN.finditer(text, start):
        if b.start() >= stop:
            return
        if _opened(text, b.start()):
            continue
        among = b.group().lower().startswith("among")
        found = []
        end = sentence_end(text, b.end())
        if (again := _BETWEEN.search(text, b.end(), end)) is not None:
            end = again.start()  # a heading runs on into the sentence that names the parties
        for i, (a, z, as_roles) in enumerate(_segments(text, b.end(), end)):
            party = party_spans(text, a, z)
            if party is None or (party[1] is None and (as_roles or (i > 1 and not among))):
                continue  # a third party "between" names, or one of "X, as Issuer", has a role
            name = text[party[0][0] : party[0][1]]
            role = text[party[1][0] : party[1][1]] if party[1] else None
            if name.lower() in _ROLE_WORDS or (_defined(name, defined) and role != name):
                continue
            described = _DESCRIBES.match(text, party[0][1])  # "Acme, a Delaware corporation"
            if role is None and len(name.split()) == 1 and not described:
                continue  # "BETWEEN AUSPEX AND TEVA" in a heading: a short name, not the legal one
            found.append(party)
        if found:
            yield found


# "THIS OUTSOURCING AGREEMENT is entered into … by and between": the sentence that opens an
# agreement, after a cover page or a table of contents
_OPENING = re.compile(
    r"\b(?:THIS|This)\s+(?:[A-Z][\w-]*\s+){0,6}(?:AGREEMENT|Agreement)\b[^.;]{0,250}?"
    r"\b(?:made|entered\s+into|executed|dated|between|among)\b"
)


def opening(text: str, start: int, stop: int) -> int | None:
    """Where the first sentence that opens an agreement ("This Agreement is made …") begins,
    from ``start`` up to ``stop``."""
    m = _OPENING.search(text, start, stop)
    return m.start() if m else None


# "ACME Inc., a Delaware corporation (“ACME”), and Beta LLC (“Beta”) agree as follows": two
# parties each given a role, joined by "and", without "between"
_PAIR = re.compile(
    r"\(\s*(?:the\s+|hereinafter\s+(?:called\s+|referred\s+to\s+as\s+)?)?[“\"][^“”\"()]{1,40}[”\"]"
    r"\s*\)\s*,?\s+and\s+(?=[A-Z])"
)
_DESCRIBED = re.compile(r",\s+an?\s+[^,()“”\"]{0,80}$")  # ", a Delaware corporation"
_ADDRESSED = re.compile(
    r"(?<=[a-z.]),?\s+(?:with\s+(?:a|an|its)\s+(?:registered\s+|principal\s+)?(?:place|office|address)"
    r"|having\s+(?:a|an|its)\s|located\s+at\b|whose\s+(?:registered\s+|principal\s+)?(?:office|address))"
)
_BACK_WORD = re.compile(r"[A-Z0-9][^\s,;:()“”\"]*|of|and|&|de")


def _name_before(text: str, pos: int, floor: int) -> int | None:
    """Where the name that ends at ``pos`` (before its description and role) begins, not
    before ``floor`` (the start of its line)."""
    head = text[floor:pos].rstrip()
    if d := _DESCRIBED.search(head):
        head = head[: d.start()]
    if d := _ADDRESSED.search(head):  # "Aduro Biotech, Inc., with a place of business at …"
        head = head[: d.start()]
    head = head.rstrip(" ,")
    start = len(head)
    words = head.split(" ")
    later = ""
    for word in reversed(words):
        bare = word[:-1] if word.endswith(",") and later.lower().rstrip(".") in _ABBREV else word
        if not bare or not _BACK_WORD.fullmatch(bare):
            break  # "Holdings," goes on only before "Inc."
        start -= len(word) + 1
        later = word
    start = max(start + 1, 0) if start < len(head) else start
    while start < len(head) and not head[start].isupper() and not head[start].isdigit():
        nxt = head.find(" ", start)
        if nxt < 0:
            return None
        start = nxt + 1
    return floor + start if start < len(head) else None


def defined_pair(
    text: str, stop: int, line_start: Callable[[int], int]
) -> list[tuple[Span, Span | None]]:
    """The first two parties named as "X (“Role”) and Y (“Role”)" before ``stop``;
    ``line_start(pos)`` is where the line holding ``pos`` begins."""
    for m in _PAIR.finditer(text, 0, stop):
        begin = _name_before(text, m.start(), line_start(m.start()))
        if begin is None:
            continue
        first = party_spans(text, begin, m.end())
        second = party_spans(text, m.end(), sentence_end(text, m.end()))
        if first is None or second is None or second[1] is None:
            continue
        names = [text[a:b] for (a, b), _ in (first, second)]
        if any(n.lower() in _ROLE_WORDS or len(n.split()) < 2 for n in names):
            continue
        return [first, second]
    return []


# "FEDERATED INVESTMENT MANAGEMENT COMPANY, a statutory trust … (the “Adviser”)": a legal name,
# then what it is, then the role the agreement gives it
_ROLE_PAREN = re.compile(  # "(together with its affiliates, “you”)" too
    r"\(\s*(?:(?:collectively|together)(?:\s+with\s+[^()“”\"]{1,60}?)?,?\s+)?(?:the\s+|hereinafter\s+(?:called\s+|referred\s+to\s+as"
    r"\s+)?)?[“\"](?P<r>[^“”\"()]{1,40})[”\"]\s*\)"
)
_LEGAL_NAME = re.compile(  # "Beta Bank, N.A." before "Beta Bank"
    r"(?<![\w.])(?:[A-Z][\w&'’.-]*\s+){0,6}[A-Z][\w&'’.-]*,\s+(?:Inc|Ltd|LLC|L\.L\.C|Corp|Co|plc"
    r"|L\.P|N\.V|B\.V|S\.A|N\.A|INC|LTD|CORP|CO)\b\.?"
    r"|(?<![\w.])(?:[A-Z][\w&'’.-]*\s+(?:(?:of|and|&|de|/)\s+)?){0,7}"
    r"(?:Inc|Incorporated|Corporation|Corp|Company|Companies|LLC|L\.L\.C|Ltd|Limited|L\.P|LLP"
    r"|plc|N\.V|B\.V|AG|GmbH|S\.A|Trust|Fund|Bank|Partnership|INC|CORPORATION|CORP|COMPANY"
    r"|LIMITED|LTD|TRUST|FUND|BANK|PARTNERSHIP)\b\.?"
)
_BRIDGE = re.compile(  # what may stand between a name and its role: its description
    r"(?i),?\s*(?:(?:an?|the)\s+[^()“”\"]{0,160}?|(?:having|with|located|whose|organized|duly|"
    r"existing|incorporated)\b[^()“”\"]{0,160}?)?,?\s*$"
)


def named_roles(text: str, start: int, stop: int) -> list[tuple[Span, Span | None]]:
    """Legal names the opening paragraphs give a role ("FASC, a statutory trust … ("FASC")"),
    in order, without a "between" sentence: a power of attorney, a confirmation, an award."""
    out: list[tuple[Span, Span | None]] = []
    seen: set[str] = set()
    for paren in _ROLE_PAREN.finditer(text, start, stop):
        if paren["r"].lower() in _NOT_ROLES:
            continue
        window = max(start, paren.start() - 240)
        names = [m for m in _LEGAL_NAME.finditer(text, window, paren.start())]
        named = next(
            (m for m in reversed(names) if _BRIDGE.fullmatch(text, m.end(), paren.start())), None
        )
        if named is None or _opened(text, named.start()):
            continue
        party = party_spans(text, named.start(), paren.end())
        if party is None:
            continue
        name = " ".join(text[party[0][0] : party[0][1]].lower().replace(",", " ").split())
        own = [w for w in name.split() if w != "the" and w.rstrip(".") not in _ABBREV]
        own = [w for w in own if w not in _LEGAL_WORDS | _ROLE_WORDS]
        if name in seen or not own or len(name.split()) < 2:
            continue  # "The Company (“Discloser”)": a defined term, not a legal name
        seen.add(name)
        out.append((party[0], paren.span("r")))
    return out
