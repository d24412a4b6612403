"""The edges: the command-line interface (and, later, the REST app)."""
