"""``cardroom bench``: benchmarks against a real server, printing JSON figures."""
