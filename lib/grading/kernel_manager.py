"""The kernel manager the grader starts each kernel with: jupyter_client's, with its command
wrapped in the sandbox, its messages decoded frugally, and its connection file kept out of the
reach of the kernel's own user.

Boxed, the connection file and the sockets lie in a folder that user writes in (`runtime`), and
jupyter_client would treat it as its own: remove the file and open it again by name (a link put
there in between makes root overwrite a file of the user's choosing), read it back after the
launch (a FIFO holds the grader there). Here root writes it afresh without following links and
never reads it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from jupyter_client.connect import KernelConnectionInfo, port_names
from jupyter_client.manager import AsyncKernelManager
from traitlets import default

from lib.grading import sandbox
from lib.grading.frugal_session import FrugalSession
from lib.notebooks import ThisPython


class BoxedManager(AsyncKernelManager):
    """A kernel manager whose kernel command goes through `box` (see `lib.grading.sandbox`), and
    whose clients decode only what the grader reads (`FrugalSession`). Boxed, its connection
    file and sockets lie in a folder the kernel's user `owner` writes in (`boxed_manager`)."""

    box: Callable[[list[str]], list[str]] | None = None
    owner: int | None = None

    @default("session")
    def _frugal_session(self) -> FrugalSession:
        return FrugalSession(parent=self)

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        command = super().format_kernel_cmd(extra_arguments)
        return self.box(command) if self.box else command

    def write_connection_file(self, **kwargs) -> None:
        """Boxed, write the connection file afresh at every kernel start without following a
        link (`sandbox.write_owned`), never jupyter_client's way: it removes the file, opens
        it again by name in the user's folder and changes that folder's mode. The sockets are
        `kernel-1` to `kernel-5` there, fixed: the folder is this kernel's alone."""
        if self.box is None:
            super().write_connection_file(**kwargs)
            return
        for number, name in enumerate(port_names, 1):
            setattr(self, name, getattr(self, name) or number)
        info = {**self.get_connection_info(), "kernel_name": self.kernel_name, **kwargs}
        info["key"] = info["key"].decode()
        folder, name = Path(self.connection_file).parent, Path(self.connection_file).name
        sandbox.write_owned(folder, name, json.dumps(info, indent=1), self.owner)
        self._connection_file_written = True

    def _reconcile_connection_info(self, info: KernelConnectionInfo) -> None:
        """The provisioner's `info` is ours (`write_connection_file` wrote the file from it).
        jupyter_client would read the file back to compare: boxed, the kernel's user may have
        put a FIFO or a link to /dev/zero there by then, so nothing is read."""
        if self.box is None:
            super()._reconcile_connection_info(info)

    def client(self, **kwargs):
        """The client's sockets come from our context, whose options cap each message's size
        (a client would otherwise make a context of its own)."""
        return super().client(context=self.context, **kwargs)


def boxed_manager(
    runtime: Path, box: Callable[[list[str]], list[str]], owner: int | None
) -> BoxedManager:
    """The manager of a boxed kernel: its command wrapped by `box`, its sockets and connection
    file in `runtime` (a folder its user `owner` writes in), interrupts sent as messages (no
    signal reaches inside a box)."""
    specs = ThisPython()
    specs.interrupt_mode = "message"
    manager = BoxedManager(
        kernel_name="python3",
        kernel_spec_manager=specs,
        transport="ipc",
        ip=str(runtime / "kernel"),
        connection_file=str(runtime / "kernel.json"),
    )
    manager.box, manager.owner = box, owner
    return manager
