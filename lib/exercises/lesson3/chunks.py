"""Lesson 3: `train_with_pattern`, training on a text's chunks with special tokens cut out.

It is graded against `bpe.train(..., method="naive")` with a split pattern and special tokens,
and the feedback names the usual slips: merging across special tokens or chunks, a wrong count.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Callable
from typing import Any

from lib import bpe, patterns
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import random_texts, rng
from lib.exercises.lesson3.turns import FIRST_SEEN, IDS_TIE

EOT = "<|endoftext|>"
_DOCS = [
    ("the dog. the dog! the dog?" + EOT + "the end." + EOT + "dogs and cats", "gpt2", [EOT]),
    ("I'm 12345 years old." + EOT + "DON'T shout!!\n    ok", "gpt4", [EOT]),
    ("नमस्ते दुनिया" + EOT + "नमस्ते, नमस्ते!", "gpt4o", [EOT]),
    ("aaa aaa aaa<|a|>aaa<|b|>aaa", "gpt2", ["<|a|>", "<|b|>"]),
    ("low lower lowest newer newest", "gpt2", []),
]
# Hidden texts by kind: made-up words cut by <|endoftext|>, and words with capitals inside,
# which GPT-4o's pattern cuts apart and GPT-4's does not. Lib writes one of each out; the grader
# draws more.
CUT, CAMEL = "words cut by <|endoftext|>", "words with capitals inside"
_HIDDEN_DOCS = [
    (CUT, ("ha ha ha" + EOT + "ha!ha?" + EOT, "gpt4", [EOT])),
    (CAMEL, ("CamelCase camelCase" + EOT + "case", "gpt4o", [EOT])),
]


def _drawn_docs() -> list[tuple[str, tuple[str, str, list[str]]]]:
    """Six texts of made-up words cut by <|endoftext|>, two of them with capitals inside the
    words, drawn with the grader's salt (`generated.rng`): inputs no table of lib's cases holds."""
    source, words = rng(31), random_texts(32, 6, longest=5)
    halves = ["".join(source.choices("aeinostéüñçλжд", k=source.randint(2, 4))) for _ in "abcd"]
    camels = [a + b.capitalize() for a in halves for b in halves if a != b]
    texts = [" ".join(source.choices(words, k=12)).replace("\n", EOT) for _ in range(4)]
    drawn = [(CUT, (text, source.choice(["gpt2", "gpt4", "gpt4o"]), [EOT])) for text in texts]
    camel_texts = [EOT.join(" ".join(source.choices(camels, k=5)) for _ in range(2)) for _ in "ab"]
    return drawn + [(CAMEL, (text, "gpt4o", [EOT])) for text in camel_texts]


def reference_merges(text: str, vocab_size: int, pattern: str, special_tokens: list[str]) -> Any:
    """The merges lib's naive trainer learns: what the learner's are compared with."""
    with warnings.catch_warnings():  # tiny texts run out of pairs: expected here
        warnings.simplefilter("ignore")
        return bpe.train(text, vocab_size, pattern, special_tokens, method="naive")[1]


def _cases(docs: list[tuple[str, str, list[str]]], merges: int, kind: str = "") -> list[Case]:
    cases = []
    for text, name, specials in docs:
        args = (text, 256 + merges + len(specials), patterns.resolve(name), specials)
        cases.append(Case(args=args, expected=reference_merges(*args), kind=kind))
    return cases


def _hidden_cases() -> list[Case]:
    return [case for kind, doc in _HIDDEN_DOCS + _drawn_docs() for case in _cases([doc], 6, kind)]


def _turns(cases: list[Case], answers: list[Any]) -> str | None:
    """Name the usual slips: merging across special tokens, a wrong count of merges, chunk
    counts left out, or merging across chunks."""
    failed = [(c, a) for c, a in zip(cases, answers, strict=False) if a != c.expected]
    if not failed:
        return None

    def all_match(change: Callable[[str, int, str, list[str]], tuple]) -> bool:
        return all(a == reference_merges(*change(*c.args)) for c, a in failed)

    if all_match(lambda t, v, p, s: (t, v - len(s), p, [])):
        return (
            "your merges include pieces of the special tokens: cut them out of the text "
            "(patterns.split_on_special) and train only on the text between them."
        )
    if all_match(lambda t, v, p, s: (t, v + len(s), p, s)):
        return (
            "vocab_size counts the special tokens too: learn "
            "vocab_size - 256 - len(special_tokens) merges."
        )
    if all(a == _tie_broken(*c.args, _first_seen) for c, a in failed):
        return FIRST_SEEN
    if all(a == _tie_broken(*c.args, _by_ids) for c, a in failed):
        return IDS_TIE
    if all(a == _each_chunk_once(*c.args) for c, a in failed):
        return (
            "your merges fit training on each distinct chunk once: count how often each chunk "
            "occurs, and let a chunk that occurs 5 times add 5 to each of its pairs."
        )
    crossing = next(filter(None, (_crossing(c, a) for c, a in failed)), "")
    if crossing:
        return (
            f"your merge {crossing} is in no chunk of the text: split every piece with "
            "patterns.split_text and count pairs only inside chunks."
        )
    return None


def _each_chunk_once(text: str, vocab_size: int, pattern: str, special_tokens: list[str]) -> Any:
    """The merges learned when every distinct chunk counts once, whatever its count."""
    words = Counter(dict.fromkeys(bpe.chunk_counts(text, pattern, special_tokens), 1))
    with warnings.catch_warnings():  # tiny texts run out of pairs: expected here
        warnings.simplefilter("ignore")
        return bpe.train_from_counts(words, vocab_size, special_tokens, method="naive")[1]


Stats = dict[tuple[int, int], int]


def _first_seen(stats: Stats) -> tuple[int, int]:
    """minbpe's tie rule: of the tied pairs, the one counted first."""
    return max(stats, key=stats.__getitem__)


