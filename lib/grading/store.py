"""Remembering graded submissions, so an interrupted run picks up where it stopped.

`records.jsonl` in the output folder gets one JSON line per submission the moment it is graded.
A submission is identified by its student and the sha256 of its file: the same file is not
graded twice, and a file that changed (a resubmission) is graded again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from lib.grading.notebook import Submission

FILE_NAME = "records.jsonl"


def key(student: str, sha256: str) -> tuple[str, str]:
    return (student, sha256)


class RecordStore:
    """The records of one output folder; later lines replace earlier ones with the same key."""

    def __init__(self, out_dir: Path):
        self.path = Path(out_dir) / FILE_NAME
        self.records: dict[tuple[str, str], dict] = {}
        text = self.path.read_text(encoding="utf-8", errors="replace") if self.path.exists() else ""
        self._cut_short = bool(text) and not text.endswith("\n")  # the next line must start afresh
        for line in text.splitlines():
            try:
                record = json.loads(line)
                self.records[key(record["student"], record["sha256"])] = record
            except (ValueError, KeyError, TypeError):  # a line cut short when a run was killed
                continue

    def get(self, submission: Submission) -> dict | None:
        return self.records.get(key(submission.student, submission.sha256))

    def add(self, record: dict) -> None:
        """Keep `record` and write it to disk at once (flushed and synced: a crash right after
        must not lose it)."""
        self.records[key(record["student"], record["sha256"])] = record
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as file:
            if self._cut_short:
                file.write("\n")
                self._cut_short = False
            file.write(json.dumps(record, ensure_ascii=False) + "\n")
            file.flush()
            os.fsync(file.fileno())
