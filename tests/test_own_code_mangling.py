"""`mangling.mangle` renames private names as CPython's compiler does: the code compiled from the
mangled tree names the same variables, attributes and modules as the code compiled from the
text as written (under `from __future__ import annotations`, as the grader compiles)."""

from __future__ import annotations

import ast
import types

import pytest

from lib.exercises.mangling import mangle, mangled

FUTURE = "from __future__ import annotations\n"

SOURCES = {
    "class_body": "class C:\n    __a = 1\n    _C__a = 2\n    __b__ = 3\n    ___c = __a\n",
    "method": "class C:\n    def __m(self, __p, *__args, __k=1, **__kw):\n"
    "        __x = self.__y + __p\n        global __g\n        __g = __x\n"
    "        return lambda __l: [__v for __v in __l if __v.__z]\n",
    "nested_function": "class C:\n    def m(self):\n        __n = 1\n\n        def inner():\n"
    "            nonlocal __n\n            __n = __n.__q\n\n        return inner\n",
    "nested_class": "class __Outer:\n    __a = 1\n\n    class __Inner:\n        __b = __a\n"
    "        def m(self):\n            return __c\n\n    __d = __Inner.__e\n",
    "leading_underscores": "class __K:\n    __a = 1\n\nclass _L_:\n    __b = 2\n",
    "all_underscores": "class __:\n    __a = 1\n    def m(self):\n        return self.__b\n",
    "decorators_and_bases": "class C:\n    @__deco\n    class D(__Base, metaclass=__Meta):\n"
    "        pass\n\n    @__deco.__x\n    def m(self, a=__default):\n        pass\n",
    "calls_and_patterns": "class C:\n    def m(self, x):\n        f(__kw=1)\n        match x:\n"
    "            case P(__attr=__cap):\n                pass\n"
    "            case {'k': 1, **__rest}:\n                pass\n"
    "            case [*__star] | {'z': __star}:\n                pass\n"
    "            case __P.__Q as __whole:\n                pass\n",
    "exceptions_and_imports": "class C:\n    try:\n        pass\n    except E as __e:\n"
    "        pass\n    import __m\n    import __pkg.sub\n    import os as __os\n"
    "    from .__up import x\n",
    "hints": "class C:\n    __y: __T = 1\n\n    def m(self, a: __U, *b: __V) -> __W:\n"
    "        __z: __X = a\n",
    "walrus_and_comprehensions": "class C:\n    __s = {__k: __v for __k, __v in x}\n"
    "    def m(self):\n        return [(__w := __i) for __i in self.__it], __w\n",
    "outside_a_class": "__a = 1\ndef f(__p):\n    return __p.__q + __a\n",
    "fstring": "class C:\n    def m(self):\n        return f'{self.__a!r:{__w}}'\n",
}


def _names(code: types.CodeType) -> list:
    """Every name a code object and those inside it use: variables, attributes, modules, and
    the names kept as constants (keyword arguments, class patterns' keywords). Not a class's
    `__name__` and `__qualname__`, which stay as written while its binding is mangled."""
    found = [code.co_names, code.co_varnames, code.co_cellvars, code.co_freevars]
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            found.append(_names(constant))
        elif isinstance(constant, tuple):
            found.append(constant)
    return found


def _used(code: types.CodeType) -> set[str]:
    """The names a code object and those inside it use, in one set."""
    inner = [_used(c) for c in code.co_consts if isinstance(c, types.CodeType)]
    own = {*code.co_names, *code.co_varnames, *code.co_cellvars, *code.co_freevars}
    return own.union(*inner)


def _spelled(tree: ast.AST) -> set[str]:
    """The names, parameters and attributes `tree` spells out, hints left out."""
    hints = {id(n) for a in ast.walk(tree) for h in _hints(a) for n in ast.walk(h)}
    kinds = {ast.Name: "id", ast.Attribute: "attr", ast.arg: "arg"}
    return {
        getattr(n, kinds[type(n)])
        for n in ast.walk(tree)
        if type(n) in kinds and id(n) not in hints
    }


def _hints(node: ast.AST) -> list[ast.AST]:
    return [h for h in (getattr(node, "annotation", None), getattr(node, "returns", None)) if h]


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_mangled_code_names_what_the_written_code_names(name: str) -> None:
    """Each name the mangled tree spells is one the compiled code uses, and the code compiled
    from the mangled tree uses the same names as the code compiled from the text."""
    source = FUTURE + SOURCES[name]
    tree = mangle(ast.parse(source))
    assert _spelled(tree) <= _used(compile(source, "<m>", "exec"))
    rewritten = ast.unparse(tree)
    assert _names(compile(rewritten, "<m>", "exec")) == _names(compile(source, "<m>", "exec"))


def test_hints_stay_as_written() -> None:
    """Under `from __future__ import annotations` a hint is its text, unmangled."""
    source = FUTURE + SOURCES["hints"]
    spaces: list[dict] = [{}, {}]
    exec(compile(source, "<m>", "exec"), spaces[0])
    exec(compile(ast.unparse(mangle(ast.parse(source))), "<m>", "exec"), spaces[1])
    hints = [(s["C"].__annotations__, s["C"].m.__annotations__) for s in spaces]
    assert hints[0] == hints[1] == ({"_C__y": "__T"}, {"a": "__U", "b": "__V", "return": "__W"})


def test_a_from_import_reads_the_mangled_names() -> None:
    """`from m import __x` in `C` reads `m._C__x` and binds `_C__x` (only the names handed to
    `__import__`, which look for submodules, stay as written)."""
    source = "class C:\n    from __src import __name, b as __b\n    from . import __rel\n"
    rewritten = ast.unparse(mangle(ast.parse(source)))
    for code in compile(rewritten, "<m>", "exec"), compile(source, "<m>", "exec"):
        body = next(c for c in code.co_consts if isinstance(c, types.CodeType))
        assert body.co_names[3:] == ("_C__src", "_C__name", "b", "_C__b", "", "_C__rel")


def test_mangling_changes_the_private_names_inside_classes_only() -> None:
    tree = mangle(ast.parse(SOURCES["method"] + SOURCES["outside_a_class"]))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert {"_C__x", "_C__p", "_C__v", "_C__g", "__a", "__p"} <= names
    assert "__x" not in names and "_C__a" not in names


@pytest.mark.parametrize(
    ("name", "private", "expected"),
    [
        ("__x", "C", "_C__x"),
        ("__x", "__C", "_C__x"),
        ("__x", "___", "__x"),
        ("__x__", "C", "__x__"),
        ("_x", "C", "_x"),
        ("__a.b", "C", "__a.b"),
        ("__x", None, "__x"),
    ],
)
def test_mangled_follows_pythons_rule(name: str, private: str | None, expected: str) -> None:
    assert mangled(name, private) == expected
