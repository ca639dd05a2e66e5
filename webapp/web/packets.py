"""Socket.IO packets a hostile client cannot turn into a traceback storm.

python-socketio decodes a packet before any handler runs. Malformed JSON
raises ValueError, and JSON nested too deep (``[[[[...]]]]`` under the size
limit) raises RecursionError from the json module; either escapes to
Engine.IO, which logs a full traceback for every such message and drops it.
``SafePacket`` turns an unreadable packet (or an event by a name python-socketio
keeps for itself, ``RESERVED``) into a ``MALFORMED`` event instead,
which ``sockets.py`` answers with a ``bad_request`` error (counted against
the sender's rate limits like any event), acknowledged as well when the event
asked for an acknowledgement.
"""

from __future__ import annotations

from typing import Any

from socketio import packet

from webapp import json_text

#: The event an unreadable packet becomes (never sent by our pages).
MALFORMED = "malformed_packet"
#: The packet types a client of ours sends.
USED = (packet.CONNECT, packet.DISCONNECT, packet.EVENT, packet.ACK)
#: Names python-socketio keeps for itself: an event sent by that name would reach its
#: life-cycle handlers (``disconnect`` marked a player of a friend game gone while still
#: there) or its catch-all with arguments out of place (a traceback, no answer).
RESERVED = frozenset({"connect", "disconnect", "connect_error", "*"})


class SafePacket(packet.Packet):  # type: ignore[misc]  # python-socketio has no type hints
    """A Socket.IO packet whose decoding never raises: bad input becomes a MALFORMED event.

    Its JSON is ``json_text.Packets``: what is sent is written by orjson."""

    json = json_text.Packets

    def __init__(self, *args: Any, encoded_packet: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, encoded_packet=encoded_packet, **kwargs)
        if encoded_packet is not None and not encoded_packet:
            # An empty message: python-socketio decodes nothing and leaves an event of
            # None, which fails further on with a traceback (one per 6-byte frame).
            self._malformed()

    def decode(self, encoded_packet: Any) -> int:
        try:
            attachments: int = super().decode(encoded_packet)
        except (ValueError, RecursionError, TypeError, IndexError):
            return self._malformed()
        if attachments or self.packet_type not in USED or not self._well_formed():
            # Our pages send neither binary packets nor CONNECT_ERROR, and an event
            # is a list that starts with its name: anything else would raise further
            # on, in python-socketio, with a traceback (or be dropped unanswered).
            return self._malformed()
        return attachments

    @classmethod
    def data_is_binary(cls, data: Any) -> bool:
        """Whether ``data`` holds bytes, to be sent as attachments: never, ours is JSON.
        (python-socketio walks every payload sent to find out, recursively: a tenth of
        the web process's CPU under load, for states and scores of a few hundred values.)
        A received binary packet is known by its type, not by this."""
        return False

    def _well_formed(self) -> bool:
        if self.packet_type == packet.EVENT:
            data = self.data
            return (
                isinstance(data, list)
                and bool(data)
                and isinstance(data[0], str)
                and data[0] not in RESERVED
            )
        if self.packet_type == packet.ACK:
            return isinstance(self.data, list)
        return True

    def _malformed(self) -> int:
        # An event's id, read before the rest failed: its refusal is its acknowledgement
        # too, so a client waiting on ``call()`` hears at once (not after its timeout).
        asked = (
            getattr(self, "id", None)
            if getattr(self, "packet_type", None) == packet.EVENT
            else None
        )
        self.packet_type, self.namespace, self.data = packet.EVENT, None, [MALFORMED]
        self.id = asked if isinstance(asked, int) and 0 <= asked < 2**53 else None
        return 0
