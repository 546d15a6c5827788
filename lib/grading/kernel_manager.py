"""The kernel manager the grader starts each kernel with: jupyter_client's, with its command
wrapped in the sandbox, its messages decoded frugally, and its connection file kept out of the
reach of the kernel's own user.

Boxed, the connection file and the sockets lie in a folder that user writes in (`runtime`), and
jupyter_client would treat it as its own: remove the file and open it again by name (a link put
there in between makes root overwrite a file of the user's choosing), read it back after the
launch (a FIFO holds the grader there). Here root writes it afresh without following links and
never reads it.

Its sockets too: jupyter_client connects to `runtime/kernel-N` by name, and ZeroMQ connects
again by name whenever a connection drops (a message over the size cap drops it, and the kernel
chooses what it sends). A link put there makes root connect, as root, to any socket of the
machine and write the notebook's cells into it. So once the kernel has made its sockets, each is
opened once, without following links, checked (a socket of the kernel's user) and held open;
every connection, and every reconnection, goes to that very socket (`/proc/self/fd/N`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.connect import KernelConnectionInfo, port_names
from jupyter_client.manager import AsyncKernelManager
from traitlets import default

from lib.grading import sandbox
from lib.grading.frugal_session import FrugalSession
from lib.notebooks import ThisPython

SOCKETS_SECONDS = 120  # for a started kernel to make its sockets (a busy machine is slow)
CHANNELS = [name.removesuffix("_port") for name in port_names]  # shell, iopub, ... hb
_PATH = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC  # the name itself, a link not followed


class KernelSocketRefused(RuntimeError):
    """What the kernel's folder holds under a socket's name is not a socket of the kernel's."""


class PinnedClient(AsyncKernelClient):
    """A client connecting where its boxed manager says: to the sockets it holds open."""

    def _make_url(self, channel: str) -> str:
        if isinstance(self.parent, BoxedManager) and self.parent.box is not None:
            return self.parent._make_url(channel)
        return super()._make_url(channel)


class BoxedManager(AsyncKernelManager):
    """A kernel manager whose kernel command goes through `box` (see `lib.grading.sandbox`), and
    whose clients decode only what the grader reads (`FrugalSession`). Boxed, its connection
    file and sockets lie in a folder the kernel's user `owner` writes in (`boxed_manager`)."""

    box: Callable[[list[str]], list[str]] | None = None
    owner: int | None = None
    _pinned: dict[str, int] | None = None  # channel -> the kernel's socket, held open

    @default("session")
    def _frugal_session(self) -> FrugalSession:
        return FrugalSession(parent=self)

    @default("client_factory")
    def _pinned_client(self) -> type[PinnedClient]:
        return PinnedClient

    async def _async_pre_start_kernel(self, **kw) -> tuple[list[str], dict]:
        """Boxed as a user of its own, first kill whatever that user still runs: without
        namespaces a daemon of the notebook's first run (`setsid`) would otherwise run beside
        the graded kernel, the same uid, and could rewrite it. One kernel at a time per user
        (`OwnUser`), so nothing of the kernel to come is touched. As patient as the reset after
        a notebook (`RESET_SECONDS`, then `LONGER_RESET_SECONDS`); the error says what stayed."""
        if self.box is not None and self.owner is not None:
            left = await asyncio.to_thread(sandbox.unreaped_patiently, self.owner)
            if left is not None:
                raise RuntimeError(
                    "what the notebook's first run left (processes, files in /tmp...) could "
                    f"not be cleaned up before the graded kernel started: {left}"
                )
        return await super()._async_pre_start_kernel(**kw)

    async def _async_post_start_kernel(self, **kw) -> None:
        """Boxed, wait (without holding the event loop) for the kernel's sockets, and hold them
        open before anything connects: the control channel connects next."""
        if self.box is not None:
            await self._pin_sockets()
        await super()._async_post_start_kernel(**kw)

    async def _pin_sockets(self) -> None:
        """Open each socket of the kernel's once, without following links, as soon as the
        kernel has made it. Raises `KernelSocketRefused` (something else is there, or nothing
        in time), or RuntimeError if the kernel exited first."""
        folder, stem = Path(self.ip).parent, Path(self.ip).name
        owner = os.geteuid() if self.owner is None else self.owner
        pinned, end = {}, time.monotonic() + SOCKETS_SECONDS
        directory = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            while len(pinned) < len(CHANNELS):
                for channel in set(CHANNELS) - set(pinned):
                    name = f"{stem}-{getattr(self, f'{channel}_port')}"
                    with contextlib.suppress(FileNotFoundError):  # not made yet
                        fd = os.open(name, _PATH, dir_fd=directory)
                        found = os.fstat(fd)
                        if not stat.S_ISSOCK(found.st_mode) or found.st_uid != owner:
                            os.close(fd)
                            raise KernelSocketRefused(f"{name} is not the kernel's socket")
                        pinned[channel] = fd
                if len(pinned) < len(CHANNELS):
                    if await self.provisioner.poll() is not None:
                        raise RuntimeError("the kernel exited before it made its sockets")
                    if time.monotonic() > end:
                        raise KernelSocketRefused(f"no kernel sockets in {SOCKETS_SECONDS} s")
                    await asyncio.sleep(0.02)
        except BaseException:
            for fd in pinned.values():
                os.close(fd)
            raise
        finally:
            os.close(directory)
        self._pinned = pinned

    def _make_url(self, channel: str) -> str:
        """Boxed, the kernel's socket held open (never its name again); unboxed, TCP as usual."""
        if self.box is None:
            return super()._make_url(channel)
        if not self._pinned:
            raise KernelSocketRefused("the kernel's sockets are not open (it never made them)")
        return f"ipc:///proc/self/fd/{self._pinned[channel]}"

    async def _async_interrupt_kernel(self) -> None:
        """Boxed, an interrupt is a message on the control socket: a kernel whose sockets were
        refused has none to send it on (and is killed at once: `shutdown_kernel` interrupts
        first)."""
        if self.box is None or self._pinned:
            await super()._async_interrupt_kernel()

    interrupt_kernel = _async_interrupt_kernel

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart)
        for fd in (self._pinned or {}).values():  # after every socket connected to it is closed
            os.close(fd)
        self._pinned = None

    cleanup_resources = _async_cleanup_resources

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
