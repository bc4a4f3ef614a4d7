"""Sympy derivations behind the book's algebra, one module per topic.

Each function builds both sides of an identity from symbols and returns
sympy expressions; a chapter shows them and ``tests/`` asserts that the
difference simplifies to exactly zero.  Every public name is re-exported
here, so ``from companion.symbolic import set_partitions`` works.
"""

from __future__ import annotations

from . import decomposition
from . import binning
from . import label_shift
from . import target_prior
from . import multiclass
from . import label_shift_weights
from . import binning_label_shift
from . import conformal
from .decomposition import *  # noqa: F401,F403
from .binning import *  # noqa: F401,F403
from .label_shift import *  # noqa: F401,F403
from .target_prior import *  # noqa: F401,F403
from .multiclass import *  # noqa: F401,F403
from .label_shift_weights import *  # noqa: F401,F403
from .binning_label_shift import *  # noqa: F401,F403
from .conformal import *  # noqa: F401,F403

__all__ = [*decomposition.__all__, *binning.__all__, *label_shift.__all__, *target_prior.__all__, *multiclass.__all__,
           *label_shift_weights.__all__, *binning_label_shift.__all__, *conformal.__all__]
