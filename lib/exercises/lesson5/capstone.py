"""Lesson 5's capstone: recover GPT-4's merges from tiktoken's ranks, then encode like tiktoken.

`recover_merges` is checked against `lib.bpe.recover_merges` on tables cut from GPT-2's and GPT-4's
vocabularies (the tokens below some id form a tokenizer of their own). `gpt4_encode` is checked
against tiktoken itself, on sentences written for it (`texts`): the check shows eight, the
grader adds the hidden ones.
"""

from __future__ import annotations

import functools
from dataclasses import replace

from lib import bpe, tiktoken_files
from lib.exercises.core import Case, Exercise, Raises
from lib.exercises.generated import rng
from lib.exercises.lesson5.capstone_turns import gpt4_turns
from lib.exercises.lesson5.gpt4_texts import GPT4_HIDDEN, drawn_texts
from lib.exercises.lesson5.texts import GPT4_SHOWN


@functools.cache
def _ranks(name: str) -> dict[bytes, int]:
    return tiktoken_files.load(name)[0]


def _first_ranks(name: str, count: int) -> dict[bytes, int]:
    """The tokens of an encoding with ids below `count`: a small tokenizer of its own."""
    return {token: i for token, i in _ranks(name).items() if i < count}


def _toy_ranks() -> dict[bytes, int]:
    """Bytes in a shuffled order, as in GPT-2 and GPT-4, then four merges."""
    ranks = {bytes([b]): (b * 7 + 3) % 256 for b in range(256)}  # 7 and 256 share no factor
    return ranks | {b"ab": 256, b"abb": 257, b"ba": 258, b"abbba": 259}


# Measured in CPU seconds (one core): the honest loop takes 0.3 s on GPT-4's first 20,000 tokens
# and 2.6 s on all 100,256; an answer that builds a table of the older tokens for each token takes
# 0.6 s on 3,000 and grows with the square, so about 60 s on this table. At 10 s a case the honest
# loop has 20 times its time for a loaded machine, the slow one cannot pass even on a machine five
# times faster, and a round stays well within the grader's 60 s cell.
LARGE = 30_000


def _recover_cases(sources: list[tuple[str, int]], toy: bool) -> list[Case]:
    tables = [_toy_ranks()] if toy else []
    tables += [_first_ranks(name, count) for name, count in sources]
    # Each table lists its tokens in byte order, not rank order, as any dict may: an answer that
    # takes the merges in the dict's order, instead of sorting by rank, gets them wrong.
    tables = [dict(sorted(ranks.items())) for ranks in tables]
    return [Case(args=(ranks,), expected=bpe.recover_merges(ranks)) for ranks in tables]


def _hidden_cuts() -> list[tuple[str, int]]:
    """GPT-2's and GPT-4's vocabularies cut at sizes the grader's salt draws, so that a table of
    the answers for fixed cuts, keyed by the table's size, is no use."""
    draw = rng(59)
    return [("gpt2", draw.randint(2000, 3000)), ("cl100k_base", draw.randint(4000, 6000))]


def _gpt4_cases(texts_and_allowed: list[tuple[str, set[str]]]) -> list[Case]:
    from lib import data

    tiktoken_gpt4 = data.tiktoken_encoding("cl100k_base")
    cases = []
    for text, allowed in texts_and_allowed:
        try:
            expected = tiktoken_gpt4.encode(text, allowed_special=allowed)
        except ValueError:
            expected = Raises(ValueError)
        cases.append(Case(args=(text, set(allowed)), expected=expected))
    return cases


def _hidden_gpt4_cases() -> list[Case]:
    texts = GPT4_HIDDEN + drawn_texts()
    cases = _gpt4_cases([(text, allowed) for _, text, allowed in texts])
    return [replace(case, kind=kind) for case, (kind, _, _) in zip(cases, texts, strict=True)]


def _recover_slips(cases: list[Case], answers: list) -> str | None:
    """Name the likeliest slips: too slow on the large table, the loop run until it joins the
    whole token (IndexError), or the merges in the dict's order instead of rank order."""
    right = [answer == case.expected for case, answer in zip(cases, answers, strict=True)]
    large = next(i for i, case in enumerate(cases) if len(case.args[0]) == LARGE)
    if answers[large] is None and all(right[:large]):
        return (
            f"Right on the small tables, but GPT-4's first {LARGE:,} tokens took too long. A "
            "table of the older tokens built for each token makes the work grow with the square "
            "of the table (hours for all 100,000): look pairs up in `ranks` itself, and let the "
            "loop skip those ranked at or above the token."
        )
    if all(answer is None for answer in answers):
        return (
            "If you saw IndexError: the loop ran until it joined the whole token, leaving one "
            "part. Only pairs ranked below the token may join, so it stops at two."
        )
    for case, answer in zip(cases, answers, strict=True):
        if isinstance(answer, list) and answer != case.expected:
            if sorted(map(tuple, answer)) == sorted(case.expected):
                return (
                    "The right merges, in the wrong order: take the tokens in rank order "
                    "(sorted by their rank), not in the dict's order."
                )
    return None


