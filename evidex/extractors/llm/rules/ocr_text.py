"""What an OCR engine does to printed text, for the finders that read its lines.

**Spacing.** Engines that put spaces back from word boxes put them where print has none:
before a comma or a closing bracket, after an opening one, between initials ("MR D . I . Y .
(JOHOR)", "BALAKONG , 43300"). :func:`tidied` takes those out of a value read by OCR; the quote
keeps the line as read, and verification compares them spacing aside.

**Misreads.** Print never puts a zero between letters ("L0T", "INV0ICE") or closing a word of
them after a hyphen ("HAI-0 RAYA"), a one between letters or before a word's three ("J1n",
"S1ip", "1DEA": an l or an I), a letter O at the end of or inside a number ("8120o", "5O0"), a
full-width bracket from a CJK font inside a Latin line ("MR D.I.Y. （H) SDN BHD"), or a raised
dot inside an id ("(519537·X)"): those are the engine confusing shapes (O and 0, l and 1; the
Chinese model's punctuation). Each is a reason to have a person look, never a correction: the
backend does not guess what was printed. Only lines read by OCR are looked at; a text layer
holds what the document says.

**Letters spaced apart.** An engine that loses a word's shape reads it in fragments: a capital
standing alone between two runs of letters ("KAWASAN PER I NDUSTRI AN", "STRICTL Y NO CASH",
"J I AWE I HOUSE"), a lowercase letter alone beside lowercase fragments ("Ja l an", "Ma l ays i
a"). Print sets single letters as initials ("C W KHOO", "MR D I Y") or after a word that names
a part ("BLOCK B", "TOWER C"), never a lone lowercase letter inside a name or an address, and
seldom a capital between two words; a line split that way was not read as printed, and the
characters the engine lost or added between the fragments are not in the value either.

**Marks.** An engine reads a speck of dirt or a dot of ink over a letter as an accent
("HARDWARÉ", "Restäurants", "Subang Jaça"). A slip printed in a language that writes accents
has them on other lines too (an item, a label: "Espèces", "Rückgeld"); a single marked word in
a name or an address, on a slip whose other lines have none, was misread (:func:`marked_word`).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["marked_word", "misread", "tidied"]

_SIGNS = (
    (re.compile(r"(?<=[A-Za-z])0(?=[A-Za-z])"), "a zero between letters"),
    # "HAI-0 RAYA": a zero closing a hyphenated word of letters, where print has an O ("A-0-1",
    # a unit's number, and "RM-0.16" are figures)
    (re.compile(r"(?<=[A-Za-z]{2}-)0(?![\w-]|[.,/]\w)"), "a zero closing a word of letters"),
    # "J1n", "S1ip", "1DEA": a one between letters, or opening a word of three letters or more
    (
        re.compile(r"(?<=[A-Za-z])1(?=[A-Za-z])|(?<!\w)1(?=[A-Za-z]{3})"),
        "a one among its letters, where print has an I or an l",
    ),
    (re.compile(r"(?<=\d)[oO](?=\d|\b)"), "a letter O inside a number"),
    (re.compile(r"[\uff08\uff09\uff0c\uff1a\uff1b\u3001\u3002]"), "a full-width CJK mark"),
    (re.compile(r"(?<=[\dA-Za-z])[\u00b7\u2022](?=[\dA-Za-z])"), "a raised dot inside a word"),
    # "MR. D.1.Y.": an initialism spells letters, so a digit among them is a misread I, O or S
    (re.compile(r"(?<![\w.])[A-Za-z]\.\d(?=\.[A-Za-z](?![\w]))"), "a digit among its initials"),
)
# the lone letter of a word read in pieces (:func:`_run` checks both neighbours are runs of
# letters): a capital between two runs; a lowercase letter (other than the word "a") beside a
# run that holds a lowercase letter
_SPACED = re.compile(
    r"(?<=[A-Za-z]{2}\s)[A-Z](?=\s[A-Za-z]{2})"
    r"|(?<=[a-z]\s)[b-z](?![^\s])|(?<![^\s])[b-z](?=\s[A-Za-z]*[a-z])"
)

# words after which print sets a single letter as a name ("BLOCK B", "JALAN 3/A", "TOWER C")
_DESIGNATOR = re.compile(
    r"(?i)block|blok|blk|lot|tower|wing|level|floor|unit|phase|fasa|zone|zon|section|seksyen|"
    r"gate|row|type|plan|jalan|jln|lorong|lrg|grade|class|size|part"
)

_BEFORE = re.compile(r"\s+(?=[,.:;)\]])")
_AFTER = re.compile(r"(?<=[(\[])\s+")
_INITIALS = re.compile(r"(?<![A-Za-z])(?:[A-Z] ?\. ?){2,}")


def tidied(text: str) -> str:
    """``text`` as print sets it: no space before ``, . : ; ) ]`` or after ``( [``, initials
    closed up ("D . I . Y ." as "D.I.Y.") where the engine spaced them on both sides."""
    text = _INITIALS.sub(_initials, text)
    return _AFTER.sub("", _BEFORE.sub("", text))


def _initials(m: re.Match[str]) -> str:
    run = m.group()
    if " ." not in run:
        return run
    return run.replace(" ", "") + (" " if run.endswith(" ") else "")


def misread(text: str) -> str:
    """What in ``text`` shows it was misread (``"'L0T' has a zero between letters"``), or
    ``""``."""
    for pattern, what in _SIGNS:
        if m := pattern.search(text):
            word = _word(text, m.start())
            return f"{word!r} has {what}"
    for m in _SPACED.finditer(text):
        if m.start() < 2:
            continue  # a piece needs a fragment on each side
        before = _word(text, m.start() - 2)
        if _DESIGNATOR.fullmatch(before.strip(".,")):
            continue  # "BLOCK B", "LOT A", "TOWER C": a letter that names a part
        if _run(text, m.start() - 1, -1) and _run(text, m.end(), 1):
            piece = f"{_word(text, m.start() - 2)} {m.group()} {_word(text, m.end() + 1)}"
            return f"{piece!r} has a letter standing alone, as an engine reads a word in pieces"
    return ""


def marked_word(text: str) -> str:
    """The first word of ``text`` holding a Latin letter with a mark ("HARDWARÉ", "Jaça"), or
    ``""``. An engine reads a speck over a letter as an accent; on a slip printed in a language
    that writes none, such a letter is a misreading (see "Marks")."""
    if text.isascii():
        return ""
    for i, char in enumerate(text):
        bare = unicodedata.normalize("NFD", char)
        if len(bare) > 1 and bare[0].isascii() and bare[0].isalpha():
            return _word(text, i)
    return ""


def _run(text: str, at: int, step: int) -> bool:
    """Whether a word of letters stands next to ``text[at]`` (a space) in direction ``step``:
    the lone letter's neighbour is a fragment of a word, not a number or a mark."""
    at += step
    if not 0 <= at < len(text) or not text[at].isalpha():
        return False
    word = _word(text, at)
    return word.isalpha()


def _word(text: str, at: int) -> str:
    start, end = at, at + 1
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[start:end]
