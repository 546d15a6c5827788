"""The GitHub workflows cannot run here, so actionlint reads them (their syntax, expressions, the
inputs each action takes), and these tests check that they do what the README promises."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / ".github" / "workflows"
actionlint = shutil.which("actionlint")
needs_actionlint = pytest.mark.skipif(
    actionlint is None, reason="needs actionlint (requirements.txt installs it on Linux x86-64)"
)


def lint(*paths: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [actionlint, "-no-color", *map(str, paths)], capture_output=True, text=True, timeout=120
    )


@needs_actionlint
def test_actionlint_finds_nothing_wrong_in_the_workflows():
    workflows = sorted(WORKFLOWS.glob("*.yml"))
    assert [path.name for path in workflows] == ["site.yml", "tests.yml"]
    run = lint(*workflows)
    assert run.returncode == 0, run.stdout + run.stderr


@needs_actionlint
def test_actionlint_catches_a_mistake(tmp_path):
    """So that the check above can fail: a misspelt context and an input the action lacks."""
    broken = (WORKFLOWS / "site.yml").read_text(encoding="utf-8")
    broken = broken.replace("steps.deployment.outputs", "steps.deploymnet.outputs")
    broken = broken.replace("path: _site", "folder: _site")
    (tmp_path / "site.yml").write_text(broken, encoding="utf-8")
    run = lint(tmp_path / "site.yml")
    assert run.returncode == 1
    assert "deploymnet" in run.stdout and 'input "folder" is not defined' in run.stdout


def readme_test_command() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Run every test", 1)[1]
    return re.search(r"```bash\n(.*?)\n```", section, re.S).group(1)


def test_the_tests_workflow_runs_the_readmes_command_with_its_pythons_and_tools():
    workflow = (WORKFLOWS / "tests.yml").read_text(encoding="utf-8")
    assert re.search(r"^on:\n  push:\n  pull_request:\n", workflow, re.M)
    assert f"run: {readme_test_command()}\n" in workflow
    pythons = re.search(r"python-version: \|\n((?: +\S+\n)+)", workflow).group(1).split()
    assert {"3.10", "3.13"} <= set(pythons)  # the README's range, found by test_other_pythons.py
    assert "apt-get install -y -qq bubblewrap" in workflow and "setup-chrome" in workflow
    assert 'COURSE_REQUIRE_PYTHONS: "1"' in workflow and "COURSE_DATA_MIRROR:" not in workflow
    assert "data.fetch_all()" in workflow  # downloads the data before the tests


def test_the_site_workflow_publishes_what_the_site_command_builds():
    workflow = (WORKFLOWS / "site.yml").read_text(encoding="utf-8")
    assert re.search(r"^on:\n  push:\n    branches: \[main\]\n", workflow, re.M)
    assert "python -m lib.notebooks site --out _site\n" in workflow
    assert re.search(r"upload-pages-artifact@v\d+\n +with:\n +path: _site\n", workflow)
    assert "actions/deploy-pages@" in workflow and "pages: write" in workflow


def test_ci_here_still_runs_the_readmes_command():
    """.ci/run stays the CI of the machines the course is made on."""
    assert (ROOT / ".ci" / "run").read_text().rstrip().endswith(readme_test_command())
