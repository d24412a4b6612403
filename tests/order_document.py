"""The order confirmation a new user meets first, for the plain-schema tests and
``bench.plain_schema``: a discount rate beside the discount, another label's amount on the
total's line, an impossible date whose digits are in the quote, an IBAN in groups of four, a
currency as its sign, an email and a notice period written in words and digits."""

ORDER_DOC = """\
Northwind Supplies Ltd
Order confirmation PO-7781
Shipped on: 30.02.2026
Delivered on: 3 March 2026
Subtotal: $250.00 Tax (8%): $20.00 Total: $270.00
Discount (5%): -$12.00
Currency: £ (pounds sterling)
IBAN: GB82 WEST 1234 5698 7654 32
Contact: orders@northwind.example
Notice: three (3) months
"""
