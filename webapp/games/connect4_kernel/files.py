"""The 12-stone database's file: where it is and how long it is, read without numba."""

from __future__ import annotations

from pathlib import Path

#: Records of the 12-stone database's file, 5 bytes each (see ``database``).
DATABASE_ENTRIES = 4_200_899
DATABASE_RECORD_BYTES = 5


def database_file() -> Path | None:
    """The file of the 12-stone database (with distances), None without its package."""
    try:
        from bitbully_databases import BitBullyDatabases
    except ImportError:
        return None
    return Path(BitBullyDatabases.get_database_path("12-ply-dist"))
