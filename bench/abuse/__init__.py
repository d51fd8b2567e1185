"""Abuse benchmarks: hostile traffic, oversized or malformed input and injected faults, beside the calm case."""
