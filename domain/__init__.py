"""Cardroom's rules engine: cards, the verifiable shuffle and one decider per game.

Pure: no I/O, no clock, no randomness, no logging (a test enforces it).
"""

RULES_ENGINE_VERSION = "1.4.0"
"""The engine a new table is created under; it keeps it (``table_created.rules_version``)
and is decided and re-run by it for good, so that an export verifies as it was played.
A change to what the rules or the computer decide raises this version, and the old way
stays for the tables created before it (``domain.engine.engine_since``):

- 1.1.0: a pause holds each running turn where it stood (1.0.0 stopped the clocks, and
  resuming gave the seat to act a whole new turn); a table that ended while paused cannot
  be resumed; the verifier re-derives every move of the computer and the clock.
- 1.2.0: after an outage, each running turn gets back at least ``at_least`` (recorded in
  the ``extend_clocks`` command) from the moment the time is given back, so that a
  player told to send a move again in a second is not beaten to it by the clock.
- 1.3.0: Auction Pinochle (3A.5): the soloist's naming another trump withdraws the
  opponents' concessions, made to the contract as it stood (an opponent who conceded to
  clubs was charged the doubled unit of spades named after); on ``forfeit`` clocks, seats
  whose turns expire at the same instant (Reserve Bridge's reserves, laid at once) all
  forfeit, where the lowest seat alone lost and the other won.
- 1.4.0: a ``clock_set``'s ``deadline`` is when the seat to act expires (the view's
  ``deadline``); in a timed round it was the round's end when that came first, and
  stayed so after time was called, so a client counting down from the stream saw the
  turn run out minutes early.
"""
