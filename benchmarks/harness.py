"""Side-by-side timing shared by the benchmarks.

A comparison runs the companion and every other side *alternately*, rotating
which side goes first in each round, and keeps each side's best of at least
five rounds: on a shared machine a side timed once, after the other, can be
off by a factor of two, while the best of alternating rounds sees both sides
under the same load.  Each row names what the companion is compared with:

* a *floor* -- an operation any method must pay (one ``np.sort`` of the
  scores, drawing the sample), so ``companion / floor`` says how close to the
  cost of the data the algorithm is;
* a *peer* -- an established library doing the same computation on the same
  inputs (scikit-learn, QuaPy, MAPIE, crepes; optional, from
  ``benchmarks/requirements.txt``);
* a *baseline* -- the straightforward implementation the companion replaces
  (a loop over repetitions or samples), run at a size where it finishes.

The load average is read before and after each comparison and reported with it.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

ROUNDS = 5


@dataclass
class Row:
    benchmark: str
    size: str
    companion: float
    other: str
    kind: str  # "floor", "peer" or "baseline"
    other_time: float
    load: float

    @property
    def ratio(self) -> float:
        """Companion time over the other side's time (below 1: the companion is faster)."""
        return self.companion / self.other_time


def power(n: int) -> str:
    """A power of ten as the tables write it: ``10**6`` -> ``1e6``."""
    return f"1e{round(np.log10(n))}"


def available(module: str) -> bool:
    """Whether an optional peer library is installed (``pip install -r benchmarks/requirements.txt``)."""
    return importlib.util.find_spec(module) is not None


def given_classifier(k: int):
    """A fitted scikit-learn classifier whose probabilities are its input, so a peer gets the companion's classifier outputs."""
    from sklearn.base import BaseEstimator, ClassifierMixin

    class Given(ClassifierMixin, BaseEstimator):
        def __init__(self):
            self.classes_ = np.arange(k)

        def fit(self, X, y):
            return self

        def predict_proba(self, X):
            return X

        def predict(self, X):
            return X.argmax(axis=1)

    return Given()


def best_of(sides: dict[str, Callable[[], object]], rounds: int = ROUNDS) -> dict[str, float]:
    """Best wall time of each side over ``rounds`` rounds, the sides run alternately (first side rotates)."""
    if rounds < 5:
        raise ValueError(f"rounds must be at least 5 (best of five), got {rounds}")
    names = list(sides)
    best = dict.fromkeys(names, float("inf"))
    for r in range(rounds):
        for name in names[r % len(names):] + names[: r % len(names)]:
            start = time.perf_counter()
            sides[name]()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def compare(benchmark: str, size: str, companion: Callable[[], object],
            others: dict[str, tuple[str, Callable[[], object]]], rounds: int = ROUNDS) -> list[Row]:
    """Time ``companion`` against ``others`` (name -> (kind, callable)); one row per other side."""
    return compare_many(size, {benchmark: (companion, list(others))}, others, rounds)


def compare_many(size: str, companions: dict[str, tuple[Callable[[], object], list[str]]],
                 others: dict[str, tuple[str, Callable[[], object]]], rounds: int = ROUNDS) -> list[Row]:
    """Several companion sides and ``others`` timed in one alternating run, so every ratio sees the same load.

    ``companions`` maps a benchmark name to (callable, names of the ``others`` it is compared with);
    one row per such pair.
    """
    load_before = os.getloadavg()[0]
    sides = {**{name: fn for name, (fn, _) in companions.items()}, **{name: fn for name, (_, fn) in others.items()}}
    times = best_of(sides, rounds)
    load = max(load_before, os.getloadavg()[0])
    rows = [Row(benchmark, size, times[benchmark], name, others[name][0], times[name], load)
            for benchmark, (_, against) in companions.items() for name in against]
    for row in rows:
        print(f"{row.benchmark} [{size}]: companion {row.companion:.4g} s, {row.other} ({row.kind}) {row.other_time:.4g} s, "
              f"ratio {row.ratio:.2f}, load {row.load:.2f}", flush=True)
    return rows


def machine() -> str:
    """One line about the machine the table was measured on."""
    return (f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}, "
            f"numpy {np.__version__}")


def markdown(rows: list[Row]) -> str:
    """The rows as one Markdown table."""
    lines = ["| benchmark | size | companion (s) | compared with | kind | its time (s) | companion / it | load |",
             "|---|---|---:|---|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r.benchmark} | {r.size} | {r.companion:.3g} | {r.other} | {r.kind} | {r.other_time:.3g} | "
                     f"{r.ratio:.2g} | {r.load:.1f} |")
    return "\n".join(lines)
