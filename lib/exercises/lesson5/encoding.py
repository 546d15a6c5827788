"""Lesson 5: `encode`, BPE's merges replayed on a text in the order they were learned.

Expected values come from `lib`'s reference code (`reference.py`); the 💡s name two misreadings of
BPE, longest match and longest pair first.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

from lib import bpe
from lib.exercises.cases import answers_fit
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import random_texts, rng
from lib.exercises.lesson5.reference import reference_tokenizer, trained_merges
from lib.exercises.lesson5.texts import HIDDEN_TEXTS, MADE_UP, RUN, TEXTS, TRAINED, TRAINING_TEXT


def _encode_cases(texts: list[str], sizes: tuple[int, ...]) -> list[Case]:
    cases = []
    for vocab_size in sizes:
        merges = list(trained_merges(vocab_size))
        reference = reference_tokenizer(merges)
        cases += [Case(args=(t, merges), expected=reference.encode_ordinary(t)) for t in texts]
    return cases


def _longest_match(text: str, merges: list[tuple[bytes, bytes]]) -> list[int]:
    """Review J5's misreading of BPE: at each position, the longest token that fits (WordPiece's
    rule), whatever order the merges were learned in."""
    ids = {token: i for i, token in bpe.build_vocab(list(merges)).items()}
    data, found, start = text.encode("utf-8"), [], 0
    while start < len(data):
        end = next(e for e in range(len(data), start, -1) if data[start:e] in ids)
        found.append(ids[data[start:end]])
        start = end
    return found


# Review K7: no trained case puts an early short merge against a later longer one that overlaps
# it, so joining the pair that makes the longest token first passed them all. By hand: BPE joins
# ab (256), then cd (257, learned before abc); the longest pair first joins ab, then abc.
CROSSING_MERGES = [(b"a", b"b"), (b"c", b"d"), (b"ab", b"c")]


def _crossing_case() -> Case:
    return Case(args=("abcd", CROSSING_MERGES), expected=[256, 257])


def _hidden_crossing_case() -> Case:
    """The same crossing with other letters, drawn (secret when the grader draws them), twice
    in one text: xy, then zw, then xy again."""
    x, y, z, w = (c.encode() for c in rng(54).sample("bdfghjklmnpqrsuvwxyz", 4))
    merges = [(x, y), (z, w), (x + y, z)]
    text = (x + y + z + w).decode()
    return Case(
        args=(f"{text} {text}", merges),
        expected=reference_tokenizer(merges).encode_ordinary(f"{text} {text}"),
        kind="merges that cross",
    )


def _drawn_texts() -> list[tuple[str, str]]:
    """Texts of each kind of `HIDDEN_TEXTS`, made up (secret when the grader makes them)."""
    source = rng(55)
    words = TRAINING_TEXT.split(" ")
    made = [(TRAINED, " ".join(source.choices(words, k=source.randint(2, 5)))) for _ in "ab"]
    runs = [c * source.randint(3, 9) for c in source.choices("a t", k=4)]
    made += [(RUN, f"{runs[0]}{runs[1]}"), (RUN, f"{runs[2]}{runs[3]}")]
    return made + [(MADE_UP, text) for text in random_texts(50, 4, 30)]


def _hidden_encode_cases() -> list[Case]:
    texts = HIDDEN_TEXTS + _drawn_texts()
    cases = _encode_cases([text for _, text in texts], (360, 500))
    kinds = [kind for _ in (360, 500) for kind, _ in texts]
    return [replace(case, kind=kind) for case, kind in zip(cases, kinds, strict=True)]


def _longest_pair(text: str, merges: list[tuple[bytes, bytes]]) -> list[int]:
    """Review K7's misreading: of the neighbouring pairs, join first the one that makes the
    longest token (the earliest learned of equal lengths)."""
    rank = {left + right: 256 + i for i, (left, right) in enumerate(merges)}
    parts = [bytes([b]) for b in text.encode("utf-8")]
    while pairs := [
        (-len(a + b), rank[a + b], i)
        for i, (a, b) in enumerate(itertools.pairwise(parts))
        if a + b in rank
    ]:
        *_, i = min(pairs)
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return [rank[p] if len(p) > 1 else p[0] for p in parts]


def _longest_match_taken(cases: list[Case], answers: list) -> str | None:
    if answers_fit(cases, answers, _longest_pair):
        return (
            "you joined first the pair that makes the longest token. BPE joins first the pair "
            "that was learned first, whatever its length: with the merges (b'a', b'b'), (b'c', "
            "b'd'), (b'ab', b'c'), 'abcd' is ab then cd, because cd was learned before abc."
        )
    if not answers_fit(cases, answers, _longest_match):
        return None
    return (
        "you took the longest token that fits at each position. BPE does not look ahead: it "
        "replays the merges in the order they were learned, and the longest match can cut "
        "where no merge would. (Lesson 7 meets longest match as WordPiece's rule.)"
    )


encode = Exercise(
    name="encode",
    lesson=5,
    points=2,
    target="encode",
    cases=lambda: [*_encode_cases(TEXTS, (300, 420)), _crossing_case()],
    hidden_cases=lambda: [*_hidden_encode_cases(), _hidden_crossing_case()],
    wrong_turns=_longest_match_taken,
    hints=(
        "Work with a list of byte strings, one per token, starting from the single bytes. What "
        "do you need to know about a pair of neighbours to decide which one to join first?",
        "How do you find a pair's merge order from its two pieces? Searching the list of "
        "merges for every pair at every step is slow: section 1 says how tiktoken looks a pair "
        "up in one step. Then: which pair goes first when the same pair occurs twice, and when "
        "are you done?",
        "Check yourself by hand, then with your function. With the merges (b'a', b'b'), "
        "(b'b', b'c'), (b'ab', b'c') (ids 256, 257, 258), 'abcbc' goes a b c b c, then ab c b c, "
        "then ab c bc, then abc bc: the answer is [258, 257]. 'abab' is [256, 256], and 'é', "
        "which no merge touches, is its two UTF-8 bytes, [195, 169]. With the one merge "
        "(b'a', b'a'), 'aaa' is [256, 97]: of two equal pairs, the leftmost goes first.",
    ),
    solution_code="""\
def encode(text: str, merges: list[tuple[bytes, bytes]]) -> list[int]:
    rank = {left + right: 256 + i for i, (left, right) in enumerate(merges)}
    parts = [bytes([b]) for b in text.encode("utf-8")]
    while len(parts) > 1:
        # The neighbouring pair learned earliest (lowest id); min() keeps the leftmost on ties.
        candidates = [(rank[a + b], i)
                      for i, (a, b) in enumerate(zip(parts, parts[1:])) if a + b in rank]
        if not candidates:
            break
        _, i = min(candidates)
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return [rank[p] if len(p) > 1 else p[0] for p in parts]
""",
)
