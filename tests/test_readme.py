"""The README's promises: CI runs its test command verbatim, every notebook has a Colab badge."""

import re
from pathlib import Path

from lib.notebooks import REPO_URL

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
# The badges open the repository the set-up cell clones (`set-repo` changes both at once).
BADGE = REPO_URL.replace("https://github.com/", "https://colab.research.google.com/github/")
BADGE += "/blob/main/notebooks/{}"


def command_under(heading: str) -> str:
    """The first fenced code block after a README heading."""
    section = README.split(f"\n{heading}\n", 1)[1]
    return re.search(r"```\w*\n(.*?)\n```", section, re.S).group(1).strip()


def test_ci_runs_the_readme_test_command_verbatim():
    command = command_under("## Run every test")
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in ci_lines


def test_every_notebook_has_a_colab_badge():
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert BADGE.format(notebook.name) in README, notebook.name


def test_the_start_command_opens_the_course_folder_and_names_a_lesson_that_exists():
    """`jupyter lab notebooks/` would hide the README and datasets/ from the learner."""
    command = command_under("## Start the course")
    assert command.endswith("python -m jupyter lab"), command
    start = re.search(r"start with `([^`]+)`", README).group(1)
    assert (ROOT / start).is_file(), start
