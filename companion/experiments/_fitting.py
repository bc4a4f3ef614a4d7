"""Least-squares rate fits shared by the drivers."""

from __future__ import annotations

import numpy as np

__all__ = ["loglog_fit"]


def loglog_fit(response: np.ndarray, *regressors: np.ndarray) -> np.ndarray:
    """Least-squares exponents of ``response ~ C * prod(regressor ** a)`` (returns the a's).

    NaN for every exponent when the points do not determine them (fewer points
    than coefficients, or regressors that do not vary independently): the
    minimum-norm solution ``lstsq`` would return there is not a fit.
    """
    design = np.column_stack([np.ones(response.size), *(np.log(x) for x in regressors)])
    coef, _, rank, _ = np.linalg.lstsq(design, np.log(response), rcond=None)
    if rank < design.shape[1]:
        return np.full(design.shape[1] - 1, np.nan)
    return coef[1:]
