"""The code is formatted and linted by ruff, as configured in pyproject.toml; its functions are
short and take few positional parameters."""

import ast
import io
import subprocess
import sys
import textwrap
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True)


def test_the_code_is_formatted_by_ruff():
    result = _ruff("format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_code_passes_ruffs_lint():
    result = _ruff("check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


# --- short functions, few positional parameters ---------------------------------------------

#: The longest function outside the numba kernels, in lines of code: its lines from ``def`` to
#: its end that hold code, without blank lines, comment-only lines and docstrings (its own and
#: those of functions and classes inside it). Lines of functions defined inside it count.
MAX_FUNCTION_LINES = 80
#: The most positional-or-keyword parameters of a public function or method (``self`` and
#: ``cls`` aside): more options go keyword-only, or into an options object.
MAX_POSITIONAL_PARAMETERS = 8
#: The decorator of the numba kernels (mcrank._jit), whose functions are exempt: a kernel is one
#: loop nest, which numba compiles whole. A kernel's lines do not count either in a function
#: that defines it (a factory of kernels specialised at compile time).
KERNEL_DECORATOR = "jit"
_LAYOUT_TOKENS = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}


def _code_lines(source: str, tree: ast.Module) -> set[int]:
    """The lines of ``source`` that hold code: a token other than a comment or layout, outside
    every docstring (a string spanning lines covers them all)."""
    lines = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in _LAYOUT_TOKENS:
            lines.update(range(token.start[0], token.end[0] + 1))
    for node in ast.walk(tree):
        if (
            isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and ast.get_docstring(node, clean=False) is not None
        ):
            lines.difference_update(range(node.body[0].lineno, node.body[0].end_lineno + 1))
    return lines


def _is_kernel(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if (target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)) == KERNEL_DECORATOR:
            return True
    return False


def _functions(node: ast.AST, prefix: str = "", public: bool = True, in_class: bool = False):
    """``(function, qualified name, public, method)`` for every function in ``node`` but the
    kernels (and what they hold). Public: its name and those of the classes around it do not
    start with ``_``, and it is not inside another function."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not _is_kernel(child):
                yield child, prefix + child.name, public and not child.name.startswith("_"), in_class
                yield from _functions(child, f"{prefix}{child.name}.", False, False)
        elif isinstance(child, ast.ClassDef):
            yield from _functions(child, f"{prefix}{child.name}.", public and not child.name.startswith("_"), True)
        else:
            yield from _functions(child, prefix, public, in_class)


def _positional(function: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> int:
    names = [argument.arg for argument in function.args.posonlyargs + function.args.args]
    return len(names) - (method and bool(names) and names[0] in ("self", "cls"))


def _style_violations(source: str, public_module: bool = True) -> tuple[list[str], list[str]]:
    """The functions of ``source`` longer than :data:`MAX_FUNCTION_LINES` (``name (n lines)``)
    and the public ones with more than :data:`MAX_POSITIONAL_PARAMETERS` positional parameters
    (``name (n parameters)``)."""
    tree = ast.parse(source)
    code = _code_lines(source, tree)
    long, wide = [], []
    for function, name, public, method in _functions(tree):
        kernels = [node for node in ast.walk(function) if node is not function and isinstance(node, ast.FunctionDef) and _is_kernel(node)]
        own = code.difference(*(range(kernel.lineno, kernel.end_lineno + 1) for kernel in kernels))
        lines = sum(1 for line in range(function.lineno, function.end_lineno + 1) if line in own)
        if lines > MAX_FUNCTION_LINES:
            long.append(f"{name} ({lines} lines)")
        if public and public_module and (count := _positional(function, method)) > MAX_POSITIONAL_PARAMETERS:
            wide.append(f"{name} ({count} parameters)")
    return long, wide


def _package_violations() -> tuple[list[str], list[str]]:
    long, wide = [], []
    for path in sorted((ROOT / "mcrank").rglob("*.py")):
        relative = path.relative_to(ROOT)
        public_module = not any(part.startswith("_") and part != "__init__.py" for part in relative.parts)
        found = _style_violations(path.read_text(encoding="utf-8"), public_module)
        for kept, new in zip((long, wide), found):
            kept.extend(f"{relative.as_posix()}: {entry}" for entry in new)
    return long, wide


def test_the_kernel_decorator_is_mcranks():
    from mcrank import _jit

    assert KERNEL_DECORATOR in _jit.__all__


def test_no_function_outside_the_kernels_is_longer_than_80_lines():
    long, _ = _package_violations()
    assert long == [], "split these functions into steps"


def test_no_public_function_has_more_than_8_positional_parameters():
    _, wide = _package_violations()
    assert wide == [], "make the options keyword-only, or an options object"


def _function(name: str, lines: int, parameters: str = "", decorator: str = "") -> str:
    body = "".join(f"    x{k} = {k}\n" for k in range(lines - 1))
    return f'{decorator}def {name}({parameters}):\n    """Docstring.\n\n    Its lines do not count.\n    """\n    # nor comments\n\n{body}'


@pytest.mark.parametrize(
    "source, expected",
    [
        (_function("f", 80), []),
        (_function("f", 81), ["f (81 lines)"]),
        (_function("_f", 81), ["_f (81 lines)"]),
        (_function("f", 200, decorator="@jit\n"), []),
        (_function("f", 200, decorator='@jit(inline="always")\n'), []),
        ("class A:\n" + textwrap.indent(_function("method", 81), "    "), ["A.method (81 lines)"]),
        ("def outer():\n" + textwrap.indent(_function("inner", 79), "    "), []),
        ("def outer():\n" + textwrap.indent(_function("inner", 80), "    "), ["outer (81 lines)"]),
        ("def outer():\n" + textwrap.indent(_function("inner", 200, decorator="@jit\n"), "    ") + "    return inner\n", []),
    ],
)
def test_a_long_function_is_found(source, expected):
    assert _style_violations(source)[0] == expected


@pytest.mark.parametrize(
    "source, public_module, expected",
    [
        ("def f(a, b, c, d, e, f, g, h): pass\n", True, []),
        ("def f(a, b, c, d, e, f, g, h, i): pass\n", True, ["f (9 parameters)"]),
        ("def f(a, b, c, d, e, f, g, h, /, i): pass\n", True, ["f (9 parameters)"]),
        ("def f(a, b, c, d, e, f, g, h, *, i, j): pass\n", True, []),
        ("def f(a, b, c, d, e, f, g, h, *args, **options): pass\n", True, []),
        ("def _f(a, b, c, d, e, f, g, h, i): pass\n", True, []),
        ("def f(a, b, c, d, e, f, g, h, i): pass\n", False, []),
        ("class A:\n    def m(self, a, b, c, d, e, f, g, h): pass\n", True, []),
        ("class A:\n    def m(self, a, b, c, d, e, f, g, h, i): pass\n", True, ["A.m (9 parameters)"]),
        ("class _A:\n    def m(self, a, b, c, d, e, f, g, h, i): pass\n", True, []),
        ("def f():\n    def g(a, b, c, d, e, f, g, h, i): pass\n", True, []),
    ],
)
def test_a_public_function_with_9_positional_parameters_is_found(source, public_module, expected):
    assert _style_violations(source, public_module)[1] == expected
