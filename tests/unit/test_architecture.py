"""The architecture rules, checked on the source: where the database drivers may be
imported, no import loop, and the size limit of functions (modules are cut by concept,
not by a line count).

Everything is read with :mod:`ast` (nothing is imported), so the rules see imports inside
functions and under ``if TYPE_CHECKING:`` as well as those at module level.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[2] / "langmemcore"
STORAGE = "langmemcore.storage"
DRIVERS = ("sqlalchemy", "psycopg")
"""Top-level packages only ``langmemcore.storage`` may import (``psycopg`` covers
``psycopg_pool`` and ``psycopg2`` too)."""
MAX_FUNCTION_LINES = 60


@dataclass(frozen=True)
class Import:
    """One imported module as written in the source: its absolute dotted name, the
    names taken from it (``from x import a, b``) and the line.
    """

    module: str
    names: tuple[str, ...]
    line: int


def module_name(path: Path, root: Path) -> str:
    """The dotted name of a source file under ``root`` (a package's ``__init__`` is the
    package itself).
    """
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(tree: ast.AST, module: str, *, is_package: bool) -> Iterator[Import]:
    """Every import statement anywhere in ``tree``, relative ones made absolute."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(alias.name, (), node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                anchor = package[: len(package) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            yield Import(base, tuple(alias.name for alias in node.names), node.lineno)


@dataclass(frozen=True)
class Source:
    """A parsed module of the package."""

    name: str
    path: Path
    relative: str
    tree: ast.Module
    lines: int

    def imports(self) -> Iterator[Import]:
        """Every import of the module."""
        return imports_of(self.tree, self.name, is_package=self.path.name == "__init__.py")


def parse_package(root: Path) -> dict[str, Source]:
    """Every ``.py`` module under ``root``, by dotted name."""
    sources = {}
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = module_name(path, root)
        relative = path.relative_to(root.parent).as_posix()
        tree = ast.parse(text, str(path))
        sources[name] = Source(name, path, relative, tree, len(text.splitlines()))
    return sources


@cache
def package_sources() -> dict[str, Source]:
    """The modules of ``langmemcore``, parsed once per test session."""
    return parse_package(PACKAGE_ROOT)


def driver_imports(sources: dict[str, Source]) -> list[str]:
    """``path:line module`` for every driver import outside the storage package."""
    offenders = []
    for source in sources.values():
        if source.name == STORAGE or source.name.startswith(f"{STORAGE}."):
            continue
        for imported in source.imports():
            if imported.module.split(".")[0].startswith(DRIVERS):
                offenders.append(f"{source.relative}:{imported.line} {imported.module}")
    return offenders


def _known(name: str, modules: set[str]) -> str | None:
    """The longest prefix of ``name`` that is one of ``modules``."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def import_graph(sources: dict[str, Source]) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (``from pkg import sub`` counts as an
    import of ``pkg.sub`` when that is a module, else of ``pkg``).
    """
    modules = set(sources)
    graph: dict[str, set[str]] = {name: set() for name in sources}
    for source in sources.values():
        for imported in source.imports():
            submodules = [f"{imported.module}.{n}" for n in imported.names]
            targets = [m for m in submodules if m in modules]
            if len(targets) < len(imported.names) or not imported.names:
                targets.append(_known(imported.module, modules) or "")
            graph[source.name].update(t for t in targets if t and t != source.name)
    return graph


def _components(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _cycle_through(start: str, members: set[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest import path from ``start`` back to itself inside one component."""
    paths = {child: [start, child] for child in sorted(graph[start] & members)}
    queue = list(paths)
    while queue:
        node = queue.pop(0)
        if node == start:
            return paths[node]
        for child in sorted(graph[node] & members):
            if child not in paths:
                paths[child] = [*paths[node], child]
                queue.append(child)
    return [start, start]


def import_cycles(sources: dict[str, Source]) -> list[str]:
    """One cycle per group of mutually importing modules, as ``a -> b -> a``."""
    graph = import_graph(sources)
    return [
        " -> ".join(_cycle_through(members[0], set(members), graph))
        for members in _components(graph)
    ]


def long_functions(sources: dict[str, Source]) -> list[str]:
    """``path:line name (lines)`` of every function or method over the limit."""
    offenders = []
    for source in sources.values():
        for node in ast.walk(source.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    offenders.append(f"{source.relative}:{node.lineno} {node.name} ({length})")
    return offenders


def _listing(offenders: list[str]) -> str:
    return "\n  " + "\n  ".join(offenders)


def test_only_storage_imports_the_database_drivers() -> None:
    """Domain code reaches the database through ``langmemcore.storage`` only."""
    offenders = driver_imports(package_sources())
    assert not offenders, "sqlalchemy / psycopg imported outside langmemcore/storage/:" + (
        _listing(offenders)
    )


def test_no_import_cycle() -> None:
    """No module imports, directly or through others, a module that imports it back
    (imports inside functions count: a lazy import only hides a loop).
    """
    cycles = import_cycles(package_sources())
    assert not cycles, "import cycles inside langmemcore:" + _listing(cycles)


def test_functions_within_line_limit() -> None:
    """No function or method is over 60 lines, docstring included."""
    offenders = long_functions(package_sources())
    assert not offenders, f"functions over {MAX_FUNCTION_LINES} lines:" + _listing(offenders)


@pytest.fixture
def sample_package(tmp_path: Path) -> dict[str, Source]:
    """A small package breaking every rule once."""
    root = tmp_path / "langmemcore"
    (root / "storage").mkdir(parents=True)
    (root / "domain").mkdir()
    files = {
        "__init__.py": "",
        "storage/__init__.py": "from . import db\n",
        "storage/db.py": "import sqlalchemy\nfrom psycopg import errors\n",
        "domain/__init__.py": "",
        "domain/a.py": "def f():\n    from sqlalchemy.orm import Session\n    from . import b\n",
        "domain/b.py": "from langmemcore.domain.c import x\n",
        "domain/c.py": "import psycopg_pool\nfrom .a import f\nx = 1\n",
        "long.py": "def g():\n" + "    pass\n" * MAX_FUNCTION_LINES,
        "short.py": "def h():\n" + "    pass\n" * (MAX_FUNCTION_LINES - 1),
    }
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return parse_package(root)


def test_rules_detect_violations(sample_package: dict[str, Source]) -> None:
    """Each rule finds exactly the planted offenders of the sample package."""
    assert sorted(driver_imports(sample_package)) == [
        "langmemcore/domain/a.py:2 sqlalchemy.orm",
        "langmemcore/domain/c.py:1 psycopg_pool",
    ]
    assert import_cycles(sample_package) == [
        "langmemcore.domain.a -> langmemcore.domain.b -> langmemcore.domain.c"
        " -> langmemcore.domain.a"
    ]
    assert long_functions(sample_package) == [f"langmemcore/long.py:1 g ({MAX_FUNCTION_LINES + 1})"]
