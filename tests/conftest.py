"""Shared test set-up: the grader's signing key lives in a per-run temporary folder, never in the
home folder of whoever runs the tests; the class chart's PNG is drawn only by the tests of the
chart; the other Pythons' runs start early and are awaited last."""

from __future__ import annotations

import faulthandler
import sys

import pytest


@pytest.fixture(autouse=True, scope="session")
def _grader_key(tmp_path_factory):
    patch = pytest.MonkeyPatch()
    patch.setenv("COURSE_GRADER_KEY_FILE", str(tmp_path_factory.mktemp("key") / "grader-key"))
    yield
    patch.undo()


@pytest.fixture(autouse=True)
def _chart_png_only_where_tested(request, monkeypatch):
    """Every batch a test grades ends with the class chart, whose PNG starts a Chromium (2 CPU
    seconds, 6-15 s of waiting on a busy machine; some twenty batches a run). Elsewhere than in
    the tests marked `draws_chart` the grader finds no browser, a case it handles (no PNG, one
    line saying so), and draws nothing. The Gradescope runs, in processes of their own, draw."""
    chart = sys.modules.get("lib.grading.summary_chart")  # imported by whatever grades
    if chart is not None and request.node.get_closest_marker("draws_chart") is None:
        monkeypatch.setattr(chart, "_drawn", lambda figure_json: None)


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


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """A run that has printed its summary should end at once. A measured run here lingered for
    eleven minutes after it, with 34 threads alive; should anything keep the process (a thread, an
    exit handler), every thread's stack is printed every two minutes, so the log says what."""
    faulthandler.dump_traceback_later(120, repeat=True, file=sys.__stderr__)
