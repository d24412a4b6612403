"""Plan: the line table, the schema and the context budget in; the calls out.

:mod:`.context` (the token budget), :mod:`.outline` (definitions and headings) and :mod:`.pages`
(page ranking), :mod:`.groups` (which fields share a call), :mod:`.calls` (the job's plan: calls,
pages, each page's reason), :mod:`.prompt` (the text sent) and :mod:`.completeness` (what an
answer left out). Pure: no I/O, nothing of parse, llm or verify.
"""
