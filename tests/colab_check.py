"""Run every lesson as Google Colab would: Colab's preinstalled packages, a fake `google.colab`,
and the set-up cell cloning the course from a snapshot of this working tree.

    python tests/colab_check.py --python /root/.pyenv/versions/3.13.0/bin/python

Not collected by pytest (slow: builds a virtual environment, then runs all lessons). It prints
one line per lesson (passed, or the first error: cell index, exception and message) and exits
1 if any lesson failed. Only the standard library is imported at the top, because the same file
runs a single lesson inside the Colab-like environment (`--run-one`), where `lib` and pytest
are deliberately absent.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What Colab has preinstalled, at the versions Colab ships (issue 11); nothing from
# requirements.txt. nbclient and nbformat are not the learner's: they drive the run.
COLAB_PINS = ["IPython==7.34.0", "ipykernel==6.17.1", "ipywidgets==7.7.1", "plotly==5.24.1"]
COLAB_PINS += ["pooch==1.9.0"]
COLAB_ALSO = ["tiktoken", "regex", "tqdm", "tokenizers", "sentencepiece", "numpy"]
DRIVERS = ["nbclient", "nbformat"]
# Colab marks itself by the module `google.colab`; the set-up cell checks for it.
FAKE_COLAB = 'import sys, types\nsys.modules["google.colab"] = types.ModuleType("google.colab")\n'


def build_venv(python: str, venv: Path) -> Path:
    """Create (or reuse) `venv` with Colab's packages; stop with a clear message if they
    cannot install on this Python (IPython 7.34 predates the newest Pythons)."""
    bin_python = venv / "bin" / "python"
    if not bin_python.exists():
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
    for packages in (COLAB_PINS, COLAB_ALSO + DRIVERS):
        pip = [str(bin_python), "-m", "pip", "install", "--quiet", *packages]
        done = subprocess.run(pip, capture_output=True, text=True)
        if done.returncode:
            errors = [line for line in done.stderr.splitlines() if "ERROR" in line]
            sys.exit(
                f"Colab's packages do not install on {python}: pip install {' '.join(packages)}"
                f" failed:\n  " + "\n  ".join(errors[-3:] or ["(no message)"])
            )
    return bin_python


def run_one(notebook: Path, cwd: Path) -> dict:
    """Execute `notebook` top to bottom in a fresh kernel (of the Python running this);
    return its status, first error and the kernel's Python version."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(notebook, as_version=4)
    client = NotebookClient(
        nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
    )
    result: dict = {"status": "passed"}
    try:
        client.execute()
    except CellExecutionError:
        result["status"] = "failed"
    for index, cell in enumerate(nb.cells):
        errors = [o for o in cell.get("outputs", []) if o.output_type == "error"]
        if errors:
            result.update(status="failed", cell=index, ename=errors[0].ename)
            result["evalue"] = errors[0].evalue
            break
    result["python"] = nb.metadata.get("language_info", {}).get("version", "?")
    return result


def check(python: str, venv: Path, notebooks: list[Path]) -> bool:
    """Run each lesson in its own fresh 'Colab runtime'; print one line each; True if all pass."""
    sys.path.insert(0, str(ROOT))
    from tests.test_notebook_platform import snapshot_of_the_working_tree

    bin_python = build_venv(python, venv)
    work = Path(tempfile.mkdtemp(prefix="colab-run-", dir=venv.parent))
    url = snapshot_of_the_working_tree(work)
    ipython_dir = work / "ipython"
    startup = ipython_dir / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-fake-colab.py").write_text(FAKE_COLAB, encoding="utf-8")
    shared = os.environ.get("COURSE_DATA_MIRROR", "/work/shared")
    all_passed = True
    for notebook in notebooks:
        content = work / notebook.stem / "content"  # as /content on a new Colab runtime
        content.mkdir(parents=True)
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env.update(
            IPYTHONDIR=str(ipython_dir),
            COURSE_REPO_URL=url,
            COURSE_DIR=str(content / "tokenization-course"),
            COURSE_DATA_MIRROR=shared,
            # Colab downloads tiktoken's files from the internet; the mirror stands in for it.
            TIKTOKEN_CACHE_DIR=os.environ.get("TIKTOKEN_CACHE_DIR", f"{shared}/tiktoken_cache"),
        )
        command = [str(bin_python), __file__, "--run-one", str(notebook), "--cwd", str(content)]
        start = time.perf_counter()
        done = subprocess.run(command, env=env, cwd=content, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        try:
            result = json.loads(done.stdout.splitlines()[-1])
        except (IndexError, json.JSONDecodeError):
            tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
            result = {"status": "failed", "cell": "-", "ename": "driver", "evalue": tail[0]}
        line = f"{notebook.name:36} {result['status']:6} {seconds:6.1f} s"
        if result["status"] != "passed":
            all_passed = False
            evalue = str(result["evalue"]).splitlines()[0][:160] if result["evalue"] else ""
            line += f"  cell {result['cell']}: {result['ename']}: {evalue}"
        print(line, f"(kernel Python {result.get('python', '?')})", flush=True)
    if all_passed:  # ~40 MB of clones and caches; kept after a failure, to look into
        shutil.rmtree(work)
    else:
        print("The failed runtimes' folders are in", work)
    return all_passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", help="the Python to build the Colab-like venv from")
    parser.add_argument("--venv", type=Path, help="default: /var/tmp/colab-X.Y.Z")
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every lesson")
    parser.add_argument("--run-one", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--cwd", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run_one:  # inside the Colab-like venv
        print(json.dumps(run_one(args.run_one, args.cwd)))
        return
    if not args.python:
        parser.error("say which Python to test with --python")
    version = subprocess.run(
        [args.python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    venv = args.venv or Path(f"/var/tmp/colab-{version}")
    lessons = sorted((ROOT / "notebooks").glob("*.ipynb"))
    notebooks = [n.resolve() for n in args.notebooks] or lessons
    print(f"Colab check on Python {version} ({venv})", flush=True)
    sys.exit(0 if check(args.python, venv, notebooks) else 1)


if __name__ == "__main__":
    main()
