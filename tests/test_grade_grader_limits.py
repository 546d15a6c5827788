"""The grader's own memory and disk, per notebook: what a kernel sends is decoded only when the
grader reads it and only when small (`FrugalSession`), and a write that fails costs that
notebook's row, never the batch.
"""

from __future__ import annotations

import errno
import sys
import tracemalloc
from pathlib import Path

import nbformat
from jupyter_client.session import Session

from lib.grading import frugal_session
from lib.grading.frugal_session import FrugalSession
from lib.grading.store import RecordStore
from tests.test_grade_untrusted_files import grade_toy_class

FIXTURES = Path(__file__).resolve().parent / "grading_fixtures"
sys.path.insert(0, str(FIXTURES))
from toy_class import SOLVED, toy  # noqa: E402

KEY = b"a shared secret"


def sent(msg_type: str, content: dict | bytes) -> list[bytes]:
    """A message as the kernel puts it on the wire (signed with the connection's key)."""
    kernel = Session(key=KEY)
    message = kernel.msg(msg_type, content={} if isinstance(content, bytes) else content)
    frames = kernel.serialize(message)
    if isinstance(content, bytes):  # a raw content frame, signed again
        frames[-1] = content
        frames[frames.index(b"<IDS|MSG>") + 1] = kernel.sign(frames[-4:])
    return frames[frames.index(b"<IDS|MSG>") + 1 :]


def test_messages_the_grader_does_not_read_are_never_decoded():
    huge = b'{"comm_id": "w", "data": {"state": {"v": [' + b"[]," * 10_000_000 + b"[]]}}}"
    tracemalloc.start()
    message = FrugalSession(key=KEY).deserialize(sent("comm_msg", huge))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert (message["msg_type"], message["content"]) == ("execute_input", {})
    assert peak < 100 * 2**20, f"{peak / 2**20:.0f} MB to pass over a 30 MB message"


def test_read_messages_are_decoded_unless_they_hold_too_many_values(monkeypatch):
    session = FrugalSession(key=KEY)
    report = {"data": {"text/plain": "x"}, "metadata": {}, "transient": {}}
    assert session.deserialize(sent("display_data", report))["content"] == report
    monkeypatch.setattr(frugal_session, "MAX_VALUES", 10)
    many = {"status": "ok", "payload": [[] for _ in range(20)]}
    reply = session.deserialize(sent("execute_reply", many))
    assert reply["content"]["ename"] == "MessageTooLarge"
    flood = session.deserialize(sent("display_data", {"data": {"x": [[]] * 20}}))
    assert flood["msg_type"] == "execute_input"


def test_a_failed_write_costs_one_row_not_the_batch(tmp_path, monkeypatch):
    (tmp_path / "class").mkdir()
    for student in ("ann", "bob"):
        nbformat.write(toy(**SOLVED), tmp_path / "class" / f"{student}.ipynb")
    add = RecordStore.add

    def disk_full_for_ann(store, record):
        if record["student"] == "ann":
            raise OSError(errno.ENOSPC, "No space left on device")
        add(store, record)

    monkeypatch.setattr(RecordStore, "add", disk_full_for_ann)
    records = grade_toy_class(tmp_path / "class", tmp_path / "out")
    assert [[e["score"] for e in r["exercises"]] for r in records] == [[2.0, 1.0], [2.0, 1.0]]
    assert "bob" in (tmp_path / "out" / "totals.csv").read_text()
