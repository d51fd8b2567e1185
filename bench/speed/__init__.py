"""Speed benchmarks: latency, throughput and memory of indexing, search and serving, beside baselines."""
