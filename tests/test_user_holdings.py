"""`user_holdings`, `netlink_queues`, `user_ptys`: what a user holds that no limit of a process
counts, as the guard measures it: unix socket buffers (sock_diag), netlink queues, ptys."""

from __future__ import annotations

import fcntl
import os
import socket
import struct
import sys

import pytest

from lib.grading import holding_caps, netlink_queues, user_holdings, user_ptys

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="sock_diag and devpts: Linux's")
TIOCGPTPEER, TIOCSPTLCK = 0x5441, 0x40045431  # a pty's slave from its master; unlockpt


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
    assert user_ptys.pty_entries(os.getuid(), str(tmp_path)) == (2, 2)
    assert user_ptys.pty_entries(os.getuid() + 1, str(tmp_path)) == (0, 2)
    assert user_ptys.pty_entries(os.getuid(), str(tmp_path / "none")) == (0, 0)


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
    monkeypatch.setattr(holding_caps, "unix_sockets", missing)
    monkeypatch.setattr(holding_caps, "netlink_queued", lambda: {})  # netlink's still counted
    monkeypatch.setattr(shm_guard, "kept", lambda *args: (0, 0, ""))
    monkeypatch.setattr(shm_guard, "ptys_past", lambda uid, watch: "")
    assert shm_guard.past_caps(12345, (1, 1, 1), holding_caps.Watch(unix=False)) == ""
    with pytest.raises(FileNotFoundError):  # counted, it would have stopped the kernel
        shm_guard.past_caps(12345, (1, 1, 1), holding_caps.Watch())
    monkeypatch.setattr(protections, "sockets_uncounted", user_holdings.sockets_uncounted)
    records = [{"protections": [protections.OWN_USER, protections.FENCE, protections.SHM_CAP]}]
    said = protections.line(True, records)
    assert "unix sockets (neither these nor unix buffers counted here: sock_diag lists" in said, (
        said
    )


def _filled(sender: socket.socket, size: int, most: int) -> int:
    """Send `size`-byte messages without blocking until `most` bytes are sent or the buffer is
    full: how many bytes were sent."""
    sender.setblocking(False)
    sent = 0
    try:
        while sent < most:
            sent += sender.send(b"x" * size)
    except BlockingIOError:
        pass
    return sent


def _charged(*sockets: socket.socket) -> int:
    """What the guard charges `sockets` with, together (`user_holdings.charged`)."""
    charges = user_holdings.charged()
    return sum(charges[os.fstat(end.fileno()).st_ino][1] for end in sockets)


def test_both_ends_open_count_once():
    sender, receiver = socket.socketpair()
    with sender, receiver:
        sent = _filled(sender, 65536, 1 << 20)
        held = _charged(sender, receiver)
        assert sent <= held < 1.1 * sent + (1 << 16), (sent, held)  # not its reader's too


def test_a_closed_senders_bytes_count_against_the_receiver():
    """Sent in one-byte messages, each in a buffer of its own: its queue's length (RQLEN) is
    far less than what the sender held; the receiver is charged at least that much, and at most
    what a sender may hold."""
    sender, receiver = socket.socketpair()
    with receiver:
        with sender:
            sent = _filled(sender, 1, 2000)  # its buffer is full first (~280)
            held = _charged(sender, receiver)  # the sender's buffers, while it is listed
        orphaned = _charged(receiver)
        assert held > 100 * sent, (sent, held)  # 768 bytes a byte here
        assert held <= orphaned <= user_holdings.sender_most(), (held, orphaned)
        while sent > 0:  # read: no longer held
            sent -= len(receiver.recv(1 << 16))
        assert _charged(receiver) == 0


def test_connections_never_accepted_whose_client_closed_count_against_the_listener():
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind("")  # an abstract name chosen by Linux
        listener.listen(4)
        clients = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(2)]
        for client in clients:
            client.connect(listener.getsockname())
            client.send(b"x")
        assert _charged(listener) == 0  # the clients are listed: their buffers count
        for client in clients:
            client.close()
        assert _charged(listener) == 2 * user_holdings.sender_most()
        accepted = [listener.accept()[0] for _ in clients]  # each holds its one byte now
        try:
            assert _charged(listener) == 0
            assert _charged(*accepted) == 2 * user_holdings.BYTE_COST
        finally:
            for connection in accepted:
                connection.close()


