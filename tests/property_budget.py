"""How many examples a property test draws: its full count in the main run, a fifth on the
README's other Pythons (tests/test_other_pythons.py).

What those runs can catch is the interpreter's part (its `unicodedata`, `regex` release, `random`,
dicts and sets), and a few dozen draws reach it: each draw of a property about BPE or the
Tokenizer runs the same Python code as any other. Drawing hundreds more explores the algorithm,
which the main run already does with every example. Measured on 3.13: the property tests of the
modules run there cost 29 CPU s of the run's 158 s in tests.
"""

from __future__ import annotations

import os

ON_OTHER_PYTHON = bool(os.environ.get("COURSE_TESTING_OTHER_PYTHON"))  # test_other_pythons.INSIDE
SHARE = 5  # a fifth of the examples there
FLOOR = 20  # but never fewer than this


def examples(count: int) -> int:
    """`count` in the main run; on the other Pythons a fifth of it, at least `FLOOR` (or all,
    when `count` is smaller)."""
    return max(min(count, FLOOR), count // SHARE) if ON_OTHER_PYTHON else count
