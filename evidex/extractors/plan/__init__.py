"""Plan: the line table, the schema and the context budget in; the calls out.

:mod:`.context` (the token budget), :mod:`.outline` (definitions and headings) and :mod:`.pages`
(page ranking), :mod:`.groups` (the fields of a call), :mod:`.fill` (which pages each call is
sent, and why), :mod:`.calls` (the job's plan: its calls, planned together), :mod:`.prompt` (the
text sent) and :mod:`.completeness` (what an answer left out). Pure: no I/O, nothing of parse,
llm or verify.
"""
