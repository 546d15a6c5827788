"""Answers as plain data: what may cross from a learner's code to the judge, and how it is compared.

A learner's function may return anything, including an object whose `__eq__` always says yes or
whose `repr` never ends. So an answer is first turned into plain data: None, bool, int, float,
str, bytes, and lists, tuples, dicts and sets of these (the standard `Counter`, `defaultdict` and
`OrderedDict` count as dicts). Only the exact built-in types pass, never subclasses, so no
learner-written method runs while the answer is read. The wire form is JSON (bytes, tuples, sets
and dicts tagged, and a str with a lone surrogate, which UTF-8 cannot write), bounded in size and
depth, which is how the grader's kernels report answers.

`same(a, b)` compares plain values strictly: `True` is not `1`, `1` is not `1.0`, a tuple is not a
list. An exercise that accepts more says so with its own `compare`.

>>> from_wire(to_wire({(1, 2): [b"ab", None]}))
{(1, 2): [b'ab', None]}
>>> same(True, 1), same((1, 2), [1, 2]), same({"a": [1.5]}, {"a": [1.5]})
(False, False, True)
"""

from __future__ import annotations

import base64
import collections
from typing import Any

MAX_ITEMS = 200_000  # values in one answer: far above any exercise's, far below a memory problem
MAX_CHARS = 5_000_000  # characters and bytes in one answer, all strings together
MAX_DEPTH = 40
DICTS = (dict, collections.Counter, collections.defaultdict, collections.OrderedDict)
TAGS = {"tuple": tuple, "list": list, "set": set, "frozenset": frozenset}


class NotPlain(ValueError):
    """The value is not plain data (or is too big): the message says what was found, and where."""


class _Budget:
    def __init__(self) -> None:
        self.items, self.chars = 0, 0

    def spend(self, items: int = 1, chars: int = 0) -> None:
        self.items, self.chars = self.items + items, self.chars + chars
        if self.items > MAX_ITEMS or self.chars > MAX_CHARS:
            raise NotPlain(
                f"the answer is too big (over {MAX_ITEMS:,} values or {MAX_CHARS:,} characters)"
            )


def to_wire(value: Any) -> Any:
    """`value` as JSON-ready data, or `NotPlain`. Reads only exact built-in types."""
    budget = _Budget()

    def walk(value: Any, depth: int, where: str) -> Any:
        budget.spend()
        kind = type(value)
        if depth > MAX_DEPTH:
            raise NotPlain(f"the answer is nested more than {MAX_DEPTH} levels deep")
        if value is None or kind in (bool, int, float):
            return value
        if kind is str:
            budget.spend(chars=len(value))
            return value if wire_text(value) is value else {"str": _surrogates_kept(value)}
        if kind is bytes:
            budget.spend(chars=len(value))
            return {"bytes": base64.b64encode(value).decode("ascii")}
        if kind in DICTS:
            items = list(dict.items(value))
            return {
                "dict": [[walk(k, depth + 1, where), walk(v, depth + 1, where)] for k, v in items]
            }
        for tag, container in TAGS.items():
            if kind is container:
                return {tag: [walk(item, depth + 1, where) for item in value]}
        advice = " (bytes(...) turns it into bytes)" if kind is bytearray else ""
        raise NotPlain(f"{where} a {type_name(value)}, which is not plain data{advice}")

    return walk(value, 0, "it returned")


def from_wire(data: Any) -> Any:
    """The value that `to_wire` encoded; `NotPlain` for anything `to_wire` cannot have written
    (the grader reads what an untrusted kernel sent)."""
    budget = _Budget()

    def walk(data: Any, depth: int) -> Any:
        budget.spend()
        if depth > MAX_DEPTH:
            raise NotPlain("nested too deeply")
        if data is None or type(data) in (bool, int, float, str):
            budget.spend(chars=len(data) if type(data) is str else 0)
            return data
        if type(data) is not dict or len(data) != 1:
            raise NotPlain(f"unexpected {type(data).__name__} in the answer")
        [(tag, body)] = data.items()
        if tag == "bytes" and type(body) is str:
            budget.spend(chars=len(body))
            return base64.b64decode(body, validate=True)
        if tag == "str" and type(body) is str:
            budget.spend(chars=len(body))
            return base64.b64decode(body, validate=True).decode("utf-8", "surrogatepass")
        if type(body) is not list:
            raise NotPlain(f"unexpected {tag!r} in the answer")
        if tag == "dict":
            pairs = [pair for pair in body if type(pair) is list and len(pair) == 2]
            if len(pairs) != len(body):
                raise NotPlain("a dict entry is not a key and a value")
            return _hashable_or_fail(
                dict, [(walk(k, depth + 1), walk(v, depth + 1)) for k, v in pairs]
            )
        if tag in TAGS:
            items = [walk(item, depth + 1) for item in body]
            return _hashable_or_fail(TAGS[tag], items) if "set" in tag else TAGS[tag](items)
        raise NotPlain(f"unknown tag {tag!r} in the answer")

    try:
        return walk(data, 0)
    except (ValueError, TypeError) as error:  # bad base64 and the like
        raise NotPlain(str(error)) from None


def _hashable_or_fail(container: type, items: list) -> Any:
    try:
        return container(items)
    except TypeError:  # a list as a dict key or set member: to_wire never writes that
        raise NotPlain("an unhashable dict key or set member in the answer") from None


def _key(value: Any) -> Any:
    """A hashable form of a plain value that keeps its type: `_key(True) != _key(1)`."""
    if isinstance(value, (tuple, frozenset)):
        inner = tuple(_key(v) for v in value)
        return (type(value).__name__, inner if type(value) is tuple else frozenset(inner))
    return (type(value).__name__, value)


def same(a: Any, b: Any) -> bool:
    """Are two plain values equal, with types compared strictly all the way down?"""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        keys_b = {_key(k): k for k in b}
        return len(a) == len(b) and all(
            _key(k) in keys_b and same(v, b[keys_b[_key(k)]]) for k, v in a.items()
        )
    if isinstance(a, (set, frozenset)):
        return {_key(x) for x in a} == {_key(y) for y in b}
    return a == b


def type_name(value: Any) -> str:
    """The name of `value`'s type, read without running any of the learner's code."""
    name = type.__dict__["__name__"].__get__(type(value))  # not a metaclass's own __name__
    return str(name)[:60]


def wire_text(text: str) -> str:
    """`text` itself if UTF-8 can write it, else with each lone surrogate written as `\\udxxx`.
    The kernel's messages are UTF-8 JSON: one lone surrogate (`'\\ud800'`, a str Python allows)
    stops the whole report, and the error that says so tells its position in the text."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _surrogates_kept(text: str) -> str:
    """A str that UTF-8 cannot write, kept exactly (its `str` tag's body), for the judge."""
    return base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii")
