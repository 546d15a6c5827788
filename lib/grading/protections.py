"""The one line saying which protections a grading run had: printed at the end of every batch
run and by the self-test, so an instructor reads the same words in both places."""

from __future__ import annotations

import os

from lib.grading.sandbox import TMP_MB, Caps


def line(sandboxed: bool, caps: Caps | None = None) -> str:
    """`Protections in force: ...` for a run with or without the bubblewrap sandbox."""
    caps = caps or Caps()
    limits = (
        f"at most {caps.memory_mb} MB of memory per process, {caps.processes} processes, "
        f"{caps.file_mb} MB per file"
    )
    if not sandboxed:
        return (
            "Protections in force: NONE of the sandbox's (--no-sandbox, or bubblewrap cannot run "
            "here): student code runs with the grader's permissions; expected answers are still "
            "judged outside the kernel."
        )
    user = ", each kernel a user of its own" if os.geteuid() == 0 else ""
    return (
        "Protections in force: bubblewrap sandbox (no network, course and Python read-only, own "
        f"process tree, clean environment, /tmp of {TMP_MB} MB){user}; {limits}; expected answers "
        "judged outside the kernel."
    )
