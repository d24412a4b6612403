"""evidex: document extraction where every field comes with the evidence it was read from.

Packages, with imports pointing one way (checked by import-linter):
``service`` (REST app, CLI) -> ``workers`` (queue, stores) -> ``extractors`` (the pipeline as a
plain library) -> ``schemas`` (the contract).
"""

__version__ = "0.1.0"
