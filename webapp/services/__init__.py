"""The service layer: what players and spectators can do, independent of HTTP and Socket.IO.

A move, top to bottom: ``game_service`` checks and stores it, ``searches`` schedules
what follows (``Searches.changed``) and applies the engine's results (its reply, a
pondering it took over) and analyses', ``live_scores`` the scores' (the engine's
options stored with its move), each registered with the pool's dispatcher by job kind.

* ``game_service``  ``GameService``: create, move, undo, settings, new game, analyse
* ``searches``      the engine's side: a change's jobs scheduled, engine moves and analyses applied
* ``live_scores``   the live position's scores pass by pass, the engine's options, pondering
* ``engine_job``    the engine's search of a position (its reply's and its pondering's)
* ``split``         a scores search shared between worker processes (root splitting)
* ``state``         a stored game as the protocol's state dict
* ``seats``         seat tokens, their hashes and their cookies
* ``locks``         one lock per game, and the outbox sent once it is let go
* ``errors``        the one error every action raises, with its protocol code
* ``positions``     a position a link starts a game from, checked, nothing stored
* ``analysis``      analyses of any position (``GET /api/analysis``, the review's)
* ``review``        a finished game's moves classified
* ``tree``          traced searches for the explorer
* ``compare``       minimax against alpha-beta on one position and depth (the engine panel)
* ``friends``       games between two people: seats, invites, offers, the clock's flag
* ``clock``         a game clock's arithmetic, the time passed in
* ``retention``     deleting abandoned and old games

Modules here import each other by their own names, never through this package
(``from webapp.services.split import ...``): the package imports ``game_service`` first, so
a module reaching back into it would work only by import order
(``tests/test_layers.py`` checks the graph).
"""

from webapp.services.errors import GameError
from webapp.services.game_service import GameService

__all__ = ["GameError", "GameService"]
