"""What the feedback says of a cell that failed once a hidden input was in a kernel: the grader's
own words and at most the error's class from Python's own, never the message the student's code
wrote, which can carry every input it was given (red team 11, door 1). Also the report itself
cannot be stopped by a lone surrogate, whose error said where in the text it stood."""

from __future__ import annotations

import asyncio
import json

import nbformat

from lib.exercises import for_lesson
from lib.exercises.plain import from_wire
from lib.exercises.running import run_cases
from lib.grading.execute import _Run
from lib.grading.grading_job import Job, Limits
from lib.grading.kernel import Kernel

EXERCISE = next(e for e in for_lesson(1) if e.name == "utf8_encode")
SECRET = "9 fb 9e52 ed51"  # what a student's code put in its error: hidden inputs


class _Failing(Kernel):
    """A kernel whose every cell ends with the error `ename: SECRET`, as the kernel reports it."""

    def __init__(self, ename: str):
        super().__init__(nbformat.v4.new_notebook(), probe_seconds=1)
        self.ename = ename

    async def run(self, index, cell, seconds, grading=False):
        self.last_error_name = ""
        reply = {"content": {"ename": self.ename, "evalue": SECRET, "traceback": []}}
        self._note_error(cell, index, reply)
        return self.last_error


def _run(notebook: nbformat.NotebookNode) -> _Run:
    cases = EXERCISE.grading_cases()
    job = Job([EXERCISE], {EXERCISE.name: cases}, Limits(cell=5), import_paths=[])
    return _Run(notebook, job, notebook)


def test_a_grading_cell_that_failed_is_told_in_the_graders_words():
    run = _run(nbformat.v4.new_notebook())
    hidden_from = sum(not case.hidden for case in run.job.cases[EXERCISE.name])
    end = len(run.job.cases[EXERCISE.name])
    for ename, told in [("KeyboardInterrupt", "KeyboardInterrupt"), ("Mine\ud800", "an error")]:
        row = asyncio.run(run._ask(_Failing(ename), EXERCISE, hidden_from, end))
        assert row["status"] == "error"
        assert row["reason"] == f"could not be graded: grading it stopped with {told}", row


def test_a_cell_error_after_a_hidden_case_is_named_without_its_message():
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    run = _run(notebook)
    asyncio.run(run.run_cells(_Failing("ValueError")))
    assert run.events == [f"cell 1 (`x = 1`) raised ValueError: {SECRET}"]  # nothing hidden yet
    run.events.clear()
    run.hidden_sent = True  # as `_ask` sets it once it sends a hidden case
    asyncio.run(run.run_cells(_Failing("ValueError")))
    assert run.events == ["cell 1 (`x = 1`) raised ValueError"]


def test_a_lone_surrogate_cannot_stop_the_report():
    """The kernel sends its report as UTF-8 JSON (`ensure_ascii=False`, as jupyter_client packs
    it): an answer or an error's message holding '\\ud800' is sent all the same, and the answer
    reaches the judge exactly. (A class's name cannot hold one: Python refuses it.)"""

    def answers(n: int):
        if n == 0:
            return ["a\ud800", {"\udfff": b"x"}]
        raise ValueError(f"at \ud800 {n}")

    outcomes = run_cases(answers, [((n,), {}) for n in range(2)], None)
    sent = json.dumps(outcomes, ensure_ascii=False).encode("utf-8")  # raised before: "position N"
    assert from_wire(json.loads(sent)[0]["returned"]) == ["a\ud800", {"\udfff": b"x"}]
