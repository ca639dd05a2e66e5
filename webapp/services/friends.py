"""Games between two people: seats, invites, moves on a clock, offers, abandonment.

A game between two people is a stored game whose ``friend`` data holds what an
engine game has no use for (the store's schema, version 5 on)::

    invite              the token of the invite link (whoever presents it first sits)
    guest_hash          the hash of the second seat's token, None until it is taken
    creator_side        0 if the creator (``seat_hash``) moves first, else 1
    spectator_analysis  spectators may ask for engine analysis during the game
    clock               ``clock.Clock.to_json()`` or None
    offers              {kind: side offering, or None} for each of ``protocol.OFFER_KINDS``
    end                 how it ended other than by the rules (``store.validate.FRIEND_ENDS``)
    next                the rematch's game id, once both accepted it

Every action runs under the game's lock (``locks.GameLocks``) and saves with the
store's compare-and-set, so two seats moving at once, or two browsers taking
the seat at once, give exactly one change; the other is refused with a code.
The engine never plays here (``state.engine_to_move`` is False for these
games) and the live position is never scored: the players see no analysis
until the game is over.

Times come from ``now_ms`` (milliseconds since the epoch, injected for tests);
a timer ends the game when the running side's time runs out, and every action
checks the flag first, so a game whose timer was lost (another process) still
ends on the next look at it.
"""

from __future__ import annotations

import logging
import random
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from webapp import protocol
from webapp.engine.game import IllegalMoveError
from webapp.games import new_game
from webapp.search_pool import timers
from webapp.search_pool.timers import Delayed
from webapp.services.clock import Clock, ClockError
from webapp.services.errors import GameError
from webapp.services.game_service import GameService, check_ply
from webapp.services.locks import Outbox
from webapp.services.positions import preview
from webapp.services.presence import LocalPresence, Presence
from webapp.services.seats import holds_seat, new_game_id, token_hash
from webapp.services.state import game_state, game_url, result_of
from webapp.store import GameRecord, VersionConflict, now

log = logging.getLogger(__name__)

#: What POST /api/games takes in ``settings`` for a game between two people, besides the
#: engine's own settings (used by analysis for spectators, and by the review).
FRIEND_SETTINGS = ("clock", "starts", "spectator_analysis")


def wall_ms() -> int:
    """Milliseconds since the epoch: the same on every server sharing the store."""
    return int(time.time() * 1000)


def is_friend_game(record: GameRecord) -> bool:
    return record.friend is not None


