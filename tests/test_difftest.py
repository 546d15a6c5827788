"""lib.difftest finds the two planted trainer bugs of lesson 3 and shrinks them to a few bytes."""

from __future__ import annotations

import pytest

from lib import bpe, difftest
from lib.exercises.lesson3.turns import count_pairs_once, train_first_seen, train_overlap_once


@pytest.mark.parametrize(
    ("wrong", "shrunk"),
    [(train_first_seen, ("aab", 257)), (train_overlap_once, ("a   ", 257))],
    ids=["first seen tie rule", "overlaps counted once"],
)
def test_a_planted_bug_is_found_and_shrunk_to_a_few_bytes(wrong, shrunk):
    found = difftest.find_difference(wrong, difftest.reference_train, difftest.train_inputs())
    assert found is not None
    assert len(found.args[0].encode("utf-8")) <= 4
    assert found.args == shrunk  # derandomized: the same counterexample every run
    assert found.got == repr(wrong(*found.args)) != found.expected


@pytest.mark.filterwarnings("ignore:stopped after")  # tiny texts run out of pairs
def test_the_reference_agrees_with_the_fast_trainer(capsys):
    def fast(text: str, vocab_size: int) -> bpe.Merges:
        return bpe.train(text, vocab_size, method="fast")[1]

    difftest.compare(fast, difftest.reference_train, difftest.train_inputs(), examples=100)
    assert capsys.readouterr().out == "✅ no difference found in 100 generated examples\n"


def test_get_stats_and_merge_inputs_find_their_own_bugs():
    found = difftest.find_difference(count_pairs_once, bpe.get_stats, difftest.stats_inputs())
    assert found is not None and found.args == ([97, 97, 97],)

    def right_to_left(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
        return bpe.merge(ids[::-1], pair[::-1], new_id)[::-1]

    found = difftest.find_difference(right_to_left, bpe.merge, difftest.merge_inputs())
    assert found is not None and len(found.args[0]) <= 3


def test_the_report_shows_both_outputs_and_a_crash_is_an_answer(capsys):
    def crashes(text: str, vocab_size: int) -> bpe.Merges:
        raise ValueError("oops")

    difftest.compare(crashes, difftest.reference_train, difftest.train_inputs())
    out = capsys.readouterr().out
    assert "the smallest input found is\n   ('', 256)" in out
    assert "crashes  : raised ValueError: oops" in out and "reference: []" in out


def test_a_stub_is_not_written_yet_rather_than_a_difference(capsys):
    # Lesson 3 runs compare on the learner's train_bpe while it is still the stub: a red ❌ with
    # "raised NotImplementedError" read as a failure before the learner had done anything.
    def train_bpe(text: str, vocab_size: int) -> bpe.Merges:
        raise NotImplementedError

    difftest.compare(train_bpe, difftest.reference_train, difftest.train_inputs())
    out = capsys.readouterr().out
    assert out.startswith("⏳ train_bpe is not written yet: replace `raise NotImplementedError`")
    assert "❌" not in out
