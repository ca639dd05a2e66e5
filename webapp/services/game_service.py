"""``GameService``: every action on a game, checked, stored, then broadcast.

Each action validates its input, raises ``GameError`` (changing nothing) when
it is refused, commits the change to the store, and only then tells the
game's room. Actions on one game run one at a time under that game's lock
(``locks.GameLocks``); what they have to say is sent after the lock is let go.
Every change is a compare-and-set on the game's version, so two processes that
share the store can never both apply a move to one game.

A move's walk starts here: ``move`` takes the game's lock, checks the move
(seat, turn, legality, room in the pool), stores it (``_save_move``), then hands
the new record to ``Searches.changed`` (``searches``), which schedules the
engine's reply, the new position's scores and pondering (``live_scores``) and
tells the room. Their results come back to those two modules, never here.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from webapp import protocol
from webapp.engine.game import IllegalMoveError
from webapp.game_settings import (
    MID_GAME_KEYS,
    SettingsError,
    engine_side,
    game_depth_bound,
    merge_settings,
)
from webapp.games import new_game
from webapp.search_pool import Pool
from webapp.services.errors import GameError
from webapp.services.locks import Emit, GameLocks, Outbox
from webapp.services.positions import preview
from webapp.services.searches import RETRY_DELAYS, Searches
from webapp.services.seats import holds_seat, new_game_id, token_hash
from webapp.services.state import engine_to_move, game_url, to_move, undone_engine_move
from webapp.store import (
    CorruptRecord,
    GameRecord,
    GameStore,
    StoreError,
    StoreUnavailable,
    VersionConflict,
    now,
    replayed,
)

log = logging.getLogger(__name__)

#: Longest game id looked up (ids are 16 characters; anything longer is no game).
MAX_ID_LENGTH = 64
#: Unfinished games the engine resumes after a restart (the newest first); the
#: others resume when someone opens them.
RESUME_LIMIT = 500
#: Seconds a health check of the store stands for.
HEALTH_CHECK_SECONDS = 2.0
#: The most games "your recent games" lists.
MY_GAMES_LIMIT = 20
#: Game ids remembered as games against the engine (``known_engine_game``), the least
#: recently moved in forgotten first (games played now are far fewer): 200 KB at most.
ENGINE_GAMES_KEPT = 2048


@contextmanager
def storage_errors() -> Iterator[None]:
    """Turn the store's failures into answers people can read (and log them)."""
    try:
        yield
    except StoreUnavailable as err:
        log.error("storage unavailable: %s", err)
        raise GameError(
            protocol.STORE_UNAVAILABLE, "Storage is unavailable right now. Try again shortly."
        ) from None
    except CorruptRecord as err:
        log.error("cannot load a game: %s", err)
        raise GameError(
            protocol.CORRUPT_GAME, "This game’s record is damaged and cannot be loaded."
        ) from None
    except VersionConflict:
        raise GameError(
            protocol.CONFLICT, "The game changed at the same moment. Here is where it stands now."
        ) from None


