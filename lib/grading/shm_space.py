"""The space of /dev/shm and a user's part of it, as `shm_guard` counts it: one listing (the
fence lets a kernel make only plain files there, in no folder) and one statvfs, whose used
space and inodes beyond the listing's are the files without a name.

Only the standard library: `sandbox` runs this file's source ahead of `shm_guard`'s.
"""

import os

SHM = "/dev/shm"
# A kernel's share never goes below this, however many --jobs: a process pool's semaphores take
# a page each. Past size / FLOOR - 1 kernels the shares can fill /dev/shm (the grader says so).
FLOOR = 4 * 2**20


def share(size: int, kernels: int) -> int:
    """What each of `kernels` kernels guarded at once may keep in a /dev/shm of `size` bytes: an
    equal part, one part left over for the machine (and a neighbour's pool), at least `FLOOR`."""
    return max(size // (kernels + 1), FLOOR)


def usage(uid: int, folder: str = SHM) -> tuple[int, int, int, int]:
    """The bytes (as allocated) and the number of the entries `uid` owns in `folder`, and the
    bytes and the number of all its entries, anyone's."""
    used = count = everyone = names = 0
    with os.scandir(folder) as entries:
        for entry in entries:
            try:
                status = entry.stat(follow_symlinks=False)
            except OSError:  # removed meanwhile
                continue
            everyone, names = everyone + status.st_blocks * 512, names + 1
            if status.st_uid == uid:
                used, count = used + status.st_blocks * 512, count + 1
    return used, count, everyone, names


def nameless(everyone: int, names: int, folder: str = SHM) -> tuple[int, int]:
    """The bytes and the inodes `folder`'s filesystem holds in files without a name (unlinked
    but open, mapped or run, or made by O_TMPFILE): statvfs's used space beyond `everyone`, the
    listing's sum, and its inodes in use beyond the listing's `names` and the folder itself.
    A file of no byte takes an inode all the same, and inodes run out before space can."""
    space = os.statvfs(folder)
    used = (space.f_blocks - space.f_bfree) * space.f_frsize
    return max(used - everyone, 0), max(space.f_files - space.f_ffree - names - 1, 0)
