"""What an engine read, put right where the mistake is the engine's and the fix is certain.

Every engine's words pass through :func:`read_word` before they become lines, so both engines
get the same corrections. Each correction keeps a word's length, so character positions (and
the spans and boxes built from them) stay where they were.

* **Full-width forms.** The PP-OCR recogniser reads Chinese beside Latin scripts and reads a
  colon or a bracket next to a Latin letter as its full-width form ("Total：", "（M）"), which a
  search for "Total:" never finds. Each character is folded by NFKC when that gives exactly one
  character (full-width letters, digits and punctuation, the ideographic space); characters
  NFKC would expand ("½" to "1⁄2", "ﬁ" to "fi") are left alone, since the word would change
  length.
* **Digits among letters.** A recogniser unsure between "O" and "0", or "I" and "1", picks the
  digit now and then ("L0T", "BAT1K", and "GEM8ILANG" for "GEMBILANG"). A lone 0, 1, 5 or 8
  with a letter on each side, in the same case, is the letter: 0 reads as O (o), 1 as I (l),
  and between capitals 5 as S and 8 as B. Never when a digit is next to it, so numbers,
  amounts and ids with digits around ("A10B", "B1 2", "SR1001") keep every digit.
* **Letters among digits.** The same doubt the other way: an "O" with a digit on each side, or
  closing a word that is otherwise two or more digits ("8110O"), is the digit 0.
"""

from __future__ import annotations

import unicodedata

__all__ = ["digits_as_letters", "fold_width", "letters_as_digits", "read_word"]

_AS_UPPER = {"0": "O", "1": "I", "5": "S", "8": "B"}
_AS_LOWER = {"0": "o", "1": "l"}


def fold_width(text: str) -> str:
    """``text`` with each character NFKC-folded when that gives one character (see above)."""
    out = []
    for char in text:
        folded = unicodedata.normalize("NFKC", char) if ord(char) > 127 else char
        out.append(folded if len(folded) == 1 else char)
    return "".join(out)


def digits_as_letters(text: str) -> str:
    """A lone 0 or 1 between two letters of one case read as that case's O or I (o or l); a
    lone 5 or 8 between two capitals as S or B."""
    chars = list(text)
    for i in range(1, len(chars) - 1):
        if chars[i] not in _AS_UPPER:
            continue
        left, right = chars[i - 1], chars[i + 1]
        if not (_latin(left) and _latin(right)):
            continue
        if left.isupper() and right.isupper():
            chars[i] = _AS_UPPER[chars[i]]
        elif left.islower() and right.islower() and chars[i] in _AS_LOWER:
            chars[i] = _AS_LOWER[chars[i]]
    return "".join(chars)


def letters_as_digits(text: str) -> str:
    """An O between two digits, or closing an otherwise all-digit word of two or more digits,
    read as 0."""
    chars = list(text)
    for i in range(1, len(chars)):
        if chars[i] not in "Oo":
            continue
        between = i < len(chars) - 1 and chars[i - 1].isdigit() and chars[i + 1].isdigit()
        closing = i == len(chars) - 1 and i >= 2 and all(c.isdigit() for c in chars[:i])
        if between or closing:
            chars[i] = "0"
    return "".join(chars)


def _latin(char: str) -> bool:
    return char.isascii() and char.isalpha()


def read_word(text: str) -> str:
    """One word as the engine read it, with the corrections of this module applied."""
    return letters_as_digits(digits_as_letters(fold_width(text)))
