"""The search pool layer (beside the store): engine searches in processes or on the Redis queue.

The engine's searches and the search explorer's traces never run on a request's thread.

* ``interface``  ``Pool``: what the services ask of a pool, whichever runs the searches
* ``jobs``       ``SearchJob`` and its kinds, ``Priority``, ``PoolBusy``: what is scheduled
* ``scheduler``  the waiting room: priority classes, turns between owners, bounds
* ``local_pool`` ``SearchPool``: this machine's search processes, dispatching, preempting,
                 the relay thread
* ``callbacks``  calling the callbacks on the relay thread, in order, never after close
* ``slots``      a place for one search process and its current run
* ``restarts``   replacing dead processes with backoff; crash-loop detection
* ``cancel``     the lock-free cancel flag shared with a search process
* ``process``    a search process's main loop (imports nothing from Flask)
* ``queue``      the shared search queue on Redis: queues, keys, messages
* ``queue_pool`` ``QueuePool``: ``Pool`` with the searches run by search hosts
* ``dispatch``   one dispatcher per pool: each result to the handler of its job kind
* ``timers``     delayed work (retries, sweeps) on one thread
* ``timing``     where each kind of job's time goes (waiting, running, applied): histograms
* ``supervise``  background loops (the relay, the reply reader, retention) restarted if they die
"""

from webapp.search_pool.interface import Pool
from webapp.search_pool.jobs import (
    DEPTHS,
    DROPPED,
    PULSE,
    SEARCH,
    TRACE,
    WORKER_DIED,
    PoolBusy,
    Priority,
    SearchJob,
)
from webapp.search_pool.local_pool import SearchPool

__all__ = [
    "DEPTHS",
    "DROPPED",
    "PULSE",
    "SEARCH",
    "TRACE",
    "WORKER_DIED",
    "Pool",
    "PoolBusy",
    "Priority",
    "SearchJob",
    "SearchPool",
]
