"""The 334-page New York-law revolving credit agreement (see ``long_contract``): written with its
own wording, numbering and seed, and held out: page selection was not tuned on it (its first run
lost the list of events of default; the fix came from that diagnosis)."""

from __future__ import annotations

from long_contract import load_style

CREDIT = load_style("credit_agreement")  # fixtures/long_contracts/credit_agreement.toml
