"""Wall time of the Figure 1-2 grid of the uniform-mass binning chapter (paper 000, App. E.1), against a naive baseline.

Run: ``.venv/bin/python benchmarks/bench_figures_1_2.py [--skip-baseline]``.

The fast path (:func:`companion.uniform_mass_binning.umb_risk_grid`) sorts each sample
once, derives every bin count from ``searchsorted`` and evaluates all maps'
population risks in one vectorized batch.  The baseline refits
``UniformMassBinning`` and calls ``population_risks`` for every
(n, B, repetition) with a fresh sample, as a straightforward script would
(it still uses the companion's sort-based fit and closed-form risks; a
per-bin quadrature would be far slower).  It is timed on a reduced grid and
extrapolated by the number of sample points drawn, which dominates it.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from companion.calibration_sharpness import UniformMassBinning
from companion.uniform_mass_binning import (
    FIGURE1_N_BINS,
    FIGURE1_N_VALUES,
    umb_figure_summary,
    umb_lemma_frequencies,
    umb_risk_grid,
)
from companion.scenarios import GaussianMixture


def naive_grid(n_values, n_bins_values, n_reps, rng):
    scenario = GaussianMixture(0.5, 2.0)
    for n in n_values:
        for b in n_bins_values:
            if 2 * b > n:
                continue
            for _ in range(n_reps):
                z, y = scenario.sample(int(n), rng)
                m = UniformMassBinning(int(b)).fit(z, y)
                scenario.population_risks(m.edges_, m.values_)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-baseline", action="store_true", help="time only the fast path")
    args = parser.parse_args()
    print(f"load average before start: {os.getloadavg()[0]:.2f} (2-core machine)")

    start = time.perf_counter()
    grid = umb_risk_grid(FIGURE1_N_VALUES, FIGURE1_N_BINS, n_reps=10, rng=0)
    middle = time.perf_counter()
    umb_figure_summary(grid, delta=0.1)
    end = time.perf_counter()
    cells = int(grid["valid"].sum()) * 10
    print(
        f"full grid: {FIGURE1_N_VALUES.size} n-values up to {FIGURE1_N_VALUES.max():.0e}, "
        f"{FIGURE1_N_BINS.size} B-values up to {FIGURE1_N_BINS.max()}, 10 repetitions "
        f"({cells} (n, B, rep) cells)"
    )
    print(f"  umb_risk_grid      {middle - start:7.2f} s")
    print(f"  umb_figure_summary {end - middle:7.2f} s")
    print(f"  total              {end - start:7.2f} s   (target <= 60 s)")
    start = time.perf_counter()
    umb_lemma_frequencies(10 * np.array([4, 8, 16, 32, 64, 128]), 10, n_reps=2000, rng=0)
    umb_lemma_frequencies(100 * np.array([8, 16, 32, 64]), 100, n_reps=1000, rng=1)
    print(f"  Lemma 3-4 simulation of the chapter (B = 10 and 100): {time.perf_counter() - start:.2f} s")

    if not args.skip_baseline:
        small_n, small_b, reps = np.array([10**4, 10**5, 10**6]), FIGURE1_N_BINS[::6], 1
        t0 = time.perf_counter()
        naive_grid(small_n, small_b, reps, np.random.default_rng(1))
        t1 = time.perf_counter()
        umb_risk_grid(small_n, small_b, reps, rng=1)
        t2 = time.perf_counter()
        print(f"reduced grid (n <= 1e6, {small_b.size} B-values, {reps} reps): naive {t1 - t0:.2f} s, fast {t2 - t1:.2f} s")
        # the naive cost is proportional to the number of sample points drawn and sorted
        per_point = (t1 - t0) / sum(int(n) * int((2 * small_b <= n).sum()) * reps for n in small_n)
        drawn = sum(int(n) * int((2 * FIGURE1_N_BINS <= n).sum()) * 10 for n in FIGURE1_N_VALUES)
        print(f"naive full grid, extrapolated: about {per_point * drawn / 60:.0f} min")


if __name__ == "__main__":
    main()
