"""The 312-page English-law term facility agreement (see ``long_contract``): page selection was
tuned on it."""

from __future__ import annotations

from long_contract import load_style

FACILITY = load_style("facility_agreement")  # fixtures/long_contracts/facility_agreement.toml
