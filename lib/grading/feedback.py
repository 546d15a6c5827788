"""What a student's feedback says, as one model: `of_record` reads it from the grader's record.

The model holds the page's content once, already in words: the title, the notices about the
grading itself (graded without the sandbox; not the version that counts), the score, each
exercise passed or not (with the first failing case, as the notebook's check shows it, and
whether the student opened its solution), what went wrong while the notebook ran, and the
student's written answers under their questions. `feedback_pages` writes it out as Markdown and as
HTML, each escaping what a student could have typed in its own way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lib.grading.tables import number
from lib.grading.versions import total

UNSANDBOXED = (
    "Graded without the sandbox (--no-sandbox): the notebook ran with the instructor's "
    "permissions, so a notebook could have changed results."
)


@dataclass(frozen=True)
class ExerciseFeedback:
    """One exercise's line. `marks`: "full", "partial" or "none" (each page draws its symbol)."""

    name: str
    marks: str
    points: str  # "1 / 2"
    status: str  # "partial; solution opened"
    why: str  # the summary of what failed; "" at full marks
    case: str  # the first failing case as the check prints it; "" at full marks


@dataclass(frozen=True)
class WrittenAnswer:
    """A written answer under the lesson's question (`question` "" when the lesson has none, so
    the page heads it with its `key`)."""

    key: str
    question: str
    text: str


@dataclass(frozen=True)
class Feedback:
    """Everything one feedback page says, in the order it says it."""

    title: str
    submission: str  # the notebook's file name
    notices: list[str]
    not_graded: str  # why the notebook could not be graded; "" when it was
    score: str  # "3 / 5"; "" when not graded
    written: str  # the line on the written answers' marks; "" when not marked yet
    exercises: list[ExerciseFeedback]
    events: list[str]  # what went wrong while the notebook ran
    answers: list[WrittenAnswer]


def title(record: dict) -> str:
    """ "Lesson 3: feedback for Ann Lee", or "Feedback for ..." when the lesson is unknown."""
    if record["lesson"]:
        return f"Lesson {record['lesson']}: feedback for {record['student']}"
    return f"Feedback for {record['student']}"


def notices(record: dict, extra: list[str]) -> list[str]:
    """What to say about the grading itself, before the score."""
    return ([] if record.get("sandboxed", True) else [UNSANDBOXED]) + extra


def _exercise(e: dict, opened: set[str]) -> ExerciseFeedback:
    full = e["score"] >= e["max_score"]
    summary, _, case = e["reason"].partition("\n")
    return ExerciseFeedback(
        name=e["name"],
        marks="full" if full else ("partial" if e["score"] > 0 else "none"),
        points=f"{number(e['score'])} / {number(e['max_score'])}",
        status=e["status"] + ("; solution opened" if e["name"] in opened else ""),
        why=summary if not full else "",
        case=case if not full else "",
    )


def _question(asked: str) -> str:
    """The words of a question as the lesson asks it, without its Markdown heading lines."""
    words = [line.strip() for line in asked.splitlines() if not line.lstrip().startswith("#")]
    return " ".join(line for line in words if line)


def of_record(record: dict, extra: list[str] = (), asked: dict[str, str] | None = None) -> Feedback:
    """The feedback on one graded notebook. `extra`: notices from the report (the version that
    counts); `asked`: the lesson's questions by answer key, to head each written answer."""
    graded = bool(record["exercises"])
    opened = set(record.get("solutions") or [])
    written = ""
    if graded and record.get("written"):
        mark, most = record["written"]
        written = (
            f"Of which your written answers, marked by your instructor: "
            f"{number(mark)} / {number(most)}."
        )
    score = "{} / {}".format(*map(number, total(record))) if graded else ""
    return Feedback(
        title=title(record),
        submission=Path(record["submission"]).name,
        notices=notices(record, list(extra)),
        not_graded="" if graded else record["note"],
        score=score,
        written=written,
        exercises=[_exercise(e, opened) for e in record["exercises"]],
        # An ungraded notebook's note is the reason above: not said twice.
        events=[n for n in [record.get("note") if graded else "", *record.get("events", [])] if n],
        answers=[
            WrittenAnswer(key, _question((asked or {}).get(key, "")), text)
            for key, text in (record.get("answers") or {}).items()
        ],
    )
