"""Engine searches in worker processes, never on a request's thread.

* ``pool``    ``SearchPool``: the workers, the queue of waiting jobs, cancelling
* ``worker``  the worker process's main loop (imports nothing from Flask)
"""

from webapp.workers.pool import PoolBusy, Priority, SearchJob, SearchPool

__all__ = ["PoolBusy", "Priority", "SearchJob", "SearchPool"]
