"""Waiting for processes to be gone: a kill is sent at once but takes effect a moment later,
longer on a busy machine, so a test that checks right after it can see a process still ending."""

import subprocess
import time


def still_running(marker: str, seconds: float) -> str:
    """The processes whose command line holds `marker`, once they are gone or after `seconds`.
    SIGKILL is sent, not awaited: the kernel needs a moment to end a process, longer under load."""
    deadline = time.monotonic() + seconds
    while True:
        left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)
