"""The pipeline as a plain library, one package per stage, in the order a job runs them.

- :mod:`.parse` takes the file and gives the line table (:mod:`.document`): text, pages, boxes.
- :mod:`.gate` takes the line table and the schema and says whether a model call is worth making.
- :mod:`.plan` takes the line table, the schema and the context budget and gives the calls:
  which pages each call sends, and the prompt.
- :mod:`.llm` takes a prompt and gives the model's answer (OpenAI, Azure, rules, scripted).
- :mod:`.verify` takes the answer and the line table and gives every field's checked status.

:mod:`.pipeline` runs them; :mod:`.document`, :mod:`.errors`, :mod:`.settings` (:mod:`.names`) and
:mod:`.backends` are what the stages share. No web, no queue; imports :mod:`evidex.schemas` only.
"""
