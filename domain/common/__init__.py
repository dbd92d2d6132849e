"""The skeleton every game shares: the helpers its packages call, and one base class.

- :mod:`.game`: :class:`~.game.GameRules`, the Game protocol (:mod:`domain.protocol`) with
  what every game answers alike; :class:`~.game.PlainGame`, which a game gives its own
  rule functions once.
- :mod:`.structs`: the auction call, the played card and the won trick of states and views.
- :mod:`.chance`: taking a supplied deck: the dealer draw, or a deal in packets.
- :mod:`.draw`: the first-dealer draw (RULES 0.4), decided and folded.
- :mod:`.turns`: the checks ``decide`` makes before its phase logic, and their errors.
- :mod:`.tricks`: seats clockwise; a trick's winner, its ``trick_won`` event and its leader.
- :mod:`.fold`: what every ``evolve`` folds alike: a new deal's reset, an auction call
  (but Reserve Bridge's), the dealer draw, the pause between deals, a trick won, the game's
  end; and the events every game records.
- :mod:`.scoring`: a deal's ``hand_scored``, the running scores carried forward.
- :mod:`.view`: the view fields every game fills alike, and a deal as a seat sees it.

What a game does its own way stays in its package; only what is the same everywhere is here.
"""
