"""The Python versions the README promises are the ones requirements.txt and the tools target.

tests/test_other_pythons.py installs the course on the oldest and newest of them and runs the
unit tests there.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent


def stated_range() -> tuple[int, int]:
    """The minor versions of the README's "Python 3.X to 3.Y"."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.findall(r"\bPython 3\.(\d+) to 3\.(\d+)\b", readme)
    assert len(found) == 1, "the README should state the Python range once, as 'Python 3.X to 3.Y'"
    oldest, newest = map(int, found[0])
    return oldest, newest


def requirements() -> dict[str, list[Requirement]]:
    """requirements.txt's lines by package name, in file order."""
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    by_name = defaultdict(list)
    for line in lines:
        if line.strip() and not line.startswith("#"):
            requirement = Requirement(line)
            by_name[requirement.name].append(requirement)
    return by_name


def test_readme_range_is_what_the_tools_target():
    oldest, newest = stated_range()
    assert (oldest, newest) == (10, 13)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'target-version = "py3{oldest}"' in pyproject  # ruff flags syntax newer than that


def test_every_package_has_exactly_one_pin_on_every_supported_python():
    oldest, newest = stated_range()
    for name, lines in requirements().items():
        for minor in range(oldest, newest + 1):
            environment = {"python_version": f"3.{minor}"}
            pins = [
                str(r.specifier) for r in lines if not r.marker or r.marker.evaluate(environment)
            ]
            assert len(pins) == 1, f"{name} on Python 3.{minor}: {pins or 'no pin'}"
            assert pins[0].startswith("=="), f"{name} should be pinned exactly, not {pins[0]}"


def test_markers_split_inside_the_range_and_the_newest_pin_comes_last():
    """A marker about a version outside the range would be dead; the Colab set-up cell (Python
    3.12 or 3.13) keeps the last line of each name, so that line must be the one for them."""
    oldest, newest = stated_range()
    marked = {name: lines for name, lines in requirements().items() if len(lines) > 1}
    assert marked, "expected some packages with a pin per Python (see requirements.txt)"
    for name, lines in marked.items():
        for requirement in lines:
            for minor in re.findall(r'python_version\s*\S+\s*"3\.(\d+)"', str(requirement.marker)):
                assert oldest < int(minor) <= newest, f"{name}: {requirement.marker}"
        assert lines[-1].marker.evaluate({"python_version": f"3.{newest}"}), name
