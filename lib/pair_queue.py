"""`PairQueue`: the fast BPE trainers' queue of pairs by count (`bpe_fast` and its cousins).

A pair is whatever key the trainer's `counts` use: two characters in `bpe_fast`, a number in
`bpe_long_chunks`; the queue only needs the key function that turns it into (left, right) bytes.
"""

from bisect import insort
from collections import defaultdict
from collections.abc import Callable

Pair = str | int


class PairQueue:
    """Pairs by count, popping the most frequent one; of equal counts, the greatest bytes.

    A new pair never outnumbers the pair just merged (each of its occurrences holds the new
    token) and old pairs only lose occurrences, so the top count never rises. So one list of pairs
    per count is enough, walked from the top down, sorted by bytes when it is reached. A pair sits
    in the list of the count it had when it was filed; if that count has fallen by the time the
    pair is popped, it is filed again under its true count.
    """

    def __init__(self, counts: dict[Pair, int], key: Callable[[Pair], tuple[bytes, bytes]]):
        self.buckets: defaultdict[int, list[Pair]] = defaultdict(list)
        for k, c in counts.items():
            self.buckets[c].append(k)
        self.top = max(self.buckets, default=0)
        self.key = key
        self.top_sorted = False

    def push(self, pair: Pair, count: int) -> None:
        """File a new pair; the list being popped from is kept sorted."""
        if count == self.top and self.top_sorted:
            insort(self.buckets[count], pair, key=self.key)
        else:
            self.buckets[count].append(pair)

    def pop(self, counts: dict[Pair, int]) -> Pair | None:
        """Take out the best pair whose filed count is still true (None when none is left)."""
        buckets = self.buckets
        while buckets:
            while self.top not in buckets:
                self.top -= 1
                self.top_sorted = False
            bucket = buckets[self.top]
            if not self.top_sorted:
                bucket.sort(key=self.key)
                self.top_sorted = True
            pair = bucket.pop()
            if not bucket:
                del buckets[self.top]
            count = counts.get(pair, 0)
            if count == self.top:
                return pair
            if count > 0:
                buckets[count].append(pair)  # a lower count, not reached (so not sorted) yet
        return None
