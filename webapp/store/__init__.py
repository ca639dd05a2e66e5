"""Where games live: the ``GameStore`` interface and its backends, one module each.

* ``record``  ``GameRecord`` and the ``GameStore`` protocol
* ``sqlite``  ``SQLiteStore``, the embedded default
"""

from webapp.store.errors import CorruptRecord, StoreError, StoreUnavailable, VersionConflict
from webapp.store.record import GameRecord, GameStore, now
from webapp.store.sqlite import SQLiteStore

__all__ = [
    "CorruptRecord",
    "GameRecord",
    "GameStore",
    "SQLiteStore",
    "StoreError",
    "StoreUnavailable",
    "VersionConflict",
    "now",
]
