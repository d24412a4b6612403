"""The pipeline as a plain library: parse -> prompt -> one LLM call -> verify -> result.

No web, no queue; imports :mod:`evidex.schemas` only.
"""
