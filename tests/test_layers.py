"""Imports point one way: from the entry points (CLI, app) through the web layer and the service to
the database and the rules, never back up.

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
        "app.pace",
        "app.network",
        "app.content",
        "app.i18n",
        "app.i18n_content",
        "app.i18n_words",
        "app.nesting",
    ),
    ("app.db",),
    ("app.service",),
    ("app.backup", "app.props", "app.sweeper"),
    ("app.web",),
    ("app.main", "app.cli"),
)

# Imports that go against the layers, each with its reason. Keep it short.
EXCEPTIONS: set[tuple[str, str]] = set()

# The web layer reaches the database only through the service.
NEVER = {("app.web", "app.db")}


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


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import circle in `graph` (module -> modules it imports), by Tarjan's strongly
    connected components."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in sorted(graph[module] & graph.keys()):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == module:
                    break
            if len(component) > 1 or module in graph[module]:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_no_import_circle_anywhere_in_the_app() -> None:
    """A circle makes the order modules load in matter, and hides which one is lower."""
    assert _cycles(IMPORTS) == []


def test_the_circle_check_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert _cycles(graph) == [["a", "b", "c"], ["e"]]


def _private_uses(module: str, tree: ast.Module) -> list[str]:
    """Another app module's private names this one reaches: imported by name, or read as an
    attribute of an imported module (`resolve._breakdown`)."""
    path = MODULES.get(module)
    is_package = path is not None and path.name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    module_aliases: dict[str, str] = {}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES and alias.asname:
                    module_aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            if not (base == "app" or base.startswith("app.")):
                continue
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:
                    module_aliases[alias.asname or alias.name] = f"{base}.{alias.name}"
                elif _private(alias.name) and base != module:
                    found.append(f"{module} imports {base}.{alias.name}")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in module_aliases
            and _private(node.attr)
        ):
            found.append(f"{module} uses {module_aliases[node.value.id]}.{node.attr}")
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def test_no_module_uses_another_modules_private_names() -> None:
    """A helper two modules need is public, in the lower one (for the rules' switchable
    modules, the core)."""
    uses = [
        use
        for module, path in sorted(MODULES.items())
        for use in _private_uses(module, ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert uses == []


def test_the_private_name_check_sees_both_ways_of_reaching_in() -> None:
    source = "from ...core import resolve\nfrom ...core.orders import _acting\nresolve._breakdown\n"
    uses = _private_uses("app.rules.modules.weapons.weapons", ast.parse(source))
    assert uses == [
        "app.rules.modules.weapons.weapons imports app.rules.core.orders._acting",
        "app.rules.modules.weapons.weapons uses app.rules.core.resolve._breakdown",
    ]


def test_the_rules_core_names_no_switchable_module() -> None:
    """The core reaches the switchable modules only through its hooks
    (app/rules/core/hooks.py); app/rules/modules/__init__.py is the one place that names them,
    and scenario content depends on neither."""
    assert "app.rules.core.hooks" in MODULES
    named = sorted(
        (module, imported)
        for module, imported_names in IMPORTS.items()
        if _within(module, "app.rules.core") or _within(module, "app.rules.content")
        for imported in imported_names
        if _within(imported, "app.rules.modules")
        or (_within(module, "app.rules.content") and _within(imported, "app.rules.core"))
    )
    assert named == []
    outside = sorted(
        module
        for module, imported_names in IMPORTS.items()
        if _within(module, "app.rules") and not _within(module, "app.rules.modules")
        for imported in imported_names
        if _within(imported, "app.rules.modules") and imported != "app.rules.modules"
    )
    assert outside == []


def _module_words() -> dict[str, set[str]]:
    """What the switchable modules bring, from what they registered: their command types, their
    actions, the keys they keep in the state, and their events and counts in the report."""
    from app.rules.core.hooks import HOOKS  # importing app.rules plugs the modules in

    return {
        "command": {cls.__name__ for cls in HOOKS.commands},
        "action": set(HOOKS.order_checks),
        "state key": HOOKS.own_keys(),
        "report line": {*HOOKS.report_counts, *HOOKS.report_counts.values(), *HOOKS.report_attacks},
    }


def _text(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _keys(node: ast.AST) -> list[str | None]:
    """The strings this node uses as keys: `x["k"]`, `x.get("k")` (pop, setdefault), `"k" in x`,
    `{"k": ...}`."""
    if isinstance(node, ast.Subscript):
        return [_text(node.slice)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
        return [_text(node.args[0])] if node.func.attr in ("get", "pop", "setdefault") else []
    if isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.In | ast.NotIn):
        return [_text(node.left)]
    if isinstance(node, ast.Dict):
        return [_text(key) for key in node.keys]
    return []


def _words_named(module: str, tree: ast.AST, words: dict[str, set[str]]) -> list[str]:
    """Where this source names a module's command type (as a string or a name), action or state
    key, or asks whether a module is on (`... in state["modules"]`)."""
    found = []
    for node in ast.walk(tree):
        named: list[tuple[str, str | None]] = [("state key", key) for key in _keys(node)]
        if isinstance(node, ast.Constant):
            named += [(kind, _text(node)) for kind in ("command", "action", "report line")]
        elif isinstance(node, ast.Name):
            named.append(("command", node.id))
        elif isinstance(node, ast.Attribute):
            named.append(("command", node.attr))
        elif isinstance(node, ast.alias):
            named.append(("command", node.asname or node.name.rpartition(".")[2]))
        found += [
            f"{module} names the {kind} {name}" for kind, name in named if name in words[kind]
        ]
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.ops[0], ast.In | ast.NotIn)
            and isinstance(node.comparators[0], ast.Subscript)
            and _text(node.comparators[0].slice) == "modules"
        ):
            found.append(f"{module} asks whether a module is on")
    return sorted(set(found))


def test_the_rules_core_and_content_name_no_modules_command_action_or_state() -> None:
    """The core runs with no module at all: a module's commands, actions and state are its own,
    and only it (through the hooks) names them."""
    words = _module_words()
    assert all(words.values())  # the modules are plugged in
    named = [
        found
        for module, path in sorted(MODULES.items())
        if _within(module, "app.rules.core") or _within(module, "app.rules.content")
        for found in _words_named(module, ast.parse(path.read_text(encoding="utf-8")), words)
    ]
    assert named == []


def test_the_module_word_check_sees_strings_names_imports_and_keys() -> None:
    source = (
        "from .commands import SetNpc\n"
        'ALLOWS = {"FireCue"}\n'
        "c.PlaceInZone\n"
        'if action == "release": pass\n'
        "release = 1\n"  # a name that is an action's id is not the action
        'state = {"torpedoes": []}\n'
        'ship["npc"]\n'
        'state.get("cues")\n'
        'state.setdefault("seat_moves", {})\n'
        '"grapples" in state\n'
        'crew == "starmada"\n'  # a value, not a key
        'if "seats" in state["modules"]: pass\n'
        'COUNTS = {"TorpedoLaunched": 1}\n'
    )
    words = {
        "command": {"SetNpc", "FireCue", "PlaceInZone"},
        "action": {"release"},
        "state key": {"torpedoes", "npc", "cues", "seat_moves", "grapples", "starmada"},
        "report line": {"TorpedoLaunched"},
    }
    assert _words_named("app.rules.core.x", ast.parse(source), words) == [
        "app.rules.core.x asks whether a module is on",
        "app.rules.core.x names the action release",
        "app.rules.core.x names the command FireCue",
        "app.rules.core.x names the command PlaceInZone",
        "app.rules.core.x names the command SetNpc",
        "app.rules.core.x names the report line TorpedoLaunched",
        "app.rules.core.x names the state key cues",
        "app.rules.core.x names the state key grapples",
        "app.rules.core.x names the state key npc",
        "app.rules.core.x names the state key seat_moves",
        "app.rules.core.x names the state key torpedoes",
    ]
