"""One kernel, driven through nbclient, for the grader: run a cell within a time limit and say
how it went (finished, raised, interrupted), or that the kernel is lost (died, or deaf to
interrupts). Nothing a cell prints is kept (a notebook may print megabytes): only its error, and
the one grading report the grader is waiting for.
"""

from __future__ import annotations

import logging
import math
import subprocess
from collections.abc import Callable
from pathlib import Path
from queue import Empty
from time import monotonic

import nbformat
import zmq
from jupyter_core.utils import ensure_async
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError

from lib.exercises.running import BUILTIN_ERRORS
from lib.grading.kernel_manager import BoxedManager, boxed_manager
from lib.grading.kernel_side import MIME
from lib.grading.shm_guard import STOPPED
from lib.notebooks import ThisPython

MAX_MESSAGE_BYTES = 64 * 2**20  # far above any grading report (`plain` caps them near 5 MB)
TIMEOUT = "CellTimeout"  # the error name nbclient reports for an interrupted, too-long cell
PYTHON_ERRORS = frozenset(error.__name__ for error in BUILTIN_ERRORS)

_QUIET = logging.getLogger("lib.grading.nbclient")  # nbclient logs every time-out as an error:
_QUIET.addHandler(logging.NullHandler())  # the grader reports them itself, in the feedback
_QUIET.propagate = False


def error_name(ename: object) -> str:
    """A cell's error as the grader may tell it once a hidden input was in the kernel: the class's
    name if it is one of Python's own (a closed list), else "an error". Never the message, which
    the code writes, nor a class name it chose: either could carry what the code was given."""
    return ename if isinstance(ename, str) and ename in PYTHON_ERRORS else "an error"


# How each way of losing a kernel reads in the feedback ("hung": the caller says, with its limit).
LOST = {
    "died": "killed the kernel",
    "shm": (
        "held more than a kernel may (in /dev/shm, unix socket buffers or ptys), so the kernel "
        "was stopped"
    ),
}


class KernelLost(Exception):
    """The kernel died (`why` "died", or "shm": stopped by `shm_guard`), or ran past a time limit
    and ignored the interrupt ("hung")."""

    def __init__(self, cell_index: int, why: str):
        super().__init__(why)
        self.cell_index, self.why = cell_index, why


