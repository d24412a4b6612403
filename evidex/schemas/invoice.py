"""``invoice``: what accounts payable reads off a supplier invoice."""

from __future__ import annotations

from .field import FieldExtraction, FieldGroup, field
from .rules import OrderRule, SumRule
from .values import Address, Amount, DateValue

__all__ = ["RULES", "Invoice", "LineItem", "Party", "PaymentDetails"]


class Party(FieldGroup):
    """The seller or the buyer."""

    name: FieldExtraction[str] = field("Legal or trading name.")
    address: FieldExtraction[Address] = field("Postal address.", "address")
    vat_id: FieldExtraction[str] = field("VAT / tax identification number as written.", "vat_id")
    email: FieldExtraction[str] = field("Email address.", "email")
    phone: FieldExtraction[str] = field("Phone number as written.", "phone")


class PaymentDetails(FieldGroup):
    """Where and how to pay."""

    iban: FieldExtraction[str] = field("IBAN as written.", "iban")
    bic: FieldExtraction[str] = field("BIC / SWIFT code.", "bic")
    bank_name: FieldExtraction[str] = field("Bank name.")
    account_holder: FieldExtraction[str] = field("Account holder name.")
    payment_reference: FieldExtraction[str] = field("Reference to quote with the payment.")


class LineItem(FieldGroup):
    """One billed line."""

    description: FieldExtraction[str] = field("What was billed.")
    quantity: FieldExtraction[float] = field("Quantity.")
    unit_price: FieldExtraction[Amount] = field("Price per unit.", "amount")
    amount: FieldExtraction[Amount] = field("Line total.", "amount")


class Invoice(FieldGroup):
    """A supplier invoice, read for payment."""

    invoice_number: FieldExtraction[str] = field("Invoice number.")
    purchase_order: FieldExtraction[str] = field("Buyer's purchase order number (PO).")
    issue_date: FieldExtraction[DateValue] = field("Invoice (issue) date.", "date")
    due_date: FieldExtraction[DateValue] = field("Payment due date.", "date")
    seller: Party = field("The party issuing the invoice (supplier).")
    buyer: Party = field("The party billed (customer, bill-to).")
    currency: FieldExtraction[str] = field("ISO 4217 code of the invoice currency.", "currency")
    subtotal: FieldExtraction[Amount] = field("Total before tax.", "amount")
    tax_rate: FieldExtraction[float] = field(
        "Tax (VAT) rate in percent (20 for 20%).", "percentage"
    )
    tax: FieldExtraction[Amount] = field("Tax (VAT) amount.", "amount")
    total: FieldExtraction[Amount] = field("Total including tax (amount due).", "amount")
    payment_terms: FieldExtraction[str] = field("Payment terms as written (Net 30...).")
    payment: PaymentDetails = field("Bank details for payment.")
    line_items: list[LineItem] = field("Every billed line, in order.")


RULES = (
    SumRule(parts=("line_items[].amount",), total="subtotal"),
    SumRule(parts=("subtotal", "tax"), total="total"),
    OrderRule(earlier="issue_date", later="due_date"),
)
