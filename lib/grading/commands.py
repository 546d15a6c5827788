"""What each of `python -m lib.grade`'s commands does, once its words are read (`lib.grade`).

Each function takes the parsed arguments and returns the exit status. A mistake in the
instructor's words (a folder that is not there, a roster that cannot be read) raises `UsageError`
with what to do; `lib.grade` prints it under the command's usage, as argparse does its own.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time

from lib.grading import gradescope, selftest
from lib.grading.batch import CourseDataMissing, grade_submissions
from lib.grading.gradescope_bundle import build_bundle, lesson_totals
from lib.grading.grading_job import Limits
from lib.grading.roster import load_roster
from lib.grading.run_summary import summary
from lib.grading.sandbox import SandboxUnavailable

NO_SANDBOX_WARNING = (
    "grading without a sandbox: every student's code runs with your permissions and can read, "
    "change or delete your files, use the network and outlive the run. Grade this way only on a "
    "throwaway machine or container; every report records it."
)


class UsageError(Exception):
    """The command's words ask for something that cannot be done; the message says what to do."""


def grade(args: argparse.Namespace) -> int:
    """`grade SUBMISSIONS... --out DIR`: grade a class; 1 when no notebook was found."""
    if args.no_sandbox:
        print(f"WARNING: {NO_SANDBOX_WARNING}", file=sys.stderr)
    started = time.monotonic()
    run_started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    try:
        roster = load_roster(args.roster) if args.roster else None
    except ValueError as error:  # says which row or column is wrong
        raise UsageError(str(error)) from None
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
        raise UsageError(str(error)) from None
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


def build_gradescope(args: argparse.Namespace) -> int:
    """`gradescope --out autograder.zip [--lesson N]`: write the autograder bundle."""
    if args.out.suffix != ".zip" or args.out.is_dir():
        raise UsageError(f"--out {args.out}: give the name of a .zip file to write")
    try:
        names = build_bundle(args.out, args.lesson)
    except OSError as error:
        raise UsageError(
            f"cannot write {args.out} ({error.strerror}): choose a writable folder"
        ) from None
    print(f"Wrote {args.out} ({len(names)} files). Upload it as the assignment's autograder.")
    if args.lesson:
        points = lesson_totals()[args.lesson]
        print(f"It scores lesson {args.lesson} only: set the assignment's points to {points:g}.")
    return 0


def run_gradescope(args: argparse.Namespace) -> int:
    """`gradescope-run SUBMISSION_DIR RESULTS_JSON [--lesson N]`, as run_autograder calls it."""
    results = gradescope.run(args.submission, args.results, args.lesson, args.allow_blocked_python)
    print(results["output"], f"\nScore: {results['score']:g}", sep="\n")
    return 0


def run_selftest(args: argparse.Namespace) -> int:
    """`selftest`: grade every lesson's solutions; 0 when all earn full marks."""
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
