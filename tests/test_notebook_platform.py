"""The notebook platform: the set-up cell (locally and on a simulated Colab), `regenerate`, and
strict nbval on progress bars, plotly figures, token views, timings and memory addresses."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from lib.notebooks import REPO_URL, SETUP_CELL, VERSION, normalize, problems, regenerate

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

# Runs the set-up cell as a notebook would, then reports where `lib` came from and which pip
# commands the cell ran (pip itself is replaced: the test machine has no internet).
DRIVER = """\
import importlib.util, os, subprocess, sys, types
if os.environ.get("FAKE_COLAB"):
    sys.modules["google.colab"] = types.ModuleType("google.colab")
missing, pip_calls, real_run, real_find_spec = os.environ.get("MISSING", "").split(), [], \\
    subprocess.run, importlib.util.find_spec
def run(command, *args, **kwargs):
    if command[0] == "git":
        return real_run(command, *args, **kwargs)
    pip_calls.append(command[1:])
    return subprocess.CompletedProcess(command, int(os.environ.get("PIP_FAILS", "0")), "", "")
subprocess.run = run
importlib.util.find_spec = lambda name, *a: None if name in missing else real_find_spec(name, *a)
exec(open(os.environ["SETUP_CELL_FILE"], encoding="utf-8").read())
import lib
print("lib:", lib.__file__)
print("pip:", pip_calls)
"""


def run_setup_cell(tmp_path: Path, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    (tmp_path / "setup_cell.py").write_text(SETUP_CELL, encoding="utf-8")
    (tmp_path / "driver.py").write_text(DRIVER, encoding="utf-8")
    environment = {**os.environ, "SETUP_CELL_FILE": str(tmp_path / "setup_cell.py"), **env}
    environment.pop("PYTHONPATH", None)
    # -I: the repository must not be importable unless the set-up cell makes it so.
    return subprocess.run(
        [sys.executable, "-I", str(tmp_path / "driver.py")],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("folder", ["notebooks", ".", "lib/exercises"])
def test_setup_cell_finds_the_course_locally_and_says_nothing(tmp_path, folder):
    done = run_setup_cell(tmp_path, ROOT / folder)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"lib: {ROOT / 'lib' / '__init__.py'}\npip: []\n"


def test_setup_cell_outside_the_course_says_where_to_open_it(tmp_path):
    done = run_setup_cell(tmp_path, tmp_path)
    assert done.returncode != 0
    assert "RuntimeError: Open this notebook from inside the course folder." in done.stderr


def snapshot_of_the_working_tree(tmp_path: Path) -> str:
    """A git repository holding what the course needs on Colab, as a file:// URL to clone."""
    remote = tmp_path / "remote"
    shutil.copytree(ROOT / "lib", remote / "lib", ignore=shutil.ignore_patterns("__pycache__"))
    (remote / "datasets").mkdir()
    shutil.copy(ROOT / "datasets" / "manifest.json", remote / "datasets")
    shutil.copy(ROOT / "requirements.txt", remote)
    git = ["git", "-C", str(remote), "-c", "user.name=test", "-c", "user.email=test@example.com"]
    for command in (["init", "--quiet"], ["add", "--all"], ["commit", "--quiet", "-m", "snapshot"]):
        subprocess.run(git + command, check=True, capture_output=True)
    return remote.as_uri()


def test_setup_cell_on_colab_clones_once_and_installs_only_what_is_missing(tmp_path):
    elsewhere, clone = tmp_path / "content", tmp_path / "content" / "tokenization-course"
    elsewhere.mkdir()
    colab = dict(
        FAKE_COLAB="1",
        COURSE_REPO_URL=snapshot_of_the_working_tree(tmp_path),
        COURSE_DIR=str(clone),
    )
    pooch = re.search(r"^pooch\S*", (ROOT / "requirements.txt").read_text(), re.M).group()

    first = run_setup_cell(tmp_path, elsewhere, MISSING="pooch", **colab)
    assert first.returncode == 0, first.stderr
    assert first.stdout == (
        f"Downloading the course from {colab['COURSE_REPO_URL']}\nInstalling {pooch}\n"
        f"lib: {clone / 'lib' / '__init__.py'}\n"
        f"pip: [['-m', 'pip', 'install', '--quiet', '{pooch}']]\n"
    )

    again = run_setup_cell(tmp_path, elsewhere, **colab)  # cloned already, nothing missing
    assert again.returncode == 0, again.stderr
    assert again.stdout == f"lib: {clone / 'lib' / '__init__.py'}\npip: []\n"


