"""The offline rules backend: any schema filled from labels, sentences, patterns and layout.

One module per kind of finder: :mod:`.dates`, :mod:`.money`, :mod:`.contact` (values that
identify themselves), :mod:`.values` (the parser per kind), :mod:`.labels` (values after a
label), :mod:`.clauses` and :mod:`.parties` (contract sentences), :mod:`.layout` (names,
headlines and address blocks placed, not labelled); :mod:`.meaning` maps a schema's fields to
them, :mod:`.shape` returns values in the schema's shape, :mod:`.backend` puts them together.
"""

from .backend import NOTE, RulesBackend

__all__ = ["NOTE", "RulesBackend"]
