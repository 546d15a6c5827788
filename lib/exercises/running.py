"""Calling a learner's function on test inputs, and reporting what happened as plain data.

This is the only part of an exercise that runs in the learner's process: the notebook's `check()`
uses it, and so does the grader inside each student's kernel. It never sees the expected answers.
Each call becomes an *outcome*, a small JSON-ready dict:

- `{"returned": <wire value>}`: the answer, as `plain.to_wire` writes it;
- `{"raised": "ValueError", "kinds": [...], "message": "..."}`: the built-in exception classes it
  is an instance of (so a learner's `class Oops(ValueError)` still counts as a ValueError);
- `{"not_plain": "why"}`, `{"timeout": seconds}`, `{"stub": True}` (the value `...`).

An answer also carries `"changed": [[where, after], ...]` when the call changed an argument it was
given: `where` is the position (an int) or the keyword (a str), `after` what the argument became
(wire data, or None if it is no longer plain data). The judge decides whether that is allowed.

Reading an answer or an error runs none of the learner's methods (`repr`, `__eq__`, `__str__`).
"""

from __future__ import annotations

import builtins
import copy
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from lib.exercises.plain import NotPlain, to_wire, type_name, wire_text

BUILTIN_ERRORS = {
    value
    for value in vars(builtins).values()
    if isinstance(value, type) and issubclass(value, BaseException)
}


class TimeLimitExceeded(BaseException):
    """Raised inside the learner's code when a case runs too long. A BaseException, so that
    an `except Exception:` in the learner's loop cannot swallow it."""


# A case's limit counts the CPU time its process uses (ITIMER_PROF), so an honest answer is not
# cut short because the machine is busy: a class graded beside other work, or Gradescope's half a
# CPU. A wall-clock limit of `WAITING` times as long stops code that waits instead of working
# (`time.sleep`, a lock, work left to another process).
WAITING = 3


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Interrupt the block once it has used `seconds` of CPU time, or `WAITING` times as long
    has passed on the clock, where the platform allows it (Unix, main thread, no other timer
    running); otherwise run it without a limit."""
    timers = (signal.ITIMER_PROF, signal.ITIMER_REAL) if hasattr(signal, "setitimer") else ()
    if not (
        seconds
        and timers
        and threading.current_thread() is threading.main_thread()
        and not any(signal.getitimer(timer)[0] for timer in timers)
    ):
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise TimeLimitExceeded(f"took longer than {seconds:g} s")

    previous = {number: signal.signal(number, stop) for number in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, seconds * WAITING)
    try:
        yield
    finally:
        for timer in timers:
            signal.setitimer(timer, 0)
        for number, handler in previous.items():
            signal.signal(number, handler)


@contextmanager
def interrupts_noted() -> Iterator[list[int] | None]:
    """Note every Ctrl-C (SIGINT) that arrives in the block, in the list it yields, and handle it
    as before. A KeyboardInterrupt with nothing noted was raised by the code itself. None where
    no handler can be set (not the main thread): every KeyboardInterrupt then counts as real."""
    if threading.current_thread() is not threading.main_thread():
        yield None
        return
    seen: list[int] = []
    previous = signal.getsignal(signal.SIGINT)

    def note(signum: int, frame: Any) -> None:
        seen.append(signum)
        if callable(previous):
            previous(signum, frame)
        elif previous != signal.SIG_IGN:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, note)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGINT, previous)


def raised(error: BaseException) -> dict:
    """An exception as an outcome, read without calling any method the learner may have written.
    Its texts are made safe to send (`wire_text`): a lone surrogate would stop the report."""
    mro = type.__dict__["__mro__"].__get__(type(error))
    args = BaseException.__dict__["args"].__get__(error)
    message = args[0] if len(args) == 1 and type(args[0]) is str else ""
    return {
        "raised": type_name(error),
        "kinds": [cls.__name__ for cls in mro if cls in BUILTIN_ERRORS],
        "message": wire_text(message[:300]),
    }


def run_case(target: Any, args: tuple, kwargs: dict, seconds: float | None) -> dict:
    """Call `target(*args, **kwargs)` (or take `target` as it is, if it is not callable) and
    return the outcome. Whatever the code raises is an outcome, a KeyboardInterrupt it raises
    itself too: only a real Ctrl-C gets through, it belongs to whoever runs the cell. (Let
    through, the code's own would end the grading cell, its message in the kernel's report.)"""
    with interrupts_noted() as interrupts:
        try:
            return _outcome(target, args, kwargs, seconds)
        except KeyboardInterrupt as error:
            if interrupts is None or interrupts:
                raise
            return raised(error)


def _outcome(target: Any, args: tuple, kwargs: dict, seconds: float | None) -> dict:
    try:
        with time_limit(seconds):
            if not callable(target):
                return {"stub": True} if target is Ellipsis else {"returned": to_wire(target)}
            try:  # a fresh copy, so code that changes its arguments cannot spoil the next case
                args, kwargs = copy.deepcopy((args, kwargs))
            except Exception:
                pass
            before = _arguments_as_wire(args, kwargs)
            outcome = {"returned": to_wire(target(*args, **kwargs))}
            changed = _changed(before, _arguments_as_wire(args, kwargs))
            return {**outcome, "changed": changed} if changed else outcome
    except KeyboardInterrupt:
        raise
    except TimeLimitExceeded:
        return {"timeout": seconds}
    except NotPlain as error:
        return {"not_plain": str(error)}
    except BaseException as error:  # anything the learner's code does, even exit()
        return raised(error)


def _arguments_as_wire(args: tuple, kwargs: dict) -> dict[int | str, Any]:
    """Each argument as wire data, by position or keyword; None for one that is not plain data
    (read with `to_wire`, so no method the learner wrote runs)."""
    given: dict[int | str, Any] = {**dict(enumerate(args)), **kwargs}
    wires: dict[int | str, Any] = {}
    for where, value in given.items():
        try:
            wires[where] = to_wire(value)
        except NotPlain:
            wires[where] = None
    return wires


def _changed(before: dict[int | str, Any], after: dict[int | str, Any]) -> list[list[Any]]:
    """The arguments that were plain data before the call and differ after it."""
    return [
        [where, after[where]]
        for where, wire in before.items()
        if wire is not None and after[where] != wire
    ]


def run_cases(target: Any, inputs: list[tuple[tuple, dict]], seconds: float | None) -> list[dict]:
    """The outcome of each call, stopping after a time-out (the rest would most likely hang too;
    the judge counts calls never made as failed)."""
    outcomes = []
    for args, kwargs in inputs:
        outcomes.append(run_case(target, args, kwargs, seconds))
        if "timeout" in outcomes[-1]:
            break
    return outcomes
