"""The grader's side of a kernel's messages, decoding only what it reads.

A Jupyter client decodes every message a kernel sends, and a notebook chooses what it sends: 60 MB
of `[],` in one message decode to 3 GB of Python lists, and nbclient keeps every widget's state
(50 MB a message, seen reaching 2 GB). The grader reads only status, replies, errors from replies
and its own reports (`display_data`). `FrugalSession` checks each message's signature as usual,
then leaves the content of every other type undecoded (the message becomes an `execute_input`,
which nbclient ignores), and refuses to decode a content of more than `MAX_VALUES` lists and
objects: a reply says so as an error, anything else is ignored.
"""

from __future__ import annotations

from typing import Any

from jupyter_client.session import Session

IGNORED = {
    "stream",
    "error",  # the reply carries the same ename and evalue
    "execute_result",
    "update_display_data",
    "clear_output",
    "comm_open",
    "comm_msg",
    "comm_close",
}
MAX_VALUES = 1_000_000  # lists and objects in one message (a grading report holds far fewer)
TOO_BIG = {
    "status": "error",
    "ename": "MessageTooLarge",
    "evalue": f"the kernel sent a message of more than {MAX_VALUES:,} values",
    "traceback": [],
}


class FrugalSession(Session):
    """A `Session` that decodes only the messages the grader reads, and only when small."""

    def deserialize(self, msg_list: list, content: bool = True, copy: bool = True) -> dict:
        message: dict[str, Any] = super().deserialize(msg_list, content=False, copy=copy)
        if not content:
            return message
        signature = msg_list[0] if copy else bytes(msg_list[0].bytes)
        self._add_digest(signature)  # what the base class does when it decodes the content
        raw = message["content"]
        raw = raw if isinstance(raw, bytes) else bytes(raw)
        message["buffers"] = []  # binary buffers belong to widgets: never read
        if message["msg_type"] in IGNORED:
            return _ignored(message)
        if raw.count(b"[") + raw.count(b"{") > MAX_VALUES:
            if message["msg_type"].endswith("_reply"):
                message["content"] = dict(TOO_BIG)
                return message
            return _ignored(message)
        message["content"] = self.unpack(raw)
        return message


def _ignored(message: dict) -> dict:
    """`message` made into one nbclient passes over, its content never decoded."""
    message["msg_type"] = message["header"]["msg_type"] = "execute_input"
    message["content"] = {}
    return message
