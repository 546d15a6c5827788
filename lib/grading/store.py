"""Remembering graded submissions, so an interrupted run picks up where it stopped.

`records.jsonl` in the output folder gets one JSON line per submission the moment it is graded,
signed with an HMAC whose key lives outside the output folder (by default in the instructor's
`~/.config`, which no sandboxed kernel can see). On resume only lines carrying a valid signature
are believed: a line someone appended or edited is ignored and counted. A submission is its
student and its file's path; a record counts for it while the file's sha256 is unchanged, so a
resubmitted file is graded again and replaces the old record. The same student's same contents
at another path (the class folder copied elsewhere) is the same submission, not a new one.
`drop` forgets submissions (a signed line saying so), for a file that should not count.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

from lib.grading.submissions import Submission, clean

FILE_NAME = "records.jsonl"
KEY_VAR = "COURSE_GRADER_KEY_FILE"


def key_file() -> Path:
    """Where the signing key is kept: `$COURSE_GRADER_KEY_FILE`, else under `~/.config`."""
    configured = os.environ.get(KEY_VAR)
    if configured:
        return Path(configured)
    config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return config / "tokenization-course" / "grader-key"


def signing_key() -> bytes:
    """The instructor's signing key, made (readable by its owner only) on first use."""
    path = key_file()
    if not path.exists():  # written whole, then linked: graders starting at once share one key
        path.parent.mkdir(parents=True, exist_ok=True)
        fresh = path.with_name(f".{path.name}-{os.getpid()}-{secrets.token_hex(4)}")
        descriptor = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(secrets.token_hex(32))
        try:
            os.link(fresh, path)
        except FileExistsError:  # another grader's came first: that one is the key
            pass
        finally:
            fresh.unlink()
    return bytes.fromhex(path.read_text().strip())


def _signature(key: bytes, body: str) -> str:
    return hmac.new(key, body.encode("utf-8"), hashlib.sha256).hexdigest()


def secret(key: bytes, purpose: str) -> str:
    """A secret for `purpose`, the same on every run with this signing key, that nobody
    without the key can work out (a salt of the hidden cases)."""
    return _signature(key, f"secret for {purpose}")[:32]


def _slot(record: dict) -> tuple[str, str]:
    return (record["student"], record["submission"])


class RecordStore:
    """The records of one output folder; a later line replaces an earlier one for the same
    submission. `rejected` counts the lines that were not signed by this grader."""

    def __init__(self, out_dir: Path, key: bytes | None = None):
        self.path = Path(out_dir) / FILE_NAME
        self.key = key if key is not None else signing_key()
        self.records: dict[tuple[str, str], dict] = {}
        self.rejected = 0
        text = self.path.read_text(encoding="utf-8", errors="replace") if self.path.exists() else ""
        self._cut_short = bool(text) and not text.endswith("\n")  # the next line must start afresh
        for line in text.splitlines():
            try:
                signed = json.loads(line)
                body, mac = signed["record"], signed["hmac"]
                if not hmac.compare_digest(_signature(self.key, body), str(mac)):
                    raise ValueError("not signed by this grader")
                record = json.loads(body)
                if record.get("dropped"):
                    self.records.pop(_slot(record), None)
                else:
                    self.records[_slot(record)] = record
            except (ValueError, KeyError, TypeError):  # forged, edited, or cut short by a kill
                self.rejected += bool(line.strip())

    def secret(self, purpose: str) -> str:
        """This grader's `secret` for `purpose` (the hidden cases' salt)."""
        return secret(self.key, purpose)

    def get(self, submission: Submission) -> dict | None:
        """The record of this very file (same student, path and contents), if there is one."""
        record = self.records.get((submission.student, clean(str(submission.path))))
        if record and record["sha256"] == submission.sha256:
            return record
        same = (submission.student, submission.sha256)  # the same file, copied elsewhere
        return next((r for r in self.records.values() if (r["student"], r["sha256"]) == same), None)

    def all(self) -> list[dict]:
        """Every submission's latest record, from this run and all earlier runs into the folder."""
        return list(self.records.values())

    def drop(self, path: Path) -> list[dict]:
        """Forget the submissions of file `path`, or of every file under folder `path`, on this
        run and every later one. Returns the records forgotten."""
        where = os.path.abspath(path)
        gone = [
            r
            for r in self.all()
            if os.path.abspath(r["submission"]) == where
            or os.path.abspath(r["submission"]).startswith(where + os.sep)
        ]
        for record in gone:
            self.add(
                {"student": record["student"], "submission": record["submission"], "dropped": True}
            )
        return gone

    def add(self, record: dict) -> None:
        """Keep `record` and write it to disk at once (flushed and synced: a crash right after
        must not lose it)."""
        if record.get("dropped"):
            self.records.pop(_slot(record), None)
        else:
            self.records[_slot(record)] = record
        self.path.parent.mkdir(parents=True, exist_ok=True)
        body = json.dumps(record, ensure_ascii=False)
        line = json.dumps({"record": body, "hmac": _signature(self.key, body)}, ensure_ascii=False)
        with self.path.open("a", encoding="utf-8") as file:
            if self._cut_short:
                file.write("\n")
                self._cut_short = False
            file.write(line + "\n")
            file.flush()
            os.fsync(file.fileno())
