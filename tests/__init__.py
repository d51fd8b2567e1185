"""The test suite; `tests.support` holds what the tests and the benchmarks share."""
