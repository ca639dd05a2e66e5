"""The relay's wait (search_pool/readiness.py): the same answers as
``multiprocessing.connection.wait``, from one poll object while the set stays."""

from __future__ import annotations

import multiprocessing
import os
import resource
import socket

from webapp.search_pool.readiness import Readiness, readable


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


def test_readable_says_what_connection_poll_says_without_a_selector() -> None:
    reader, writer = multiprocessing.Pipe(duplex=False)
    try:
        assert not readable(reader) and not reader.poll(0)
        writer.send("result")
        assert readable(reader) and reader.poll(0)
        assert reader.recv() == "result"
        assert not readable(reader)
        writer.close()  # at end of file: ready, and the read says so
        assert readable(reader) and reader.poll(0)
    finally:
        reader.close()
    # A descriptor past select()'s 1,024 (a server with a thousand pages open has them).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 2048)), hard))
    read_fd, write_fd = os.pipe()
    high = os.dup2(read_fd, 1500)
    try:
        assert not readable(high)
        os.write(write_fd, b"x")
        assert readable(high)
    finally:
        for fd in (read_fd, write_fd, high):
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
