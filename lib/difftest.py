"""Differential testing: run your function and the reference on many generated inputs, and show
the smallest input on which they disagree.

A handful of fixed test cases only catches the mistakes their author thought of. Here the inputs
come from `hypothesis`: it generates hundreds of small inputs (texts with few distinct letters, so
counts tie; runs such as "aaaa", where pairs overlap; characters of 2, 3 and 4 UTF-8 bytes), and
when it finds one where the two functions disagree it *shrinks* it: it keeps trying shorter and
simpler inputs that still disagree, and reports the smallest. A three-byte counterexample is
easy to work through by hand; a three-hundred-byte one is not.

    from lib import bpe, difftest
    difftest.compare(train_bpe, difftest.reference_train, difftest.train_inputs())

The search is derandomized (hypothesis' seed is fixed and its example database is off), so the
same functions give the same report every run: a notebook's output stays the same.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from lib import bpe

# 'a' first: hypothesis shrinks towards the first letter, so shrunk inputs read "aaa".
LETTERS = "ab é€न👋"
"""The letters generated texts are made of: few of them, so counts tie and letters repeat; one,
two, three and four UTF-8 bytes long; and a space."""


def texts(max_size: int = 12) -> st.SearchStrategy[str]:
    """Short texts over `LETTERS`: tie-heavy, full of runs, and in several scripts."""
    return st.text(alphabet=st.sampled_from(LETTERS), max_size=max_size)


def train_inputs(max_merges: int = 6) -> st.SearchStrategy[tuple[str, int]]:
    """`(text, vocab_size)` pairs for a trainer `train_bpe(text, vocab_size)`."""
    return st.tuples(texts(), st.integers(256, 256 + max_merges))


def stats_inputs() -> st.SearchStrategy[tuple[list[int]]]:
    """`(ids,)` for a pair counter `get_stats(ids)`: few distinct ids, so runs and repeats."""
    return st.tuples(st.lists(st.integers(97, 100), max_size=12))


def merge_inputs() -> st.SearchStrategy[tuple[list[int], tuple[int, int], int]]:
    """`(ids, pair, new_id)` for `merge(ids, pair, new_id)`."""
    ids = st.lists(st.integers(97, 99), max_size=12)
    return st.tuples(ids, st.tuples(st.integers(97, 99), st.integers(97, 99)), st.just(256))


def reference_train(text: str, vocab_size: int) -> bpe.Merges:
    """The course's trainer, as `train_bpe(text, vocab_size) -> merges`."""
    with warnings.catch_warnings():  # tiny texts run out of pairs: that is expected here
        warnings.simplefilter("ignore")
        return bpe.train(text, vocab_size, method="naive")[1]


@dataclass(frozen=True)
class Difference:
    """An input on which two functions disagree, and what each gave (or the error it raised)."""

    args: tuple[Any, ...]
    got: str
    expected: str


def _outcome(function: Callable[..., Any], args: tuple[Any, ...]) -> str:
    """What a call gave, as text: its repr, or the exception it raised."""
    try:
        return repr(function(*args))
    except Exception as error:  # a crash is an answer too: it differs from the reference's
        return f"raised {type(error).__name__}" + (f": {error}" if str(error) else "")


def find_difference(
    candidate: Callable[..., Any],
    reference: Callable[..., Any],
    inputs: st.SearchStrategy[tuple[Any, ...]],
    examples: int = 300,
) -> Difference | None:
    """The smallest input (after shrinking) on which `candidate` and `reference` give different
    results, or None if none of `examples` generated inputs shows a difference."""
    config = settings(
        max_examples=examples,
        derandomize=True,  # the same search every run
        database=None,  # no memory of earlier runs either
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    try:
        args = find(
            inputs, lambda a: _outcome(candidate, a) != _outcome(reference, a), settings=config
        )
    except NoSuchExample:
        return None
    return Difference(args, _outcome(candidate, args), _outcome(reference, args))


def compare(
    candidate: Callable[..., Any],
    reference: Callable[..., Any],
    inputs: st.SearchStrategy[tuple[Any, ...]],
    examples: int = 300,
) -> None:
    """Print the smallest input on which the two functions differ, with both results one above
    the other, or that no difference was found (`find_difference` returns it instead).
    A candidate that raises NotImplementedError (an exercise's stub) is reported as not written."""
    found = find_difference(candidate, reference, inputs, examples)
    name = getattr(candidate, "__name__", "your function")
    if found is None:
        print(f"✅ no difference found in {examples} generated examples")
        return
    if found.got.startswith("raised NotImplementedError"):  # the exercise's stub: nothing to show
        print(f"⏳ {name} is not written yet: replace `raise NotImplementedError` with your code")
        return
    call = ", ".join(repr(arg) for arg in found.args)
    print(f"❌ {name} and the reference differ; the smallest input found is\n   ({call})")
    if isinstance(found.args[0], str):  # a text: show its bytes, which is what BPE sees
        raw = found.args[0].encode("utf-8")
        print(f"   ({len(raw)} UTF-8 bytes: {raw!r})")
    width = max(len(name), len("reference"))
    print(f"   {name:<{width}}: {found.got}\n   {'reference':<{width}}: {found.expected}")
