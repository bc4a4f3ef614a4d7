"""scikit-learn's estimator checks for the companion's estimators, as one pytest parametrization.

``parametrize_with_checks`` also yields ``check_array_api_input``, which skips itself unless the
environment variable ``SCIPY_ARRAY_API`` is set; the companion computes with NumPy only (its estimators do
not declare ``array_api_support``), so that check is left out here, by name, instead of being reported as
a skip on every run.  Everything else runs; the expected failures are the caller's, each with its reason.
"""

from __future__ import annotations

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

NOT_RUN = {"check_array_api_input": "the companion's estimators compute with NumPy only (no array API support)"}


def _check_name(check) -> str:
    return getattr(check, "func", check).__name__


def sklearn_checks(estimators, expected_failed_checks):
    """``pytest.mark.parametrize`` over ``(estimator, check)`` pairs, without the checks in ``NOT_RUN``."""
    mark = parametrize_with_checks(estimators, expected_failed_checks=expected_failed_checks)
    names, params = mark.args

    def check_of(param):
        return (param.values if hasattr(param, "values") else param)[1]

    kept = [p for p in params if _check_name(check_of(p)) not in NOT_RUN]
    return pytest.mark.parametrize(names, kept, **mark.kwargs)
