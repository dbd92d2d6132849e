"""Tournaments in rounds (DESIGN 14): who sits where each round, and who stands where after.

Pure like the games: pairing is a function of the entries, the results recorded so far and
the tournament's seed, so the verifier re-runs it from an export and gets the same tables.
"""
