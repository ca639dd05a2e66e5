"""The web layer: the Flask app, its pages, the JSON API and the Socket.IO handlers.

* ``app``         ``create_app(config)``: Flask, Socket.IO, the store, the workers
* ``extensions``  the one ``SocketIO`` object
* ``pages``       the HTML pages
* ``api``         the JSON API
* ``sockets``     one handler per Socket.IO event
* ``identity``    the one cookie per browser that owns its games
* ``admission``   rate limits per identity and per address
* ``packets``     Socket.IO packets whose decoding never raises

It calls the game service (``webapp.services``) and nothing below it.
"""
