"""The instructor's batch grader, in small pieces (`python -m lib.grade` is the way in).

- `notebook`: finding submissions, and reading what a notebook says without running it.
- `kernel`: one kernel driven through nbclient: run a cell within a time limit, report how it went.
- `execute`: run a whole notebook, survive what it does, then grade it inside its kernel.
- `kernel_side`: the few lines that run *inside* the student's kernel to grade and report.
- `store`, `reports`, `batch`: remembering results, writing the CSVs and pages, the whole run.
- `gradescope`: the same grader as a Gradescope autograder, and results in Gradescope's format.

Nothing is imported here on purpose: the kernel imports `lib.grading.kernel_side` and should not
pay for (or be affected by) the rest.
"""
