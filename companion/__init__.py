"""Recalibration and distribution-free uncertainty under label shift: the companion of the open textbook.

Installed as the distribution ``shiftcal-companion``; imported as ``companion``.

For a project (a fitted scikit-learn classifier meeting a new class balance), the estimators of
:mod:`companion.estimators`, also reachable from here (``from companion import ...``):

``TargetPriorEstimator``
    The target's class prior and the label-shift weights from an unlabelled target sample
    (MLLS, BBSE, RLLS).
``LabelShiftCalibratedClassifier``
    A fitted classifier's probabilities recalibrated for the target.
``WeightedConformalClassifier``
    Prediction sets with their coverage under label shift.

The book's algorithms, one package per chapter, in reading order (each with its bounds; its
``derivations`` (SymPy checks) and ``experiments`` load only when first used):

``calibration_sharpness``        the MSE decomposition, histogram-binning recalibrators
``uniform_mass_binning``         Theorem 1's risk bound and the bin-count rule
``multiclass_lp``                multiclass calibration under l_p error (Algorithm 2), baselines
``label_shift_weights``          the Bayes correction, BBSE, MLLS, RLLS, temperature scalings
``label_shift_recalibration``    the prior correction and the composite recalibrator
``binning_label_shift``          canonical binning and its label-shift corrected version
``conformal_label_shift``        split, weighted and label-conditional conformal sets
``target_prior``                 recalibration to a target prior without labels (FJS, CSPD, QMM)

and the ground floor: ``scenarios`` (the papers' worlds with exact oracles), ``display`` and
``plotting`` (the book's tables and figures).  Importing ``companion`` or the estimators loads no
SymPy, matplotlib, derivations or experiments.

``companion.__version__`` is the installed distribution's version (see ``CHANGELOG.md``).
"""

from __future__ import annotations

from . import _lazy

DISTRIBUTION = "shiftcal-companion"

# the estimators load on first use (they import scikit-learn; companion/_lazy.py)
_getattr, _dir = _lazy.attach(__name__, globals(), eager=[], lazy=["estimators"])


def __getattr__(name: str):
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version(DISTRIBUTION)
        except PackageNotFoundError:  # the sources on sys.path without an installation
            value = "0+unknown"
        globals()["__version__"] = value
        return value
    return _getattr(name)


def __dir__() -> list[str]:
    return sorted({*_dir(), "__version__"})