recover_merges = Exercise(
    name="recover_merges",
    lesson=5,
    points=2,
    target="recover_merges",
    cases=lambda: _recover_cases([("cl100k_base", 1000), ("cl100k_base", LARGE)], toy=True),
    hidden_cases=lambda: _recover_cases(_hidden_cuts(), toy=False),
    time_limit=10,
    wrong_turns=_recover_slips,
    hints=(
        "A token was made by joining two tokens that existed before it, so both have lower "
        "ranks. Which encoder from this lesson, allowed only the tokens ranked below, would "
        "stop exactly at those two parts?",
        "You need no table of the older tokens: a pair's joined bytes have a rank in `ranks` "
        "(or none), and so does the token you are taking apart. At each step of the loop, "
        "which pairs may it join, and which must it leave alone?",
        "Check yourself on the check's made-up table (b'ab' 256, b'abb' 257, b'ba' 258, "
        "b'abbba' 259): b'abbba' is the merge of b'abb' and b'ba'. Single bytes have no "
        "merge, and the list goes in rank order, whatever the dict's order.",
    ),
    solution_code="""\
def recover_merges(ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) == 1:
            continue  # a single byte: nothing was merged
        parts = [bytes([b]) for b in token]
        while True:
            # Rank-driven BPE with only the tokens learned before this one: it cannot make the
            # token itself, so it stops at the two parts that were merged.
            found = [(ranks[a + b], i) for i, (a, b) in enumerate(zip(parts, parts[1:]))
                     if ranks.get(a + b, rank) < rank]
            if not found:
                break
            _, i = min(found)
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
        merges.append((parts[0], parts[1]))
    return merges
""",
)


gpt4_encode = Exercise(
    name="gpt4_encode",
    lesson=5,
    points=4,
    target="gpt4_encode",
    allowed_lib=("lib.tiktoken_files.load", "lib.bpe.recover_merges"),
    cases=lambda: _gpt4_cases(GPT4_SHOWN),
    hidden_cases=_hidden_gpt4_cases,
    wrong_turns=gpt4_turns,
    well_done="Your tokenizer gives tiktoken's ids, id for id, from GPT-4's own file: you have "
    "rebuilt GPT-4's tokenizer, regex split, special tokens, merges and all.",
    # The course's answer takes about a millisecond a sentence (20 ms at most at load 10); one
    # that rebuilds 100,000-entry tables at every call about 0.3 s. The grader runs the 30 hidden
    # cases in one cell of at most 60 s (`grading_job.Limits.cell`), so at 1.5 s a case they fit,
    # with room for a pause of the machine; an answer that recovers the merges at every call
    # (seconds each) is stopped by check() already, with the time limit named.
    time_limit=1.5,
    hints=(
        "Three layers, outside in: special tokens, which are cut out first or make you "
        "raise; the split pattern, after which each chunk is on its own; and BPE on each "
        "chunk's bytes. Get the two inner layers right on text without special tokens "
        "first.",
        "regex.findall(pattern, piece) gives the chunks. In each chunk, of all neighbouring "
        "pairs whose joined bytes are in `priority`, join the one learned first, again and "
        "again, as in exercise 1. The ids come from `ids`: GPT-4's single bytes do not have "
        "their byte value as id.",
        "The cell that loaded gpt4_ranks, gpt4_pattern and gpt4_specials gave you almost "
        "everything. What does a token's rank in tiktoken's table stand for in the ids it "
        "returns? Then which of tokenize's two tables needs no work, and which one needs your "
        "recover_merges? Check yourself, with nothing allowed: 'hello world' gives [15339, "
        "1917] and ' 2024!' gives [220, 2366, 19, 0] (the pattern keeps at most three digits "
        "together); with it allowed, '<|endoftext|>' gives [100257].",
    ),
    solution_code="""\
import regex

from lib import bpe, tiktoken_files


def tokenize(text, ids, priority, pattern, special_tokens, allowed_special) -> list[int]:
    \"\"\"A regex BPE tokenizer with special tokens, like tiktoken's encode.\"\"\"
    for special in special_tokens:
        if special in text and special not in allowed_special:
            raise ValueError(f"the text contains the disallowed special token {special!r}")
    if allowed_special:
        longest_first = sorted(allowed_special, key=len, reverse=True)
        pieces = regex.split("(" + "|".join(map(regex.escape, longest_first)) + ")", text)
    else:
        pieces = [text]
    out = []
    for piece in pieces:
        if piece in allowed_special:
            out.append(special_tokens[piece])
            continue
        for chunk in regex.findall(pattern, piece):
            parts = [bytes([b]) for b in chunk.encode("utf-8")]
            while len(parts) > 1:
                found = [(priority[a + b], i) for i, (a, b) in enumerate(zip(parts, parts[1:]))
                         if a + b in priority]
                if not found:
                    break
                _, i = min(found)  # the merge learned first, leftmost on ties
                parts[i : i + 2] = [parts[i] + parts[i + 1]]
            out.extend(ids[part] for part in parts)  # GPT-4's single bytes are shuffled
    return out


# Built once, when this cell runs: each call of gpt4_encode only encodes.
gpt4_ranks, gpt4_pattern, gpt4_specials = tiktoken_files.load("cl100k_base")
gpt4_ids = gpt4_ranks  # tiktoken's ranks are the ids: {token bytes: id}
gpt4_merges = bpe.recover_merges(gpt4_ranks)  # or your own recover_merges: the same list
gpt4_priority = {left + right: n for n, (left, right) in enumerate(gpt4_merges)}


def gpt4_encode(text: str, allowed_special: set[str]) -> list[int]:
    return tokenize(text, gpt4_ids, gpt4_priority, gpt4_pattern, gpt4_specials, allowed_special)
""",
)
