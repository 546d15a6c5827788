"""The grader's command line: `python -m lib.grade COMMAND ...`, one sub-command a job.

    python -m lib.grade grade SUBMISSIONS... --out DIR   # grade a class (the README's "Grading")
    python -m lib.grade selftest                         # prove this machine can grade
    python -m lib.grade gradescope --out autograder.zip  # build a Gradescope autograder
    python -m lib.grade gradescope-run SUBMISSION RESULTS_JSON   # what run_autograder calls

SUBMISSIONS are notebook files, folders of notebooks (each named after its student), or folders
of per-student folders (each folder named after its student, any notebooks inside). Each notebook
runs in a fresh kernel in a throwaway copy of its folder; then the grader runs every exercise's
checks itself, with this repository's `lib`. `python -m lib.grade SUBMISSIONS... --out DIR`,
without the word `grade`, still grades, as the course's first instructions said. From Python:
`from lib.grade import grade_submissions`.

This module holds the commands' words (argparse); what each does is in `lib.grading.commands`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from lib.grading import commands
from lib.grading.batch import grade_submissions
from lib.grading.gradescope_bundle import lesson_totals
from lib.grading.grading_job import Limits

__all__ = ["Limits", "grade_submissions", "main"]

COMMANDS = ("grade", "gradescope", "gradescope-run", "selftest")


def _add_command(
    subparsers: argparse._SubParsersAction,
    name: str,
    run: Callable,
    summary: str,
    more: str,
    parents: tuple[argparse.ArgumentParser, ...] = (),
) -> argparse.ArgumentParser:
    """A sub-command that `run`s: `summary` is its line in the list of commands, `more` what its
    own --help adds, `parents` the parsers whose options it shares."""
    parser = subparsers.add_parser(
        name,
        help=summary,
        description=f"{summary[0].upper()}{summary[1:]}. {more}",
        parents=list(parents),
    )
    parser.set_defaults(run=run, parser=parser)
    return parser


def _lesson_option(parser: argparse.ArgumentParser) -> None:
    """--lesson N for a Gradescope assignment of one lesson; its help lists each lesson's points."""
    totals = lesson_totals()
    parser.add_argument(
        "--lesson",
        type=int,
        choices=sorted(totals),
        help="score only this lesson's notebooks (one Gradescope assignment per lesson); "
        + ", ".join(f"lesson {n}: {points:g} points" for n, points in sorted(totals.items())),
    )


def _jobs(text: str) -> int:
    """--jobs: a whole number, 1 or more (each kernel's share of /dev/shm divides by it)."""
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number of notebooks, 1 or more")
    return int(text)


def _seconds(text: str) -> float:
    """A time limit: a number of seconds above 0 (no limit is not an option: a stuck notebook
    would hold its slot for ever)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds above 0")
    return value


def _running_options() -> argparse.ArgumentParser:
    """--jobs and --no-progress, which every command that grades notebooks takes."""
    shared = argparse.ArgumentParser(add_help=False)
    shared.add_argument(
        "--jobs",
        type=_jobs,
        default=None,
        help="notebooks graded at the same time (default: CPU cores, at most 4)",
    )
    shared.add_argument("--no-progress", action="store_true", help="no progress bar")
    return shared


def _grade_options(parser: argparse.ArgumentParser) -> None:
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
        type=_seconds,
        default=Limits.cell,
        metavar="SECONDS",
        help="limit for any one cell, and for grading any one exercise (default: %(default)g)",
    )
    parser.add_argument(
        "--notebook-timeout",
        type=_seconds,
        default=Limits.notebook,
        metavar="SECONDS",
        help="limit for running all of one notebook's cells (default: %(default)g)",
    )
    parser.add_argument(
        "--force", action="store_true", help="grade again what an earlier run into --out graded"
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


def _selftest_options(parser: argparse.ArgumentParser) -> None:
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


def parser() -> argparse.ArgumentParser:
    """The whole command line: a sub-command each for grading, the self-test and Gradescope."""
    top = argparse.ArgumentParser(
        prog="python -m lib.grade",
        description="Grade a class's notebooks, prove this machine can, or build a Gradescope "
        "autograder. `python -m lib.grade COMMAND --help` says more of each.",
        epilog="Without a command, `python -m lib.grade SUBMISSIONS... --out DIR` grades, as "
        "`grade` does.",
    )
    subparsers = top.add_subparsers(title="commands", metavar="COMMAND", required=True)
    running = _running_options()
    grade = _add_command(
        subparsers,
        "grade",
        commands.grade,
        "grade a class's notebooks",
        "Each runs in a fresh kernel in a sandbox, then the grader runs every exercise's checks "
        "(the README's Grading section has the whole workflow).",
        parents=(running,),
    )
    _grade_options(grade)
    selftest = _add_command(
        subparsers,
        "selftest",
        commands.run_selftest,
        "prove this machine can grade",
        "It grades the course's own solutions, every lesson as a whole notebook, exactly as "
        "students are graded: run it before the class hands in.",
        parents=(running,),
    )
    _selftest_options(selftest)
    bundle = _add_command(
        subparsers,
        "gradescope",
        commands.build_gradescope,
        "build a Gradescope autograder",
        "Upload the zip as the assignment's autograder (see the README's Grading section).",
    )
    bundle.add_argument("--out", required=True, type=Path, help="the zip file to write")
    _lesson_option(bundle)
    run = _add_command(
        subparsers,
        "gradescope-run",
        commands.run_gradescope,
        "grade one Gradescope submission",
        "Writes its results.json; the bundle's run_autograder runs this.",
    )
    run.add_argument("submission", type=Path, help="folder of the student's files")
    run.add_argument("results", type=Path, help="where to write results.json")
    _lesson_option(run)
    run.add_argument(
        "--allow-blocked-python",
        action="store_true",
        help="without bubblewrap, grade even if a kernel's user cannot start this Python from "
        "its own process (every cell that starts one fails; the output says so)",
    )
    return top


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit status (1 when no notebook was found)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] not in (*COMMANDS, "-h", "--help"):
        argv.insert(0, "grade")  # the first spelling, `python -m lib.grade submissions/ --out x`
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except commands.UsageError as error:
        args.parser.error(str(error))


if __name__ == "__main__":
    sys.exit(main())
