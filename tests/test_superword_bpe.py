"""lib.superword_bpe: stage 1 is plain BPE, stage 2 learns what a plain recount would learn
across spaces (checked against a naive loop), round trips, and refuses a bad transition point."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from lib import Tokenizer, patterns, superword_bpe

TEXT = (
    "the cat sat on the mat, and the dog sat on the log.\n"
    "on the way to the mat the cat met the dog.\n"
    "by the way, the dog is on the mat and the cat is on the log.\n"
) * 5


@pytest.fixture(scope="module")
def two_stage() -> superword_bpe.SuperwordTokenizer:
    return superword_bpe.train(TEXT, 310, transition=276)


def naive_stage_two(text: str, base: Tokenizer, n_merges: int) -> list[tuple[bytes, bytes]]:
    """Recount every pair of the lines' tokens after every merge; ties to the greatest bytes."""
    lines = [
        [base.vocab[i] for i in base.encode_ordinary(line)]
        for line in patterns.split_text(text, superword_bpe.LINES)
    ]
    merges = []
    for _ in range(n_merges):
        counts = Counter(pair for line in lines for pair in zip(line, line[1:], strict=False))
        if not counts:
            break
        best = max(counts, key=lambda pair: (counts[pair], pair))
        merges.append(best)
        for k, line in enumerate(lines):
            out, i = [], 0
            while i < len(line):
                if i + 1 < len(line) and (line[i], line[i + 1]) == best:
                    out.append(line[i] + line[i + 1])
                    i += 2
                else:
                    out.append(line[i])
                    i += 1
            lines[k] = out
    return merges


def test_stage_one_is_plain_bpe_cut_at_the_transition(two_stage):
    plain = Tokenizer.train(TEXT, 310, pattern="gpt4")
    assert two_stage.base.merges == plain.merges[: 276 - 256]
    assert two_stage.n_vocab == 310


def test_stage_two_learns_what_a_naive_recount_learns_and_crosses_spaces(two_stage):
    assert two_stage.merges == naive_stage_two(TEXT, two_stage.base, 34)
    assert any(b" " in (a + b)[1:] for a, b in two_stage.merges)  # a token holding two words


def test_fewer_tokens_than_plain_bpe_of_the_same_size(two_stage):
    plain = Tokenizer.train(TEXT, 310, pattern="gpt4")
    assert len(two_stage.encode(TEXT)) < len(plain.encode(TEXT))


def test_no_stage_two_is_stage_one():
    one = superword_bpe.train(TEXT, 280, transition=280)
    assert one.merges == []
    for text in (TEXT, "a\n\n  b.\n", "x, y!\r\n\nz"):
        assert one.encode(text) == one.base.encode_ordinary(text)


@settings(max_examples=examples(150), deadline=None)
@given(text=st.text(st.sampled_from(list("the cat on mat,.\n é日")), max_size=80))
def test_encode_then_decode_gives_the_text_back(two_stage, text):
    assert two_stage.decode(two_stage.encode(text)) == text
    assert all(0 <= i < two_stage.n_vocab for i in two_stage.encode(text))


@pytest.mark.parametrize("transition", [256, 100, 311])
def test_a_transition_point_outside_the_vocabulary_is_refused(transition):
    with pytest.raises(ValueError, match="transition must be above 256"):
        superword_bpe.train(TEXT, 310, transition=transition)
