"""Shared test set-up: the grader's signing key lives in a per-run temporary folder, never in the
home folder of whoever runs the tests; the class chart's PNG is drawn only by the tests of the
chart; the other Pythons' runs start early and are awaited last; property tests have no
per-example deadline."""

from __future__ import annotations

import faulthandler
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# No per-example deadline in any property test (twelve modules already said so one by one): on a
# loaded CI machine one example of test_streaming's took 316 ms against hypothesis' default
# 200 ms, and its rerun 0.5 ms, which failed the run as "unreliable timings". What a property
# test proves is its property; time is what the timing tests measure, with their own margins.
settings.register_profile("course", deadline=None)
settings.load_profile("course")


@pytest.fixture(autouse=True, scope="session")
def _grader_key(tmp_path_factory):
    patch = pytest.MonkeyPatch()
    patch.setenv("COURSE_GRADER_KEY_FILE", str(tmp_path_factory.mktemp("key") / "grader-key"))
    yield
    patch.undo()


@pytest.fixture(autouse=True, scope="session")
def _real_chart_drawing():
    """Every batch a test grades ends with the class chart, whose PNG starts a Chromium (2 CPU
    seconds, 6-15 s of waiting on a busy machine; some twenty batches a run). Outside the tests
    marked `draws_chart` the grader finds no browser, a case it handles (no PNG, one line saying
    so), and draws nothing. Patched for the whole session, so that a batch graded once per module
    (a module-scoped fixture, set up before any function-scoped one) draws nothing either; the
    real drawing is what this fixture gives. (The Gradescope runs, in processes of their own,
    write no reports at all: `grade_submissions(with_reports=False)`.)"""
    from lib.grading import summary_chart

    real, patch = summary_chart._drawn, pytest.MonkeyPatch()
    patch.setattr(summary_chart, "_drawn", lambda figure_json: None)
    yield real
    patch.undo()


@pytest.fixture(autouse=True)
def _chart_png_only_where_tested(request, monkeypatch, _real_chart_drawing):
    """The tests marked `draws_chart` draw the chart's PNG as the grader does."""
    if request.node.get_closest_marker("draws_chart") is not None:
        from lib.grading import summary_chart

        monkeypatch.setattr(summary_chart, "_drawn", _real_chart_drawing)


def pytest_configure(config):
    """When asked for, start the oldest and newest Pythons' runs (tests/test_other_pythons.py) in
    the background at once, so that they overlap the whole session; their test, moved to the
    end, waits for them. Only the process that configures the session starts them: under
    pytest-xdist its workers, started after this, find the runs in their environment."""
    if hasattr(config, "workerinput"):  # a pytest-xdist worker
        return
    import test_other_pythons as other  # tests/ is on sys.path: this conftest's folder

    asked_for = [Path(config.invocation_params.dir, arg.split("::")[0]) for arg in config.args]
    here = Path(other.__file__).resolve()
    if other.wanted() and any(p.resolve() in (here, *here.parents) for p in asked_for):
        other.publish(other.start_all())


def pytest_collection_modifyitems(items):
    """The other Pythons' test waits for their runs: last, so that it holds no worker early."""
    late = [item for item in items if item.nodeid.startswith("tests/test_other_pythons.py")]
    items[:] = [item for item in items if item not in late] + late


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """A run that has printed its summary should end at once. A measured run here lingered for
    eleven minutes after it, with 34 threads alive; should anything keep the process (a thread, an
    exit handler), every thread's stack is printed every two minutes, so the log says what. Not in
    a pytest-xdist worker: it waits, idle, for the session's last worker by design."""
    if hasattr(config, "workerinput"):
        return
    faulthandler.dump_traceback_later(120, repeat=True, file=sys.__stderr__)
