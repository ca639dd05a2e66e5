"""The web layer: the Flask app, its pages, the JSON API and the Socket.IO handlers.

* ``app``         ``create_app(config)``: Flask, Socket.IO, the store, the search pool
* ``config``      ``DEFAULTS``: every setting of the server, its default and meaning
* ``extensions``  the one ``SocketIO`` object
* ``pages``       the HTML pages
* ``error_pages`` a failed request's page (JSON under ``/api/``)
* ``api``         the JSON API
* ``tree``        the search-tree explorer's page and data
* ``sockets``     one handler per Socket.IO event
* ``common``      what those share: the game service, the next game, a refusal as JSON
* ``friend_games`` games between two people: creating one, its seat, its rooms
* ``identity``    the one cookie per browser that owns its games
* ``admission``   rate limits per identity and per address; a new identity, counted
* ``packets``     Socket.IO packets whose decoding never raises

Everything a player does goes through the game service (``webapp.services``); the
app builds the store and the search pool it runs on.
"""