class Kernel(NotebookClient):
    """nbclient's executor, keeping only the errors and the grading results from the outputs."""

    def __init__(self, notebook: nbformat.NotebookNode, probe_seconds: float):
        # A copy with one more cell at the end, where probes and grading cells run.
        scratch = nbformat.v4.new_code_cell()
        super().__init__(
            nbformat.from_dict({**notebook, "cells": [*notebook.cells, scratch]}),
            allow_errors=True,
            interrupt_on_timeout=True,
            iopub_timeout=1,
            log=_QUIET,
            error_on_timeout={"ename": TIMEOUT, "evalue": "", "traceback": []},
            shutdown_kernel="immediate",
            kernel_name="python3",
        )
        self.scratch = len(notebook.cells)
        self.last_error: str | None = None
        self.last_error_name = ""  # the class of the last cell's error, without its message
        # The one report the grader is waiting for, as (marker, exercise); it keeps that report
        # only, once: a notebook may send millions of messages of our type, and keeping them all
        # would fill the grader's memory and stop the whole batch.
        self.expected: tuple[str, str] | None = None
        self.published: list[dict] = []
        self.probe_seconds = probe_seconds
        self.on_cell_error = self._note_error

    def _note_error(
        self, cell: nbformat.NotebookNode, cell_index: int, execute_reply: dict
    ) -> None:
        content = execute_reply["content"]
        error = f"{content.get('ename')}: {content.get('evalue')}".strip().rstrip(":")[:300]
        self.last_error = TIMEOUT if content.get("ename") == TIMEOUT else error
        self.last_error_name = error_name(content.get("ename"))

    def output(self, outs: list, msg: dict, display_id: str | None, cell_index: int) -> None:
        self._keep(msg)

    def _keep(self, msg: dict) -> None:
        """Keep `msg` if it is the first report carrying the expected marker and exercise."""
        data = msg["content"].get("data") or {}
        report = data.get(MIME) if msg["msg_type"] == "display_data" else None
        if (
            self.expected is not None
            and not self.published
            and isinstance(report, dict)
            and (report.get("marker"), report.get("exercise")) == self.expected
        ):
            self.published.append(report)

    async def run(
        self, index: int, cell: nbformat.NotebookNode, seconds: float, grading: bool = False
    ) -> str | None:
        """Run one cell: None if it finished, else its error (`TIMEOUT` if it was interrupted).
        Raises `KernelLost` when the kernel died or stopped answering. A grading cell stays out
        of the kernel's history."""
        self.timeout, self.last_error = max(1, math.ceil(seconds)), None
        self.last_error_name = ""
        try:
            await self.async_execute_cell(cell, index, store_history=not grading)
            outcome = self.last_error
            if outcome == TIMEOUT:  # interrupted: is anyone still listening?
                self.timeout, self.last_error = max(1, math.ceil(self.probe_seconds)), None
                probe = nbformat.v4.new_code_cell("pass")
                await self.async_execute_cell(probe, self.scratch, store_history=False)
                if self.last_error == TIMEOUT:
                    raise KernelLost(index, "hung")
        except DeadKernelError:
            stopped = await self._exit_status() == STOPPED  # by `shm_guard`
            raise KernelLost(index, "shm" if stopped else "died") from None
        return outcome

    async def _exit_status(self) -> int | None:
        """The dead kernel's exit status (`shm_guard`'s, in front of a fenced kernel)."""
        provisioner = getattr(self.km, "provisioner", None)
        return None if provisioner is None else await provisioner.poll()

    async def drain(self, seconds: float) -> None:
        """Read the output channel until it has been quiet for half a second (at most `seconds`):
        a result message can arrive late when a chatty cell's output was still being read."""
        end = monotonic() + seconds
        while (left := end - monotonic()) > 0:
            try:
                msg = await ensure_async(self.kc.iopub_channel.get_msg(timeout=min(0.5, left)))
            except Empty:
                return
            self._keep(msg)

    async def start(
        self,
        cwd: Path,
        env: dict[str, str],
        runtime: Path | None = None,
        box: Callable[[list[str]], list[str]] | None = None,
        owner: int | None = None,
    ) -> None:
        """Start the kernel in `cwd`. With `box`, the kernel command is wrapped by it and the
        kernel talks through sockets in `runtime` (a folder the box shares, its user `owner`'s),
        not over TCP."""
        if box is None:
            specs = ThisPython()
            specs.interrupt_mode = "signal"
            self.km = BoxedManager(kernel_name="python3", kernel_spec_manager=specs)
        else:
            self.km = boxed_manager(runtime, box, owner)
        # Every message is read whole before it can be looked at: one print of hundreds of MB
        # would sit in the grader's memory (seen: 2.9 GB from one notebook). ZeroMQ drops a
        # bigger message and the connection it came on; the kernel's reply still arrives.
        self.km.context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        # The kernel's own stdout/stderr (C-level prints, warnings) go nowhere, not to our
        # terminal.
        await self.async_start_new_kernel(
            cwd=str(cwd), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        await self.async_start_new_kernel_client()

    async def stop(self) -> None:
        """Kill the kernel's whole process group, including anything the notebook started."""
        if self.kc is not None:
            await ensure_async(self.kc.stop_channels())
        if self.km is not None:
            try:
                if self.km.has_kernel:
                    await ensure_async(self.km.shutdown_kernel(now=True))
            except RuntimeError:  # "No kernel is running!": it died on its own
                pass
            await ensure_async(self.km.cleanup_resources())
