"""Verify: the model's answer and the line table in; every field's status and evidence out.

:mod:`.align` finds each quote in the lines, :mod:`.normalize`, :mod:`.readings`,
:mod:`.currency` and :mod:`.labels` read values from text, :mod:`.locales` settles what the
document's own locale says, :mod:`.compare` checks a value against its quote,
:mod:`.crossfield` applies the schema's rules, :mod:`.fields` puts it together per field and
:mod:`.reverify` checks a reviewer's correction. Pure: no I/O, nothing of parse or llm.
"""
