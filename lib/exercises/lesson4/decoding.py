"""Lesson 4's `vocab_from_merges`: the vocabulary from minbpe's merges, {(left id, right id): new
id} listed in any order, checked against `lib.bpe.build_vocab`."""

from __future__ import annotations

from lib import bpe
from lib.exercises.cases import answers_match, of_kind
from lib.exercises.core import Case, Exercise
from lib.exercises.generated import rng
from lib.exercises.lesson4.ids import tokenizer

AA_AAA = [(b"a", b"a"), (b"aa", b"a")]  # hint 2's example: 256 is b'aa', 257 is b'aaa'


def _by_ids(merges: list[tuple[bytes, bytes]]) -> dict[tuple[int, int], int]:
    """The same merges as Karpathy's minbpe keeps them: {(left id, right id): new id}."""
    ids: dict[bytes, int] = {}
    for i, token in bpe.build_vocab(merges).items():
        ids.setdefault(token, i)  # the first id with these bytes: always older than its merges
    return {(ids[left], ids[right]): 256 + i for i, (left, right) in enumerate(merges)}


def _in_order(merges: dict, order: str, seed: int = 0) -> dict:
    """The same dict listed in another order: as learned, reversed, or shuffled."""
    items = list(merges.items())
    if order == "reversed":
        items.reverse()
    elif order == "shuffled":
        rng(seed).shuffle(items)
    return dict(items)


def _id_merge_case(merges: list[tuple[bytes, bytes]], order: str, seed: int = 0) -> Case:
    return Case(args=(_in_order(_by_ids(merges), order, seed),), expected=bpe.build_vocab(merges))


def _made_up_merges(seed: int, count: int) -> list[tuple[bytes, bytes]]:
    """Merges of any two tokens made so far (secret when the grader draws them), each new."""
    draw = rng(seed)
    tokens, merges = [bytes([b]) for b in range(256)], []
    while len(merges) < count:
        left, right = draw.choice(tokens), draw.choice(tokens)
        if left + right not in tokens:  # one id per byte string, as training makes them
            merges.append((left, right))
            tokens.append(left + right)
    return merges


def _by_pair(merges: dict[tuple[int, int], int]) -> dict[int, bytes]:
    """A vocabulary built going through the merges sorted by their pair (left id, then right
    id): the first sort a learner tries. It raises KeyError where a half is not made yet."""
    vocab = {i: bytes([i]) for i in range(256)}
    for (left, right), new_id in sorted(merges.items()):
        vocab[new_id] = vocab[left] + vocab[right]
    return vocab


def _out_of_order(cases: list[Case], answers: list) -> str | None:
    """Name the order mistake the answers fit: the merges sorted by their pair; a raise even on
    the dict listed in learned order (another order, or no single bytes to start from), where
    the dict's order cannot be to blame; or raises only where the dict is out of order."""
    if answers_match(cases, answers, _by_pair):
        return (
            "Your code raised even on a dict that lists its merges in the order they were "
            "learned, so your loop goes through them in another order: sorting the items sorts "
            "them by their pair (left id, then right id), not by when they were learned. Which "
            "number in each item says which merge came first?"
        )
    raised = [list(c.args[0].values()) for c, a in zip(cases, answers, strict=True) if a is None]
    if any(new_ids == sorted(new_ids) for new_ids in raised):
        return (
            "Your code raised even on a dict that lists its merges in the order they were "
            "learned. Does your loop go through them in that order, and are the single bytes "
            "(ids 0 to 255) in your vocabulary before the first merge?"
        )
    if raised:
        return (
            "Your code raised on a dict that does not list its merges in the order they were "
            "learned. Both halves of a merge must be in your vocabulary before the merge is."
        )
    return None


def _vocab_from_merges_cases() -> list[Case]:
    """Hint 2's two merges, the later listed first: a sort by the pair gets them right, so a
    raise on every trained case then points at the pair sort and at nothing else."""
    cases = [_id_merge_case([], "as learned"), _id_merge_case(AA_AAA, "reversed")]
    for vocab_size, order in ((260, "as learned"), (300, "reversed"), (400, "shuffled")):
        cases.append(_id_merge_case(list(tokenizer(vocab_size).merges), order, vocab_size))
    return cases


def _hidden_vocab_from_merges_cases() -> list[Case]:
    """Other trained merges, and made-up ones (drawn with the grader's salt), each in a shuffled
    order: one kind, merges whose halves are older merges, listed in another order."""
    cases = [_id_merge_case(list(tokenizer(size).merges), "shuffled", size) for size in (257, 333)]
    for seed in range(8):
        merges = _made_up_merges(220 + seed, 1 + 3 * seed)
        cases.append(_id_merge_case(merges, "shuffled", seed))
    return of_kind("merges listed out of order", cases)


vocab_from_merges = Exercise(
    name="vocab_from_merges",
    lesson=4,
    points=1,
    target="vocab_from_merges",
    cases=_vocab_from_merges_cases,
    hidden_cases=_hidden_vocab_from_merges_cases,
    wrong_turns=_out_of_order,
    hints=(
        "Ids 0 to 255 are the single bytes. Every other id's bytes are its two halves' bytes "
        "joined, and you can only join halves whose bytes you already know.",
        "A merge's two halves existed before it, so they have smaller ids than the merge "
        "itself. In which order can you go through the merges so that both halves are always "
        "known? The dict's own order may be any. Check yourself: {(256, 97): 257, (97, 97): "
        "256}, the later merge listed first, gives vocab[256] == b'aa' and vocab[257] == "
        "b'aaa'.",
    ),
    solution_code="""\
def vocab_from_merges(merges: dict[tuple[int, int], int]) -> dict[int, bytes]:
    vocab = {i: bytes([i]) for i in range(256)}  # ids 0..255: the single bytes
    # A merge's halves are older tokens: go in the order of the new ids, whatever the dict's.
    for (left, right), new_id in sorted(merges.items(), key=lambda item: item[1]):
        vocab[new_id] = vocab[left] + vocab[right]
    return vocab
""",
)