class GameService:
    """Games in ``store``, engine searches in ``pool``, news sent with ``emit``."""

    def __init__(
        self,
        store: GameStore,
        pool: Pool,
        emit: Emit,
        seed: int | None = None,
        retry_delays: tuple[float, ...] = RETRY_DELAYS,
        live_scores: bool = True,
        watched: Callable[[str], bool] = lambda _: False,
    ) -> None:
        """``watched(game_id)``: a page has the game open (its room has a socket)."""
        self.store = store
        self.locks = GameLocks()
        self.searches = Searches(
            store, pool, emit, self.locks, seed, retry_delays, live_scores, watched
        )
        self.emit = emit
        self._closed = False
        self._health_lock = threading.Lock()
        self._store_health, self._store_checked_at = "ok", -HEALTH_CHECK_SECONDS
        self._engine_games: OrderedDict[str, None] = OrderedDict()  # guarded by the lock below
        self._kinds_lock = threading.Lock()

    @contextmanager
    def locked(self, game_id: str) -> Iterator[Outbox]:
        """Hold the game's lock; send what was said once it is let go (also after a refusal)."""
        out = Outbox()
        try:
            with self.locks.hold(game_id), storage_errors():
                yield out
        finally:
            out.flush(self.emit)

    # -- reading --------------------------------------------------------------------
    def get(self, game_id: object) -> GameRecord:
        """The game with that id; GameError UNKNOWN_GAME (or BAD_REQUEST) if there is none."""
        game_id = self._game_id(game_id)
        with storage_errors():
            record = self.store.get(game_id)
        if record is None:
            raise GameError(protocol.UNKNOWN_GAME, "There is no game with that id.")
        return record

    def state(self, game_id: object, token: str | None = None) -> dict[str, Any]:
        """The game's state for one viewer: ``seat`` is "player" or "spectator"."""
        record = self.get(game_id)
        state = self.searches.state(record)
        state["seat"] = "player" if holds_seat(token, record.seat_hash) else "spectator"
        return state

    def known_engine_game(self, game_id: object) -> bool:
        """True if a move was played in ``game_id`` and it is a game against the engine: a
        game's kind never changes, so the socket handler need not read the game to tell
        (``move`` reads it anyway). False: not known, read it."""
        if not isinstance(game_id, str):
            return False
        with self._kinds_lock:
            return game_id in self._engine_games

    def _note_engine_game(self, record: GameRecord) -> None:
        if record.friend is not None:
            return
        with self._kinds_lock:
            self._engine_games[record.id] = None
            self._engine_games.move_to_end(record.id)
            if len(self._engine_games) > ENGINE_GAMES_KEPT:
                self._engine_games.popitem(last=False)

    def games_of(self, token: str | None, limit: int = MY_GAMES_LIMIT) -> list[dict[str, Any]]:
        """The games where the holder of ``token`` holds a seat, most recently changed first
        (none without a token): what the home page lists as "your recent games"."""
        if not token:
            return []
        seat = token_hash(token)
        with storage_errors():
            records = self.store.games_of(seat, max(0, min(limit, MY_GAMES_LIMIT)))
        return [
            {
                "id": r.id,
                "game": r.game,
                "move_count": len(r.moves),
                "status": r.status,
                "winner": r.winner,
                # A game between two people: the creator's side, or the second seat's.
                "human_side": (
                    1 - engine_side(r.settings)
                    if r.friend is None
                    else int(r.friend["creator_side"]) ^ (r.seat_hash != seat)  # 1 - it
                ),
                # the engine's level (what tells two games of one kind apart); none between people
                "level": None if r.friend is not None else r.settings.get("level"),
                "updated_at": r.updated_at,
                "url": game_url(r.id),
            }
            for r in records
        ]

    # -- creating ---------------------------------------------------------------------
    def create(
        self,
        game: object,
        settings: object = None,
        moves: object = "",
        *,
        owner: str,
        turn: str = "",
    ) -> GameRecord:
        """A new game whose human seat belongs to the holder of the token ``owner``;
        ``turn``: whose turn the engine's replies take in the queue (``note_turn``)."""
        start = preview(game, settings, moves)
        record = GameRecord(
            new_game_id(),
            start["game"],
            start["moves"],
            start["settings"],
            token_hash(owner),
            start["status"],
            start["winner"],
            preset=len(start["moves"]),  # played by no one in this game: the review says so
        )
        with self.locked(record.id):
            if engine_to_move(record) and not self.searches.has_room(record):
                raise self._busy()
            self.store.create(record)
            self.searches.note_turn(record, turn)
            self.searches.changed(record, None)  # its state goes with the answer
        return record

    def another(
        self,
        game_id: object,
        token: str | None,
        swap: bool,
        owner: str | None = None,
        turn: str = "",
    ) -> GameRecord:
        """New game (same settings) or rematch (``swap``: colours swapped) of a player's game.

        The new game belongs to ``owner`` (the same token when None). The old
        game's search stops only once the new game exists.
        """
        old = self._seated(game_id, token)
        settings = dict(old.settings)
        bound = game_depth_bound(old.game)
        if isinstance(settings.get("depth"), int) and settings["depth"] > bound:
            # Kept from before the game's own bound: past the board's end it searches the
            # same tree, so the next game takes the bound (the bound's refusal is for asks).
            settings["depth"] = bound
        if swap:
            settings["engine_plays"] = "second" if settings["engine_plays"] == "first" else "first"
        assert token is not None  # _seated checked it
        record = self.create(old.game, settings, owner=owner or token, turn=turn)
        with self.locked(old.id) as out:
            held = self.searches.stop_engine(old.id)  # its player has moved on
            if held is not None:  # its last move, kept for a reply that now never comes
                self.searches.publish(held, out)
        return record

    # -- playing ------------------------------------------------------------------------
    def move(
        self,
        game_id: object,
        move: object,
        token: str | None,
        ply: object = None,
        turn: str = "",
    ) -> GameRecord:
        """The human player's move; the engine starts thinking if it is then to move.

        ``turn``: whose turn the engine's reply takes in the queue (the mover's address,
        ``Searches.note_turn``); empty, the player's own.

        ``ply``: how many moves the sender saw played (optional). A move sent from an
        older position is refused: the second click of a double click, sent before the
        first's answer, must not become the player's next move once the engine has
        replied (an opening book replies at once).
        """
        if not isinstance(move, str) or len(move) != 1:
            raise GameError(protocol.BAD_REQUEST, 'move must be one character, like "4".')
        check_ply(ply)
        with self.locked(self._game_id(game_id)) as out:
            record = self._seated(game_id, token)  # read under the lock: as it stands
            self._note_engine_game(record)
            self._check_playing(record)
            if to_move(record) != 1 - engine_side(record.settings):
                raise GameError(protocol.NOT_YOUR_TURN, "It is the engine’s turn.")
            if self.searches.thinking(record.id):
                raise GameError(protocol.NOT_YOUR_TURN, "The engine is thinking.")
            if ply is not None and ply != len(record.moves):
                moved_on = "The game moved on before this move arrived: look again."
                raise GameError(protocol.NOT_YOUR_TURN, moved_on)
            status, winner = self._after(record, move)
            if status == "playing" and not self.searches.has_room(record):
                raise self._busy()

            def play(game: GameRecord) -> tuple[str, int | None]:
                game.moves += move
                return status, winner

            record = self._save_change(record, play, out)
            self.searches.note_turn(record, turn)
            self.searches.changed(record, out, move=True)
            return record

    def undo(self, game_id: object, token: str | None, ply: object = None) -> GameRecord:
        """Take back the human's last move and the engine's reply to it (if made).

        ``ply``: how many moves the sender saw played (optional); an undo sent from an
        older position is refused, so a double click takes back one turn, not two.
        """
        check_ply(ply)
        with self.locked(self._game_id(game_id)) as out:
            record = self._seated(game_id, token)
            if ply is not None and ply != len(record.moves):
                raise GameError(
                    protocol.NOTHING_TO_UNDO,
                    "The game changed before this undo arrived: nothing more was taken back.",
                )
            human = 1 - engine_side(record.settings)
            keep = max((i for i in range(len(record.moves)) if i % 2 == human), default=None)
            if keep is None:
                raise GameError(protocol.NOTHING_TO_UNDO, "You have no move to take back.")

            def take_back(game: GameRecord) -> tuple[str, int | None]:
                game.moves = game.moves[:keep]
                game.preset = min(game.preset, keep)
                # The engine's move now last on the board keeps its analysis (kept behind
                # the undone one's), so the panel, a reload and another tab still show it.
                game.last_engine_move = undone_engine_move(game.last_engine_move, game.moves)
                return replayed(game.game, game.moves)

            record = self._save_change(record, take_back, out)
            self.searches.changed(record, out, restart=True)
            return record

    def change_settings(self, game_id: object, changes: object, token: str | None) -> GameRecord:
        """New engine settings, from the engine's next move (a search under way restarts)."""
        with self.locked(self._game_id(game_id)) as out:
            record = self._seated(game_id, token)
            try:
                settings = merge_settings(
                    changes, record.settings, creating=False, game=record.game
                )
            except SettingsError as err:
                raise GameError(protocol.BAD_SETTINGS, str(err)) from None
            search_changed = any(
                settings[key] != record.settings[key] for key in MID_GAME_KEYS - {"show_analysis"}
            )

            def apply(game: GameRecord) -> tuple[str, int | None]:
                game.settings = settings
                return game.status, game.winner

            record = self._save_change(record, apply, out)
            self.searches.changed(
                record, out, restart=search_changed, follow=not search_changed, again=search_changed
            )
            return record

    def analyse(
        self,
        game_id: object,
        algorithm: object,
        sid: str,
        token: str | None,
        owner: str,
        moves: object = None,
    ) -> None:
        """Analyse a position with ``algorithm`` for one client (players and spectators):
        the live one, or ``moves``, an earlier one of the game (a start of its moves).

        ``owner`` says who asks (an identity, else an address): quotas and fairness.
        """
        if not isinstance(algorithm, str) or algorithm not in protocol.ALGORITHMS:
            raise GameError(
                protocol.BAD_REQUEST, f"algorithm must be one of {', '.join(protocol.ALGORITHMS)}."
            )
        if moves is not None and not isinstance(moves, str):
            raise GameError(protocol.BAD_REQUEST, "moves must be a string of the game’s moves.")
        record = self.get(game_id)
        if moves is not None and not record.moves.startswith(moves):
            raise GameError(
                protocol.BAD_REQUEST, "moves must be a position of this game: a start of its moves."
            )
        player = holds_seat(token, record.seat_hash)
        self.searches.analyse(record, algorithm, sid, owner, player, moves)

    # -- life cycle ------------------------------------------------------------------------
    def wake(self, game_id: str) -> None:
        """Start the engine if it is to move and idle (a game left waiting, e.g. by a restart)."""
        with self.locked(game_id) as out:
            record = self.store.get(game_id)
            if record is None:
                return
            if self.searches.changed(record, None):  # e.g. after a restart: scores afresh
                self.searches.publish(record, out)

    def resume(self) -> None:
        """After a restart: let the engine move in games it was to move in (the newest first)."""
        try:
            waiting = [r for r in self.store.playing(RESUME_LIMIT) if engine_to_move(r)]
        except StoreUnavailable as err:
            log.error("cannot resume games: %s", err)
            return
        for record in waiting:
            with self.locks.hold(record.id):
                self.searches.try_start_engine(record)

    def health(self) -> dict[str, Any]:
        """``{ok, store, workers}``: what ``GET /healthz`` reports.

        The store's check (a write transaction) runs at most every
        ``HEALTH_CHECK_SECONDS``: a probe in a loop cannot hold up the games.
        """
        with self._health_lock:
            if time.monotonic() >= self._store_checked_at + HEALTH_CHECK_SECONDS:
                try:
                    self.store.check()
                    self._store_health = "ok"
                except Exception as err:  # any failure of the store is "unavailable"
                    # The reason goes to the log: /healthz is public, and a database's
                    # message may name its host, user or files.
                    if self._store_health == "ok":
                        log.error("health: the store cannot write: %s", err)
                    self._store_health = f"unavailable: {type(err).__name__}"
                self._store_checked_at = time.monotonic()
            store = self._store_health
        workers = self.searches.pool.stats()
        ok = store == "ok" and workers["alive"] > 0 and not workers["closed"]
        return {"ok": ok, "store": store, "workers": workers}

    def forget_client(self, sid: str) -> None:
        self.searches.forget_client(sid)

    def close(self) -> None:
        """Stop: no running search is committed (restart resumes them), then close the store.

        Idempotent.
        """
        self.searches.close()
        self.searches.pool.close()
        if not self._closed:
            self._closed = True
            self.store.close()

    # -- helpers -------------------------------------------------------------------------
    @staticmethod
    def _game_id(game_id: object) -> str:
        """``game_id`` if it may name a game; GameError BAD_REQUEST or UNKNOWN_GAME if not
        (an action takes the game's lock on it, then reads the game once, under the lock)."""
        if not isinstance(game_id, str) or not game_id:
            raise GameError(protocol.BAD_REQUEST, "game_id must be a non-empty string.")
        # Ids are ASCII: anything else names no game (and a lone surrogate, which JSON
        # may carry, is no text the store can even look up).
        if len(game_id) > MAX_ID_LENGTH or not game_id.isascii():
            raise GameError(protocol.UNKNOWN_GAME, "There is no game with that id.")
        return game_id

    def _seated(self, game_id: object, token: str | None) -> GameRecord:
        record = self.get(game_id)
        if not holds_seat(token, record.seat_hash):
            raise GameError(
                protocol.SPECTATOR,
                "You are watching this game: only its player can move, undo or change it.",
            )
        return record

    @staticmethod
    def _after(record: GameRecord, move: str) -> tuple[str, int | None]:
        """``(status, winner)`` once ``move`` is played; GameError ILLEGAL_MOVE if it cannot be.

        The store's own check replays the moves of every save: this replay is the one it
        finds done (``replayed`` keeps the latest), so a move is replayed once, not twice.
        """
        try:
            return replayed(record.game, record.moves + move)
        except IllegalMoveError:
            position = new_game(record.game, record.moves)  # the error names this move only
            try:
                position.play(position.parse_move(move))
            except IllegalMoveError as err:
                raise GameError(protocol.ILLEGAL_MOVE, str(err)) from None
            raise

    @staticmethod
    def _check_playing(record: GameRecord) -> None:
        if record.status != "playing":
            raise GameError(protocol.GAME_OVER, "The game is over.")

    def _save(self, record: GameRecord, status: str, winner: int | None, out: Outbox) -> None:
        """Commit a change (compare-and-set); on a lost race tell the room where the game is."""
        record.status, record.winner, record.updated_at = status, winner, now()
        try:
            self.store.save(record)
        except VersionConflict:
            with contextlib.suppress(StoreError):  # the conflict is the answer either way
                current = self.store.get(record.id)
                if current is not None:
                    self.searches.publish(current, out)
            raise

    def _save_change(
        self,
        record: GameRecord,
        change: Callable[[GameRecord], tuple[str, int | None]],
        out: Outbox,
    ) -> GameRecord:
        """Commit ``change`` (it edits the game it is given and says its status and winner)
        made to ``record``; the saved record.

        Another process may have saved the game in between without moving (a search
        host storing the engine's options or its line): if its moves, settings and
        status are still the ones the change was checked against, the change is made
        again to that version, once. A lost race against a move, an undo or new settings
        stays a conflict.
        """
        seen = (record.moves, record.settings, record.status)
        try:
            self._save(record, *change(record), Outbox())  # its news of a conflict: not yet
            return record
        except VersionConflict:
            current = self.store.get(record.id)
            if current is None or (current.moves, current.settings, current.status) != seen:
                if current is not None:
                    self.searches.publish(current, out)
                raise
        self._save(current, *change(current), out)
        return current

    @staticmethod
    def _busy() -> GameError:
        return GameError(
            protocol.BUSY, "The server is busy: every engine is taken. Try again soon."
        )


def check_ply(ply: object) -> None:
    """GameError BAD_REQUEST unless ``ply`` is None or a count of moves."""
    if ply is not None and (isinstance(ply, bool) or not isinstance(ply, int) or ply < 0):
        raise GameError(protocol.BAD_REQUEST, "ply must be the number of moves seen.")
