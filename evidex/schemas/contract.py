"""``contract``: the commercial terms a credit or legal analyst reads off an agreement."""

from __future__ import annotations

from .field import FieldExtraction, FieldGroup, field
from .rules import OrderRule, RequiredIfRule
from .values import Amount, DateValue, Duration

__all__ = ["RULES", "Contract", "ContractParty", "Fee", "Signatory"]


class ContractParty(FieldGroup):
    """A party to the agreement."""

    name: FieldExtraction[str] = field("Legal name of the party.")
    role: FieldExtraction[str] = field("Role as defined ('Supplier', 'Customer', 'Licensee'...).")


class Fee(FieldGroup):
    """A fee or price the contract sets."""

    description: FieldExtraction[str] = field("What the fee is for.")
    amount: FieldExtraction[Amount] = field("The fee.", "amount")


class Signatory(FieldGroup):
    """A person who signs."""

    name: FieldExtraction[str] = field("Name of the signatory.")
    title: FieldExtraction[str] = field("Title or function.")
    party: FieldExtraction[str] = field("Party they sign for.")


class Contract(FieldGroup):
    """A commercial agreement."""

    title: FieldExtraction[str] = field("Title of the agreement.")
    parties: list[ContractParty] = field("Every party to the agreement.")
    effective_date: FieldExtraction[DateValue] = field("Date the agreement takes effect.", "date")
    expiration_date: FieldExtraction[DateValue] = field("Date the agreement ends.", "date")
    term: FieldExtraction[Duration] = field("Initial term.", "duration")
    auto_renewal: FieldExtraction[bool] = field("true when the term renews automatically.")
    renewal_term: FieldExtraction[Duration] = field("Length of each renewal.", "duration")
    termination_notice: FieldExtraction[Duration] = field(
        "Notice needed to terminate or prevent renewal.", "duration"
    )
    payment_terms: FieldExtraction[str] = field("When and how invoices are paid.")
    fees: list[Fee] = field("Fees and prices.")
    governing_law: FieldExtraction[str] = field(
        "Jurisdiction whose law governs ('New York', 'England and Wales')."
    )
    signatories: list[Signatory] = field("People who sign.")


RULES = (
    OrderRule(earlier="effective_date", later="expiration_date"),
    RequiredIfRule(field="renewal_term", condition="auto_renewal"),
)
