"""The server's configuration: every key ``create_app(config)`` reads, its default and meaning.

Override a key in ``create_app(config)`` or with ``python -m webapp --set KEY=VALUE``;
docs/configuration.md has the same keys in tables (tests/test_docs.py holds the two
together). A game's engine settings (level, algorithm, the search's caps) are another
thing: ``webapp.game_settings``.
"""

from __future__ import annotations

from typing import Any

from webapp import protocol
from webapp.search_pool.local_pool import DEFAULT_SEARCH, DEFAULT_TRACE
from webapp.services import presence, retention
from webapp.services.searches import RETRY_DELAYS
from webapp.services.tree import WAIT_SECONDS

DEFAULTS: dict[str, Any] = {
    # -- Storage, processes, serving
    "DATABASE": None,  # the SQLite file or PostgreSQL URL; None = lookahead.sqlite3 in instance/
    "DATABASE_TIMEOUT": 5.0,  # seconds a write waits for a lock before "storage unavailable"
    # redis://host:port/0 shared by several web processes: Socket.IO rooms across them
    # (message_queue), the rate limits' counters, and the search queue that search hosts
    # (`python -m webapp.search_host`) take jobs from. None = one process, searches in it.
    "REDIS_URL": None,
    "SEARCH_WORKERS": 2,  # search processes = searches at once
    # The CPU the web process keeps to (its threads share one interpreter lock): "auto"
    # one of those it may use (none if only one), an integer that CPU, None none.
    # Its search processes run on all of them (search_pool/affinity.py).
    "WEB_CPU": "auto",
    "SEARCH_QUEUE_LIMIT": 2000,  # engine moves that may wait in all (a bound sized from memory)
    # Analyses (HTTP, spectators', traces) that may wait in all: a bound of their own, so
    # waiting analyses never make a move or a new game busy.
    "SEARCH_ANALYSIS_LIMIT": 500,
    "SEARCH_OWNER_LIMIT": 32,  # searches one browser (or address) may have waiting
    "SEARCH_GAME_LIMIT": 8,  # searches one game may have waiting
    "SEARCH_RESERVE": 1,  # search processes kept for engine moves (analyses use the others)
    "SEARCH_RESTART_BACKOFF": (0.5, 30.0),  # seconds before a dead process's replacement
    "SEARCH_FUNCTION": DEFAULT_SEARCH,  # "module:function" a search process runs (tests swap it)
    "TRACE_FUNCTION": DEFAULT_TRACE,  # the same for the search explorer's traces
    "ENGINE_RETRY_DELAYS": RETRY_DELAYS,  # seconds before each retry of a failed engine move
    "SEARCH_WARMUP": True,  # warm the engine (compile kernels) when a search process starts
    "SEARCH_SEED": None,  # a fixed seed makes the engine's tie-breaks repeatable (tests)
    # Score every move for the side to move after each move, and ponder the engine's reply.
    "LIVE_SCORES": True,
    "LOOKAHEAD_ROOT": None,  # the folder with templates/ and static/ (see app.assets_root)
    # A request body (HTTP) or Socket.IO message past this many bytes is refused (413).
    "MAX_CONTENT_LENGTH": 64 * 1024,
    # Proxies in front of the app (nginx: 1) whose X-Forwarded-For and -Proto it believes:
    # the rate limits then count the browser's address, not the proxy's.
    "TRUSTED_PROXIES": 0,
    # -- The identity cookie (identity.py)
    "SECRET_KEY": None,  # signs identity cookies; None: generated once into SECRET_KEY_FILE
    "SECRET_KEY_FILE": None,  # None: secret_key in the instance folder
    "SEAT_COOKIE_SECURE": False,  # True behind HTTPS (an HTTPS request gets Secure anyway)
    # -- Rate limits (admission.py): "N/minute" strings, ";" between several; None = none
    "RATE_LIMIT_STORAGE": "memory://",  # left at memory://, it follows REDIS_URL
    "RATE_LIMIT_CREATE_PER_IDENTITY": "10/minute",  # new games per browser
    "RATE_LIMIT_CREATE_PER_ADDRESS": "120/minute",  # new games per address
    "RATE_LIMIT_EVENTS_PER_IDENTITY": "300/minute",  # Socket.IO events per browser
    # A flood ceiling: a class behind one address shares it, so it is far above
    # what one browser may send (joining a game is never counted against it).
    "RATE_LIMIT_EVENTS_PER_ADDRESS": "6000/minute",
    "RATE_LIMIT_ANALYSE_PER_IDENTITY": "30/minute",  # analyses, reviews and trees per browser
    "RATE_LIMIT_ANALYSE_PER_ADDRESS": "600/minute",
    # New identity cookies minted for one address (a class of 30 starting at once fits),
    # and Socket.IO connections opened from it (each page opens one; reloads reopen it).
    "RATE_LIMIT_IDENTITIES_PER_ADDRESS": "60/minute",
    "RATE_LIMIT_CONNECTS_PER_ADDRESS": "600/minute",
    # Socket.IO connections one address may hold open at once (None: no cap); each holds
    # a server thread (connections.py).
    "CONNECTIONS_PER_ADDRESS": 256,
    "SESSION_JOIN_SECONDS": 10.0,  # a connection that joins no namespace by then is closed
    # -- Analyses, reviews, trees (api.py, tree.py)
    "ANALYSIS_SECONDS": protocol.MAX_TIME,  # search budget of one /api/analysis position
    "ANALYSIS_WAIT_SECONDS": 3.0,  # a request waits this long, then answers 202 (ask again)
    # An analysis (HTTP) nobody asked for again in this many seconds is cancelled, not run
    # (a 202 answer asks the client to poll every 2 s). None = never.
    "ANALYSIS_ABANDON_SECONDS": 5.0,
    # Analyses one identity (one address) may have under way at once: past it, 429 with
    # Retry-After. Joining a position already being analysed is always allowed. None = no share.
    "ANALYSIS_SHARE_PER_IDENTITY": 3,
    "ANALYSIS_SHARE_PER_ADDRESS": 12,
    # HTTP requests that may wait on searches at once (analysis, review, tree); past it an
    # analysis answers 202 and a review what it has at once, a tree 503. 0 = no bound.
    "HTTP_WAITERS": 32,
    "REVIEW_POSITION_SECONDS": 2.0,  # search budget of each position of a review
    "REVIEW_WAIT_SECONDS": 10.0,  # a review waits this long in all, then answers what it has
    "TREE_WAIT_SECONDS": WAIT_SECONDS,  # a tree request waits this long for its trace, then 503
    # -- Games between two people (friend_games.py)
    # A player with no connection for this long lets the other claim the win, or abort.
    "FRIEND_ABANDON_SECONDS": protocol.ABANDON_SECONDS,
    # With REDIS_URL: seconds between two heartbeats of a process's players in Redis; a
    # process that dies without a word counts its players gone after three of them.
    "PRESENCE_BEAT_SECONDS": presence.BEAT_SECONDS,
    # -- Retention: unfinished games untouched for N days and finished games older than
    # M days are deleted every RETENTION_EVERY_HOURS (0 = never; `python -m webapp prune`).
    "RETENTION_UNFINISHED_DAYS": retention.UNFINISHED_DAYS,
    "RETENTION_FINISHED_DAYS": retention.FINISHED_DAYS,
    "RETENTION_EVERY_HOURS": retention.EVERY_HOURS,
}