def test_a_netlink_sockets_unread_answers_are_found_by_its_holder():
    """/proc/net/netlink shows the queue; our own descriptors name the socket."""
    ask = struct.pack("IHHII", 32, 18, 1, 1, 0) + struct.pack("BxHiII", 0, 0, 1, 0, 0)
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0) as route:  # NETLINK_ROUTE
        for _ in range(20):  # lo's link (RTM_GETLINK), the answers never read
            route.send(ask)
        inode = os.fstat(route.fileno()).st_ino
        queued = netlink_queues.netlink_queued()
        assert queued.get(inode, 0) > 20 * 32, queued
        assert netlink_queues._netlink_held([str(os.getpid())], queued) == [inode]


def test_a_pty_slave_whose_master_is_closed_is_found_by_its_holder():
    """Its /dev/pts entry goes with its master; its descriptor, shown as deleted, stays."""
    if not os.path.exists("/dev/ptmx"):
        pytest.skip("no ptys here")
    master = os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)
    fcntl.ioctl(master, TIOCSPTLCK, struct.pack("i", 0))  # unlockpt
    slave = fcntl.ioctl(master, TIOCGPTPEER, os.O_RDWR | os.O_NOCTTY)
    try:
        assert user_ptys._orphans([str(os.getpid())]) == 0  # its entry is there
        os.close(master)
        assert user_ptys._orphans([str(os.getpid())]) == 1
    finally:
        os.close(slave)


def test_a_guard_looks_into_netlink_holders_only_when_they_could_matter(monkeypatch):
    """The netlink table names no user: its sum alone is charged while it cannot put the user
    past its cap, and the user's processes are looked into (`netlink_held`) only when it can."""
    looked = []
    monkeypatch.setattr(holding_caps, "unix_sockets", lambda: {7: (3, 1000)})
    monkeypatch.setattr(holding_caps, "netlink_queued", lambda: {11: 5 << 20})
    monkeypatch.setattr(
        holding_caps, "netlink_held", lambda uid, all_: looked.append(uid) or ((all_,), "")
    )
    assert holding_caps.sockets_past(7, 6 << 20, holding_caps.Watch()) == ""
    assert looked == []
    said = holding_caps.sockets_past(7, 4 << 20, holding_caps.Watch())
    assert looked == [7] and "5 MB in socket buffers" in said and "5 MB netlink" in said, said


def test_a_guard_looks_for_ptys_without_an_entry_only_when_they_could_matter(monkeypatch):
    """`kernel.pty.nr` beyond the entries says how many ptys may have none; only when they could
    put the user past `MAX_PTYS` are its processes looked into, and the look's answer stands
    while no more appear."""
    looked, unlisted = [], [3]
    monkeypatch.setattr(holding_caps, "pty_entries", lambda uid: (2, 2))
    monkeypatch.setattr(holding_caps, "ptys_unlisted", lambda listed: unlisted[0])
    monkeypatch.setattr(
        holding_caps, "orphaned_ptys", lambda uid, hidden: looked.append(hidden) or ((0,), "")
    )
    watch = holding_caps.Watch()
    assert holding_caps.ptys_past(7, watch) == "" and looked == []  # 2 + 3 <= 8
    unlisted[0] = 10  # another instance's, say
    assert holding_caps.ptys_past(7, watch) == "" and looked == [10]
    assert holding_caps.ptys_past(7, watch) == "" and looked == [10]  # none appeared since
    unlisted[0] = 17  # 7 more: they may be the user's
    monkeypatch.setattr(holding_caps, "orphaned_ptys", lambda uid, hidden: ((7,), ""))
    assert holding_caps.ptys_past(7, watch) == "its user held 9 ptys (at most 8)"
