"""The skeleton every game shares, composed by the game packages rather than inherited.

- :mod:`.draw`: the first-dealer draw (RULES 0.4), decided and folded.
- :mod:`.turns`: the checks ``decide`` makes before its phase logic, and their errors.
- :mod:`.tricks`: seats clockwise and the winner of a trick.
"""
