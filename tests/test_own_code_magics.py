"""Known names (`bindings.known`) beside IPython's own syntax, and beside a statement that
rebinds its own name (round 13's door A and honest G, `tests/test_red_team_own_code_13.py`).

A name is known, so that `.format` on it is read as own code, only where the one statement that
binds it is the only binding of it anywhere in the notebook's code, and no magic may bind it
unseen (`magics.unseen_names`): a trusted magic (`%time`, `%timeit`, `%matplotlib inline`,
`f?`, `!ls`) unknows the names its text mentions, any other magic every name.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.test_red_team_own_code_13 import GLOBALS, TEMPLATE_CONSTANT, USES_T, verdict

REFUSED = "worked out at run time"
USES_TEMPLATE = "def bytes_per_char(s):\n    return T.format(bytes_per_char)\n"

# Every binding form, inside the one statement that binds `T` (a method of its class, the
# class body, a comprehension beside the template): each makes `T` unknown.
METHOD = "class T:\n    def g(self):\n        global T\n{}\n"
REBINDS = {
    "walrus": METHOD.format("        (T := str)"),
    "for": METHOD.format("        for T in [str]:\n            pass"),
    "import as": METHOD.format("        from collections import UserString as T"),
    "except as": METHOD.format(
        "        try:\n            1 / 0\n        except Exception as T:\n            pass"
    ),  # fmt: skip
    "with as": METHOD.format("        with open('x') as T:\n            pass"),
    "match capture": METHOD.format("        match str:\n            case T:\n                pass"),
    "del": METHOD.format("        del T"),
    "augmented": METHOD.format("        T += 1"),
    "nested def": METHOD.format("        def T():\n            pass"),
}


@pytest.mark.parametrize("how", sorted(REBINDS))
def test_a_class_binding_its_own_name_anywhere_is_not_known(how: str) -> None:
    assert REFUSED in verdict("bytes_per_char", REBINDS[how], USES_T)


def test_a_walrus_beside_a_template_makes_it_unknown() -> None:
    cells = ["T = '{0}'\n", f"[(T := {GLOBALS}) for _ in [0]]\n", USES_TEMPLATE]
    assert REFUSED in verdict("bytes_per_char", *cells)


# A variable of another scope that happens to be named `T` is not the notebook's `T`: Python
# finds it in its own scope (`scopes.notebook_bindings`), and the notebook's `T` is left alone.
# (These made `T` unknown before red team 14's C.)
OTHER_SCOPES = {
    "parameter": "def other(T):\n    return T\n",
    "class attribute": "class Point:\n    T = str\n",
    "class attribute of its own": "class Box:\n    T = str\n\n    def g(self):\n"
    "        return self.T\n\nBox().g()\n",
    "nonlocal in a closure": "def g():\n    T = 1\n\n    def h():\n        nonlocal T\n"
    "        T = str\n\n    h()\n    return T\n\ng()\n",
    "comprehension": "[T for T in [str]]\n",
}


@pytest.mark.parametrize("how", sorted(OTHER_SCOPES))
def test_a_variable_of_another_scope_leaves_the_name_known(how: str) -> None:
    cells = ["T = '{0}'\n", OTHER_SCOPES[how], USES_TEMPLATE]
    assert verdict("bytes_per_char", *cells) == ""
    namespace: dict = {}
    for cell in cells:
        exec(cell, namespace)
    function = namespace["bytes_per_char"]
    assert function("abc") == str(function)  # still `'{0}'`, run


def test_a_class_alone_and_a_template_alone_stay_known() -> None:
    assert verdict("bytes_per_char", "class T:\n    def format(self, x):\n        return 1\n",
                   "def bytes_per_char(s):\n    return T().format(s)\n") == ""  # fmt: skip
    assert verdict("bytes_per_char", *TEMPLATE_CONSTANT) == ""


# Magics that could bind `FMT` (or anything) out of the reading's sight: every name unknown.
UNTRUSTED = {
    "capture": "%%capture FMT\nprint(1)\n",
    "store -r": "%store -r\n",
    "store -r, no %": "store -r\n",
    "time, no %, names it": "time FMT = str\n",
    "time names it": "%time FMT = str\n",
    "run": "%run helper.py\n",
    "load": "%load helper.py\n",
    "writefile": "%%writefile helper.py\nFMT = str\n",
    "alias": "%alias t echo\n",
    "macro": "%macro m 1\n",
    "config": "%config InteractiveShell.autocall = 2\n",
    "autocall": "%autocall 2\n",
    "sx": "%sx ls\n",
    "shell with an expansion": "x = !echo {exec(chr(70))}\n",
    "matplotlib with an expansion": "%matplotlib {exec(chr(70))}\n",
    "timeit of exec": "%timeit exec(chr(70))\n",
    "a cell magic under %%time": "%%time\n%%capture out\nprint(1)\n",
    "a one-line body under %%time": "%%time\nstore -r\n",
    "bash": "%%bash --out FMT\necho '{0.__globals__}'\n",
    "get_ipython by hand": "get_ipython().run_line_magic('store', '-r')\n",
    "get_ipython's time by hand": "get_ipython().run_line_magic('time', 'FMT = str')\n",
    "the output history": "print(_)\n",
    "In": "print(In[-1])\n",
    "IPython imported": "import IPython\n",
    "__main__ imported": "import __main__\n",
    "a function's globals": "bytes_per_char.__globals__\n",
    "a one-line cell that is no Python": 'print "hi"\n',
}
# Magics that bind nothing their text does not name, with no name the template uses.
TRUSTED = {
    "timeit": '%timeit bytes_per_char("héllo")\n',
    "time": '%time bytes_per_char("héllo")\n',
    "cell time": '%%time\nbytes_per_char("héllo")\n',
    "cell timeit": '%%timeit -n 2\nbytes_per_char("héllo")\n',
    "matplotlib inline": "%matplotlib inline\n",
    "help": "bytes_per_char?\n",
    "shell": "!ls\n",
    "shell output": "files = !ls\n",
    "display": "from IPython.display import display\n",
    "a syntax error over two lines": 'print "hi"\nx = 1\n',
    "a cell magic's body, read as Python": "%%time\nprint(FMT)\n",
}


@pytest.mark.parametrize("how", sorted(UNTRUSTED))
def test_an_untrusted_magic_unknows_every_name(how: str) -> None:
    assert REFUSED in verdict("bytes_per_char", *TEMPLATE_CONSTANT, UNTRUSTED[how])


@pytest.mark.parametrize("how", sorted(TRUSTED))
def test_a_trusted_magic_keeps_the_names_it_does_not_mention(how: str) -> None:
    assert verdict("bytes_per_char", *TEMPLATE_CONSTANT, TRUSTED[how]) == ""


def test_a_trusted_magic_unknows_what_it_mentions() -> None:
    for cell in ["%timeit FMT.upper()\n", "FMT?\n", "!echo FMT\n", "%%timeit FMT = str\npass\n"]:
        assert REFUSED in verdict("bytes_per_char", *TEMPLATE_CONSTANT, cell), cell


def test_automagic_rebinds_a_name_without_a_percent() -> None:
    """Why a one-line `time FMT = str` counts as `%time FMT = str`: IPython runs it so."""
    cells = ['FMT = "{:.3f}"\n', "time FMT = str\n"]
    program = (
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\n"
        f"for cell in {cells!r}:\n"
        "    shell.run_cell(cell, silent=True).raise_error()\n"
        "print(shell.user_ns['FMT'] is str)\n"
    )
    ran = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert ran.stdout.split()[-1:] == ["True"], ran.stdout + ran.stderr
