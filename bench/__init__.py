"""The benchmarks, by kind (quality, speed, abuse) and the tools beside them: `python -m bench` lists them all."""