def test_setup_cell_on_colab_fails_with_a_short_message_and_never_strands_lib(tmp_path):
    content = tmp_path / "content"
    content.mkdir()
    unreachable = run_setup_cell(
        tmp_path, content, FAKE_COLAB="1", COURSE_REPO_URL="file:///no/such/course",
        COURSE_DIR=str(content / "course"),
    )  # fmt: skip
    assert unreachable.returncode != 0
    assert "Could not download the course from file:///no/such/course" in unreachable.stderr
    assert "Traceback" not in unreachable.stderr and len(unreachable.stderr.splitlines()) <= 2

    colab = dict(FAKE_COLAB="1", COURSE_REPO_URL=snapshot_of_the_working_tree(tmp_path))
    colab["COURSE_DIR"] = str(content / "tokenization-course")
    pip_fails = run_setup_cell(tmp_path, content, MISSING="pooch", PIP_FAILS="1", **colab)
    assert pip_fails.returncode == 0, pip_fails.stderr  # the lesson goes on, and says why
    assert "Could not install pooch==" in pip_fails.stdout and "lib: " in pip_fails.stdout


def test_setup_cell_says_when_an_existing_clone_is_older_than_the_notebook(tmp_path):
    clone = tmp_path / "content" / "tokenization-course"
    shutil.copytree(ROOT / "lib", clone / "lib", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "requirements.txt", clone)
    init = clone / "lib" / "__init__.py"
    init.write_text(re.sub(r'__version__ = ".*"', '__version__ = "2000.01.01"', init.read_text()))
    done = run_setup_cell(tmp_path, clone.parent, FAKE_COLAB="1", COURSE_DIR=str(clone))
    assert done.returncode == 0, done.stderr
    assert f"The course in {clone} is older than this notebook" in done.stdout
    assert f"!git -C {clone} pull" in done.stdout


def test_set_repo_points_badges_setup_cells_and_lib_at_the_published_course(tmp_path):
    from lib import notebooks

    for part in ("README.md", "lib/notebooks.py"):
        (tmp_path / part).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / part, tmp_path / part)
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks")
    changed = notebooks.set_repo("ada/tokenization-course", root=tmp_path)
    assert len(changed) == 2 + len(NOTEBOOKS)
    readme = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "github/ada/tokenization-course/blob/main/notebooks/" in readme
    assert notebooks.PLACEHOLDER_URL.split("github.com/")[1] not in readme
    module = (tmp_path / "lib/notebooks.py").read_text(encoding="utf-8")
    assert 'REPO_URL = "https://github.com/ada/tokenization-course"' in module
    for path in (tmp_path / "notebooks").glob("*.ipynb"):
        assert "https://github.com/ada/tokenization-course" in path.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="not OWNER/NAME"):
        notebooks.set_repo("not a repository", root=tmp_path)


def test_check_release_fails_while_the_address_is_a_placeholder(capsys):
    from lib import notebooks

    assert notebooks.REPO_URL == notebooks.PLACEHOLDER_URL  # until the course is published
    assert notebooks.main(["check", "--release", str(NOTEBOOKS[0])]) == 1
    assert "still the placeholder" in capsys.readouterr().out


def test_setup_cell_clones_the_repository_of_the_readme_badges():
    readme = ROOT / "README.md"
    if not readme.exists():
        pytest.skip("README.md is not written yet")
    badges = re.findall(
        r"colab\.research\.google\.com/github/([\w.-]+/[\w.-]+)/blob/",
        readme.read_text(encoding="utf-8"),
    )
    assert badges and {f"https://github.com/{repo}" for repo in badges} == {REPO_URL}
    assert f'"{REPO_URL}"' in SETUP_CELL


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_as_regenerate_leaves_it(path):
    """Set-up cell current, execution counts 1..N from one clean run, no timestamps or widget
    state: `python -m lib.notebooks regenerate` fixes any of these."""
    assert problems(nbformat.read(path, as_version=4)) == []


