"""``receipt``: what expense intake reads off a till receipt or a photographed bill."""

from __future__ import annotations

from .field import FieldExtraction, FieldGroup, field
from .rules import SumRule
from .values import Amount, DateValue

__all__ = ["RULES", "Receipt", "ReceiptItem"]


class ReceiptItem(FieldGroup):
    """One line of the sale."""

    description: FieldExtraction[str] = field("What was bought, as printed.")
    quantity: FieldExtraction[float] = field("Quantity (1 when the line gives none).")
    amount: FieldExtraction[Amount] = field("The line's amount (quantity times price).", "amount")


class Receipt(FieldGroup):
    """A till receipt, read for expenses."""

    merchant_name: FieldExtraction[str] = field(
        "The shop or company that issued the receipt: the name at the top, not a cashier's "
        "or customer's."
    )
    merchant_address: FieldExtraction[str] = field(
        "The merchant's address as printed, every line of it."
    )
    registration_id: FieldExtraction[str] = field(
        "The merchant's company registration or tax number (GST, VAT, SST, ABN) as printed."
    )
    date: FieldExtraction[DateValue] = field("Date of the sale.", "date")
    time: FieldExtraction[str] = field("Time of the sale as printed (20:13, 8:13:39 PM).")
    line_items: list[ReceiptItem] = field("Every item sold, in order.")
    subtotal: FieldExtraction[Amount] = field("Total of the items before tax.", "amount")
    tax: FieldExtraction[Amount] = field(
        "Tax added on top of the items (GST, VAT, SST, service tax); not found when the item "
        "prices already include it.",
        "amount",
    )
    rounding: FieldExtraction[Amount] = field(
        "The rounding adjustment the receipt prints (-0.02).", "amount"
    )
    total: FieldExtraction[Amount] = field(
        "The amount paid: the last TOTAL / ROUNDED TOTAL / AMOUNT DUE line, not cash tendered "
        "or change.",
        "amount",
    )
    currency: FieldExtraction[str] = field("ISO 4217 code of the receipt's currency.", "currency")
    payment_method: FieldExtraction[str] = field(
        "How it was paid as printed (CASH, VISA, MASTERCARD, e-wallet)."
    )


RULES = (
    # the items, plus the tax and the rounding the receipt states, make the total
    SumRule(
        parts=("line_items[].amount", "tax", "rounding"),
        total="total",
        optional=("tax", "rounding"),
    ),
)
