"""`user_holdings`: what a user holds that no limit of a process counts, as the guard measures
it: unix socket buffers (sock_diag) and ptys (/dev/pts)."""

from __future__ import annotations

import os
import socket
import sys

import pytest

from lib.grading import user_holdings

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="sock_diag and devpts: Linux's")


def test_a_users_unread_socket_buffers_are_summed():
    before = user_holdings.socket_bytes().get(os.getuid(), 0)
    sender, receiver = socket.socketpair()
    with sender, receiver:
        sender.setblocking(False)
        sent = 0
        try:
            while sent < 1 << 20:
                sent += sender.send(b"x" * 65536)
        except BlockingIOError:  # its buffer is full: all of it waits in the machine's memory
            pass
        held = user_holdings.socket_bytes().get(os.getuid(), 0) - before
        assert sent <= held < 2 * sent + (1 << 20), (sent, held)
        while sent > 0:  # read: no longer held
            sent -= len(receiver.recv(1 << 20))
        assert user_holdings.socket_bytes().get(os.getuid(), 0) - before < held


def test_ptys_are_counted_by_their_entries_owner(tmp_path):
    for name in ("0", "7", "ptmx"):  # ptmx is the multiplexer, no pty
        (tmp_path / name).touch()
    assert user_holdings.ptys(os.getuid(), str(tmp_path)) == 2
    assert user_holdings.ptys(os.getuid() + 1, str(tmp_path)) == 0
    assert user_holdings.ptys(os.getuid(), str(tmp_path / "none")) == 0