def test_normalize_keeps_lesson_metadata_and_drops_run_metadata():
    nb = nbformat.v4.new_notebook(
        metadata={
            "course": {"lesson": 3},
            "widgets": {"state": {}},
            "colab": {"provenance": []},
            "kernelspec": {"name": "python3-venv", "display_name": "venv", "language": "python"},
            "language_info": {"name": "python", "version": "3.11.7"},
        }
    )
    nb.cells = [
        nbformat.v4.new_code_cell(
            "1",
            metadata={
                "tags": ["exercise"],
                "exercise": "merge",
                "execution": {"iopub.status.busy": "2024"},
                "scrolled": True,
            },
        )
    ]
    normalize(nb)
    assert nb.metadata == {
        "course": {"lesson": 3, "version": VERSION},
        "language_info": {"name": "python"},
        "kernelspec": {
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
            "name": "python3",
        },
    }
    assert nb.cells[0].metadata == {"tags": ["exercise"], "exercise": "merge"}


PROBE_CELLS = [
    "from lib import data, viz\nfrom lib.progress import progress, someone_is_watching\n"
    "data.ensure_tiktoken_cache()\nprint('a person is watching:', someone_is_watching())",
    "sum(progress(range(300_000), desc='counting'))",
    "from lib import Tokenizer\ntext = data.read_text('the-verdict')[:5000]\n"
    "Tokenizer.train(text, vocab_size=300, progress=True).merges[:3]",
    "viz.bar_chart(['a', 'b'], [3, 1], 'Letters', 'letter', 'count (letters)')",
    "viz.line_chart([1, 2], {'x': [1.5, 2.5]}, 'Lines', 'merges (count)', 'bytes per token')",
    "viz.show_tokens('नमस्ते, world', data.tiktoken_encoding('cl100k_base'), show_ids=True)",
    "%time sum(range(1000))",
    "print(object())",
    "import warnings\nwarnings.warn('from a cell')\n"
    "warnings.warn_explicit('from lib', UserWarning, viz.__file__, 1)",
]


def course_folder(folder: Path) -> Path:
    """A folder laid out like the course (lib/ linked to this repository's), for notebooks."""
    (folder / "notebooks").mkdir(parents=True)
    (folder / "datasets").mkdir()
    (folder / "lib").symlink_to(ROOT / "lib")
    shutil.copy(ROOT / "datasets" / "manifest.json", folder / "datasets")
    return folder


