"""Shared test set-up: the grader's signing key lives in a per-run temporary folder, never in the
home folder of whoever runs the tests."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _grader_key(tmp_path_factory):
    patch = pytest.MonkeyPatch()
    patch.setenv("COURSE_GRADER_KEY_FILE", str(tmp_path_factory.mktemp("key") / "grader-key"))
    yield
    patch.undo()
