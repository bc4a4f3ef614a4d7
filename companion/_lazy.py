"""Lazy access to a package's book-only modules (PEP 562), shared by every package ``__init__``.

A chapter's package imports its algorithms and bounds when it is imported, and its derivations
(SymPy), experiments and guarantee checks (long simulations, ``scipy.stats``) only when one of
their names is first asked for: ``package.derivations``, ``package.name_from_derivations``,
``from package import name_from_derivations`` and ``from package import *`` all work as if
everything had been imported eagerly, while ``import package`` (and so importing one of its
algorithm modules, or the practitioner's estimators) loads none of them.

Which lazy module exports a name is read from the ``__all__`` literal of its source with
:mod:`ast`, without importing it (a module whose ``__all__`` is not a literal list is imported to
read it), so asking for a name that does not exist raises ``AttributeError`` without loading
anything heavy.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Iterable


def _exports(module: str) -> list[str]:
    """The ``__all__`` of ``module``, from its source when it is a literal, else by importing it."""
    import ast  # here, not at the top: ``import companion`` stays a few milliseconds

    spec = importlib.util.find_spec(module)
    if spec is None:
        raise ModuleNotFoundError(f"No module named {module!r}", name=module)
    origin = spec.origin
    if origin and origin.endswith(".py"):
        with open(origin, encoding="utf-8") as source:
            tree = ast.parse(source.read(), filename=origin)
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                try:
                    return list(ast.literal_eval(node.value))
                except ValueError:
                    break
    return list(importlib.import_module(module).__all__)


def attach(package: str, namespace: dict, eager: Iterable[str], lazy: Iterable[str]) -> tuple[Callable, Callable]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose ``lazy`` modules load on first use.

    Parameters
    ----------
    package
        The package's ``__name__``.
    namespace
        The package's ``globals()``: where each name is stored once loaded.
    eager
        The modules the package has already imported (their names star-imported into ``namespace``).
    lazy
        The modules imported on first use, in the order in which their names take precedence
        (a name exported by an eager module and a lazy one is the eager module's).

    Returns
    -------
    getattr, dir
        Assign them to the package's ``__getattr__`` and ``__dir__``.  ``__all__`` is served by the
        former: the eager modules' names, then the lazy ones', each once, in module order.
    """
    eager, lazy = list(eager), list(lazy)
    table: dict[str, str] = {}  # exported name -> the lazy module holding it, filled on first need

    def lazy_table() -> dict[str, str]:
        if not table:
            taken = {name for module in eager for name in namespace[module].__all__}
            for module in lazy:
                for name in _exports(f"{package}.{module}"):
                    if name not in taken:
                        table.setdefault(name, module)
        return table

    def __getattr__(name: str):
        if name in lazy:
            return importlib.import_module(f"{package}.{name}")  # the import system binds it in namespace
        if name == "__all__":
            names = [n for module in eager for n in namespace[module].__all__]
            names += [n for module in lazy for n in _exports(f"{package}.{module}")]
            namespace["__all__"] = value = list(dict.fromkeys(names))
            return value
        if not name.startswith("__"):
            module = lazy_table().get(name)
            if module is not None:
                value = getattr(importlib.import_module(f"{package}.{module}"), name)
                namespace[name] = value
                return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(lazy) | set(lazy_table()))

    return __getattr__, __dir__
