"""What a boxed kernel can see: the paths bound read-only into its box, and its environment.

A kernel may read Python (the environment and the interpreter it was made from), what can be
imported from the course's import folders (their packages and modules, never the folders
themselves: the repository may hold submissions and grades) and the course data. Its environment
is an allow-list, so the instructor's tokens and keys stay outside.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PASSED_THROUGH = ("LANG", "LC_ALL", "TZ", "COURSE_DATA_MIRROR", "TIKTOKEN_CACHE_DIR")


def readonly_paths(import_paths: tuple[str, ...]) -> list[str]:
    """What a kernel may read besides the system: Python (the environment and the interpreter it
    was made from), what can be imported from the import folders (their packages and modules,
    not the folders themselves: the course's repository may hold submissions and grades), the
    course's `datasets` and the course data."""
    data = [os.environ.get(var, "") for var in ("COURSE_DATA_MIRROR", "TIKTOKEN_CACHE_DIR")]
    data.append(os.environ.get("COURSE_DATA_CACHE", ""))
    code = [str(p) for folder in import_paths for p in _importable(Path(folder))]
    paths = [sys.prefix, sys.base_prefix, *code, *filter(None, data)]
    return sorted({str(Path(p).resolve()) for p in paths if p and Path(p).exists()})


def _importable(folder: Path) -> list[Path]:
    """The modules and packages directly in `folder`, and its `datasets` (the course's data)."""
    if not folder.is_dir():
        return []
    return [
        entry
        for entry in folder.iterdir()
        if entry.name == "datasets"
        or (entry.suffix == ".py" and entry.is_file())
        or (entry / "__init__.py").is_file()
    ]


def exposed(paths: list[Path], readonly: list[str]) -> list[Path]:
    """Those of `paths` (submissions, --out) that a kernel could read: inside a bound folder."""
    bound = [Path(p) for p in readonly]
    return [p for p in paths if any(p.resolve().is_relative_to(b) for b in bound)]


def environment(import_paths: tuple[str, ...], scratch: str = "/tmp") -> dict[str, str]:
    """The kernel's whole environment: an allow-list, never the instructor's own variables.
    `scratch` is its own writable folder for temporary files, home and IPython's settings (the
    box's private /tmp, or a folder of its own where there is no box)."""
    env = {name: os.environ[name] for name in PASSED_THROUGH if os.environ.get(name)}
    env.setdefault("LANG", "C.UTF-8")
    env.update(
        PATH=os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"]),
        HOME=f"{scratch}/home",
        TMPDIR=scratch,
        IPYTHONDIR=f"{scratch}/ipython",
        PYTHONPATH=os.pathsep.join(import_paths),
        PYTHONHASHSEED="0",
        PYTHONNOUSERSITE="1",
        MPLBACKEND="Agg",
        PIP_NO_INDEX="1",  # `!pip install` fails fast instead of waiting for a network
    )
    if os.environ.get("COURSE_DATA_CACHE"):
        env["COURSE_DATA_CACHE"] = os.environ["COURSE_DATA_CACHE"]
    return env
