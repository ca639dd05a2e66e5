"""Engine searches (and the search explorer's traces) in worker processes, never on a
request's thread.

* ``jobs``       ``SearchJob`` and its kinds, ``Priority``, ``PoolBusy``: what is scheduled
* ``scheduler``  the waiting room: priority classes, turns between owners, bounds
* ``pool``       ``SearchPool``: the workers, dispatching, preempting, the relay thread
* ``callbacks``  calling the callbacks on the relay thread, in order, never after close
* ``slots``      a place for one worker process and its current run
* ``restarts``   replacing dead workers with backoff; crash-loop detection
* ``cancel``     the lock-free cancel flag shared with a worker
* ``process``    a search process's main loop (imports nothing from Flask)
* ``pools``      ``Pool``: what the service asks of a pool, this one or the next
* ``queue``      the shared search queue on Redis: queues, keys, messages
* ``queue_pool`` ``QueuePool``: ``Pool`` with the searches run by search hosts
"""

from webapp.search_pool.jobs import (
    DROPPED,
    SEARCH,
    TRACE,
    WORKER_DIED,
    PoolBusy,
    Priority,
    SearchJob,
)
from webapp.search_pool.pool import SearchPool
from webapp.search_pool.pools import Pool

__all__ = [
    "DROPPED",
    "SEARCH",
    "TRACE",
    "WORKER_DIED",
    "Pool",
    "PoolBusy",
    "Priority",
    "SearchJob",
    "SearchPool",
]
