"""The names Python's `builtins` module holds, written out: what a graded answer may find there.

The list is fixed rather than read from `dir(builtins)` when `lib.exercises` is imported,
because in a learner's kernel IPython has added its own names there by then (`get_ipython`,
which runs any text as a cell, and `display`), and `site` adds `exit`, `help`, `license`...
The grader reads in a plain process and would refuse them; `check()` would not. A fixed list
gives both the same verdict. It is Python's own, without `site` (`python -I -S`), for 3.10 to
3.13; `tests/test_own_code_rules_4.py` compares it with the running Python's.
"""

from __future__ import annotations

_EXCEPTIONS = """
ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup BlockingIOError
BrokenPipeError BufferError BytesWarning ChildProcessError ConnectionAbortedError
ConnectionError ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError
EncodingWarning EnvironmentError Exception ExceptionGroup FileExistsError FileNotFoundError
FloatingPointError FutureWarning GeneratorExit IOError ImportError ImportWarning
IndentationError IndexError InterruptedError IsADirectoryError KeyError KeyboardInterrupt
LookupError MemoryError ModuleNotFoundError NameError NotADirectoryError NotImplementedError
OSError OverflowError PendingDeprecationWarning PermissionError ProcessLookupError
PythonFinalizationError RecursionError ReferenceError ResourceWarning RuntimeError
RuntimeWarning StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError
SystemExit TabError TimeoutError TypeError UnboundLocalError UnicodeDecodeError
UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning UserWarning ValueError
Warning ZeroDivisionError
"""
_CONSTANTS = "Ellipsis False None NotImplemented True __debug__ __doc__ __name__ __package__"
_FUNCTIONS_AND_TYPES = """
__build_class__ __import__ __loader__ __spec__ abs aiter all anext any ascii bin bool
breakpoint bytearray bytes callable chr classmethod compile complex delattr dict dir divmod
enumerate eval exec filter float format frozenset getattr globals hasattr hash hex id input
int isinstance issubclass iter len list locals map max memoryview min next object oct open ord
pow print property range repr reversed round set setattr slice sorted staticmethod str sum
super tuple type vars zip
"""
PYTHON_BUILTINS = frozenset((_EXCEPTIONS + _CONSTANTS + _FUNCTIONS_AND_TYPES).split())
# Added by a version after 3.10: in the list, though an older Python does not have them.
NEWER = frozenset({"BaseExceptionGroup", "ExceptionGroup", "PythonFinalizationError"})
