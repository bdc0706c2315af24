"""Imports point one way: from the entry points (CLI, app) through the web layer and the service to
the database and the rules, never back up (issue 16).

Every module under app/ belongs to a layer, and imports only from its own layer or lower ones.
Imports inside functions count too: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app"

# Lowest first. A new top-level module must be placed here, on purpose.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("app.rules",),  # pure: the standard library only (tests/rules/test_purity.py)
    # The players' languages sit with the content: scenario files carry their translations.
    (
        "app.settings",
        "app.network",
        "app.content",
        "app.i18n",
        "app.i18n_content",
        "app.i18n_words",
    ),
    ("app.db",),
    ("app.service",),
    ("app.backup", "app.sweeper"),
    ("app.deps", "app.web"),
    ("app.main", "app.cli"),
)

# Imports that go against the layers, each with its reason. Keep it short.
EXCEPTIONS: set[tuple[str, str]] = set()

# The web layer reaches the database only through the service.
NEVER = {("app.web", "app.db"), ("app.deps", "app.db")}


def _module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in sorted(APP.rglob("*.py"))}


def _imports(module: str) -> set[str]:
    """The app modules this one imports, as absolute names."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            for alias in node.names:  # `from app import service` imports the module app.service
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
    return {name for name in found if name == "app" or name.startswith("app.")}


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _layer(module: str) -> int | None:
    for rank, members in enumerate(LAYERS):
        if any(_within(module, member) for member in members):
            return rank
    return None


def _top(module: str) -> str:
    """The module, or for a package's module the package's layer member (app.web.ws -> app.web)."""
    for members in LAYERS:
        for member in members:
            if _within(module, member):
                return member
    return module


IMPORTS = {module: _imports(module) for module in MODULES}


def test_every_module_has_a_layer() -> None:
    unplaced = [m for m in MODULES if m != "app" and _layer(m) is None]
    assert unplaced == [], "place these in LAYERS"


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    upward = sorted(
        (module, imported)
        for module, imported_names in IMPORTS.items()
        if module != "app"
        for imported in imported_names
        if imported != "app"
        and (_layer(imported) or 0) > (_layer(module) or 0)
        and (_top(module), imported) not in EXCEPTIONS
    )
    assert upward == []


def test_the_web_layer_never_touches_the_database_directly() -> None:
    direct = sorted(
        (module, imported)
        for module, imported_names in IMPORTS.items()
        for imported in imported_names
        for user, forbidden in NEVER
        if _within(module, user) and _within(imported, forbidden)
    )
    assert direct == []


def test_the_rules_import_nothing_else_from_the_app() -> None:
    outside = sorted(
        (module, imported)
        for module, imported_names in IMPORTS.items()
        if _within(module, "app.rules")
        for imported in imported_names
        if not _within(imported, "app.rules")
    )
    assert outside == []


def test_every_exception_is_still_needed() -> None:
    """An exception that no import uses any more must go, so the list only ever shrinks."""
    unused = sorted(
        (user, imported)
        for user, imported in EXCEPTIONS
        if not any(imported in IMPORTS[m] for m in MODULES if _top(m) == user)
    )
    assert unused == []
