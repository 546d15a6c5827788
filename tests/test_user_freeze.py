"""`user_freeze.as_user`: the root guard's way of acting as a sandbox user never waits on that
user's process without a deadline (below Landlock 6 the user's kernel may SIGSTOP it: red team
round 21, hole 3)."""

from __future__ import annotations

import os
import time

import pytest

from lib.grading import sandbox, user_freeze, user_processes

pytestmark = [
    pytest.mark.machine,  # see pyproject's markers
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (sandbox users)"),
]
UID = sandbox.FIRST_UID + 1151  # no other test's


def test_the_work_s_answer_comes_back_as_text():
    assert user_freeze.as_user(UID, os.getuid) == str(UID)


def test_a_child_that_never_answers_is_killed_and_says_nothing():
    """As a lister stopped by the user's own SIGSTOP would: None (the caller charges a bound)."""
    started = time.monotonic()
    assert user_freeze.as_user(UID, lambda: os.kill(os.getpid(), 19)) is None  # SIGSTOP itself
    assert time.monotonic() - started < user_freeze.ANSWER_SECONDS + 1
    assert user_processes.processes_of(UID) == []  # killed and waited for
