"""Grading a whole class (`grade_submissions`): what to grade (new, changed, failed, dropped),
refusing to start where grading would blame the students for the machine (no course data, the
submissions where a kernel can read them); then every submission through `parallel_grading`, the
signed records and the instructor's reports written after every notebook, so an interrupted run
keeps its work.
"""

from __future__ import annotations

import os
from pathlib import Path

from tqdm import tqdm

from lib.grading import kept_roster, memory_group, protections, reports, sandbox, similarity
from lib.grading.demo_cells import handout_code
from lib.grading.grading_job import Limits
from lib.grading.grading_settings import Settings
from lib.grading.notebook import answer_questions, handout_prose, handouts, load_catalog
from lib.grading.parallel_grading import grade_all, run_to_end
from lib.grading.prepare import ROOT
from lib.grading.roster import Student
from lib.grading.store import RecordStore
from lib.grading.submissions import Submission, clean, find_submissions

RETRIED = {"timeout", "crashed", "error"}  # what --retry-failed grades again


def needs_retry(record: dict) -> bool:
    """Did grading fail for reasons that may pass another time (a time-out, a crash, an error)?"""
    return record["outcome"] == "error" or any(e["status"] in RETRIED for e in record["exercises"])


class CourseDataMissing(RuntimeError):
    """The course data cannot be had here: grading would blame every student for it."""


def _warm_data_cache() -> None:
    """Fetch every course data file now, in the grader: inside a sandbox the cache is read-only
    and there is no network. Without the data every student's cell that reads it would raise,
    and their feedback would blame them (with this machine's paths in it), so stop instead."""
    from lib import data

    try:
        data.fetch_all()
    except data.DataError as error:
        first = " ".join(str(error).split())[:300]
        raise CourseDataMissing(
            f"the course data is not available ({first}). Nothing was graded: connect to the "
            f"internet, or set {data.MIRROR_VAR} to a copy of the course's data mirror, and "
            "run the same command again."
        ) from None


def _refuse_exposed(paths: list[Path], import_paths: tuple[str, ...]) -> None:
    """Refuse to grade when a kernel could read the submissions or --out: they lie inside what
    the box shows every kernel (the course's packages, its data, the Python environment)."""
    inside = sandbox.exposed(paths, sandbox.readonly_paths(tuple(import_paths)))
    if inside:
        raise sandbox.SandboxUnavailable(
            f"{clean(str(inside[0]))} is inside a folder every student's kernel can read (the "
            "course's code or data, or the Python environment): move the submissions and --out "
            "elsewhere (the repository root itself is fine)."
        )


