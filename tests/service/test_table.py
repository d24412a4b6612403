"""The terminal table's value column: rich values shown as a reader writes them."""

from __future__ import annotations

from typing import Any

import pytest

from evidex.service.table import _short


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ({"amount": 1.0, "unit": "years"}, "1 year"),
        ({"amount": 3.0, "unit": "years"}, "3 years"),
        ({"amount": 90.0, "unit": "days"}, "90 days"),
        ({"value": 413.99, "currency": "USD"}, "413.99 USD"),
        ({"iso": "2026-04-01", "original": "April 1, 2026"}, "2026-04-01"),
        (None, ""),
    ],
)
def test_a_value_is_shown_as_written(value: Any, shown: str) -> None:
    assert _short(value, 40) == shown
