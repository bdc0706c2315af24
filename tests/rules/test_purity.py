"""The rules engine is pure (STYLE 1): every module in app/rules imports only the standard
library's non-I/O modules and its own package, and calls no I/O built-in."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "app" / "rules"

# Standard-library modules with no I/O of their own. Anything else (os, pathlib, io, socket,
# asyncio, subprocess, logging, time, ...) and every third-party package is refused.
ALLOWED = frozenset(
    {
        "__future__",
        "abc",
        "bisect",
        "collections",
        "collections.abc",
        "copy",
        "dataclasses",
        "decimal",
        "enum",
        "fractions",
        "functools",
        "hashlib",  # the keyed dice generator (G-TURN-3)
        "heapq",
        "hmac",
        "itertools",
        "json",
        "math",
        "operator",
        "pickle",
        "random",
        "re",
        "string",
        "textwrap",
        "types",
        "typing",
        "unicodedata",
    }
)
NAMED_IN_THE_BRIEF = (
    "fastapi",
    "starlette",
    "sqlalchemy",
    "jinja2",
    "asyncpg",
    "httpx",
    "requests",
    "socket",
    "asyncio",
    "os",
    "pathlib",
    "io",
    "subprocess",
)
IO_BUILTINS = frozenset(
    {"open", "input", "print", "__import__", "exec", "eval", "compile", "breakpoint"}
)


def impurities(source: str, filename: str = "<test>") -> list[str]:
    """Every import outside ALLOWED and the package itself, and every I/O built-in called."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level > 0:  # relative: the package's own modules
                continue
            names = [node.module or ""]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in IO_BUILTINS
        ):
            found.append(f"{filename}:{node.lineno} calls {node.func.id}()")
            continue
        else:
            continue
        for name in names:
            own = name == "app.rules" or name.startswith("app.rules.")
            if not own and name not in ALLOWED:
                found.append(f"{filename}:{node.lineno} imports {name}")
    return found


def rules_modules() -> list[Path]:
    return sorted(RULES.rglob("*.py"))


def test_every_engine_module_is_checked() -> None:
    names = {p.name for p in rules_modules()}
    assert {"__init__.py", "engine.py", "resolve.py", "damage.py", "views.py", "state.py"} <= names


@pytest.mark.parametrize("path", rules_modules(), ids=lambda p: str(p.relative_to(RULES)))
def test_rules_module_imports_nothing_but_pure_standard_library(path: Path) -> None:
    assert impurities(path.read_text(encoding="utf-8"), path.name) == []


@pytest.mark.parametrize("module", NAMED_IN_THE_BRIEF)
def test_the_checker_catches_io_and_web_imports(module: str) -> None:
    assert impurities(f"import {module}\n")
    assert impurities(f"from {module} import something\n")
    assert impurities(f"import {module}.sub as x\n")


@pytest.mark.parametrize(
    "source",
    [
        "from app.content import load_catalogue\n",  # reads files: the engine must be handed data
        "import app.db.models\n",
        "import logging\n",
        "import time\n",
        "open('x')\n",
        "__import__('os')\n",
    ],
)
def test_the_checker_catches_the_rest_of_the_app_and_io_builtins(source: str) -> None:
    assert impurities(source)


def test_the_checker_lets_the_package_and_pure_modules_through() -> None:
    assert (
        impurities(
            "from __future__ import annotations\nimport math\nfrom typing import Any\n"
            "from .state import State\nfrom app.rules.core.rng import Dice\n"
        )
        == []
    )
