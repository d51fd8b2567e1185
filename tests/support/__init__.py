"""Helpers shared by the tests and the benchmarks: fakes, generated sources, process checks."""
