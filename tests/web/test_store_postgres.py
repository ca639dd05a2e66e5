"""PostgreSQL's own cases (webapp/store/postgres.py): a server gone, a lost connection, the app.

The store behaviour shared with SQLite is tested on both backends in the other
test_store*.py files. Here: a database that cannot be reached (a wrong port,
connections refused, the server stopped) gives ``StoreUnavailable`` on every
call, and /healthz 503, and serves again once it is back; a connection dropped
while idle is replaced by the pool unnoticed; and the whole app plays a game
end to end with its games in PostgreSQL.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.servers import PostgresServer, free_port
from tests.web.helpers import make_app, seated, wait_until
from tests.web.test_store import game_record
from webapp import protocol
from webapp.games import new_game
from webapp.store import GameStore, StoreUnavailable, open_store
from webapp.store.postgres import PostgresStore
from webapp.web.app import close_app, service_of

#: Seconds a call waits for a connection: short, so the tests of an absent server are quick.
SHORT = 0.3


def database_of(url: str) -> str:
    return url.rsplit("/", 1)[1]


def cut_off(server: PostgresServer, url: str) -> None:
    """Take the database away: refuse new connections, end the open ones (as a stopped server)."""
    assert server.admin is not None
    name = database_of(url)
    server.admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
    server.admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
    )


def restore(server: PostgresServer, url: str) -> None:
    assert server.admin is not None
    server.admin.execute(f"ALTER DATABASE {database_of(url)} ALLOW_CONNECTIONS true")


def end_connections(server: PostgresServer, url: str) -> int:
    """End every connection to the database (as a restarted server or a dropped link would)."""
    assert server.admin is not None
    rows = server.admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
        (database_of(url),),
    ).fetchall()
    return len(rows)


def every_call(store: GameStore) -> dict[str, Callable[[], Any]]:
    """Each store method, called on the game "abc" where it takes one."""
    game = game_record("abc", version=1)
    return {
        "get": lambda: store.get("abc"),
        "create": lambda: store.create(game_record("new")),
        "save": lambda: store.save(game),
        "playing": lambda: store.playing(10),
        "games_of": lambda: store.games_of("hash", 10),
        "prune": lambda: store.prune(unfinished_before="2000-01-01", finished_before="2000-01-01"),
        "check": store.check,
    }


@pytest.fixture
def store(postgres_url: str) -> Iterator[PostgresStore]:
    made = PostgresStore(postgres_url, timeout=SHORT)
    yield made
    made.close()


def test_an_unreachable_server_is_unavailable_at_once(caplog: pytest.LogCaptureFixture) -> None:
    url = f"postgresql://lookahead:secret@127.0.0.1:{free_port()}/games"  # nothing listens
    with (
        caplog.at_level(logging.ERROR, logger="webapp.store"),
        pytest.raises(StoreUnavailable, match="open failed") as caught,
    ):
        open_store(url, timeout=SHORT)
    assert "store: open failed: OperationalError" in caplog.text
    assert "secret" not in str(caught.value) and "secret" not in caplog.text


@pytest.mark.slow
def test_a_database_gone_fails_every_call_and_serves_again_when_back(
    postgres_server: PostgresServer,
    postgres_url: str,
    store: PostgresStore,
    caplog: pytest.LogCaptureFixture,
) -> None:
    store.create(game_record("abc"))
    cut_off(postgres_server, postgres_url)
    with caplog.at_level(logging.ERROR, logger="webapp.store"):
        for name, call in every_call(store).items():
            with pytest.raises(StoreUnavailable, match=f"{name}( 'abc'| 'new')? failed"):
                call()
            assert f"store: {name}" in caplog.text, name
    restore(postgres_server, postgres_url)

    def serves() -> bool:
        try:
            store.check()
        except StoreUnavailable:
            return False  # the pool has not reconnected yet
        return True

    wait_until(serves)
    stored = store.get("abc")
    assert stored is not None and stored.version == 1


@pytest.mark.slow
def test_a_connection_lost_while_idle_is_replaced_by_the_pool(
    postgres_server: PostgresServer, postgres_url: str
) -> None:
    store = PostgresStore(postgres_url)  # the pool waits about 1 s after a failed check
    try:
        game = game_record("abc")
        store.create(game)
        assert end_connections(postgres_server, postgres_url) >= 1
        game.moves = "4"
        store.save(game)  # no error: the pool checks a connection before lending it
        assert end_connections(postgres_server, postgres_url) >= 1
        stored = store.get("abc")
        assert stored is not None and (stored.moves, stored.version) == ("4", 2)
    finally:
        store.close()


def test_the_app_plays_a_game_to_the_end_on_postgresql(
    postgres_server: PostgresServer, postgres_url: str
) -> None:
    app = make_app(postgres_url)  # DATABASE may be a URL
    try:
        state, player = seated(app, "tictactoe", settings={"level": "easy"})
        game_id = state["id"]
        while state["status"] == "playing":
            position = new_game("tictactoe", state["moves"])
            move = position.format_move(position.legal_moves()[0])
            player.emit(protocol.MOVE, {"game_id": game_id, "move": move})
            moves = state["moves"] + move
            state = player.wait_for(protocol.STATE, lambda s, m=moves: reply_or_end(s, m))
        over = state
        assert over["status"] in ("won", "drawn")
        assert app.test_client().get("/healthz").status_code == 200
        assert app.test_client().get(f"/g/{game_id}").status_code == 200
    finally:
        close_app(app)

    rows = postgres_server_rows(postgres_server, postgres_url, game_id)
    assert rows == [(over["moves"], over["status"])]
    again = make_app(postgres_url)
    try:
        record = service_of(again).store.get(game_id)
        assert record is not None and record.moves == over["moves"]
    finally:
        close_app(again)


def reply_or_end(state: dict[str, Any], moves: str) -> bool:
    """The state after the player's ``moves`` and the engine's reply, or the game's end."""
    if not state["moves"].startswith(moves) or state["engine_thinking"]:
        return False
    return state["status"] != "playing" or len(state["moves"]) == len(moves) + 1


