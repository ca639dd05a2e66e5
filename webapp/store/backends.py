"""``open_store``: the backend a location names (a SQLite file path, or a PostgreSQL URL)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from webapp.store.record import GameStore
from webapp.store.sqlite import SQLiteStore

#: The URL schemes ``open_store`` knows (a plain path needs none).
SCHEMES = ("sqlite", "postgresql", "postgres")


def open_store(location: str | Path, *, timeout: float = 5.0) -> GameStore:
    """The store at ``location``; ``timeout`` is how long a write waits for a lock (seconds).

    ``location`` is a SQLite file path, ``":memory:"``, a ``sqlite://`` URL as
    SQLAlchemy writes them (``sqlite:///relative.db``, ``sqlite:////abs.db``,
    ``sqlite://`` for memory), or a PostgreSQL URL (``postgresql://user@host:port/db``,
    or ``postgres://``; libpq's form, so ``?sslmode=...`` and the like work).
    Any other scheme raises ValueError naming the supported ones (the location
    itself is not repeated: it may hold a password).
    """
    text = str(location)
    if "://" not in text:
        return SQLiteStore(location, timeout=timeout)
    scheme, rest = text.split("://", 1)
    if scheme in ("postgresql", "postgres"):
        from webapp.store.postgres import PostgresStore  # psycopg only when it is used

        return PostgresStore(text, timeout=timeout)
    if scheme != "sqlite":
        supported = ", ".join(f"{name}://" for name in SCHEMES)
        raise ValueError(
            f"unsupported store scheme {scheme!r}: give a SQLite file path or one of {supported}"
        )
    return SQLiteStore(rest[1:] if rest else ":memory:", timeout=timeout)


def describe(location: str | Path) -> str:
    """``location`` fit for a log line: a URL's password is left out."""
    text = str(location)
    if "://" not in text:
        return text
    parts = urlsplit(text)
    if parts.password is None:
        return text
    host = parts.hostname or ""
    if parts.port is not None:
        host += f":{parts.port}"
    user = f"{parts.username}:***@" if parts.username else "***@"
    return parts._replace(netloc=user + host).geturl()
