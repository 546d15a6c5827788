"""How long the similarity report takes for a large class: `python tests/similarity_benchmark.py`.

It makes up a class (default 300 students) answering every exercise of every lesson (those
whose answer is code): each code a
function of random statements, with one student in 20 handing in a classmate's code under other
names and one in 30 the published solution. Then it times `similarity.class_findings` and the
writing of similarity.html and .csv, and checks that every copy was found.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lib.grading import similarity, similarity_report  # noqa: E402
from lib.grading.notebook import handouts, load_catalog  # noqa: E402

STATEMENTS = [
    "{a} = {b} {op} {n}",
    "{a} = [{b} for {c} in range({n})]",
    "if {a} {cmp} {b}:\n{i}    {c} = {a} {op} {n}",
    "for {c} in {a}:\n{i}    {b} = {b} {op} {c}",
    "while {a} {cmp} {n}:\n{i}    {a} = {a} {op} 1",
    "{a}.append({b} {op} {n})",
    "{a} = {{{b}: {n}}}",
    "{a} = sorted({b}, key=lambda {c}: {c} {op} {n})",
]


def made_up(target: str, rng: random.Random, names: list[str]) -> str:
    """A function of 6 to 14 random statements over names from `names`."""
    lines = [f"def {target}({', '.join(rng.sample(names, 2))}):"]
    for _ in range(rng.randint(6, 14)):
        template = rng.choice(STATEMENTS)
        values = {k: rng.choice(names) for k in "abc"}
        values |= {"op": rng.choice("+-*%"), "cmp": rng.choice(["<", ">", "==", "!="])}
        lines.append("    " + template.format(**values, n=rng.randint(0, 99), i="    "))
    return "\n".join([*lines, f"    return {rng.choice(names)}"])


def renamed(code: str, rng: random.Random, names: list[str]) -> str:
    """The same code with every made-up name replaced by another one."""
    fresh = {name: f"{name}_{rng.randint(0, 9)}x" for name in names}
    for old, new in fresh.items():
        code = code.replace(old, new)
    return code


def made_up_class(students: int, references: dict, seed: int = 0) -> tuple[list[dict], int]:
    """Records of a class answering every exercise, and how many copies were planted."""
    rng = random.Random(seed)
    names = ["total", "seen", "items", "pair", "count", "best", "out", "word", "chunk", "left"]
    catalog = load_catalog()
    records, planted = [], 0
    for n in range(students):
        code = {}
        for exercises in catalog.values():
            for e in [e for e in exercises if e.name in references]:
                luck = rng.random()
                if luck < 1 / 30:
                    code[e.name] = e.solution_code
                elif luck < 1 / 30 + 1 / 20 and n:
                    earlier = records[rng.randrange(n)]["code"][e.name]
                    code[e.name] = renamed(earlier, rng, names)
                    planted += 1
                else:
                    code[e.name] = made_up(e.target, rng, names)
        records.append(
            {"student": f"student{n:03d}", "submission": f"student{n:03d}.ipynb", "code": code,
             "solutions": [], "unparsable": []}
        )  # fmt: skip
    return records, planted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=300)
    args = parser.parse_args()
    references = similarity.references(load_catalog(), handouts(ROOT / "notebooks"))
    records, planted = made_up_class(args.students, references)
    started, cpu = time.perf_counter(), time.process_time()
    findings = similarity.class_findings(records, references)
    compared, cpu = time.perf_counter(), time.process_time() - cpu
    with tempfile.TemporaryDirectory() as out:
        similarity_report.write(Path(out), findings, len(records))
        size = (Path(out) / "similarity.html").stat().st_size
    written = time.perf_counter()
    pairs = sum(len(f.pairs) for f in findings.values())
    print(
        f"{args.students} students x {len(findings)} exercises: compared in "
        f"{compared - started:.1f} s ({cpu:.1f} s of CPU), report written in "
        f"{written - compared:.1f} s "
        f"({size / 1e6:.1f} MB); {pairs} pairs flagged, {planted} copies planted"
    )
    if pairs < planted:
        sys.exit(f"only {pairs} pairs flagged for {planted} planted copies")


if __name__ == "__main__":
    main()
