"""A search host, the top layer beside the web: ``python -m webapp.search_host``.

    python -m webapp.search_host --redis URL --db URL [--concurrency N]

Not to be confused with ``webapp.search_pool`` (the search processes of one machine,
which a host runs too): this package takes jobs from the shared queue that web
processes started with ``--redis`` fill, on any machine that reaches Redis and
the database.

* ``host``   ``SearchHost``: the local pool, the Dramatiq workers, each job's handling
* ``watch``  the cancel keys, the games' epochs and the host's heartbeat on Redis
"""
