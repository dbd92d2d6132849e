"""Cardroom's rules engine: cards, the verifiable shuffle and one decider per game.

Pure: no I/O, no clock, no randomness, no logging (a test enforces it).
"""

RULES_ENGINE_VERSION = "1.0.0"
