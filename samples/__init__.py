"""Fictional sample documents (CV, invoice, contract) with their expected extractions."""
