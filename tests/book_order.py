"""Book order is import order: the checker behind ``tests/test_book_order.py``.

The chapters' order comes from ``_toc.yml``; chapter ``book/chNN_<slug>.ipynb`` owns the package
``companion/<slug>/``.  Every other module of the companion is the *ground floor*.  The rules:

* the ground floor imports no chapter package;
* a chapter's package imports only the ground floor, its own modules and the packages of
  earlier chapters;
* a chapter notebook imports only the ground floor, its own package and earlier chapters';
* no two modules import each other, directly or through others (no cycle);
* every chapter has its package and every package is a chapter's or the ground floor's;
* the *top floor* (the practitioner's estimators, ``companion.estimators``) may import every
  chapter's algorithm modules, but not a chapter's package itself (its ``__init__`` loads the
  derivations and experiments), its ``derivations`` or ``experiments``, nor ``plotting``; no other
  module imports the top floor.

Imports are read with :mod:`ast` (module level and inside functions, relative ones resolved), so
nothing is imported to check them.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path


def chapter_slugs(toc_path: Path) -> list[str]:
    """The chapters' slugs in book order: ``book/ch04_label_shift_weights`` -> ``label_shift_weights``."""
    return re.findall(r"file:\s*book/ch\d+_(\w+)\s*$", toc_path.read_text(encoding="utf-8"), flags=re.M)


def module_name(path: Path, root: Path) -> str:
    """``root/a/b.py`` -> ``companion.a.b``; ``root/a/__init__.py`` -> ``companion.a``."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, is_package: bool, level: int, target: str | None) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join(base + ([target] if target else []))


def _is_module(root: Path, name: str) -> bool:
    """Whether the dotted ``name`` is a module or package of the tree at ``root`` (not a name inside one)."""
    path = root.parent / name.replace(".", "/")
    return path.is_dir() or path.with_suffix(".py").exists()


def imports_of(path: Path, root: Path) -> set[str]:
    """Companion modules a file imports (``from .x import y`` counts ``companion.<pkg>.x`` and, when ``y`` is a module, it too)."""
    module = module_name(path, root)
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == root.name}
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, is_package, node.level, node.module) if node.level else node.module
            if target and target.split(".")[0] == root.name:
                if target != module:  # ``from . import a`` in a package's __init__ names its modules, not itself
                    found.add(target)
                found |= {f"{target}.{a.name}" for a in node.names if _is_module(root, f"{target}.{a.name}")}
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the companion modules it imports (every ``.py`` under ``root``)."""
    return {module_name(p, root): imports_of(p, root) for p in sorted(root.rglob("*.py"))}


def owner(module: str, slugs: list[str]) -> int | None:
    """Index of the chapter whose package holds ``module``; None for the ground floor."""
    parts = module.split(".")
    return slugs.index(parts[1]) if len(parts) > 1 and parts[1] in slugs else None


def order_violations(graph: dict[str, set[str]], slugs: list[str]) -> list[str]:
    """Every import against book order, as readable sentences."""
    out = []
    for module, targets in sorted(graph.items()):
        here = owner(module, slugs)
        for target in sorted(targets):
            there = owner(target, slugs)
            if there is None or there == here:
                continue
            if here is None:
                out.append(f"{module} (ground floor) imports {target} (chapter {there + 1}, {slugs[there]})")
            elif there > here:
                out.append(f"{module} (chapter {here + 1}) imports {target} from a later chapter ({there + 1}, {slugs[there]})")
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Import cycles: one list of modules per strongly connected component with more than one module (or a self-import)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, ()):
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _package_importing_itself(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph without the edges from a package's ``__init__`` to its own submodules and back.

    A package's ``__init__`` imports its modules to export their names; a module of the package
    never imports the package itself (the cycle test checks that separately), so these edges
    are the package's table of contents, not a dependency.
    """
    return {m: {t for t in ts if not t.startswith(m + ".")} for m, ts in graph.items()}


def notebook_imports(path: Path, package: str = "companion") -> set[str]:
    """Companion modules a notebook's code cells import (lines starting with ``%`` or ``!`` left out)."""
    found = set()
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "code":
            continue
        code = "\n".join(line for line in "".join(cell["source"]).splitlines() if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.split(".")[0] == package}
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == package:
                found.add(node.module)
                if node.module == package:
                    found |= {f"{package}.{a.name}" for a in node.names}
    return found


def notebook_violations(book: Path, slugs: list[str]) -> list[str]:
    """Every import of a chapter notebook from a later chapter's package."""
    out = []
    for path in sorted(book.glob("ch*_*.ipynb")):
        slug = re.match(r"ch\d+_(\w+)\.ipynb", path.name).group(1)
        here = slugs.index(slug)
        for target in sorted(notebook_imports(path)):
            there = owner(target, slugs)
            if there is not None and there > here:
                out.append(f"{path.name} (chapter {here + 1}) imports {target} from a later chapter ({there + 1}, {slugs[there]})")
    return out


def layout_problems(root: Path, slugs: list[str], ground_floor: set[str]) -> list[str]:
    """A chapter without its package, or a package that is neither a chapter's nor on the ground floor."""
    packages = {p.parent.name for p in root.glob("*/__init__.py")}
    out = [f"chapter {i + 1} ({slug}) has no package companion/{slug}/" for i, slug in enumerate(slugs) if slug not in packages]
    out += [f"companion/{p}/ is neither a chapter's package nor on the ground floor" for p in sorted(packages - set(slugs) - ground_floor)]
    return out


#: What the top floor must not import: modules that load SymPy, the experiments or matplotlib.
HEAVY_MODULES = ("derivations", "experiments")


def _on_top_floor(module: str, top_floor) -> bool:
    parts = module.split(".")
    return len(parts) > 1 and parts[1] in top_floor


def top_floor_violations(graph: dict[str, set[str]], slugs: list[str], top_floor) -> list[str]:
    """The top floor importing a chapter package, derivations, experiments or plotting; any other module importing the top floor."""
    out = []
    for module, targets in sorted(graph.items()):
        top = _on_top_floor(module, top_floor)
        for target in sorted(targets):
            parts = target.split(".")
            if not top and _on_top_floor(target, top_floor):
                out.append(f"{module} imports {target} from the top floor (only the top floor builds on the chapters' algorithms)")
            elif top and owner(target, slugs) is not None and (len(parts) == 2 or parts[2] in HEAVY_MODULES):
                out.append(f"{module} (top floor) imports {target}: import the chapter's algorithm modules, "
                           "not its package, derivations or experiments")
            elif top and parts[1:2] == ["plotting"]:
                out.append(f"{module} (top floor) imports {target}: the estimators load no plotting")
    return out


def check(root: Path, toc: Path, book: Path, ground_floor: set[str], top_floor: frozenset = frozenset()) -> list[str]:
    """All problems of a companion tree, a table of contents and its notebooks (empty when book order holds)."""
    slugs = chapter_slugs(toc)
    graph = import_graph(root)
    problems = layout_problems(root, slugs, set(ground_floor) | set(top_floor))
    problems += order_violations({m: t for m, t in graph.items() if not _on_top_floor(m, top_floor)}, slugs)
    problems += top_floor_violations(graph, slugs, top_floor)
    problems += [f"import cycle: {' -> '.join(c)}" for c in cycles(_package_importing_itself(graph))]
    problems += [f"{m} imports its own package {m.rsplit('.', 1)[0]} (its __init__ imports it back)"
                 for m, targets in sorted(graph.items()) if m.count(".") >= 2 and m.rsplit(".", 1)[0] in targets]
    problems += notebook_violations(book, slugs)
    return problems
