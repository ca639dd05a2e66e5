"""Socket.IO's rooms with an index of each client's rooms: leaving costs its own rooms only.

python-socketio finds the rooms of a client that disconnects (``basic_disconnect``,
``get_rooms``) by looking in every room of the namespace: every open page has a room
of its own and every game one, so each disconnect cost a look at every room (about
a thousand with 400 pages open), and a crowd leaving cost the square of its size.
Here every room a client enters is also noted under the client, so it leaves
exactly its own rooms. The rooms themselves are python-socketio's, unchanged.
"""

from __future__ import annotations

from typing import Any

import socketio


class IndexedRooms:
    """A mixin for a python-socketio client manager: ``sid -> rooms`` kept beside the rooms.

    As python-socketio's own room maps, it is changed without a lock: each change is
    a few dictionary and set operations on the client's own entry (its events come on
    its connection's thread; its disconnect may come from another, a ping's timeout).
    """

    rooms: dict[Any, dict[Any, Any]]
    callbacks: dict[str, Any]
    pending_connect: dict[Any, list[str]]
    pending_disconnect: dict[Any, list[str]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._rooms_of: dict[Any, dict[str, set[Any]]] = {}  # namespace -> sid -> rooms

    def basic_enter_room(self, sid: str, namespace: Any, room: Any, eio_sid: Any = None) -> None:
        super().basic_enter_room(sid, namespace, room, eio_sid=eio_sid)  # type: ignore[misc]
        self._rooms_of.setdefault(namespace, {}).setdefault(sid, set()).add(room)

    def basic_leave_room(self, sid: str, namespace: Any, room: Any) -> None:
        super().basic_leave_room(sid, namespace, room)  # type: ignore[misc]
        held = self._rooms_of.get(namespace, {}).get(sid)
        if held is None:
            return
        held.discard(room)
        if not held:  # a namespace's own map stays: one per namespace, never a leak
            self._rooms_of[namespace].pop(sid, None)

    def basic_disconnect(self, sid: str, namespace: Any, **kwargs: Any) -> None:
        """python-socketio's, the client's rooms read from the index instead of searched
        for in every room; then its callbacks and its pending connect or disconnect go."""
        if namespace not in self.rooms:
            return
        for room in tuple(self._rooms_of.get(namespace, {}).get(sid, ())):
            self.basic_leave_room(sid, namespace, room)
        self.callbacks.pop(sid, None)
        for pending in (self.pending_connect, self.pending_disconnect):
            sids = pending.get(namespace)
            if sids is not None and sid in sids:
                sids.remove(sid)
                if not sids:
                    del pending[namespace]

    def get_rooms(self, sid: str, namespace: Any) -> list[Any]:
        """The rooms ``sid`` is in (its own room among them, as python-socketio says)."""
        return [room for room in self._rooms_of.get(namespace, {}).get(sid, ()) if room is not None]


class Rooms(IndexedRooms, socketio.Manager):  # type: ignore[misc]
    """The rooms of one process."""


class RedisRooms(IndexedRooms, socketio.RedisManager):  # type: ignore[misc]
    """The rooms of this process, their messages shared through Redis by every process."""
