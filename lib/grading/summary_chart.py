"""How the class did, exercise by exercise: class_summary.csv, summary.md and a chart.

Counted over the submissions that count (one per student and lesson, see `versions`):
`submissions` that include the exercise, how many `attempted` it (any status but `missing` and
`not attempted`), how many `passed` it (full marks), and the mean score in points.

The chart is written twice: summary.html, with plotly.js inside the page (it opens offline), and
summary.png, drawn by kaleido, which needs Chrome or Chromium: kaleido finds `chromium` or
`google-chrome` on the PATH, or the browser named by the environment variable `BROWSER_PATH`.
Without one the PNG is skipped (the run's summary says so) and nothing else changes; a browser
that hangs is killed after two minutes, with the same result.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from plotly.offline import get_plotlyjs

from lib.grading.tables import number, write_bytes, write_text

NOT_TRIED = ("missing", "not attempted")
COLUMNS = ["lesson", "exercise", "max", "submissions", "attempted", "passed", "mean_score"]
# Drawn in the house colours (`viz.COLOURS`, Okabe-Ito: blue, then orange) on a white page.
SERIES = ("Attempted", "Passed")


def class_summary(counting: list[dict]) -> list[dict]:
    """One row per lesson and exercise (exercises in the lesson's order), as in COLUMNS."""
    rows: dict[tuple[int, str], dict] = {}
    for record in sorted(counting, key=lambda r: r["lesson"]):
        for e in record.get("exercises") or []:
            row = rows.setdefault(
                (record["lesson"], e["name"]),
                dict(lesson=record["lesson"], exercise=e["name"], max=e["max_score"], total=0.0),
            )
            row["submissions"] = row.get("submissions", 0) + 1
            row["attempted"] = row.get("attempted", 0) + (e["status"] not in NOT_TRIED)
            row["passed"] = row.get("passed", 0) + (e["status"] == "passed")
            row["total"] += e["score"]
    for row in rows.values():
        row["mean_score"] = round(row.pop("total") / row["submissions"], 2)
    return list(rows.values())


def summary_page(rows: list[dict], warning: str) -> str:
    """summary.md: a table per lesson, and where the chart is."""
    lines = ["# Class summary", ""] + ([warning, ""] if warning else [])
    lines += [
        "Counted over the version of each student's lesson that counts (highest score, then the "
        "latest graded). Chart: `summary.html` (and `summary.png`).",
        "",
    ]
    for lesson in sorted({row["lesson"] for row in rows}):
        lines += [
            f"## Lesson {lesson}",
            "",
            "| Exercise | Points | Submissions | Attempted | Passed | Mean score |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        lines += [
            f"| `{r['exercise']}` | {number(r['max'])} | {r['submissions']} | {r['attempted']} "
            f"| {r['passed']} | {number(r['mean_score'])} |"
            for r in rows
            if r["lesson"] == lesson
        ]
        lines.append("")
    return "\n".join(lines)


def chart(rows: list[dict]):
    """A grouped bar chart: the share of submissions that attempted and that passed each
    exercise. Black text on an explicitly white page, so it reads the same in a dark viewer."""
    from lib import viz  # plotly is imported only when a chart is drawn

    labels = [f"L{r['lesson']} {r['exercise']}" for r in rows]
    series = {name: [100 * r[name.lower()] / r["submissions"] for r in rows] for name in SERIES}
    figure = viz.grouped_bar_chart(
        labels,
        series,
        "Class summary: who attempted and who passed each exercise",
        "Exercise (lesson and name)",
        "Submissions (%)",
        legend_title="",
    )
    figure.update_layout(paper_bgcolor="white", plot_bgcolor="white", font_color="#111111")
    return figure.update_yaxes(range=[0, 100], gridcolor="#dddddd")


def write_chart(out_dir: Path, rows: list[dict]) -> None:
    """Write summary.html and, if kaleido can start a browser, summary.png (else a stale PNG
    from an earlier run is removed, so it never contradicts the HTML; see `png_note`).

    The page loads plotly.js from `plotly.min.js` beside it, written once per folder (again when
    plotly changes): inlined, the 4.8 MB library made a page of ten bars weigh 4.8 MB. Both open
    offline."""
    figure = chart(rows)
    library, code = out_dir / "plotly.min.js", get_plotlyjs()
    if not library.exists() or library.stat().st_size != len(code.encode()):  # new plotly
        write_text(library, code)
    write_text(out_dir / "summary.html", figure.to_html(include_plotlyjs="directory"))
    png = _drawn(figure.to_json())
    if png is not None:
        write_bytes(out_dir / "summary.png", png)
    else:
        (out_dir / "summary.png").unlink(missing_ok=True)


PNG_SECONDS = 120  # drawing takes 3 s, 10-15 s on a busy machine; beyond this the browser is stuck
_DRAW = """import sys, plotly.io as pio
figure = pio.from_json(sys.stdin.read())
sys.stdout.buffer.write(figure.to_image(format="png", width=1000, scale=2))"""


def _drawn(figure_json: str) -> bytes | None:
    """The chart's PNG, drawn by kaleido in a process of its own, or None when there is no
    browser, kaleido fails, or the drawing outlives PNG_SECONDS: then that process and the browser
    it started are killed, since an optional picture must never keep the grader waiting."""
    child = subprocess.Popen(
        [sys.executable, "-c", _DRAW],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, with the browser in it
    )
    try:
        png, _ = child.communicate(figure_json.encode(), timeout=PNG_SECONDS)
    except subprocess.TimeoutExpired:
        png = b""
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)  # a browser that outlived its drawing goes too
        child.wait()
        _wait_for_group(child.pid)
    return png if child.returncode == 0 and png.startswith(b"\x89PNG") else None


def _wait_for_group(group: int, seconds: float = 2) -> None:
    """Wait for the browser's helpers killed with the drawing's group: a grader that adopts orphans
    (`user_processes.adopt_orphans`) is their parent now, and each would stay a zombie."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if os.waitpid(-group, os.WNOHANG)[0] == 0:  # some still dying
                time.sleep(0.02)
        except ChildProcessError:  # none of that group is ours any more
            return


def png_note(out_dir: Path) -> str:
    """The run summary's line when the chart has no PNG ("" when it has, or there is no chart)."""
    if (out_dir / "summary.html").exists() and not (out_dir / "summary.png").exists():
        return (
            "No summary.png: kaleido could not start Chrome or Chromium to draw it (install "
            "one, e.g. `apt-get install chromium`, or set BROWSER_PATH); summary.html has it."
        )
    return ""
