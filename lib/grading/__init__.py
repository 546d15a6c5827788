"""The instructor's batch grader, in small pieces (`python -m lib.grade` is the way in).

- `submissions`: finding the submitted notebooks and reading them safely.
- `notebook`: what a notebook says without running it (lesson, answers), and the catalog.
- `sandbox`: the bubblewrap box, limits and clean environment each kernel runs in.
- `kernel`: one kernel driven through nbclient: run a cell within a time limit, report how it went.
- `grading_job`: what one submission's grading is given (`Job`, `Limits`) and the rows it makes.
- `execute`: run a whole notebook, survive what it does, then have the kernel call the student's
  functions and judge what came back, here.
- `kernel_side`: the few lines that run *inside* the student's kernel to call and report.
- `store`: the signed record of what was graded, for resuming.
- `reports` (every file of --out), `grade_tables`, `tables`, `feedback` (one model) and
  `feedback_pages` (its Markdown and HTML), `gradebook`, `roster`, `versions`, `summary_chart`:
  the CSVs, pages and chart an instructor reads; `run_summary`: what a run prints at its end.
- `grading_settings`: how a class is graded, and each student's cases; `one_submission`: grading
  one notebook, start to record; `parallel_grading`: a few at a time, each within a deadline;
  `batch`: the whole class.
- `commands`: what each of `python -m lib.grade`'s commands does once its words are read.
- `gradescope_bundle`, `gradescope`, `gradescope_results`: the same grader as a Gradescope
  autograder: the zip to upload, one submission graded in its container, and results.json.
- `exercise_code`, `similarity`, `similarity_report`: each exercise's code as written, compared
  across the class and with the published solution (copydetect), in similarity.html and .csv.
- `solved`, `selftest`, `protections`: the lessons with their solutions filled in, graded as a
  class would be to prove the machine; the line saying which protections were in force.

Nothing is imported here on purpose: the kernel imports `lib.grading.kernel_side` and should not
pay for (or be affected by) the rest.
"""
