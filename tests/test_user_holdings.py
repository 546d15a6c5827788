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
    before = user_holdings.unix_sockets().get(os.getuid(), (0, 0))[1]
    sender, receiver = socket.socketpair()
    with sender, receiver:
        sender.setblocking(False)
        sent = 0
        try:
            while sent < 1 << 20:
                sent += sender.send(b"x" * 65536)
        except BlockingIOError:  # its buffer is full: all of it waits in the machine's memory
            pass
        held = user_holdings.unix_sockets().get(os.getuid(), (0, 0))[1] - before
        assert sent <= held < 2 * sent + (1 << 20), (sent, held)
        while sent > 0:  # read: no longer held
            sent -= len(receiver.recv(1 << 20))
        assert user_holdings.unix_sockets().get(os.getuid(), (0, 0))[1] - before < held


def test_a_users_unix_sockets_are_counted():
    before = user_holdings.unix_sockets().get(os.getuid(), (0, 0))[0]
    pairs = [socket.socketpair() for _ in range(10)]
    try:
        assert user_holdings.unix_sockets()[os.getuid()][0] - before >= 20
    finally:
        for pair in pairs:
            for end in pair:
                end.close()


def test_ptys_are_counted_by_their_entries_owner(tmp_path):
    for name in ("0", "7", "ptmx"):  # ptmx is the multiplexer, no pty
        (tmp_path / name).touch()
    assert user_holdings.ptys(os.getuid(), str(tmp_path)) == 2
    assert user_holdings.ptys(os.getuid() + 1, str(tmp_path)) == 0
    assert user_holdings.ptys(os.getuid(), str(tmp_path / "none")) == 0


def test_where_sock_diag_lists_no_unix_socket_the_buffers_are_left_out_and_said(monkeypatch):
    """A container cannot load the machine's `unix_diag` module: the guard must not stop every
    kernel for it (all of a Gradescope class at 0), and the run's summary says what is not
    counted."""
    from lib.grading import protections, shm_guard

    assert user_holdings.sockets_uncounted() == ""  # this machine lists them

    def missing():
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(user_holdings, "unix_sockets", missing)
    assert user_holdings.sockets_uncounted() == (
        "sock_diag lists no unix socket here (No such file or directory)"
    )
    monkeypatch.setattr(shm_guard, "unix_sockets", missing, raising=False)
    monkeypatch.setattr(shm_guard, "kept", lambda *args: (0, 0, ""))
    monkeypatch.setattr(shm_guard, "ptys", lambda uid: 0, raising=False)
    assert shm_guard.past_caps(12345, (1, 1, None), shm_guard.Walked()) == ""
    with pytest.raises(FileNotFoundError):  # counted, it would have stopped the kernel
        shm_guard.past_caps(12345, (1, 1, 1), shm_guard.Walked())
    monkeypatch.setattr(protections, "sockets_uncounted", user_holdings.sockets_uncounted)
    records = [{"protections": [protections.OWN_USER, protections.FENCE, protections.SHM_CAP]}]
    said = protections.line(True, records)
    assert "unix sockets (neither counted here: sock_diag lists no unix socket here" in said, said
