"""The offline rules backend: any schema filled from labels, sentences, patterns and layout.

One module per kind of finder: :mod:`.dates`, :mod:`.money`, :mod:`.contact` (values that
identify themselves), :mod:`.values` (the parser per kind), :mod:`.labels` (values after a
label), :mod:`.clauses` and :mod:`.parties` (contract sentences), :mod:`.layout` (names,
headlines and address blocks placed, not labelled), :mod:`.receipts` and :mod:`.issuer` (a
sales slip's merchant, address, total and date), :mod:`.ocr_text` (what an OCR engine does to
printed text); :mod:`.meaning` maps a schema's fields to them, :mod:`.shape` returns values in
the schema's shape, :mod:`.backend` puts them together.
"""

from .backend import NOTE, RulesBackend

__all__ = ["NOTE", "RulesBackend"]
