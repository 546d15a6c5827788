"""Grade a class's notebooks: `python -m lib.grade SUBMISSIONS... --out DIR`.

SUBMISSIONS are notebook files, folders of notebooks (each named after its student), or folders
of per-student folders (each folder named after its student, any notebooks inside). Each notebook
runs in a fresh kernel in a throwaway copy of its folder; then the grader runs every exercise's
checks itself, in that kernel, with this repository's `lib`. The README's "Grading" section has
the whole workflow. From Python: `from lib.grade import grade_submissions`.

`python -m lib.grade gradescope --out autograder.zip` builds a Gradescope autograder instead (see
lib/grading/gradescope.py); its `run_autograder` calls `python -m lib.grade gradescope-run`.
`python -m lib.grade selftest` grades the course's own solutions to prove the machine can grade
(lib/grading/selftest.py).
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from pathlib import Path

from lib.grading import gradescope, selftest
from lib.grading.batch import CourseDataMissing, grade_submissions
from lib.grading.execute import Limits
from lib.grading.reports import summary
from lib.grading.roster import load_roster
from lib.grading.sandbox import SandboxUnavailable

__all__ = ["Limits", "grade_submissions", "main"]

NO_SANDBOX_WARNING = (
    "grading without a sandbox: every student's code runs with your permissions and can read, "
    "change or delete your files, use the network and outlive the run. Grade this way only on a "
    "throwaway machine or container; every report records it."
)


def _lesson_option(parser: argparse.ArgumentParser) -> None:
    totals = gradescope.lesson_totals()
    parser.add_argument(
        "--lesson",
        type=int,
        choices=sorted(totals),
        help="score only this lesson's notebooks (one Gradescope assignment per lesson); "
        + ", ".join(f"lesson {n}: {points:g} points" for n, points in sorted(totals.items())),
    )


def build_gradescope(argv: list[str]) -> int:
    """`python -m lib.grade gradescope --out autograder.zip`: write the autograder bundle."""
    parser = argparse.ArgumentParser(
        prog="python -m lib.grade gradescope",
        description="Build a Gradescope autograder (upload the zip as the assignment's "
        "autograder; see the README's Grading section).",
    )
    parser.add_argument("--out", required=True, type=Path, help="the zip file to write")
    _lesson_option(parser)
    args = parser.parse_args(argv)
    if args.out.suffix != ".zip" or args.out.is_dir():
        parser.error(f"--out {args.out}: give the name of a .zip file to write")
    try:
        names = gradescope.build_bundle(args.out, args.lesson)
    except OSError as error:
        parser.error(f"cannot write {args.out} ({error.strerror}): choose a writable folder")
    print(f"Wrote {args.out} ({len(names)} files). Upload it as the assignment's autograder.")
    if args.lesson:
        points = gradescope.lesson_totals()[args.lesson]
        print(f"It scores lesson {args.lesson} only: set the assignment's points to {points:g}.")
    return 0


def run_gradescope(argv: list[str]) -> int:
    """`python -m lib.grade gradescope-run SUBMISSION_DIR RESULTS_JSON`, as run_autograder does."""
    parser = argparse.ArgumentParser(prog="python -m lib.grade gradescope-run")
    parser.add_argument("submission", type=Path, help="folder of the student's files")
    parser.add_argument("results", type=Path, help="where to write results.json")
    _lesson_option(parser)
    args = parser.parse_args(argv)
    results = gradescope.run(args.submission, args.results, args.lesson)
    print(results["output"], f"\nScore: {results['score']:g}", sep="\n")
    return 0


def run_selftest(argv: list[str]) -> int:
    """`python -m lib.grade selftest`: grade every lesson's solutions; 0 when all earn full."""
    parser = argparse.ArgumentParser(
        prog="python -m lib.grade selftest",
        description="Grade the course's own solutions, every lesson as a whole notebook, "
        "exactly as students are graded: run it before the class hands in.",
    )
    parser.add_argument("--jobs", type=int, default=None, help="notebooks at a time")
    parser.add_argument(
        "--lesson",
        type=int,
        action="append",
        metavar="N",
        help="only this lesson (repeat for several; default: every lesson)",
    )
    parser.add_argument(
        "--sandbox-if-available",
        action="store_true",
        help="grade without the sandbox where bubblewrap cannot run, as the Gradescope "
        "autograder does (its setup.sh uses this)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    try:
        text, ready = selftest.run(
            jobs=args.jobs,
            lessons=set(args.lesson) if args.lesson else None,
            sandboxed=None if args.sandbox_if_available else True,
            progress=not args.no_progress,
        )
    except SandboxUnavailable as error:
        print(f"NOT READY: {error}")
        return 1
    print(text)
    return 0 if ready else 1


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit status (1 when no notebook was found)."""
    argv = sys.argv[1:] if argv is None else argv
    # Sub-commands are recognised before argparse, which would take them for a submission.
    if argv[:1] == ["gradescope"]:
        return build_gradescope(argv[1:])
    if argv[:1] == ["gradescope-run"]:
        return run_gradescope(argv[1:])
    if argv[:1] == ["selftest"]:
        return run_selftest(argv[1:])
    parser = argparse.ArgumentParser(
        prog="python -m lib.grade",
        description=__doc__.split("\n\n")[0],
        epilog="python -m lib.grade gradescope --out autograder.zip builds a Gradescope "
        "autograder instead; python -m lib.grade selftest proves this machine can grade (to "
        "grade a folder named 'gradescope' or 'selftest', write ./gradescope).",
    )
    parser.add_argument("submissions", nargs="+", help="notebooks, or folders of them")
    parser.add_argument(
        "--out",
        required=True,
        type=Path,
        help="folder for grades.csv, totals.csv, feedback/ and answers.md "
        "(created if missing; grading into it again resumes)",
    )
    parser.add_argument(
        "--cell-timeout",
        type=float,
        default=Limits.cell,
        metavar="SECONDS",
        help="limit for any one cell, and for grading any one exercise (default: %(default)g)",
    )
    parser.add_argument(
        "--notebook-timeout",
        type=float,
        default=Limits.notebook,
        metavar="SECONDS",
        help="limit for running all of one notebook's cells (default: %(default)g)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="notebooks graded at the same time (default: CPU cores, at most 4)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="grade again what an earlier run into --out already graded",
    )
    parser.add_argument(
        "--retry-failed",
        action="store_true",
        help="grade again the submissions an earlier run could not grade fully "
        "(time-outs, crashes, errors)",
    )
    parser.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run the students' code WITHOUT the bubblewrap sandbox, with your permissions "
        "(only where bwrap cannot run; every report says so)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--roster",
        type=Path,
        metavar="PATH",
        help="class list CSV (name and id columns): ids in gradebook.csv, roster_report.md",
    )
    parser.add_argument(
        "--drop",
        action="append",
        default=[],
        type=Path,
        metavar="PATH",
        help="forget what --out holds for this notebook (or every notebook under this folder): "
        "its rows leave every table; may be given more than once",
    )
    args = parser.parse_args(argv)
    if args.no_sandbox:
        print(f"WARNING: {NO_SANDBOX_WARNING}", file=sys.stderr)
    started = time.monotonic()
    run_started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    try:
        roster = load_roster(args.roster) if args.roster else None
    except ValueError as error:
        parser.error(str(error))
    try:
        records = grade_submissions(
            args.submissions,
            args.out,
            limits=Limits(args.cell_timeout, args.notebook_timeout),
            jobs=args.jobs,
            force=args.force,
            retry_failed=args.retry_failed,
            sandboxed=not args.no_sandbox,
            progress=not args.no_progress,
            roster=roster,
            drop=tuple(args.drop),
        )
    except (FileNotFoundError, SandboxUnavailable, CourseDataMissing) as error:
        parser.error(str(error))
    except KeyboardInterrupt:
        print(
            f"\nInterrupted. What was graded is kept in {args.out}: run the same command again "
            "to grade the rest."
        )
        return 130
    if not records:
        print("No notebooks (.ipynb) found in", *args.submissions)
        return 1
    print(summary(records, time.monotonic() - started, args.out, since=run_started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
