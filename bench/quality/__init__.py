"""Quality benchmarks: how good the answers are (relevance, related papers, a learning digest), beside baselines."""
