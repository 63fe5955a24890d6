"""No import cycle anywhere in the package: its import graph, the imports inside functions
included (a deferred import hides a cycle from Python, not from a reader), has no strongly
connected component of more than one module."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import infrabook

PACKAGE = Path(infrabook.__file__).parent


def modules(root: Path) -> dict[str, Path]:
    """Every module under the package folder ``root``, by dotted name."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that module ``name`` imports anywhere in its body: ``from a
    import b`` counts ``a.b`` when that is a module, else ``a``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, *([base] if base else [])])
            targets.update(f"{base}.{alias.name}" for alias in node.names)
            targets.add(base)
    edges = set()
    for target in targets:
        while target and target not in known:  # a name imported from a module: the module
            target = target.rpartition(".")[0]
        if target and target != name:
            edges.add(target)
    return edges


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm).

    >>> cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    [['a', 'b', 'c']]
    >>> cycles({"a": {"b"}, "b": set()})
    []
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = [stack.pop()]
            while component[-1] != v:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    known = modules(root)
    return {name: imports(name, path, known) for name, path in known.items()}


def test_the_package_has_no_import_cycle():
    graph = import_graph(PACKAGE)
    # the walk sees edges
    assert "infrabook.bench.records.results" in graph["infrabook.bench.records.store"]
    found = cycles(graph)
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_a_cycle_through_a_function_level_import_is_found(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from ..a import x\n")
    (pkg / "c.py").write_text("from . import a\n")
    assert cycles(import_graph(pkg)) == [["pkg.a", "pkg.sub.b"]]


def test_reading_a_record_imports_no_torch_psutil_or_matplotlib():
    # records, their reports and compare are read where nothing is measured (pages, CI)
    book = PACKAGE.parents[1] / "docs" / "_data" / "bench"
    probe = (
        "import sys; from pathlib import Path; "
        "from infrabook.bench.records import compare, report, store; "
        f"[store.read(p) for p in sorted(Path({str(book)!r}).glob('*.json'))]; "
        "print(sorted({'torch', 'psutil', 'matplotlib'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_bench_command_imports_torch_only_to_measure():
    # a bad option, --merge and compare answer at once (security review L2)
    probe = (
        "import sys, contextlib; from infrabook.bench import run\n"
        "for argv in (['--bogus'], ['--merge', '/nonexistent'], ['compare', '/nonexistent']):\n"
        "    with contextlib.suppress(SystemExit):\n"
        "        run.main(argv)\n"
        "print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_layer_contracts_hold():
    """pyproject.toml's import-linter contracts: the bench suite's layers, and a records
    layer that imports nothing that measures (imports inside functions included)."""
    lint = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run([str(lint)], capture_output=True, text=True, cwd=PACKAGE.parents[1])
    assert out.returncode == 0, out.stdout[-3000:]
    assert "2 kept, 0 broken" in out.stdout


def test_measured_figures_do_not_import_torch():
    # a figure of a record needs matplotlib, not the benchmarks' torch
    probe = "import sys, infrabook.plots.measured; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