@pytest.mark.end_to_end
def test_regenerated_notebook_passes_strict_nbval(tmp_path):
    """A notebook with everything that could be unstable, regenerated in one course folder, then
    compared by nbval in another (as CI does) with this repository's pytest settings. A changed
    output must fail."""
    here, there = course_folder(tmp_path / "here"), course_folder(tmp_path / "there")
    nb = nbformat.v4.new_notebook(metadata={"course": {"lesson": 0}, "widgets": {"state": {}}})
    nb.cells = [nbformat.v4.new_markdown_cell("# Probe"), nbformat.v4.new_code_cell("# SETUP")]
    nb.cells += [nbformat.v4.new_code_cell(source) for source in PROBE_CELLS]
    probe = here / "notebooks" / "probe.ipynb"
    nbformat.write(nb, probe)

    regenerate(probe)
    stored = nbformat.read(probe, as_version=4)
    assert problems(stored) == []
    outputs = [o for cell in stored.cells[2:-1] for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("name") == "stderr"], "no progress bars stored"
    assert stored.cells[2].outputs[0].text == "a person is watching: False\n"
    assert stored.cells[3].outputs[0].text == "counting: 300,000/300,000\n"  # the bar's last line
    assert stored.cells[3].outputs[1].data["text/plain"] == str(sum(range(300_000)))
    assert stored.cells[4].outputs[0].text == "merges: 44/44\n"
    figures = [cell.outputs[0].data for cell in stored.cells[5:7]]
    assert all(f["image/png"].startswith("iVBORw0KGgo") for f in figures)  # PNG, base64
    assert str(here / "lib" / "viz.py") in stored.cells[-1].outputs[0].text  # the warning

    nbformat.write(stored, there / "notebooks" / "probe.ipynb")
    stored.cells[3].outputs[1].data["text/plain"] = "42"
    nbformat.write(stored, there / "notebooks" / "tampered.ipynb")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            str(ROOT / "pyproject.toml"),
            "--rootdir",
            str(there),
            "-p",
            "no:cacheprovider",
            "-n=0",  # two notebooks: workers would cost more than they save
            "-q",
            str(there / "notebooks"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    summary = done.stdout.strip().splitlines()[-1]
    assert re.match(rf"1 failed, {2 * len(PROBE_CELLS) + 1} passed", summary), done.stdout
    assert re.search(r"FAILED \S*tampered\.ipynb::Cell 2\b", done.stdout)  # the changed cell


def test_progress_outside_a_kernel_is_tqdm_on_stderr(capsys):
    from lib.progress import progress, someone_is_watching

    assert someone_is_watching()  # plain Python: a terminal, or a log someone reads
    assert list(progress(range(3), desc="counting")) == [0, 1, 2]
    assert "counting: 100%" in capsys.readouterr().err
    assert list(progress(range(3), desc="quiet", enabled=False)) == [0, 1, 2]
    bar = progress(total=2, enabled=False)
    bar.update(2)
    bar.close()
    assert capsys.readouterr().err == ""


def test_progress_bar_shows_when_a_person_runs_the_cell():
    """Jupyter, Colab and VS Code send cells with allow_stdin=True; batch runners send False."""
    from jupyter_client.manager import KernelManager

    from lib.notebooks import ThisPython

    kernel = KernelManager(kernel_name="python3", kernel_spec_manager=ThisPython())
    kernel.start_kernel(cwd=str(ROOT))
    client = kernel.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        code = "from lib.progress import progress\nfor _ in progress(range(3), desc='merges'): pass"
        shown = {}
        for allow_stdin in (True, False):
            outputs = []
            client.execute_interactive(
                code, allow_stdin=allow_stdin, timeout=60, output_hook=outputs.append
            )
            shown[allow_stdin] = [
                o["content"]
                for o in outputs
                if o["msg_type"] in ("stream", "display_data", "update_display_data")
            ]
    finally:
        client.stop_channels()
        kernel.shutdown_kernel(now=True)
    # A person sees tqdm's widget, replaced by one plain line when it ends; a batch run gets
    # only that line.
    assert shown[True][0]["data"]["application/vnd.jupyter.widget-view+json"]
    assert shown[True][-1]["data"] == {"text/plain": "merges: 3/3"}
    assert shown[False] == [{"name": "stdout", "text": "merges: 3/3\n"}]


def test_check_reports_a_figure_without_its_static_image():
    figure = {"data": [{"type": "bar", "x": ["a"], "y": [1]}], "layout": {}}
    output = nbformat.v4.new_output("display_data", data={"application/vnd.plotly.v1+json": figure})
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# L"), nbformat.v4.new_code_cell(SETUP_CELL)]
    nb.cells += [nbformat.v4.new_code_cell("chart()", execution_count=2, outputs=[output])]
    nb.cells[1].execution_count = 1
    normalize(nb)
    assert problems(nb) == ["1 plotly figure(s) without a static image"]
    output.data["image/png"] = "iVBORw0KGgo="
    assert problems(nb) == []


def test_a_widget_view_is_not_stored_but_its_html_is():
    """A stored widget view names a model of a kernel long gone: a broken widget on reopening
    and on GitHub. `regenerate` keeps the output's HTML (the playground's rows) instead."""
    view = {"version_major": 2, "version_minor": 0, "model_id": "4f1c"}
    data = {
        "application/vnd.jupyter.widget-view+json": view,
        "text/html": "<b>rows</b>",
        "text/plain": "rows",
    }
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# L"), nbformat.v4.new_code_cell(SETUP_CELL)]
    output = nbformat.v4.new_output("execute_result", data=data, execution_count=2)
    nb.cells += [nbformat.v4.new_code_cell("playground()", execution_count=2, outputs=[output])]
    nb.cells[1].execution_count = 1
    stored = "a cell stores a widget's view (run `regenerate`: it keeps the HTML)"
    assert stored in problems(nb)
    normalize(nb)
    assert nb.cells[2].outputs[0].data == {"text/html": "<b>rows</b>", "text/plain": "rows"}
    assert problems(nb) == []
    nb.cells[2].source += "\n"  # what ruff format refuses (test_house), and regenerate trims
    assert problems(nb) == ["a code cell ends in a newline (ruff format's layout has none)"]
