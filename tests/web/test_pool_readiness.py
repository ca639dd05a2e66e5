"""The relay's wait (search_pool/readiness.py): the same answers as
``multiprocessing.connection.wait``, from one poll object while the set stays."""

from __future__ import annotations

import multiprocessing
import os
import socket

from webapp.search_pool.readiness import Readiness


def test_ready_objects_come_back_as_given_and_the_rest_wait() -> None:
    readiness = Readiness()
    quiet_r, quiet_w = multiprocessing.Pipe(duplex=False)
    busy_r, busy_w = multiprocessing.Pipe(duplex=False)
    wake_in, wake_out = socket.socketpair()
    try:
        objects = [wake_in, quiet_r, busy_r]
        assert readiness.wait(objects, 0) == []
        busy_w.send("result")
        assert readiness.wait(objects, 1.0) == [busy_r]
        wake_out.send(b"x")
        assert set(readiness.wait(objects, 0)) == {wake_in, busy_r}
        assert busy_r.recv() == "result"
        assert readiness.wait(objects, 0) == [wake_in]
    finally:
        for end in (quiet_r, quiet_w, busy_r, busy_w, wake_in, wake_out):
            end.close()


def test_an_end_of_file_is_ready_and_a_new_set_is_watched() -> None:
    readiness = Readiness()
    first_r, first_w = multiprocessing.Pipe(duplex=False)
    read_fd, write_fd = os.pipe()  # a sentinel is a bare descriptor
    try:
        assert readiness.wait([first_r], 0) == []
        first_w.close()  # the worker is gone: its next read says EOF
        assert readiness.wait([first_r], 0) == [first_r]
        # Another set (a worker replaced): the descriptor that was not watched now is.
        os.write(write_fd, b"x")
        assert readiness.wait([read_fd], 0) == [read_fd]
        assert readiness.wait([], 0) == []
    finally:
        first_r.close()
        os.close(read_fd)
        os.close(write_fd)
