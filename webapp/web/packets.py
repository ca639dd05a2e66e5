"""Socket.IO packets a hostile client cannot turn into a traceback storm.

python-socketio decodes a packet before any handler runs. Malformed JSON
raises ValueError, and JSON nested too deep (``[[[[...]]]]`` under the size
limit) raises RecursionError from the json module; either escapes to
Engine.IO, which logs a full traceback for every such message and drops it.
``SafePacket`` turns an unreadable packet into a ``MALFORMED`` event instead,
which ``sockets.py`` answers with a ``bad_request`` error (counted against
the sender's rate limits like any event).
"""

from __future__ import annotations

from typing import Any

from socketio import packet

#: The event an unreadable packet becomes (never sent by our pages).
MALFORMED = "malformed_packet"


class SafePacket(packet.Packet):  # type: ignore[misc]  # python-socketio has no type hints
    """A Socket.IO packet whose decoding never raises: bad input becomes a MALFORMED event."""

    def decode(self, encoded_packet: Any) -> int:
        try:
            attachments: int = super().decode(encoded_packet)
        except (ValueError, RecursionError, TypeError):
            self.packet_type, self.namespace, self.data = packet.EVENT, None, [MALFORMED]
            return 0
        return attachments