def grade_submissions(
    paths: list[str | Path],
    out_dir: str | Path,
    *,
    limits: Limits | None = None,
    jobs: int | None = None,
    force: bool = False,
    retry_failed: bool = False,
    sandboxed: bool = True,
    own_user_fallback: bool = False,
    allow_blocked_python: bool = False,
    progress: bool = True,
    registry: str = "lib.exercises",
    import_paths: tuple[str, ...] = (str(ROOT),),
    questions_from: Path = ROOT / "notebooks",
    roster: list[Student] | None = None,
    drop: tuple[str | Path, ...] = (),
    student_id: str = "",
    salt: str = "",
    with_reports: bool = True,
) -> list[dict]:
    """Grade every notebook in `paths` (files, folders of notebooks, folders of per-student
    folders) into `out_dir`, `jobs` at a time (default: the CPU count, at most 4), each in a
    sandbox unless `sandboxed=False` (`own_user_fallback`, `allow_blocked_python`: see
    `sandbox.choose`). Submissions
    an earlier run already graded into `out_dir` are kept unless `force` (or, with
    `retry_failed`, unless a time-out, crash or error spoiled them). `questions_from` holds the
    lesson notebooks as handed out (for the written answers' questions and for recognising
    lessons). A `roster` is kept in `out_dir` and reused by a later run given none
    (`kept_roster`). `drop`: files or folders whose submissions `out_dir` should forget (a file
    removed from the class, say). Returns this run's records, one per submission; the reports
    list every record in `out_dir`, from earlier runs too. The hidden cases are drawn for each
    student (`Settings.student_of`; `student_id`: one student's, for all of them) with `salt`,
    by default a secret of the signing key (`RecordStore.secret`). `with_reports=False` writes the
    records only: no tables, pages, similarity or chart, for a caller that throws `out_dir`
    away (Gradescope's run, whose results.json is made from the records)."""
    boxed = sandbox.choose(own_user_fallback, allow_blocked_python) if sandboxed else False
    if sandboxed and os.geteuid() == 0 and not memory_group.available():
        print("Note: no memory cgroup can be made here: each kernel process is capped, not a box.")
    jobs = jobs or min(4, os.cpu_count() or 1)
    crowded = sandboxed and not boxed and sandbox.fence_works() and protections.shm_crowded(jobs)
    if crowded:  # each guarded kernel's share of /dev/shm is too small: `shm_space.share`
        print(crowded)
    out_dir = Path(out_dir)
    # One submission per student and contents: the class folder copied elsewhere is not new.
    found: dict[tuple[str, str], Submission] = {}
    for submission in find_submissions(paths):
        found.setdefault((submission.student, submission.sha256), submission)
    submissions = list(found.values())
    if not submissions and not drop:  # nothing to grade: no empty tables in an empty folder
        return []
    if boxed:
        _refuse_exposed([out_dir, *(s.folder or s.path for s in submissions)], import_paths)
    store = RecordStore(out_dir)
    for path in drop:
        gone = store.drop(path)
        print(f"Dropped {len(gone)} submission(s) of {path} from {out_dir}.")
    roster, note = kept_roster.roster_for(out_dir, roster)
    if note:
        print(note)
    if store.rejected:
        print(f"Ignored {store.rejected} line(s) of {store.path} not written by this grader.")
    catalog = load_catalog(registry)
    lessons = list(handouts(Path(questions_from)))  # read once: four readers below
    settings = Settings(
        limits or Limits(),
        registry,
        tuple(import_paths),
        catalog,
        handout_prose(lessons),
        sandboxed,
        salt=salt or store.secret("hidden cases"),
        boxed=boxed,
        roster=roster or [],
        student_id=student_id,
        caps=sandbox.Caps(kernels=jobs),
        handout_code=handout_code(lessons, catalog),
    )
    questions, references = {}, {}  # what only the reports read
    if with_reports:
        questions = answer_questions(lessons)
        references = similarity.references(settings.catalog, lessons)

    def stale(submission: Submission) -> bool:
        record = store.get(submission)
        return force or record is None or (retry_failed and needs_retry(record))

    todo = [s for s in submissions if stale(s)]
    if todo and registry == "lib.exercises":
        _warm_data_cache()

    def write_reports(charts: bool = False) -> None:
        if not with_reports:
            return
        reports.write_all(
            out_dir, store.all(), questions, roster, charts=charts, references=references
        )

    bar = tqdm(
        total=len(submissions),
        initial=len(submissions) - len(todo),
        unit="notebook",
        desc="Grading",
        disable=not progress,
    )

    unsaved: dict[str, dict] = {}  # records a full disk kept out of the store

    def done(record: dict) -> None:
        try:
            store.add(record)
            write_reports()  # after every notebook, so an interrupted run keeps what it did
        except OSError as error:  # costs this notebook's row, never the batch
            unsaved[record["submission"]] = record
            bar.write(
                f"Could not save {record['student']}'s grade ({error.strerror}): the next run "
                "grades that notebook again."
            )
        bar.set_postfix_str(record["student"][:20])
        bar.update()

    write_reports()
    try:
        run_to_end(grade_all(todo, settings, jobs, done))
    finally:
        bar.close()
    try:
        write_reports(charts=True)  # the chart once, at the end: its PNG starts a browser
    except OSError as error:
        print(f"Could not write the reports in {out_dir} ({error.strerror}).")
    return [store.get(s) or unsaved.get(clean(str(s.path))) for s in submissions]
