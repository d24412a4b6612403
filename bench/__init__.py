"""Benchmark scripts: each prints figures, side by side with what it is compared against."""
