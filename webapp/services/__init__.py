"""The game service: what players and spectators can do, independent of HTTP and Socket.IO.

* ``errors``    the one error every action raises, with its protocol code
* ``state``     a stored game as the protocol's state dict
* ``seats``     seat tokens, their hashes and their cookies
* ``games``     ``GameService``: create, move, undo, settings, new game, analyse
* ``searches``  the engine's side: starting, relaying and applying searches

Modules here import each other by their own names, never through this package
(``from webapp.services.split import ...``): the package imports ``games`` first, so
a module reaching back into it would work only by import order
(``tests/test_imports.py`` checks the graph).
"""

from webapp.services.errors import GameError
from webapp.services.games import GameService

__all__ = ["GameError", "GameService"]