class Friends:
    """The actions on games between two people, beside ``service`` (its store, locks, emit).

    ``abandon_ms``: how long a player may be without a connection before the other may
    claim the game (``protocol.ABANDON_SECONDS``); ``presence`` knows who is connected
    (``presence.LocalPresence`` for one process, ``SharedPresence`` with Redis).
    """

    def __init__(
        self,
        service: GameService,
        now_ms: Callable[[], int] = wall_ms,
        abandon_ms: int = protocol.ABANDON_SECONDS * 1000,
        timers: bool = True,
        presence: Presence | None = None,
    ) -> None:
        self.service, self.store, self.locks = service, service.store, service.locks
        self.now_ms, self.abandon_ms, self.timers = now_ms, abandon_ms, timers
        self.presence: Presence = LocalPresence() if presence is None else presence
        self._guard = threading.Lock()
        #: When no server was up (``services.uptime``): given back to every clock read.
        self.outages: tuple[tuple[int, int], ...] = ()
        # game id -> its flag's call on the process's one timer thread (never a thread each)
        self._flag_timers: dict[str, Delayed] = {}

    # -- reading --------------------------------------------------------------------
    def side_of(self, record: GameRecord, token: str | None) -> int | None:
        """The side ``token`` plays in ``record`` (0 moves first), None for a spectator."""
        friend = record.friend
        assert friend is not None
        if holds_seat(token, record.seat_hash):
            return int(friend["creator_side"])
        if friend["guest_hash"] is not None and holds_seat(token, friend["guest_hash"]):
            return 1 - int(friend["creator_side"])
        return None

    def state(self, record: GameRecord, token: str | None) -> dict[str, Any]:
        """The game's state for the holder of ``token``."""
        return self.view(record, self.side_of(record, token))

    def view(
        self, record: GameRecord, side: int | None, gone: list[int | None] | None = None
    ) -> dict[str, Any]:
        """The game's state for the player of ``side`` (None: a spectator): ``seat`` and
        ``human_side`` are that viewer's; ``friend`` holds the seats, the clock (ms, as of
        now), the offers, the end, and how long each side has been gone (``gone``: read
        already for another viewer)."""
        friend = record.friend
        assert friend is not None
        at = self.now_ms()
        if gone is None:
            gone = self._gone_ms(record, at)
        state = game_state(record, thinking=False)
        shown_side = friend["creator_side"] if side is None else side
        clock = None if friend["clock"] is None else self._clock(friend).view(at)
        state |= {
            "seat": "spectator" if side is None else "player",
            "human_side": shown_side,  # the page draws the board from this side
            "engine_side": 1 - shown_side,  # no engine plays: the other person
            "opponent": "friend",
            "friend": {
                "your_side": side,
                "creator_side": friend["creator_side"],
                "seated": friend["guest_hash"] is not None,
                "clock": clock,
                "offers": dict(friend["offers"]),
                "end": friend["end"],
                "next": friend["next"],
                "next_url": None if friend["next"] is None else game_url(friend["next"]),
                "spectator_analysis": friend["spectator_analysis"],
                "gone_ms": gone,
                "abandon_ms": self.abandon_ms,
            },
        }
        # The invite is for a game still to be played: once over (called off), none.
        invited = friend["guest_hash"] is None and record.status == "playing"
        if side == friend["creator_side"] and invited:
            state["friend"]["invite_url"] = invite_url(record.id, friend["invite"])
        return state

    def analysis_allowed(self, record: GameRecord, token: str | None) -> bool:
        """Fair play: nobody's analysis for the players while the game is on; spectators'
        only if the creator allowed it; everyone's once it is over."""
        friend = record.friend
        if friend is None or record.status != "playing":
            return True
        return self.side_of(record, token) is None and bool(friend["spectator_analysis"])

    # -- creating and sitting down -----------------------------------------------------
    def create(self, game: object, settings: object, *, owner: str) -> tuple[GameRecord, str]:
        """A new game between the holder of ``owner`` and whoever takes the invite's seat;
        the record and its invite token."""
        if settings is None:
            settings = {}
        if not isinstance(settings, dict):
            raise GameError(protocol.BAD_SETTINGS, "settings must be an object.")
        engine_settings = {k: v for k, v in settings.items() if k not in FRIEND_SETTINGS}
        start = preview(game, engine_settings, "")
        starts = settings.get("starts", "me")
        if starts not in protocol.STARTS:
            raise GameError(
                protocol.BAD_SETTINGS, f"starts must be one of {', '.join(protocol.STARTS)}."
            )
        creator_side = {"me": 0, "friend": 1}.get(starts, random.randrange(2))
        spectators = settings.get("spectator_analysis", False)
        if not isinstance(spectators, bool):
            raise GameError(protocol.BAD_SETTINGS, "spectator_analysis must be true or false.")
        clock = None
        if settings.get("clock") is not None:
            try:
                clock = Clock.of_settings(settings["clock"]).to_json()
            except ClockError as err:
                raise GameError(protocol.BAD_SETTINGS, str(err)) from None
        invite = secrets.token_urlsafe(16)
        record = GameRecord(
            new_game_id(),
            start["game"],
            "",
            start["settings"],
            token_hash(owner),
            friend={
                "invite": invite,
                "guest_hash": None,
                "creator_side": creator_side,
                "spectator_analysis": spectators,
                "clock": clock,
                "offers": dict.fromkeys(protocol.OFFER_KINDS),
                "end": None,
                "next": None,
            },
        )
        with self.service.locked(record.id):
            self.store.create(record)
            for side in (0, 1):
                self.presence.mark_gone((record.id, side), self.now_ms())
        return record, invite

    def seat(self, game_id: object, invite: object, token: str) -> GameRecord:
        """The browser ``token`` takes the invite's seat: exactly one browser ever does."""
        record = self._friend_game(game_id)
        with self.service.locked(record.id) as out:
            record = self._friend_game(record.id)
            friend = record.friend
            assert friend is not None
            if self.side_of(record, token) is not None:
                raise GameError(protocol.ALREADY_SEATED, "You hold a seat in this game already.")
            if friend["guest_hash"] is not None:
                raise GameError(protocol.SEAT_TAKEN, "Someone took that seat: you can watch.")
            if record.status != "playing":  # called off before anyone came: a link shared
                raise GameError(protocol.GAME_OVER, "This game is over: its seat is no one’s now.")
            # An invite is ASCII (``secrets.token_urlsafe``): other text is none, and a lone
            # surrogate from JSON could not even be encoded to compare.
            if (
                not isinstance(invite, str)
                or not invite.isascii()
                or not secrets.compare_digest(
                    invite.encode(),
                    str(friend["invite"]).encode(),  # any text: bytes compare
                )
            ):
                raise GameError(protocol.BAD_INVITE, "That invite is not this game’s.")
            friend["guest_hash"] = token_hash(token)
            try:
                self._save(record, out)
            except VersionConflict:  # another server seated someone first
                raise GameError(
                    protocol.SEAT_TAKEN, "Someone took that seat: you can watch."
                ) from None
            self.presence.mark_gone((record.id, 1 - friend["creator_side"]), self.now_ms())
            return record

    # -- playing -------------------------------------------------------------------------
    def move(
        self, game_id: object, move: object, token: str | None, ply: object = None
    ) -> GameRecord:
        """The move of the seat to move; the other seat's time starts running.

        ``ply``: how many moves the sender saw played (optional). A move sent after
        seeing an older position is refused, so of two moves sent at the same instant
        (both seats, or one player's two tabs) exactly one is applied.
        """
        if not isinstance(move, str) or len(move) != 1:
            raise GameError(protocol.BAD_REQUEST, 'move must be one character, like "4".')
        check_ply(ply)
        with self._playing(game_id, token) as (record, side, out):
            friend = record.friend
            assert friend is not None
            if friend["guest_hash"] is None:
                raise GameError(protocol.NOT_YOUR_TURN, "Your friend has not taken the seat yet.")
            if len(record.moves) % 2 != side:
                raise GameError(protocol.NOT_YOUR_TURN, "It is your friend’s turn.")
            if ply is not None and ply != len(record.moves):
                raise GameError(protocol.NOT_YOUR_TURN, "A move was made meanwhile: look again.")
            position = new_game(record.game, record.moves)
            try:
                position.play(position.parse_move(move))
            except IllegalMoveError as err:
                raise GameError(protocol.ILLEGAL_MOVE, str(err)) from None
            record.moves += move
            record.status, record.winner = result_of(position)
            if friend["clock"] is not None:
                clock = self._clock(friend).pressed(side, self.now_ms())
                if record.status != "playing":
                    clock = clock.stopped(self.now_ms())
                friend["clock"] = clock.to_json()
            friend["offers"] = dict.fromkeys(protocol.OFFER_KINDS)
            self._save(record, out)
            return record

    def resign(self, game_id: object, token: str | None) -> GameRecord:
        with self._playing(game_id, token) as (record, side, out):
            self._end(record, "resign", 1 - side, out)
            return record

    def offer(self, game_id: object, kind: object, token: str | None) -> GameRecord:
        """Offer a draw, ask for a takeback (of one's last move) or a rematch (the game over);
        an offer the other side has made already is accepted instead."""
        kind = self._kind(kind)
        with self._seated(game_id, token) as (record, side, out):
            friend = record.friend
            assert friend is not None
            self._check_offer(record, kind, side)
            if friend["offers"][kind] == 1 - side:  # both want it
                return self._accepted(record, kind, side, out)
            if friend["offers"][kind] == side:
                raise GameError(protocol.NO_OFFER, "You made that offer already.")
            friend["offers"][kind] = side
            self._save(record, out)
            return record

    def accept(self, game_id: object, kind: object, token: str | None) -> GameRecord:
        """Accept the other side's offer: a draw, a takeback, a rematch (the new game)."""
        kind = self._kind(kind)
        with self._seated(game_id, token) as (record, side, out):
            friend = record.friend
            assert friend is not None
            if friend["offers"][kind] != 1 - side:
                raise GameError(protocol.NO_OFFER, f"Your friend has not offered a {kind}.")
            self._check_offer(record, kind, 1 - side)
            return self._accepted(record, kind, side, out)

    def decline(self, game_id: object, kind: object, token: str | None) -> GameRecord:
        """Decline the other side's offer of ``kind``, or withdraw one's own."""
        kind = self._kind(kind)
        with self._seated(game_id, token) as (record, _side, out):
            friend = record.friend
            assert friend is not None
            if friend["offers"][kind] is None:
                raise GameError(protocol.NO_OFFER, f"There is no {kind} offer.")
            friend["offers"][kind] = None
            self._save(record, out)
            return record

    def claim(self, game_id: object, result: object, token: str | None) -> GameRecord:
        """The other player has had no connection for ``abandon_ms``: win (from move 2 on),
        or abort the game without a result."""
        if result not in protocol.CLAIM_RESULTS:
            raise GameError(protocol.BAD_REQUEST, "result must be win or abort.")
        with self._playing(game_id, token) as (record, side, out):
            friend = record.friend
            assert friend is not None
            seated = friend["guest_hash"] is not None
            gone = self._gone_ms(record, self.now_ms())[1 - side]
            if seated and (gone is None or gone < self.abandon_ms):
                raise GameError(protocol.TOO_EARLY, "Your friend is connected, or just left.")
            if result == "win" and (len(record.moves) < 2 or not seated):
                raise GameError(protocol.TOO_EARLY, "Before move 2 the game can only be aborted.")
            if result == "win":
                self._end(record, "abandon", side, out)
            else:
                self._end(record, "aborted", None, out)
            return record

    def check_flag(self, game_id: str) -> None:
        """End the game if the running side's time is out (the flag timer calls this)."""
        with self.service.locked(game_id) as out:
            record = self.store.get(game_id)
            if record is not None and record.friend is not None:
                self._flag(record, out)

    # -- connections (abandonment) ---------------------------------------------------------
    def connected(self, sid: str, record: GameRecord, token: str | None) -> bool:
        """A socket ``sid`` joined the game: if it is a player's, that player is here.

        True when that player was gone (the other side should be told).
        """
        side = self.side_of(record, token)
        if side is None:
            return False
        return self.presence.arrived(sid, (record.id, side), self.now_ms())

    def announce(self, game_id: str) -> None:
        """Send every viewer of the game its state (a player came back)."""
        with self.service.locked(game_id) as out:
            record = self.store.get(game_id)
            if record is not None and record.friend is not None:
                self._publish(record, out)

    def disconnected(self, sid: str) -> None:
        """The socket ``sid`` left: a player with no socket left is gone from now on
        (the other side is told, with the game's state)."""
        left = self.presence.left(sid, self.now_ms())
        for game_id in {game_id for game_id, _ in left}:
            try:
                self.announce(game_id)
            except GameError as err:  # the store is down: the next state tells
                log.warning("cannot tell %s a player left: %s", game_id, err.message)

    def close(self) -> None:
        with self._guard:
            pending, self._flag_timers = list(self._flag_timers.values()), {}
        for delayed in pending:
            delayed.cancel()
        self.presence.close()

    # -- helpers ---------------------------------------------------------------------------
    def _clock(self, friend: dict[str, Any]) -> Clock:
        """The game's clock as stored, every outage since given back to its running side
        (saved with the game's next change; until then each read gives it back alike)."""
        return Clock.from_json(friend["clock"]).after_outages(self.outages)

    def _friend_game(self, game_id: object) -> GameRecord:
        record = self.service.get(game_id)
        if record.friend is None:
            raise GameError(protocol.BAD_INVITE, "This game is against the engine.")
        return record

    @contextmanager
    def _seated(
        self, game_id: object, token: str | None
    ) -> Iterator[tuple[GameRecord, int, Outbox]]:
        """The game (flag checked) and the sender's side, under the game's lock."""
        record = self._friend_game(game_id)
        with self.service.locked(record.id) as out:
            record = self._friend_game(record.id)
            side = self.side_of(record, token)
            if side is None:
                raise GameError(protocol.NOT_YOUR_SEAT, "You are watching: only players can.")
            self._flag(record, out)
            yield record, side, out

    @contextmanager
    def _playing(
        self, game_id: object, token: str | None
    ) -> Iterator[tuple[GameRecord, int, Outbox]]:
        with self._seated(game_id, token) as (record, side, out):
            if record.status != "playing":
                raise GameError(protocol.GAME_OVER, "The game is over.")
            yield record, side, out

    @staticmethod
    def _kind(kind: object) -> str:
        if not isinstance(kind, str) or kind not in protocol.OFFER_KINDS:
            raise GameError(
                protocol.BAD_REQUEST, f"kind must be one of {', '.join(protocol.OFFER_KINDS)}."
            )
        return kind

    @staticmethod
    def _check_offer(record: GameRecord, kind: str, by: int) -> None:
        """Refuse an offer of ``kind`` by side ``by`` that cannot be granted now."""
        playing = record.status == "playing"
        if kind == "rematch" and playing:
            raise GameError(protocol.NO_OFFER, "A rematch is offered once the game is over.")
        if kind == "rematch" and record.friend is not None and record.friend["next"]:
            raise GameError(protocol.NO_OFFER, "The rematch is under way.")
        if kind != "rematch" and not playing:
            raise GameError(protocol.GAME_OVER, "The game is over.")
        if kind == "takeback" and not any(i % 2 == by for i in range(len(record.moves))):
            raise GameError(protocol.NO_OFFER, "There is no move of yours to take back.")

    def _accepted(self, record: GameRecord, kind: str, side: int, out: Outbox) -> GameRecord:
        """Grant the offer of ``kind`` that side ``side`` accepts."""
        friend = record.friend
        assert friend is not None
        friend["offers"][kind] = None
        if kind == "draw":
            self._end(record, "agreement", None, out)
        elif kind == "takeback":
            by = 1 - side  # back to before the asker's last move
            keep = max(i for i in range(len(record.moves)) if i % 2 == by)
            record.moves = record.moves[:keep]
            if friend["clock"] is not None and keep > 0:
                clock = self._clock(friend)
                friend["clock"] = clock.runs_for(len(record.moves) % 2, self.now_ms()).to_json()
            elif friend["clock"] is not None:
                friend["clock"] = self._clock(friend).stopped(self.now_ms()).to_json()
            self._save(record, out)
        else:
            again = self._rematch(record)
            friend["next"] = again.id
            self._save(record, out)
        return record

    def _rematch(self, old: GameRecord) -> GameRecord:
        """The next game: colours swapped, both seats kept, the clock fresh."""
        friend = old.friend
        assert friend is not None
        clock = friend["clock"]
        if clock is not None:
            initial, increment = clock["initial_ms"] / 1000, clock["increment_ms"] / 1000
            clock = Clock.of_settings({"initial": initial, "increment": increment}).to_json()
        record = GameRecord(
            new_game_id(),
            old.game,
            "",
            dict(old.settings),
            old.seat_hash,
            friend=friend
            | {
                "invite": secrets.token_urlsafe(16),
                "creator_side": 1 - friend["creator_side"],
                "clock": clock,
                "offers": dict.fromkeys(protocol.OFFER_KINDS),
                "end": None,
                "next": None,
            },
        )
        self.store.create(record)
        for side in (0, 1):
            self.presence.mark_gone((record.id, side), self.now_ms())
        return record

    def _flag(self, record: GameRecord, out: Outbox) -> None:
        """End a game whose running side's time is out; the flag's side loses."""
        friend = record.friend
        assert friend is not None
        if record.status != "playing" or friend["clock"] is None:
            return
        flagged = self._clock(friend).flagged(self.now_ms())
        if flagged is not None:
            self._end(record, "flag", 1 - flagged, out)

    def _end(self, record: GameRecord, how: str, winner: int | None, out: Outbox) -> None:
        friend = record.friend
        assert friend is not None
        friend["end"] = how
        friend["offers"] = dict.fromkeys(protocol.OFFER_KINDS)
        record.status = {"agreement": "drawn", "aborted": "aborted"}.get(how, "won")
        record.winner = winner
        self.presence.forget(record.id)  # nobody can claim it any more
        if friend["clock"] is not None:
            friend["clock"] = self._clock(friend).stopped(self.now_ms()).to_json()
        self._save(record, out)

    def _save(self, record: GameRecord, out: Outbox) -> None:
        """Commit (compare-and-set), tell the room, and time the flag of the running side."""
        record.updated_at = now()
        try:
            self.store.save(record)
        except VersionConflict:
            current = self.store.get(record.id)
            if current is not None:
                self._publish(current, out)
            raise
        self._publish(record, out)
        self._time_flag(record)

    def _publish(self, record: GameRecord, out: Outbox) -> None:
        """Each viewer's state to its room: each player's, and the spectators' (``room``)."""
        gone = self._gone_ms(record, self.now_ms())  # one look for the three views
        for side in (0, 1, None):
            out.send(protocol.STATE, self.view(record, side, gone), room(record.id, side))

    def _time_flag(self, record: GameRecord) -> None:
        """A timer that ends the game when the running side's time is out."""
        friend = record.friend
        assert friend is not None
        due = None
        if record.status == "playing" and friend["clock"] is not None:
            due = self._clock(friend).flag_at()
        with self._guard:
            old = self._flag_timers.pop(record.id, None)
            if old is not None:
                old.cancel()
            if due is None or not self.timers:
                return
            delay = max(0.0, (due - self.now_ms()) / 1000) + 0.01
            game_id = record.id
            # The timer thread only hands the check over, in turn with the game's other
            # news: it takes the game's lock and writes the store, which may be slow.
            self._flag_timers[game_id] = timers.shared().call_later(
                delay,
                lambda: self.service.searches.dispatch.in_turn(
                    game_id, lambda: self._on_flag_timer(game_id)
                ),
            )

    def _on_flag_timer(self, game_id: str) -> None:
        try:
            self.check_flag(game_id)
        except GameError as err:
            log.warning("flag of %s not checked: %s", game_id, err.message)

    def _gone_ms(self, record: GameRecord, at: int) -> list[int | None]:
        """How long each side has had no socket (None: it has one, or the game is over)."""
        if record.status != "playing":
            return [None, None]
        return self.presence.gone_ms(record.id, at)


def room(game_id: str, side: int | None) -> str:
    """The Socket.IO room of a game's player of ``side``, or of its spectators (None)."""
    return f"{game_id}:{'watch' if side is None else side}"


def invite_url(game_id: str, invite: str) -> str:
    """The link to share: the game's page with the invite (``?invite=TOKEN``)."""
    return f"{game_url(game_id)}?invite={invite}"