def postgres_server_rows(server: PostgresServer, url: str, game_id: str) -> list[Any]:
    """The game's row as PostgreSQL holds it: (moves, status)."""
    import psycopg

    with psycopg.connect(url) as db:
        return db.execute("SELECT moves, status FROM games WHERE id = %s", (game_id,)).fetchall()


@pytest.mark.slow
def test_the_app_answers_503_while_its_server_is_stopped_and_serves_once_restarted(
    postgres_server: PostgresServer, postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app(postgres_url, DATABASE_TIMEOUT=SHORT)
    try:
        state, player = seated(app, "tictactoe", settings={"level": "easy"})
        game_id = state["id"]
        postgres_server.stop()  # the session's server: started again below, whatever happens
        try:
            with caplog.at_level(logging.ERROR, logger="webapp.store"):
                for name, call in every_call(service_of(app).store).items():
                    with pytest.raises(StoreUnavailable):
                        call()
                    assert f"store: {name}" in caplog.text, name
            health = app.test_client().get("/healthz")
            assert health.status_code == 503
            assert health.get_json()["store"].startswith("unavailable")
            assert app.test_client().get(f"/g/{game_id}").status_code == 503
            answer = player.emit(protocol.MOVE, {"game_id": game_id, "move": "5"})
            assert answer["code"] == protocol.STORE_UNAVAILABLE
        finally:
            postgres_server.start()
        wait_until(lambda: app.test_client().get("/healthz").status_code == 200)
        player.emit(protocol.MOVE, {"game_id": game_id, "move": "5"})
        replied = player.wait_for(protocol.STATE, lambda s: len(s["moves"]) == 2)
        assert replied["moves"].startswith("5")
    finally:
        close_app(app)
