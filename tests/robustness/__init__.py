"""Robustness: property tests, injected faults, hostile input, shutdown."""