def _by_ids(stats: Stats) -> tuple[int, int]:
    """Ties broken by the greatest pair of ids, not of bytes."""
    return max(stats, key=lambda pair: (stats[pair], pair))


def _tie_broken(
    text: str,
    vocab_size: int,
    pattern: str,
    special_tokens: list[str],
    most_frequent: Callable[[Stats], tuple[int, int]],
) -> Any:
    """The merges learned with another tie rule, `most_frequent`, the chunks counted in the
    order they first occur (as a Counter of them keeps them)."""
    counts = bpe.chunk_counts(text, pattern, special_tokens)
    words = [(list(chunk), n) for chunk, n in counts.items()]
    vocab = {i: bytes([i]) for i in range(256)}
    merges = []
    for new_id in range(256, vocab_size - len(special_tokens)):
        stats: Stats = {}
        for ids, n in words:
            for pair in zip(ids, ids[1:], strict=False):
                stats[pair] = stats.get(pair, 0) + n
        if not stats:
            break
        a, b = most_frequent(stats)
        words = [(bpe.merge(ids, (a, b), new_id), n) for ids, n in words]
        vocab[new_id] = vocab[a] + vocab[b]
        merges.append((vocab[a], vocab[b]))
    return merges


def _crossing(case: Case, answer: Any) -> str:
    """The first merge of `answer` whose joined bytes occur in no chunk of the case's text."""
    text, _, pattern, specials = case.args
    pieces = [p for p in patterns.split_on_special(text, specials) if p not in specials]
    chunks = [c.encode("utf-8") for piece in pieces for c in patterns.split_text(piece, pattern)]
    for merge in answer if isinstance(answer, list) else []:
        if isinstance(merge, tuple) and len(merge) == 2 and all(type(x) is bytes for x in merge):
            if not any(merge[0] + merge[1] in chunk for chunk in chunks):
                return repr(merge)
    return ""


train_with_pattern = Exercise(
    name="train_with_pattern",
    lesson=3,
    points=2,
    target="train_with_pattern",
    cases=lambda: _cases(_DOCS, 8),
    hidden_cases=_hidden_cases,
    wrong_turns=_turns,
    allowed_lib=(
        "lib.bpe.get_stats",
        "lib.bpe.merge",
        "lib.patterns.split_text",
        "lib.patterns.split_on_special",
    ),
    hints=(
        "Two stages. First turn the text into chunks and count how often each distinct chunk "
        "occurs (special tokens are not chunks). Then train on those counts: a chunk that occurs "
        "5 times adds 5 to each of its pairs.",
        "patterns.split_on_special(text, special_tokens) keeps the specials as pieces of their "
        "own: skip them, and split the others with patterns.split_text(piece, pattern). A "
        "collections.Counter counts the chunks. Store each chunk as a list of its UTF-8 bytes.",
        "Check yourself: train_with_pattern('aa aa<|x|>aa', 259, patterns.GPT2_PATTERN, "
        "['<|x|>']) learns 259 - 256 - 1 = 2 merges from the chunks 'aa' (twice) and ' aa' "
        "(once): (b'a', b'a') first, counted 3 times, then (b' ', b'aa'). No merge holds a "
        "piece of <|x|>, and none joins the end of one chunk to the next.",
    ),
    solution_code="""\
from collections import Counter

from lib import bpe, patterns


def train_with_pattern(
    text: str, vocab_size: int, pattern: str, special_tokens: list[str]
) -> list[tuple[bytes, bytes]]:
    chunks = Counter()
    for piece in patterns.split_on_special(text, special_tokens):
        if piece not in special_tokens:  # a special token is never trained on
            chunks.update(patterns.split_text(piece, pattern))
    words = [(list(chunk.encode("utf-8")), count) for chunk, count in chunks.items()]
    vocab = {i: bytes([i]) for i in range(256)}
    merges = []
    for new_id in range(256, vocab_size - len(special_tokens)):
        stats = {}
        for ids, count in words:  # a chunk seen `count` times adds `count` to each pair
            for pair in zip(ids, ids[1:]):
                stats[pair] = stats.get(pair, 0) + count
        if not stats:
            break
        a, b = max(stats, key=lambda p: (stats[p], vocab[p[0]], vocab[p[1]]))
        words = [(bpe.merge(ids, (a, b), new_id), count) for ids, count in words]
        vocab[new_id] = vocab[a] + vocab[b]
        merges.append((vocab[a], vocab[b]))
    return merges
""",
)
