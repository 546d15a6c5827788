"""The set-up cell every lesson starts with: on Colab it fetches the course and installs what
Colab lacks; on a learner's computer it finds the course folder, so that `import lib` and the
data work. `lib.notebooks` fills in where the course is published and its version, and puts the
cell in each notebook.
"""

from __future__ import annotations

# The set-up cell, its address and version filled in by `setup_cell`. Kept as ruff formats it:
# `ruff format` also formats the notebooks.
SETUP_TEMPLATE = r"""
# Set-up: run this cell first. It makes `import lib` (the course's code) and its data work
# on Google Colab and on your own computer. It prints nothing unless it has work to do.
import importlib.util, os, pathlib, re, subprocess, sys

if "google.colab" in sys.modules:  # on Colab: fetch the course and install what Colab lacks
    url = os.environ.get(
        "COURSE_REPO_URL",  # tests point this at a local copy
        "@REPO_URL@",
    )
    root = pathlib.Path(os.environ.get("COURSE_DIR", "/content/tokenization-course"))
    sys.path.insert(0, str(root))  # first: whatever fails below, `import lib` finds the course
    if not (root / "lib").is_dir():
        print("Downloading the course from", url)
        clone = ["git", "clone", "--quiet", "--depth=1", url, str(root)]
        git = subprocess.run(clone, capture_output=True, text=True)
        if git.returncode:
            why = git.stderr.strip().splitlines()[-1:] or ["no message"]
            raise SystemExit(
                f"Could not download the course from {url} ({why[0]}). "
                "Check the address and the internet connection, then run this cell again."
            )
    found = re.search(r'__version__ = "([\d.]+)"', (root / "lib/__init__.py").read_text())
    version = [int(part) for part in found.group(1).split(".")] if found else []
    if version < [@VERSION_PARTS@]:  # compared as numbers: 2026.11.25.10 is newer than .2
        print(
            f"The course in {root} is older than this notebook (version @VERSION@): "
            f"run `!git -C {root} pull` (or delete that folder), then run this cell again."
        )
    requirements = (root / "requirements.txt").read_text()
    pins = dict(re.findall(r"^([\w.-]+)(==[^\s;]*)", requirements, re.M))  # the last pin wins
    wanted = ["tiktoken", "regex", "plotly", "tqdm", "pooch", "hypothesis"]
    missing = [name + pins.get(name, "") for name in wanted if not importlib.util.find_spec(name)]
    if missing:
        print("Installing", *missing)
        pip = [sys.executable, "-m", "pip", "install", "--quiet", *missing]
        if subprocess.run(pip, capture_output=True, text=True).returncode:
            print("Could not install", *missing, "- the cells that need them will fail.")
else:  # on your computer: the course folder is this folder or one above it
    root = pathlib.Path.cwd().resolve()
    while not (root / "lib/__init__.py").exists() or not (root / "datasets/manifest.json").exists():
        if root == root.parent:
            raise RuntimeError("Open this notebook from inside the course folder.")
        root = root.parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))"""


def setup_cell(repo_url: str, version: str) -> str:
    """The set-up cell's code for the course published at `repo_url`, at least at `version`."""
    parts = ", ".join(str(int(part)) for part in version.split("."))
    code = SETUP_TEMPLATE.strip("\n").replace("@REPO_URL@", repo_url)
    return code.replace("@VERSION_PARTS@", parts).replace("@VERSION@", version)
