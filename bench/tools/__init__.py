"""Tools beside the benchmarks, not benchmarks themselves: building the shipped embedding model, serve's floor app."""
