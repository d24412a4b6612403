"""Parse: a file in, the line table out (:class:`evidex.extractors.document.Document`).

One parser per source behind :class:`evidex.extractors.document.Parser`: :mod:`.pymupdf_parser`
(PDF text layer, with :mod:`.geometry` and :mod:`.tables`), :mod:`.azure_layout` (Azure Document
Intelligence), :mod:`.ocr` (scans and photos), :mod:`.text` (plain text, the shipped fake);
:mod:`.auto` chooses, :mod:`.probe` and :mod:`.images` sniff and open files. The only stage that
touches the source file, so it also draws on it: :mod:`.render` (page images for the review page)
and :mod:`.highlight` (the highlighted PDF). Imports nothing of plan, llm or verify.
"""
