"""Shared test set-up: the grader's signing key lives in a per-run temporary folder, never in the
home folder of whoever runs the tests; the other Pythons' runs start early and are awaited last."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _grader_key(tmp_path_factory):
    patch = pytest.MonkeyPatch()
    patch.setenv("COURSE_GRADER_KEY_FILE", str(tmp_path_factory.mktemp("key") / "grader-key"))
    yield
    patch.undo()


def pytest_collection_finish(session):
    """When asked for, start the oldest and newest Pythons' runs (tests/test_other_pythons.py) in
    the background now, and move their test to the end, where it waits for them: they overlap the
    rest of the session instead of adding to it."""
    late = [item for item in session.items if item.nodeid.startswith("tests/test_other_pythons.py")]
    if not late:
        return
    session.items[:] = [item for item in session.items if item not in late] + late
    module = late[0].module
    if module.wanted():
        module.STARTED = module.start_all()
