"""lib.patterns takes a split pattern apart into its alternatives and says which one cut each chunk
(lesson 3's "The patterns, piece by piece")."""

from __future__ import annotations

import pytest

from lib import patterns

SAMPLE = "I'm 12345 years old. DON'T shout at CamelCase!\n    indented line\n\n  end  "


def test_alternatives_cut_only_at_top_level_bars():
    # Bars inside a group, inside a class, or escaped, belong to the alternative around them.
    assert patterns.alternatives(r"a|(?:b|c)+|[|x]|\||d") == ["a", "(?:b|c)+", "[|x]", r"\|", "d"]
    assert patterns.alternatives(r"[\]|]|e") == [r"[\]|]", "e"]  # an escaped ] does not close
    assert patterns.alternatives("plain") == ["plain"]


@pytest.mark.parametrize(("name", "count"), [("gpt2", 7), ("gpt4", 8), ("gpt4o", 7)])
def test_the_course_patterns_have_the_alternatives_lesson_3_lists(name, count):
    parts = patterns.alternatives(patterns.PATTERNS[name])
    assert len(parts) == count
    assert "|".join(parts) == patterns.PATTERNS[name]


@pytest.mark.parametrize("name", ["gpt2", "gpt4", "gpt4o"])
def test_the_chunks_of_all_alternatives_are_the_split(name):
    # Labelling the alternatives must not change what the pattern matches, or where.
    found = patterns.chunks_by_alternative(name, SAMPLE)
    assert [part for part, _ in found] == patterns.alternatives(patterns.PATTERNS[name])
    assert sorted(c for _, chunks in found for c in chunks) == sorted(
        patterns.split_text(SAMPLE, name)
    )


def test_each_chunk_is_credited_to_the_alternative_that_won():
    gpt2 = dict(patterns.chunks_by_alternative("gpt2", SAMPLE))
    assert gpt2[r"'(?:[sdmt]|ll|ve|re)"] == ["'m"]  # lower case only: DON'T loses its 'T
    assert gpt2[r" ?\p{N}++"] == [" 12345"]
    gpt4 = dict(patterns.chunks_by_alternative("gpt4", SAMPLE))
    assert gpt4[r"'(?i:[sdmt]|ll|ve|re)"] == ["'m", "'T"]
    assert gpt4[r"\p{N}{1,3}+"] == ["123", "45"]
    assert gpt4[r"\s*[\r\n]"] == ["\n\n"]  # whitespace up to its last newline: a chunk of its own


def test_a_regex_is_taken_as_well_as_a_name():
    assert patterns.chunks_by_alternative(r"\d+|\s", "a 12") == [(r"\d+", ["12"]), (r"\s", [" "])]
