"""The service layer: what players and spectators can do, independent of HTTP and Socket.IO.

* ``errors``    the one error every action raises, with its protocol code
* ``state``     a stored game as the protocol's state dict
* ``seats``     seat tokens, their hashes and their cookies
* ``games``     ``GameService``: create, move, undo, settings, new game, analyse
* ``searches``  the engine's side: starting, relaying and applying searches
"""

from webapp.services.errors import GameError
from webapp.services.games import GameService

__all__ = ["GameError", "GameService"]
