"""The public API of the companion, enumerated from ``__all__``, and a registry of cases for it.

Used by ``tests/test_api_validation.py``.  Per public callable the registry
holds one minimal VALID call (small sizes, so each call takes milliseconds)
and, per argument, the KIND of value it takes; the kind chooses the family
of bad values the suite feeds that argument (see :func:`bad_values`).

Kinds (constructors below): ``real``, ``integer``, ``array``, ``option``,
``boolean``, ``func`` (a callable argument), ``rng``, ``obj`` (an object of
a known companion type), ``free`` (any value is legitimate: a record field,
a caption; the reason is recorded).  ``skip`` lists the labels of bad values
that are legitimately valid for that argument (for example ``"None"`` for
an optional argument), ``out`` adds out-of-range values of the right type.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import math
import pkgutil
import signal
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

import companion

# ---------------------------------------------------------------------------
# Enumeration of the public API
# ---------------------------------------------------------------------------


def public_modules() -> list:
    """Every public, non-package module of the companion (``companion.X``, ``companion.experiments.X``, ...)."""
    mods = []
    for info in pkgutil.walk_packages(companion.__path__, "companion."):
        if info.ispkg or any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        mods.append(importlib.import_module(info.name))
    return sorted(mods, key=lambda m: m.__name__)


def _short(modname: str) -> str:
    return modname.removeprefix("companion.")


def enumerate_public_api() -> dict:
    """``{key: callable}`` for every function or class in a module's ``__all__`` and every public method.

    A name re-exported by several public modules is counted once, under the
    module that defines it.  Methods are those a class defines or inherits
    from a companion class (not from ``object``, ``tuple`` or ``Exception``);
    properties are attributes, not callables.
    """
    found: dict[int, tuple[str, object]] = {}
    for mod in public_modules():
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            key = f"{_short(mod.__name__)}.{name}"
            home = getattr(obj, "__module__", None) == mod.__name__
            if id(obj) not in found or home:
                found[id(obj)] = (key, obj)
    api = {}
    for key, obj in sorted(found.values(), key=lambda kv: kv[0]):
        api[key] = obj
        if inspect.isclass(obj):
            seen = set()
            for base in obj.__mro__:
                if not base.__module__.startswith("companion"):
                    continue
                for attr, raw in vars(base).items():
                    if attr.startswith("_") or attr in seen:
                        continue
                    seen.add(attr)
                    if isinstance(raw, (property, functools.cached_property)):
                        continue
                    if isinstance(raw, (staticmethod, classmethod)) or inspect.isfunction(raw):
                        api[f"{key}.{attr}"] = getattr(obj, attr)
    return api


# ---------------------------------------------------------------------------
# Kinds of argument and their families of bad values
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    family: str
    skip: tuple = ()
    out: tuple = ()  # extra (label, value) pairs of the right type but out of range
    opts: dict = field(default_factory=dict)


def _out(out):
    return tuple((f"out_{v!r}" if not isinstance(v, tuple) else v[0], v if not isinstance(v, tuple) else v[1]) for v in out)


def real(*, out=(), skip=()):
    """A finite real scalar; ``out`` holds out-of-range reals."""
    return Kind("real", tuple(skip), _out(out))


def integer(*, minimum=1, out=(), skip=()):
    """An integer with a lower bound ``minimum``."""
    return Kind("int", tuple(skip), _out(out), {"minimum": minimum})


def array(*, ndim=1, length=False, out=(), skip=(), labels=False):
    """An array of reals of dimension ``ndim``; ``length``: its length must match another argument's."""
    skip = tuple(skip) + (("bool_dtype",) if labels else ())
    return Kind("array", skip, _out(out), {"ndim": ndim, "length": length})


def labels(*, length=True, out=(), skip=()):
    """An array of class labels (booleans are legitimate labels 0/1)."""
    return array(length=length, out=tuple(out) + (("label_fraction", [0.5, 1.0]),), skip=skip, labels=True)


def option(valid_case_sensitive=True, *, none_ok=False, skip=()):
    """One of a fixed set of strings (the valid call holds one of them)."""
    skip = tuple(skip) + (("None",) if none_ok else ())
    return Kind("option", skip, (), {"case": valid_case_sensitive})


def boolean(*, skip=()):
    return Kind("bool", tuple(skip))


def func(*, returns="array", skip=()):
    """A callable argument; ``returns``: what it must return for an array input ("array" or "scalar")."""
    return Kind("callable", tuple(skip), (), {"returns": returns})


def rng(*, none_ok=True, skip=()):
    return Kind("rng", tuple(skip) + (("None",) if none_ok else ()))


def obj(*, skip=()):
    """An object of a known companion type (an example, a grid, a curve, a partition)."""
    return Kind("object", tuple(skip))


def free(reason: str):
    """No value is wrong for this argument (the reason is recorded)."""
    return Kind("free", (), (), {"reason": reason})


HUGE = 10**400


def bad_values(kind: Kind, valid) -> list[tuple[str, object]]:
    """The family of bad values for an argument of ``kind`` whose valid value is ``valid``."""
    fam = kind.family
    vals: list[tuple[str, object]] = []
    if fam == "real":
        vals = [("nan", math.nan), ("inf", math.inf), ("-inf", -math.inf), ("numeric_str", "0.3"),
                ("complex", 0.3 + 0j), ("None", None), ("True", True), ("huge_int", HUGE), ("list", [valid])]
    elif fam == "int":
        lo = kind.opts["minimum"]
        vals = [("2.5", 2.5), ("-1", -1)]
        if lo >= 1:
            vals.append((f"below_min_{lo - 1}", lo - 1))
        vals += [("uint64_max", np.uint64(2**64 - 1)), ("huge_int", HUGE), ("numeric_str", "3"),
                 ("True", True), ("None", None)]
    elif fam == "array":
        a = np.asarray(valid) if valid is not None else np.empty(0)
        if a.size == 0:  # an optional or empty default: a stand-in of three entries
            a = np.array([0.5, 0.25, 0.25])
        vals = [("empty", np.empty((0,) + a.shape[1:]))]
        vals.append(("wrong_ndim", a[:, None] if a.ndim == 1 else a[0]))
        if kind.opts["length"]:
            vals.append(("wrong_length", a[:-1]))
        nan = a.astype(float).copy()
        nan.flat[0] = np.nan
        vals += [("nan_entry", nan), ("str_entries", a.astype(str).tolist()), ("complex_entries", a.astype(complex)),
                 ("bool_dtype", a != 0), ("None", None)]
    elif fam == "option":
        wrong_case = valid.upper() if valid.upper() != valid else valid.title()
        vals = [("wrong_str", "no-such-option"), ("wrong_case", wrong_case), ("None", None), ("list", [valid])]
    elif fam == "bool":
        vals = [("str_False", "False"), ("int_0", 0), ("int_1", 1), ("None", None)]
    elif fam == "callable":
        if kind.opts["returns"] == "scalar":
            nan_f = lambda *a, **k: math.nan  # noqa: E731
            shape_f = lambda *a, **k: np.zeros(3)  # noqa: E731
        else:
            nan_f = lambda x, *a, **k: np.full(np.shape(x), np.nan)  # noqa: E731
            shape_f = lambda x, *a, **k: np.zeros(np.size(x) + 1)  # noqa: E731
        vals = [("None", None), ("not_callable", 3), ("returns_nan", nan_f), ("wrong_shape", shape_f)]
    elif fam == "rng":
        vals = [("None", None), ("-1", -1), ("1.5", 1.5), ("str_seed", "seed"), ("True", True)]
    elif fam == "object":
        vals = [("None", None), ("int", 3), ("str", "x"), ("dict", {})]
    elif fam == "free":
        vals = []
    vals += list(kind.out)
    return [(label, v) for label, v in vals if label not in kind.skip]


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------


@dataclass
class Case:
    """One valid call and the kind of every argument.

    ``args``: keyword arguments of the valid call (defaults fill the rest);
    ``kinds``: every parameter's kind (the suite fails if one is missing);
    ``make``: for a method, builds the instance; ``star``: name of a
    ``*args`` parameter passed positionally from ``args[star]``;
    ``finite``: the result must be finite (NaN/inf nowhere); ``finite_ignore``:
    dict keys / record fields allowed to hold inf or NaN by design.
    """

    args: dict
    kinds: dict
    make: Callable | None = None
    star: str | None = None
    finite: bool = True
    finite_ignore: tuple = ()
    valid_variants: bool = True


def resolve(api: dict, key: str):
    return api[key]


def call(api: dict, key: str, case: Case, args: dict):
    """Call the callable ``key`` with keyword arguments ``args`` (``*args`` from ``case.star``)."""
    target = api[key]
    if case.make is not None:
        target = getattr(case.make(), key.rsplit(".", 1)[1])
    kwargs = dict(args)
    pos = list(kwargs.pop(case.star)) if case.star else []
    return target(*pos, **kwargs)


def parameters(api: dict, key: str, case: Case) -> dict:
    """Parameters of the callable (without ``self``) as ``{name: default or inspect._empty}``."""
    target = api[key]
    try:
        sig = inspect.signature(target)
    except ValueError:
        return {}
    params = {}
    for name, p in sig.parameters.items():
        if name == "self":
            continue
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        params[name] = p.default
    return params


def valid_value(api: dict, key: str, case: Case, name: str):
    if name in case.args:
        return case.args[name]
    return parameters(api, key, case)[name]


# ---------------------------------------------------------------------------
# Running one call
# ---------------------------------------------------------------------------


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def run_with_timeout(fn, seconds: float = 20.0):
    """Run ``fn()``; return ``(result, exception, warnings)``; a :class:`Hang` if it takes longer than ``seconds``."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                return fn(), None, caught
            except Hang as exc:
                return None, exc, caught
            except Exception as exc:  # noqa: BLE001 -- the point is to report any exception type
                return None, exc, caught
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        try:
            import matplotlib.pyplot as plt

            plt.close("all")
        except ImportError:
            pass


def short_repr(x, limit: int = 90) -> str:
    if isinstance(x, int) and not isinstance(x, bool) and abs(x) > 10**20:
        return f"10**{len(str(abs(x))) - 1}" if str(abs(x)).strip("0") == "1" else "<huge int>"
    if isinstance(x, np.ndarray):
        r = f"array(shape={x.shape}, dtype={x.dtype}"
        if x.size <= 4:
            r += f", {x.tolist()!r}"
        return r + ")"
    try:
        r = repr(x)
    except Exception:  # noqa: BLE001
        r = f"<{type(x).__name__}>"
    r = " ".join(r.split())
    return r if len(r) <= limit else r[: limit - 3] + "..."


def describe(label: str, value) -> str:
    """A short, readable form of a bad value for a failure line (the family's label for arrays and long lists)."""
    if isinstance(value, np.ndarray):
        return f"<{label}: {value.dtype} array of shape {value.shape}>"
    r = short_repr(value, 200)
    if len(r) > 40:
        return f"<{label}: {r[:36]}...>"
    return r


def nonfinite_parts(result, ignore=(), path="result") -> list[str]:
    """Paths inside ``result`` (floats, arrays, dicts, tuples, records) holding NaN or inf."""
    bad = []
    if isinstance(result, (bool, np.bool_)):
        return bad
    if isinstance(result, (float, np.floating, int, np.integer)) and not isinstance(result, bool):
        if isinstance(result, (float, np.floating)) and not np.isfinite(result):
            bad.append(f"{path}={result!r}")
        return bad
    if isinstance(result, np.ndarray):
        if result.dtype.kind in "fc" and not np.all(np.isfinite(result)):
            bad.append(f"{path} has {int(np.sum(~np.isfinite(result)))} non-finite of {result.size}")
        elif result.dtype.kind == "O":
            for i, v in enumerate(result.ravel()[:50]):
                bad += nonfinite_parts(v, ignore, f"{path}[{i}]")
        return bad
    if isinstance(result, dict):
        for k, v in result.items():
            if k in ignore:
                continue
            bad += nonfinite_parts(v, ignore, f"{path}[{k!r}]")
        return bad
    if hasattr(result, "_fields"):
        for k in result._fields:
            if k in ignore:
                continue
            bad += nonfinite_parts(getattr(result, k), ignore, f"{path}.{k}")
        return bad
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        for f in dataclasses.fields(result):
            if f.name in ignore:
                continue
            bad += nonfinite_parts(getattr(result, f.name), ignore, f"{path}.{f.name}")
        return bad
    if isinstance(result, (list, tuple)):
        for i, v in enumerate(result[:200]):
            bad += nonfinite_parts(v, ignore, f"{path}[{i}]")
    return bad


# the exception types a bad value may raise, by the kind of the argument
def allowed_exceptions(kind: Kind) -> tuple:
    if kind.family in ("object", "callable"):
        return (ValueError, TypeError)
    return (ValueError,)


def judge_bad(api, key, case, arg, label, value, seconds: float = 6.0):
    """Return ``(ok, what_happened)`` for the call with ``arg`` replaced by the bad ``value``."""
    args = dict(case.args)
    args[arg] = (value,) if arg == case.star else value
    kind = case.kinds[arg]
    res, exc, caught = run_with_timeout(lambda: call(api, key, case, args), seconds)
    if exc is None:
        extra = ""
        wn = {type(w.message).__name__ for w in caught}
        if wn:
            extra = f" (warnings: {', '.join(sorted(wn))})"
        nf = nonfinite_parts(res)
        if nf:
            extra += f" [non-finite: {nf[0]}]"
        return False, f"returned {short_repr(res)}{extra}"
    if isinstance(exc, Hang):
        return False, f"did not return within {seconds:g} s (hang)"
    msg = " ".join(str(exc).split())
    if len(msg) > 160:
        msg = msg[:157] + "..."
    what = f"{type(exc).__name__}: {msg}"
    if not isinstance(exc, allowed_exceptions(kind)):
        return False, what
    if arg not in str(exc):
        return False, what + f"  [message does not name {arg!r}]"
    return True, what


# ---------------------------------------------------------------------------
# Valid extremes: a family of legitimate but extreme values per argument (issue 27)
# ---------------------------------------------------------------------------

#: Labels of the extreme values whose result must EQUAL the call's with the same values in a fresh array:
#: an object array of the valid entries, and the valid array mutated in place after a first call and
#: restored (the memo cache must neither key on addresses nor hand out a stale or aliased result).
SAME_AS_VALID = ("object_array", "mutated_and_restored")


def extreme_values(kind: Kind, valid) -> list[tuple[str, object]]:
    """Legitimate extremes for an argument of ``kind`` whose valid value is ``valid``.

    Huge and tiny magnitudes, subnormals, ``-0.0``, float32 scalars, the
    largest accepted integer, one sample, object arrays and in-place
    mutation.  Some leave the documented range of a given argument (a
    probability of 1e300): those must be refused with a ``ValueError`` naming
    an argument; every other must give a finite result (:func:`judge_extreme`).
    """
    fam = kind.family
    out: list[tuple[str, object]] = []
    if fam == "real" and isinstance(valid, (int, float)) and not isinstance(valid, bool):
        out = [("subnormal", 5e-324), ("tiny", 1e-300), ("huge", 1e300), ("neg_zero", -0.0),
               ("float32_scalar", np.float32(valid)), ("next_above", math.nextafter(float(valid), math.inf))]
    elif fam == "int" and isinstance(valid, int) and not isinstance(valid, bool):
        out = [("int_max", 2**53), ("int32_scalar", np.int32(valid)), ("object_0d", np.array(valid, dtype=object))]
    elif fam == "array" and isinstance(valid, np.ndarray) and valid.size and valid.dtype.kind in "iuf":
        a = valid
        out = [("object_array", a.astype(object)), ("mutated_and_restored", a.copy())]
        if a.dtype.kind == "f":
            sub = a.copy()
            sub.flat[int(np.argmin(np.abs(a)))] = 5e-324 if a.min() >= 0 else -5e-324
            out += [("tiny_scale", a * 1e-300), ("huge_scale", a * 1e300), ("subnormal_entry", sub),
                    ("neg_zero_entries", np.where(a == 0, -0.0, a))]
        if a.ndim >= 1 and a.shape[0] > 1:
            out.append(("one_sample", a[:1].copy()))
    return out


def _same(a, b) -> bool:
    """Deep equality of two results (arrays by value, NaN equal to NaN, dicts and records field by field)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            return bool(np.all((a == b) | (np.isnan(a.astype(complex)) & np.isnan(b.astype(complex)))))
        return bool(np.all(a == b)) if a.dtype.kind != "O" else all(_same(x, y) for x, y in zip(a.ravel(), b.ravel()))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, (float, np.floating)) and isinstance(b, (float, np.floating)):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (int, str, bool, type(None), np.integer, np.bool_)):
        return a == b
    return True  # figures, sympy objects, fitted estimators: compared through their arrays elsewhere


def judge_extreme(api, key, case, arg, label, value, seconds: float = 8.0):
    """Return ``(ok, what)`` for the call with ``arg`` set to the extreme ``value``.

    Ok: a finite result (where the case promises finite numbers) that, for
    the labels in :data:`SAME_AS_VALID`, equals the valid call's; or a
    ``ValueError`` whose message names an argument of the call.  Not ok: any
    other exception, NaN or infinity, a different result, or a hang.
    """
    def run(v):
        args = dict(case.args)
        args[arg] = (v,) if arg == case.star else v
        return run_with_timeout(lambda: call(api, key, case, args), seconds)

    if label == "mutated_and_restored":
        first, exc, _ = run(value)
        if exc is None:
            original = value.copy()
            value += 1 if value.dtype.kind in "iu" else 0.5 * (np.abs(value) + 0.25)
            run(value)  # a call with other values through the same buffer
            value[...] = original  # restored in place: must get the first result again, not the cached second
    res, exc, caught = run(value)
    if exc is not None:
        if isinstance(exc, Hang):
            return False, f"did not return within {seconds:g} s (hang)"
        msg = " ".join(str(exc).split())[:160]
        named = [a for a in case.kinds if a in str(exc)]
        if isinstance(exc, ValueError) and named:
            return True, f"ValueError: {msg}"
        return False, f"{type(exc).__name__}: {msg}" + ("" if named else "  [names no argument]")
    if case.finite:
        bad = nonfinite_parts(res, case.finite_ignore)
        if bad:
            return False, f"returned non-finite values: {bad[:3]}"
    if label in SAME_AS_VALID:  # against the call with the same values in a fresh numeric array
        reference, ref_exc, _ = run(np.array(value.tolist()))
        if ref_exc is None and not _same(res, reference):
            return False, f"result differs from the call with the same values: {short_repr(res)} vs {short_repr(reference)}"
    return True, "finite result"


# ---------------------------------------------------------------------------
# Valid variants: lists for arrays, numpy scalars for scalars, float32 arrays
# ---------------------------------------------------------------------------


def variant_args(case: Case, variant: str) -> dict | None:
    """The valid call's arguments transformed into ``variant``; None if nothing changes."""
    out, changed = {}, False
    for name, v in case.args.items():
        kind = case.kinds.get(name)
        fam = kind.family if kind else None
        new = v
        if variant == "lists" and fam == "array" and isinstance(v, np.ndarray):
            new = v.tolist()
        elif variant == "numpy_scalars" and fam == "real" and isinstance(v, (float, int)) and not isinstance(v, bool):
            new = np.float32(v)
        elif variant == "numpy_scalars" and fam == "int" and isinstance(v, int) and not isinstance(v, bool):
            new = np.int64(v)
        elif variant == "zero_d_arrays" and fam in ("real", "int") and isinstance(v, (float, int)) and not isinstance(v, bool):
            new = np.array(v)
        elif variant == "float32_arrays" and fam == "array" and isinstance(v, np.ndarray) and v.dtype == np.float64:
            new = v.astype(np.float32)
        if new is not v:
            changed = True
        out[name] = new
    return out if changed else None


# ---------------------------------------------------------------------------
# Fixtures of the valid calls (small, seeded)
# ---------------------------------------------------------------------------

_g = np.random.default_rng(20240613)
Z = np.round(np.linspace(0.05, 0.95, 24), 4)
Y = np.tile([0, 1, 1, 0], 6)
EDGES = np.array([0.0, 0.5, 1.0])
VALUES = np.array([0.25, 0.75])
PROBS3 = np.round(_g.dirichlet([2.0, 2.0, 2.0], size=30) * 1024) / 1024  # dyadic: exact in float32, so rows still sum to 1
PROBS3[:, 2] = 1.0 - PROBS3[:, 0] - PROBS3[:, 1]
Y3 = np.arange(30) % 3
PROBS2 = np.column_stack([1 - Z, Z])
POST = np.array([0.05, 0.2, 0.4, 0.7, 0.9])  # source posteriors on five score values
MASSES = np.array([0.125, 0.25, 0.25, 0.25, 0.125])  # target masses on those values (dyadic, exact in float32)
WEIGHTS3 = np.array([0.8, 1.0, 1.2])

P01 = real(out=(0.0, 1.0, -0.1, 1.5))  # a probability in (0, 1)
DELTA = P01
PRIOR = P01
POS = real(out=(0.0, -1.0))  # a positive real
NONNEG = real(out=(-1.0,))
PROBS_ARR = array(out=(("entry_1.5", np.r_[1.5, Z[1:]]), ("entry_-0.1", np.r_[-0.1, Z[1:]])))
ROWS = array(ndim=2, out=(("row_not_simplex", np.full((30, 3), 0.5)),))
ROWS2 = array(ndim=2, out=(("row_not_simplex", np.full((24, 2), 0.7)),))
TOL = real(out=(0.0, -1e-3, 2.0))
MAXIT = integer(minimum=1)
LAM = real(out=(0.0, 0.3, 1.5))  # 1/lam must be an integer >= 2
LAM_OPEN = real(out=(0.0, 1.0, 1.5))  # any lam in (0, 1) (the bounds of Lemmas 10-13)
PEXP = real(out=(0.5,), skip=("inf",))  # l_p exponent in [1, inf]
REC = free("a result record the companion builds itself; its fields are not validated")


def _small_rows(n=30):
    return PROBS3[:n]


def _gm():
    from companion.scenarios import GaussianMixture

    return GaussianMixture(0.3, 2.0)


def _rating():
    from companion.scenarios import RatingScaleExample

    return RatingScaleExample(n_trials=8, n_nodes=20)


def _umb():
    from companion.calibration_sharpness import UniformMassBinning

    return UniformMassBinning(4)


def _ewb():
    from companion.calibration_sharpness import EqualWidthBinning

    return EqualWidthBinning(4)


def _composite():
    from companion.label_shift_recalibration import CompositeRecalibrator

    return CompositeRecalibrator(3).fit(Z, Y, Y[:12])


def _mc_scenario():
    from companion.multiclass_lp import MulticlassScenario

    return MulticlassScenario(3, 50, seed=1)


def _lp_fitted():
    from companion.multiclass_lp import LpCalibrator

    return LpCalibrator(0.25, threshold=0.05, noise=False, check_sample_size=False, rng=0).fit(PROBS3, Y3)


def _ts_fitted():
    from companion.multiclass_lp import TemperatureScaling

    return TemperatureScaling().fit(PROBS3, Y3)


def _cwb_fitted():
    from companion.multiclass_lp import ClasswiseBinning

    return ClasswiseBinning(3).fit(PROBS3, Y3)


def _tlb_fitted():
    from companion.multiclass_lp import TopLabelBinning

    return TopLabelBinning(3).fit(PROBS3, Y3)


def _built_and_fitted(module: str, name: str, *fit_args):
    """``make`` for an estimator's constructor case: scikit-learn's __init__ only stores, so the case builds and fits."""
    import types

    cls = lambda: getattr(importlib.import_module("companion." + module), name)  # noqa: E731
    return lambda: types.SimpleNamespace(**{name: lambda **params: cls()(**params).fit(*fit_args)})


SCORES_COL = dataclasses.replace(PROBS_ARR, skip=("wrong_ndim",))  # scores: 1-D or one column (n, 1), as scikit-learn


def _coord_partition():
    from companion.binning_label_shift import CoordinatePartition

    return CoordinatePartition(EDGES, 1)


def _logratio_partition():
    from companion.binning_label_shift import LogRatioGridPartition

    return LogRatioGridPartition(np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0]]), [np.array([-np.inf, 0.0, np.inf])] * 2)


def _canonical():
    from companion.binning_label_shift import CanonicalBinning

    return CanonicalBinning(_coord_partition()).fit(PROBS3, Y3)


def _canonical_ls():
    from companion.binning_label_shift import LabelShiftCanonicalBinning

    return LabelShiftCanonicalBinning(_coord_partition())


def _scaling():
    from companion.label_shift_weights import fit_scaling

    return fit_scaling(PROBS3, Y3, "ts")


def _gls():
    from companion.scenarios import three_class_gaussian

    return three_class_gaussian()


def _gls2():
    from companion.scenarios import two_class_gaussian

    return two_class_gaussian()


def _grid():
    from companion.uniform_mass_binning import umb_risk_grid

    return umb_risk_grid(n_values=np.array([100, 200]), n_bins_values=np.array([2, 4]), n_reps=2, rng=0)


def _mc_grid():
    from companion.multiclass_lp import lp_error_grid

    return lp_error_grid(k_values=(3,), n_values=np.array([200, 400]), p_values=(2.0,), configs=("plain",), n_reps=1,
                         lam=0.25, rng=0)


def _curve():
    from companion.calibration_sharpness import reliability_curve

    return reliability_curve(Z, Y, 4)


def _h(z):
    return np.clip(np.asarray(z, dtype=float) * 0.9 + 0.05, 0, 1)


# ---------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------

C = Case
CASES: dict[str, Case] = {}


def reg(key, args=None, kinds=None, **kw):
    CASES[key] = Case(dict(args or {}), dict(kinds or {}), **kw)


# --- binning -----------------------------------------------------------------
reg("calibration_sharpness.binning.bin_indices", dict(z=Z, edges=EDGES), dict(z=PROBS_ARR, edges=array(out=(("unsorted", [0, 0.7, 0.5, 1]),))))
reg("calibration_sharpness.binning.equal_width_edges", dict(n_bins=4), dict(n_bins=integer()))
# one score column: (n,) or (n, 1) (a one-column DataFrame); labels of any two values ("0"/"1" strings are labels)
SCORES = array(out=PROBS_ARR.out + (("two_columns", np.column_stack((Z, Z))),), skip=("wrong_ndim",))
ANY_LABELS = labels(skip=("str_entries",))
reg("calibration_sharpness.binning.UniformMassBinning", dict(n_bins=4), dict(n_bins=integer(), ties=option()),
    make=_built_and_fitted("calibration_sharpness.binning", "UniformMassBinning", Z, Y))
reg("calibration_sharpness.binning.UniformMassBinning.fit", dict(z=Z, y=Y), dict(z=SCORES, y=ANY_LABELS), make=_umb)
reg("calibration_sharpness.binning.UniformMassBinning.predict", dict(z=Z), dict(z=SCORES), make=lambda: _umb().fit(Z, Y))
reg("calibration_sharpness.binning.UniformMassBinning.score", dict(z=Z, y=Y), dict(z=SCORES, y=labels(), sample_weight=free("None or weights, scikit-learn's r2_score checks them")),
    make=lambda: _umb().fit(Z, Y))
reg("calibration_sharpness.binning.EqualWidthBinning", dict(n_bins=4), dict(n_bins=integer()),
    make=_built_and_fitted("calibration_sharpness.binning", "EqualWidthBinning", Z, Y))
reg("calibration_sharpness.binning.EqualWidthBinning.fit", dict(z=Z, y=Y), dict(z=SCORES, y=ANY_LABELS), make=_ewb)
reg("calibration_sharpness.binning.EqualWidthBinning.predict", dict(z=Z), dict(z=SCORES), make=lambda: _ewb().fit(Z, Y))
reg("calibration_sharpness.binning.EqualWidthBinning.score", dict(z=Z, y=Y), dict(z=SCORES, y=labels(), sample_weight=free("None or weights, scikit-learn's r2_score checks them")),
    make=lambda: _ewb().fit(Z, Y))
reg("uniform_mass_binning.grid.UniformMassGrid", dict(n_bins=np.array([2]), edges=[EDGES], values=[VALUES], counts=[np.array([12, 12])]),
    dict(n_bins=REC, edges=REC, values=REC, counts=REC))
reg("uniform_mass_binning.grid.uniform_mass_grid", dict(z=Z, y=Y, n_bins_values=np.array([2, 4])),
    dict(z=PROBS_ARR, y=labels(), n_bins_values=array(out=(("entry_0", [0, 2]), ("entry_2.5", [2.5]), ("entry_huge", [2**64 - 1])))))

# --- bounds ------------------------------------------------------------------
NB = integer()
reg("uniform_mass_binning.bounds.umb_calibration_bound", dict(n=1000, n_bins=4, delta=0.1), dict(n=integer(), n_bins=NB, delta=DELTA))
reg("uniform_mass_binning.bounds.umb_sharpness_bound", dict(n_bins=4), dict(n_bins=NB, smoothness=real(out=(0.0, -1.0), skip=("None",))))
reg("uniform_mass_binning.bounds.umb_risk_bound", dict(n=1000, n_bins=4, delta=0.1),
    dict(n=integer(), n_bins=NB, delta=DELTA, smoothness=real(out=(0.0, -1.0), skip=("None",)), a3_only=boolean()))
reg("uniform_mass_binning.bounds.umb_sample_size", dict(n_bins=4, delta=0.1), dict(n_bins=NB, delta=DELTA, constant=POS))
reg("uniform_mass_binning.bounds.umb_zeta", dict(n_bins=4, n=1000, delta=0.1), dict(n_bins=NB, n=integer(), delta=DELTA, smoothness=POS))
reg("uniform_mass_binning.bounds.optimal_n_bins", dict(n=1000, delta=0.1), dict(n=integer(), delta=DELTA, smoothness=POS))
reg("uniform_mass_binning.bounds.theorem1_optimal_n_bins", dict(n=1000, delta=0.1),
    dict(n=integer(), delta=DELTA, smoothness=real(out=(0.0, -1.0), skip=("None",)), a3_only=boolean()))
reg("label_shift_recalibration.bounds.prior_correction_lipschitz", dict(source_prior=0.5, target_prior=0.1), dict(source_prior=PRIOR, target_prior=PRIOR))
reg("label_shift_recalibration.bounds.ratio_event_sample_sizes", dict(beta=1.5, delta=0.1, source_prior=0.5, target_prior=0.1),
    dict(beta=real(out=(1.0, 0.5)), delta=DELTA, source_prior=PRIOR, target_prior=PRIOR))
reg("label_shift_recalibration.bounds.ratio_event_beta", dict(n_source=1000, n_target=1000, source_prior=0.5, target_prior=0.3, delta=0.1),
    dict(n_source=integer(), n_target=integer(), source_prior=PRIOR, target_prior=PRIOR, delta=DELTA))
reg("label_shift_recalibration.bounds.composite_risk_bound",
    dict(source_risk=0.01, source_prior=0.5, target_prior=0.3, source_prior_hat=0.48, target_prior_hat=0.31),
    dict(source_risk=NONNEG, source_prior=PRIOR, target_prior=PRIOR, source_prior_hat=PRIOR, target_prior_hat=PRIOR))
reg("label_shift_recalibration.bounds.composite_high_probability_bound",
    dict(n_source=10000, n_target=10000, n_bins=4, source_prior=0.5, target_prior=0.3, delta=0.1),
    dict(n_source=integer(), n_target=integer(), n_bins=NB, source_prior=PRIOR, target_prior=PRIOR, delta=DELTA,
         smoothness=real(out=(0.0, -1.0), skip=("None",))))
reg("binning_label_shift.bounds.bhc_tail_bound", dict(t=0.1, n_categories=3), dict(t=real(out=(-1.0,), skip=("list",)), n_categories=integer()))
reg("binning_label_shift.bounds.multiclass_binning_epsilon", dict(counts=np.array([50, 60]), n_classes=3, delta=0.1),
    dict(counts=array(out=(("entry_0", [0, 5]), ("entry_2.5", [2.5, 3])), skip=("wrong_ndim",)),  # leading axes: repetitions
         n_classes=integer(minimum=2), delta=DELTA))
reg("binning_label_shift.bounds.weight_condition_number", dict(weights=WEIGHTS3), dict(weights=array(out=(("entry_neg", [-1.0, 1.0, 1.0]), ("all_zero", [0.0, 0.0, 0.0])))))
reg("binning_label_shift.bounds.label_shift_binning_bound", dict(source_l1_error=0.1, weights=WEIGHTS3, weights_hat=np.array([0.85, 0.95, 1.2])),
    dict(source_l1_error=real(out=(-1.0,), skip=("list",)),  # scalar or one value per bin
         weights=array(length=True), weights_hat=array(length=True, skip=("wrong_ndim",))))  # (k,) or (R, k)
reg("label_shift_weights.bounds.bbse_error_bound",
    dict(confusion=np.array([[0.3, 0.05], [0.05, 0.6]]), weights=np.array([0.8, 1.2]), n_source=1000, n_target=1000, delta=0.1),
    dict(confusion=array(ndim=2), weights=array(length=True), n_source=integer(), n_target=integer(), delta=DELTA))
reg("binning_label_shift.bounds.target_binning_bound",
    dict(counts=np.array([300, 400, 300]), confusion=np.array([[0.45, 0.05], [0.05, 0.45]]), weights=np.array([0.4, 1.6]),
         n_source=20000, n_target=20000, delta=0.1),
    dict(counts=array(out=(("entry_0", [0, 5, 5]),), skip=("wrong_ndim",)), confusion=array(ndim=2),
         weights=array(length=True, out=(("entry_0", [0.0, 1.0]),)), n_source=integer(), n_target=integer(), delta=DELTA))
reg("multiclass_lp.bounds.lp_threshold", dict(epsilon=0.1, p=2.0), dict(epsilon=POS, p=PEXP))
reg("multiclass_lp.bounds.lemma14_bound", dict(threshold=0.01, mass_threshold=0.01, p=2.0),
    dict(threshold=POS, mass_threshold=POS, p=PEXP, group_accuracy=NONNEG, bin_accuracy=NONNEG))
reg("multiclass_lp.bounds.lemma7_sample_size", dict(mass_threshold=0.01, n_level_sets=10, delta=0.1),
    dict(mass_threshold=P01, n_level_sets=integer(), delta=DELTA))
reg("multiclass_lp.bounds.lemma7_sizes", dict(mass_threshold=0.01, n_level_sets=10, delta=0.1),
    dict(mass_threshold=P01, n_level_sets=integer(), delta=DELTA))
reg("multiclass_lp.bounds.lemma8_sample_size", dict(accuracy=0.1, n_coords=3, n_events=10, delta=0.1),
    dict(accuracy=POS, n_coords=integer(), n_events=integer(), delta=DELTA))
reg("multiclass_lp.bounds.lemma8_accuracy", dict(n=1000, n_coords=3, n_events=10, delta=0.1),
    dict(n=integer(), n_coords=integer(), n_events=integer(), delta=DELTA))
reg("multiclass_lp.bounds.lemma13_iteration_bound", dict(threshold=0.01, mass_threshold=0.01, lam=0.25),
    dict(threshold=POS, mass_threshold=POS, lam=LAM_OPEN))
reg("multiclass_lp.bounds.discretisation_bound", dict(lam=0.25), dict(lam=LAM_OPEN))
reg("multiclass_lp.bounds.squared_error_excess_bound", dict(lam=0.25, mass_threshold=0.01), dict(lam=LAM_OPEN, mass_threshold=POS))
for _f in ("theorem6_budget", "theorem6_sample_size", "theorem6_iterations"):
    reg(f"multiclass_lp.bounds.{_f}", dict(k=3, p=2.0, epsilon=0.1, delta=0.1, lam=0.25),
        dict(k=integer(minimum=2), p=real(out=(0.5, 1.0), skip=("inf",)), epsilon=POS, delta=DELTA, lam=LAM))

# --- conformal ---------------------------------------------------------------
SC = np.round(_g.uniform(0, 1, size=(30, 3)), 4)
reg("conformal_label_shift.scores.mass_above", dict(probs=PROBS3), dict(probs=ROWS))
reg("conformal_label_shift.scores.conformal_scores", dict(probs=PROBS3, kind="randomized", rng=0),
    dict(probs=ROWS, kind=option(), rng=rng(), u=array(length=True, skip=("None",), out=(("entry_1.5", np.full(30, 1.5)),))),
    )
CASES["conformal_label_shift.scores.conformal_scores"].args["u"] = None
CASES["conformal_label_shift.scores.conformal_scores"].kinds["u"] = free("u=None draws uniforms; arrays are checked in a separate case")
reg("conformal_label_shift.scores.true_label_scores", dict(scores=SC, y=Y3), dict(scores=array(ndim=2, length=True, skip=("wrong_ndim",)), y=labels()))
reg("conformal_label_shift.scores.conformal_rank", dict(n=20, alpha=0.1), dict(n=integer(), alpha=P01))
reg("conformal_label_shift.scores.exact_level", dict(alpha=0.1), dict(alpha=P01))
reg("conformal_label_shift.thresholds.split_threshold", dict(cal_scores=SC[:, 0], alpha=0.1), dict(cal_scores=array(skip=("wrong_ndim",)), alpha=P01))  # (..., n)
reg("conformal_label_shift.thresholds.weighted_masses", dict(y_cal=Y3, weights=WEIGHTS3, y=0),
    dict(y_cal=labels(length=False), weights=array(out=(("entry_neg", [-1.0, 1.0, 1.0]),)), y=integer(minimum=0, out=(3,))))
reg("conformal_label_shift.thresholds.weighted_thresholds", dict(cal_scores=SC[:, 0], y_cal=Y3, weights=WEIGHTS3, alpha=0.1),
    dict(cal_scores=array(length=True), y_cal=labels(), weights=array(out=(("entry_neg", [-1.0, 1.0, 1.0]),)), alpha=P01))
reg("conformal_label_shift.thresholds.label_conditional_thresholds", dict(cal_scores=SC[:, 0], y_cal=Y3, alpha=0.1, n_classes=3),
    dict(cal_scores=array(length=True), y_cal=labels(), alpha=P01, n_classes=integer(minimum=2)))  # None: required with one alpha
reg("conformal_label_shift.thresholds.prediction_sets", dict(test_scores=SC, thresholds=np.array([0.5, 0.6, 0.7])),
    dict(test_scores=array(ndim=2), thresholds=array(length=True), include_top=boolean(),
         probs=free("probs=None unless include_top; checked with include_top in its own case")))
reg("conformal_label_shift.thresholds.oracle_sets", dict(probs=PROBS3, alpha=0.1),
    dict(probs=ROWS, alpha=P01, randomized=boolean(), rng=rng(), u=free("u=None draws uniforms"), break_ties=boolean()))
reg("conformal_label_shift.thresholds.Coverage", dict(marginal=0.9, per_class=np.array([0.9, 0.9]), mean_size=1.2),
    dict(marginal=REC, per_class=REC, mean_size=REC))
reg("conformal_label_shift.thresholds.coverage", dict(sets=SC > 0.3, y=Y3), dict(sets=free("boolean sets; see set_sizes"), y=labels()))
reg("conformal_label_shift.thresholds.set_sizes", dict(sets=SC > 0.3), dict(sets=obj()))

# --- display -----------------------------------------------------------------
reg("display.Typeset", dict(rows=[("caption", ("x", 0))]), dict(rows=obj()), valid_variants=False)
reg("display.typeset", dict(rows=[("caption", "x", 0)]), dict(rows=obj()), star="rows", valid_variants=False)
reg("display.table", dict(columns=["n", "risk"], rows=[[10, 0.5]], formats=["d", ".3g"], caption="c", label="tab-x"),
    dict(columns=obj(), rows=obj(), formats=obj(skip=("None", "str")), caption=obj(skip=("None", "str")), label=obj(skip=("None", "str"))),
    valid_variants=False)
reg("display.agreement", dict(method="m", scratch=np.array([0.5, 1.0]), companion=np.array([0.5, 1.0]), tol=1e-12),
    dict(method=obj(skip=("str",)), scratch=obj(), companion=obj(), tol=real(out=(-1.0,))), valid_variants=False)
reg("display.Table", dict(columns=["n"], cells=[["1"]], numeric=[True], caption=None, label=None),
    dict(columns=obj(), cells=obj(), numeric=obj(), caption=obj(skip=("None", "str")), label=obj(skip=("None", "str"))))

# --- labelshift --------------------------------------------------------------
reg("label_shift_recalibration.recalibration.prior_correction", dict(z=Z, source_prior=0.5, target_prior=0.1),
    dict(z=array(skip=("wrong_ndim",), out=(("entry_1.5", np.r_[1.5, Z[1:]]),)),  # any shape; priors broadcast
         source_prior=real(out=(0.0, 1.0, -0.1, 1.5), skip=("list",)), target_prior=real(out=(0.0, 1.0, -0.1, 1.5), skip=("list",))))
reg("label_shift_recalibration.recalibration.cube_root_bins", dict(n=1000), dict(n=integer()))
reg("label_shift_recalibration.recalibration.CompositeRecalibrator", dict(n_bins=3, target_prior=0.3, ties="raise"),
    dict(n_bins=integer(skip=("None",)), target_prior=real(out=(0.0, 1.0, -0.1, 1.5), skip=("None",)), ties=option()),
    make=_built_and_fitted("label_shift_recalibration", "CompositeRecalibrator", Z, Y))
reg("label_shift_recalibration.recalibration.CompositeRecalibrator.fit", dict(z_source=Z, y_source=Y, y_target=Y[:12]),
    dict(z_source=SCORES_COL, y_source=labels(skip=("str_entries",)), y_target=labels(length=False)),  # any labels
    make=lambda: __import__("companion.label_shift_recalibration", fromlist=["x"]).CompositeRecalibrator(3))
reg("label_shift_recalibration.recalibration.CompositeRecalibrator.correct", dict(z=Z), dict(z=array(skip=("wrong_ndim",), out=(("entry_1.5", np.r_[1.5, Z[1:]]),))),
    make=_composite)  # any shape, as prior_correction
reg("label_shift_recalibration.recalibration.CompositeRecalibrator.predict", dict(z=Z), dict(z=SCORES_COL), make=_composite)
reg("label_shift_recalibration.recalibration.LabelShiftEstimators", dict(source=None, target=None, label_shift=None, composite=None),
    dict(source=REC, target=REC, label_shift=REC, composite=REC))
reg("label_shift_recalibration.recalibration.fit_label_shift_estimators", dict(z_source=Z, y_source=Y, z_target=Z[:12], y_target=Y[:12], n_bins_source=3,
                                                  n_bins_target=2),
    dict(z_source=PROBS_ARR, y_source=labels(), z_target=PROBS_ARR, y_target=labels(),
         n_bins_source=integer(skip=("None",)), n_bins_target=integer(skip=("None",))))

# --- metrics -----------------------------------------------------------------
reg("calibration_sharpness.metrics.MSEDecomposition", dict(mse=0.1, variance=0.25, sharpness=0.2, calibration=0.05), 
    dict(mse=REC, variance=REC, sharpness=REC, calibration=REC, within_bin=REC))
reg("calibration_sharpness.metrics.mse_decomposition", dict(p=Z, y=Y), dict(p=PROBS_ARR, y=labels(), bins=free("None, an int or edges: checked in its own test")))
reg("calibration_sharpness.metrics.conditional_mean", dict(keys=np.round(Z * 4), y=Y), dict(keys=array(length=True), y=labels()))
for _f in ("calibration_risk", "sharpness_risk", "recalibration_risk"):
    reg(f"calibration_sharpness.metrics.{_f}", dict(h=_h, z=Z, y=Y), dict(h=func(), z=PROBS_ARR, y=labels()))
reg("calibration_sharpness.metrics.ReliabilityCurve", dict(edges=EDGES, centres=VALUES, mean_forecast=VALUES, frequency=VALUES, counts=np.array([1, 1])),
    dict(edges=REC, centres=REC, mean_forecast=REC, frequency=REC, counts=REC))
reg("calibration_sharpness.metrics.reliability_curve", dict(p=Z, y=Y, n_bins=4), dict(p=PROBS_ARR, y=labels(), n_bins=integer(), strategy=option()),
    finite_ignore=("mean_forecast", "frequency"))

# --- multiclass --------------------------------------------------------------
ATOMS = PROBS3[:8]
HSTAR = PROBS3[8:16]
AW = np.full(8, 0.125)  # dyadic: exact in float32, so the weights still sum to 1
COND = array(ndim=2, length=True)
AWK = array(length=True, out=(("entry_neg", np.r_[-0.125, np.full(7, 0.125)]),))
reg("multiclass_lp.level_sets.check_lam", dict(lam=0.25), dict(lam=LAM, name=free("the caller's argument name")))
reg("multiclass_lp.level_sets.check_p", dict(p=2.0), dict(p=PEXP, name=free("the caller's argument name")))
reg("multiclass_lp.level_sets.as_probability_rows", dict(probs=PROBS3), dict(probs=ROWS, name=free("the caller's argument name"),
                                                               atol=real(out=(-1.0,))))
reg("multiclass_lp.level_sets.level_set_counts", dict(probs=PROBS3, lam=0.25), dict(probs=ROWS, lam=LAM))
reg("multiclass_lp.level_sets.rounding", dict(probs=PROBS3, lam=0.25), dict(probs=ROWS, lam=LAM))
reg("multiclass_lp.level_sets.level_set_key", dict(counts=np.array([[1, 2, 0], [0, 0, 4]]), lam=0.25),
    dict(counts=array(ndim=2, out=(("entry_neg", [[-1, 2, 0]]), ("entry_2.5", [[2.5, 1, 0]]))), lam=LAM))
for _f in ("level_set_count", "level_set_count_bound", "grid_size"):
    reg(f"multiclass_lp.level_sets.{_f}", dict(k=3, lam=0.25), dict(k=integer(minimum=2), lam=LAM))
reg("multiclass_lp.level_sets.enumerate_level_sets", dict(k=3, lam=0.25), dict(k=integer(minimum=2), lam=LAM, max_count=integer()))
reg("multiclass_lp.level_sets.canonical_distribution", dict(levels=np.array([[1, 2, 0], [0, 0, 4]]), lam=0.25),
    dict(levels=array(ndim=2, out=(("entry_neg", [[-1, 2, 0]]), ("sum_too_big", [[4, 4, 4]]))), lam=LAM))
reg("multiclass_lp.level_sets.project_to_simplex", dict(w=np.array([[0.2, 0.9, -0.1]])), dict(w=array(ndim=2, skip=("wrong_ndim",))))  # or one vector
reg("multiclass_lp.errors.calibration_error_terms", dict(probs=PROBS3, y=Y3, lam=0.25),
    dict(probs=ROWS, y=labels(), lam=LAM, weights=free("None for a sample; a finite law otherwise"),
         cond_mean=free("None for a sample; a finite law otherwise")))
PSEQ = real(out=(0.5,), skip=("inf", "list"))  # an exponent or a sequence of exponents
reg("multiclass_lp.errors.lp_calibration_error", dict(probs=PROBS3, y=Y3, p=2.0, lam=0.25), dict(probs=ROWS, y=labels(), p=PSEQ, lam=LAM))
reg("multiclass_lp.errors.population_lp_calibration_error", dict(probs=ATOMS, cond_mean=HSTAR, weights=AW, p=2.0, lam=0.25),
    dict(probs=ROWS, cond_mean=COND, weights=AWK, p=PSEQ, lam=LAM))
for _f in ("top_label_ece", "classwise_ece"):
    reg(f"multiclass_lp.errors.{_f}", dict(probs=PROBS3, y=Y3, n_bins=4), dict(probs=ROWS, y=labels(), n_bins=integer()))
    reg(f"multiclass_lp.errors.population_{_f}", dict(probs=ATOMS, cond_mean=HSTAR, weights=AW, n_bins=4),
        dict(probs=ROWS, cond_mean=COND, weights=AWK, n_bins=integer()))
reg("multiclass_lp.errors.squared_error", dict(probs=PROBS3, y=Y3), dict(probs=ROWS, y=labels()))
reg("multiclass_lp.errors.population_squared_error", dict(probs=ATOMS, cond_mean=HSTAR, weights=AW), dict(probs=ROWS, cond_mean=COND, weights=AWK))
reg("multiclass_lp.scenario.MulticlassScenario", dict(n_classes=3, n_atoms=50, seed=1),
    dict(n_classes=integer(minimum=2), n_atoms=integer(), sharpness=POS, spread=POS, temperature=POS,
         class_offsets=array(skip=("None",)), seed=integer(minimum=0)))
reg("multiclass_lp.scenario.MulticlassScenario.sample", dict(n=20, rng=0), dict(n=integer(), rng=rng(), return_index=boolean()), make=_mc_scenario)
reg("multiclass_lp.scenario.MulticlassScenario.evaluate", dict(predict=lambda u: u, lam=0.25, p=(2.0,), n_bins=4),
    dict(predict=func(), lam=LAM, p=array(skip=("wrong_ndim",)), n_bins=integer()), make=_mc_scenario, finite_ignore=("p",))
reg("multiclass_lp.calibrator.LpCalibrator", dict(lam=0.25, rng=0),
    dict(lam=LAM, p=PEXP, epsilon=real(out=(0.0, -1.0), skip=("None",)),
         threshold=real(out=(0.0, -1.0), skip=()), mass_threshold=real(out=(0.0, -1.0), skip=("None",)), delta=DELTA,
         noise=free("True, False or a privacy parameter: checked in its own test"), pools=boolean(),
         max_iter=integer(minimum=0, skip=("None",)), record_states=boolean(), record_queries=boolean(), check_sample_size=boolean(),
         rng=rng()), make=_built_and_fitted("multiclass_lp.calibrator", "LpCalibrator", PROBS3, Y3))
reg("multiclass_lp.calibrator.LpCalibrator.fit", dict(probs=PROBS3, y=Y3), dict(probs=ROWS, y=ANY_LABELS),
    make=lambda: __import__("companion.multiclass_lp", fromlist=["x"]).LpCalibrator(0.25, threshold=0.05, noise=False,
                                                                                 check_sample_size=False, rng=0))
reg("multiclass_lp.calibrator.LpCalibrator.fit_exact", dict(probs=ATOMS, cond_mean=HSTAR, weights=AW), dict(probs=ROWS, cond_mean=COND, weights=AWK),
    make=lambda: __import__("companion.multiclass_lp", fromlist=["x"]).LpCalibrator(0.25, threshold=0.05, noise=False,
                                                                                 check_sample_size=False, rng=0))
for _m in ("predict", "transform"):  # one method under two names (transform: a Pipeline's)
    reg(f"multiclass_lp.calibrator.LpCalibrator.{_m}", dict(probs=PROBS3), dict(probs=ROWS, bin_predictions=free("None: the fitted table")),
        make=_lp_fitted)
for _c, _mk in (("TemperatureScaling", _ts_fitted), ("ClasswiseBinning", _cwb_fitted), ("TopLabelBinning", _tlb_fitted)):
    if _c == "TemperatureScaling":
        reg(f"multiclass_lp.baselines.{_c}", {}, {})
    else:
        reg(f"multiclass_lp.baselines.{_c}", dict(n_bins=3), dict(n_bins=integer()),
            make=_built_and_fitted("multiclass_lp.baselines", _c, PROBS3, Y3))
    reg(f"multiclass_lp.baselines.{_c}.fit", dict(probs=PROBS3, y=Y3), dict(probs=ROWS, y=ANY_LABELS),
        make=lambda _c=_c: getattr(__import__("companion.multiclass_lp", fromlist=["x"]), _c)(*(() if _c == "TemperatureScaling" else (3,))))
    for _m in ("predict", "transform"):  # one method under two names (transform: a Pipeline's)
        reg(f"multiclass_lp.baselines.{_c}.{_m}", dict(probs=PROBS3), dict(probs=ROWS), make=_mk)

# --- multiclass_binning -------------------------------------------------------
reg("binning_label_shift.canonical_binning.CoordinatePartition", dict(edges=EDGES, coordinate=1),
    dict(edges=array(out=(("unsorted", [0, 0.7, 0.5, 1]),)), coordinate=integer(minimum=0)))
reg("binning_label_shift.canonical_binning.CoordinatePartition.assign", dict(probs=PROBS3), dict(probs=ROWS), make=_coord_partition)
reg("binning_label_shift.canonical_binning.LogRatioGridPartition",
    dict(contrasts=np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0]]), edges=[np.array([-np.inf, 0.0, np.inf])] * 2),
    dict(contrasts=array(ndim=2), edges=obj()))
reg("binning_label_shift.canonical_binning.LogRatioGridPartition.coordinates", dict(probs=PROBS3), dict(probs=ROWS), make=_logratio_partition)
reg("binning_label_shift.canonical_binning.LogRatioGridPartition.assign", dict(probs=PROBS3), dict(probs=ROWS), make=_logratio_partition)
reg("binning_label_shift.canonical_binning.uniform_mass_partition", dict(probs=PROBS2, n_bins=3, coordinate=1),
    dict(probs=dataclasses.replace(ROWS2, out=ROWS2.out + (("three_columns", PROBS3),)), n_bins=integer(),
         coordinate=integer(minimum=0, out=(3,))))
reg("binning_label_shift.canonical_binning.log_ratio_quantile_partition", dict(probs=PROBS3, n_bins=4),
    dict(probs=dataclasses.replace(ROWS, out=ROWS.out + (("zero_entry", np.r_[[[0.5, 0.5, 0.0]], PROBS3[1:]]),)), n_bins=integer()))
reg("binning_label_shift.canonical_binning.bin_class_counts", dict(bins=np.array([0, 1, 1, 0]), codes=np.array([0, 1, 2, 2]), n_bins=2, n_classes=3),
    dict(bins=labels(out=(("entry_neg", [-1, 0, 0, 0]),)), codes=labels(), n_bins=integer(), n_classes=integer()))
reg("binning_label_shift.canonical_binning.CanonicalBinning", dict(partition=_coord_partition()), dict(partition=obj()),
    make=_built_and_fitted("binning_label_shift", "CanonicalBinning", PROBS3, Y3))
reg("binning_label_shift.canonical_binning.CanonicalBinning.fit", dict(probs=PROBS3, y=Y3), dict(probs=ROWS, y=labels(skip=("str_entries",)),  # any label type
    classes=free("None or the class values")),
    make=lambda: __import__("companion.binning_label_shift", fromlist=["x"]).CanonicalBinning(_coord_partition()))
for _m in ("predict", "transform"):
    reg("binning_label_shift.canonical_binning.CanonicalBinning." + _m, dict(probs=PROBS3), dict(probs=ROWS), make=_canonical)
reg("binning_label_shift.canonical_binning.LabelShiftCanonicalBinning", dict(partition=_coord_partition(), weights=WEIGHTS3),
    dict(partition=obj(), weights=array(skip=("None",), out=(("entry_neg", [-1.0, 1.0, 1.0]),))),
    make=_built_and_fitted("binning_label_shift", "LabelShiftCanonicalBinning", PROBS3, Y3))
reg("binning_label_shift.canonical_binning.LabelShiftCanonicalBinning.fit", dict(probs=PROBS3, y=Y3, weights=WEIGHTS3),
    dict(probs=ROWS, y=labels(skip=("str_entries",)), weights=array(out=(("entry_neg", [-1.0, 1.0, 1.0]),)),  # any label type
         classes=free("None or the class values")),
    make=_canonical_ls)
for _m in ("predict", "transform"):
    reg("binning_label_shift.canonical_binning.LabelShiftCanonicalBinning." + _m, dict(probs=PROBS3), dict(probs=ROWS),
        make=lambda: _canonical_ls().fit(PROBS3, Y3, WEIGHTS3))

# --- plotting ----------------------------------------------------------------
reg("plotting.use_book_style", {}, {})
reg("plotting.power_of_ten", dict(x=1000.0), dict(x=real(out=(0.0, -1.0), skip=())))
reg("plotting.reliability_diagram", dict(curve=_curve()),
    dict(curve=obj(), ax=obj(skip=("None",)), label=free("any legend label (None for none)"),
         color=free("any matplotlib colour (None for the cycle)"), show_counts=boolean(), reference=boolean()))
reg("plotting.band_plot", dict(x=np.arange(4.0), values=np.arange(12.0).reshape(4, 3)),
    dict(x=array(length=True), values=array(ndim=2), ax=obj(skip=("None",)), label=free("any legend label"),
         color=free("any matplotlib colour"), axis=integer(minimum=-2, out=(2, -3), skip=("-1",)),
         quantiles=array(out=(("entry_1.5", [0.0, 1.5]), ("reversed", [1.0, 0.0]), ("three", [0.0, 0.5, 1.0])))))

# --- prior -------------------------------------------------------------------
POSTK = array(out=(("entry_0", np.r_[0.0, POST[1:]]), ("entry_1.5", np.r_[1.5, POST[1:]])))
MASSK = array(length=True, out=(("not_sum_1", MASSES * 2), ("entry_neg", np.r_[-0.1, 0.4, 0.2, 0.2, 0.3])))
AUC = real(out=(0.5, 1.0, 0.3))
SOLVER = dict(xtol=TOL, max_iter=MAXIT)
reg("target_prior.recalibration.InfeasibleSystemError", dict(args=("msg",)), dict(args=free("exception message")), star="args", valid_variants=False)
reg("target_prior.recalibration.Recalibrated", dict(posteriors=POST, params={}), dict(posteriors=REC, params=REC))
reg("target_prior.auc.empirical_distribution", dict(sample=np.array([1.0, 2.0, 2.0, 3.0])), dict(sample=array()))
reg("target_prior.auc.midpoint_cdf", dict(masses=MASSES), dict(masses=MASSK))
# implied_auc and eq13_as_printed take posteriors in the CLOSED interval: a grade with posterior 0 or 1 is a valid
# auto-calibrated score value (capped scaling caps at 1; the book evaluates them on capped posteriors and step maps).
POSTK_CLOSED = array(out=(("entry_1.5", np.r_[1.5, POST[1:]]), ("entry_neg", np.r_[-0.1, POST[1:]])))
reg("target_prior.auc.implied_auc", dict(posteriors=POST, masses=MASSES), dict(posteriors=POSTK_CLOSED, masses=MASSK))
reg("target_prior.auc.conditional_auc", dict(masses1=MASSES, masses0=MASSES[::-1].copy()), dict(masses1=MASSK, masses0=MASSK))
reg("target_prior.recalibration.capped_scaling", dict(posteriors=POST, target_masses=MASSES, target_prior=0.3),
    dict(posteriors=POSTK, target_masses=MASSK, target_prior=PRIOR),
    finite_ignore=("t",))  # inf beyond the largest float (a tiny uncapped posterior; log_t finite), as documented
reg("target_prior.recalibration.label_shift", dict(posteriors=POST, source_prior=0.3, target_prior=0.2),
    dict(posteriors=POSTK, source_prior=PRIOR, target_prior=PRIOR))
reg("target_prior.recalibration.fjs", dict(posteriors=POST, target_masses=MASSES, source_prior=0.45, target_prior=0.3),
    dict(posteriors=POSTK, target_masses=MASSK, source_prior=PRIOR, target_prior=PRIOR, **SOLVER),
    finite_ignore=("rho_bounds",))  # inf for a Jensen bound beyond the largest float (a subnormal posterior), as documented
reg("target_prior.qmm.platt", dict(posteriors=POST, target_masses=MASSES, target_prior=0.3, auc=0.8),
    dict(posteriors=POSTK, target_masses=MASSK, target_prior=PRIOR, auc=AUC, **SOLVER))
reg("target_prior.qmm.cspd", dict(posteriors=POST, target_masses=MASSES, target_prior=0.3, auc=0.8),
    dict(posteriors=POSTK, target_masses=MASSK, target_prior=PRIOR, auc=AUC, link=option(), **SOLVER))
reg("target_prior.qmm.cspd_auc_profile", dict(posteriors=POST, target_masses=MASSES, target_prior=0.3, slopes=np.array([0.5, 1.0, 2.0])),
    dict(posteriors=POSTK, target_masses=MASSK, target_prior=PRIOR, slopes=array(out=(("entry_0", [0.0, 1.0]),)), link=option(),
         **SOLVER))
reg("target_prior.qmm.cspd_quantify", dict(posteriors=POST, target_masses=MASSES, auc=0.8),
    dict(posteriors=POSTK, target_masses=MASSK, auc=AUC, link=option(), **SOLVER))
reg("target_prior.qmm.roc_qmm", dict(target_masses=MASSES, target_prior=0.3, auc=0.8),
    dict(target_masses=MASSK, target_prior=PRIOR, auc=AUC, iteration=option(), tol=TOL, max_iter=MAXIT))
reg("target_prior.experiments.roc_qmm_trace", dict(target_masses=MASSES, target_prior=0.3, auc=0.8, n_iter=5),
    dict(target_masses=MASSK, target_prior=PRIOR, auc=AUC, n_iter=integer(), iteration=option()))
reg("target_prior.experiments.roc_qmm_jacobian", dict(target_masses=MASSES, target_prior=0.3, auc=0.8, class0_masses=MASSES[::-1].copy()),
    dict(target_masses=MASSK, target_prior=PRIOR, auc=AUC, class0_masses=MASSK))
reg("target_prior.qmm.two_param_qmm", dict(target_masses=MASSES, target_prior=0.3, auc=0.8),
    dict(target_masses=MASSK, target_prior=PRIOR, auc=AUC, tol=TOL, xtol=TOL, max_iter=MAXIT))

# --- scenarios ---------------------------------------------------------------
GM = dict(make=_gm)
reg("scenarios.gaussian_mixture.GaussianMixture", dict(prior=0.3, mu=2.0), dict(prior=PRIOR, mu=POS))
reg("scenarios.gaussian_mixture.GaussianMixture.sample", dict(n=20, rng=0), dict(n=integer(), rng=rng(none_ok=False)), **GM)
reg("scenarios.gaussian_mixture.GaussianMixture.posterior_x", dict(x=np.linspace(-2, 2, 5)), dict(x=array(skip=("wrong_ndim",))), **GM)
reg("scenarios.gaussian_mixture.GaussianMixture.h_star", dict(z=Z), dict(z=array(skip=("wrong_ndim",), out=(("entry_1.5", np.r_[1.5, Z[1:]]),))), **GM)
reg("scenarios.gaussian_mixture.GaussianMixture.expect", dict(g=np.cos), dict(g=func()), **GM)
reg("scenarios.gaussian_mixture.GaussianMixture.class_conditional_mse", {}, {}, **GM)
reg("scenarios.gaussian_mixture.GaussianMixture.decomposition", {}, {}, **GM)
reg("scenarios.gaussian_mixture.GaussianMixture.cdf", dict(z=Z), dict(z=array(skip=("wrong_ndim",), out=(("entry_1.5", np.r_[1.5, Z[1:]]),))), **GM)
reg("scenarios.gaussian_mixture.GaussianMixture.quantile", dict(q=Z), dict(q=array(skip=("wrong_ndim",), out=(("entry_1.5", np.r_[1.5, Z[1:]]),))), **GM)
reg("scenarios.gaussian_mixture.GaussianMixture.smoothness_ratio", dict(z=Z), dict(z=array(skip=("wrong_ndim",), out=(("entry_1.5", np.r_[1.5, Z[1:]]),)), log=boolean()), **GM)
reg("scenarios.gaussian_mixture.GaussianMixture.smoothness_constant", {}, dict(tail_mass=real(out=(0.0, 0.5, -1.0))), **GM)
reg("scenarios.gaussian_mixture.GaussianMixture.population_risks", dict(edges=EDGES, values=VALUES),
    dict(edges=array(out=(("unsorted", [0, 0.7, 0.5, 1]),)), values=array(length=True, out=(("entry_1.5", [0.2, 1.5]),))), **GM)
reg("scenarios.gaussian_mixture.GaussianMixture.population_risks_batch", dict(edges_list=[EDGES], values_list=[VALUES]),
    dict(edges_list=obj(), values_list=obj()), **GM)
reg("scenarios.gaussian_mixture.GaussianMixture.population_risks_of_map", dict(h=_h), dict(h=func()), **GM)
reg("scenarios.gaussian_mixture.GaussianMixture.forecast_density", dict(z=Z), dict(z=array(skip=("wrong_ndim",), out=(("entry_1.5", np.r_[1.5, Z[1:]]),))), **GM)
reg("scenarios.gaussian_mixture.GaussianMixture.recalibration_risk_by_quadrature", dict(h=_h, rtol=1e-8),
    dict(h=func(), breakpoints=array(skip=("empty",), out=(("entry_1.5", [1.5]),)), rtol=TOL), **GM)
reg("scenarios.gaussian_mixture.PopulationDecomposition", dict(mse=0.1, variance=0.25, sharpness=0.2, calibration=0.05),
    dict(mse=REC, variance=REC, sharpness=REC, calibration=REC))
reg("scenarios.rating_scale.RatingScaleExample", dict(n_trials=8, n_nodes=20),
    dict(n_trials=integer(), success0=P01, success1=P01, source_prior=PRIOR, target_mean=P01, target_correlation=P01,
         target_prior=PRIOR, n_nodes=integer()))
reg("scenarios.rating_scale.RatingScaleExample.vasicek_nodes", {}, {}, make=_rating)
reg("scenarios.rating_scale.RatingScaleExample.sample_target", dict(n=20, rng=0), dict(n=integer(), rng=rng(none_ok=False)), make=_rating)
reg("scenarios.rating_scale.RatingScaleExample.label_shift_target_masses", dict(target_prior=0.1), dict(target_prior=PRIOR), make=_rating)

# --- shift -------------------------------------------------------------------
LAB3 = labels(skip=("str_entries",))  # labels of any hashable type (shift.encode_labels): "0" is a class of its own, not parsed
reg("label_shift_weights.correction.as_simplex_rows", dict(probs=PROBS3, name="probs"), dict(probs=ROWS, name=free("the caller's argument name"),
                                                                    atol=real(out=(-1.0,))))
reg("label_shift_weights.correction.encode_labels", dict(y=Y3, name="y", n_classes=3), dict(y=labels(length=False, skip=("str_entries", "bool_dtype", "label_fraction")),
                                                                    name=free("the caller's argument name"), n_classes=integer(minimum=2),
                                                                    classes=free("None or the class values")))
reg("label_shift_weights.correction.posterior_correction", dict(probs=PROBS3, weights=WEIGHTS3),
    dict(probs=array(ndim=2, skip=("wrong_ndim",)),  # (n, k) or (k,)
         weights=array(out=(("entry_neg", [-1.0, 1.0, 1.0]), ("wrong_k", [1.0, 1.0])))))
reg("label_shift_weights.scaling.scale_probabilities", dict(probs=PROBS3, slope=np.array([1.0, 1.2, 0.8])),
    dict(probs=ROWS, slope=array(out=(("wrong_k", [1.0, 1.0]),)), bias=array(skip=("None",))))
CASES["label_shift_weights.scaling.scale_probabilities"].args["bias"] = np.array([0.0, 0.1, -0.1])
reg("label_shift_weights.scaling.ScalingCalibrator", dict(kind="ts"), dict(kind=option(), gtol=TOL),
    make=_built_and_fitted("label_shift_weights", "ScalingCalibrator", PROBS3, Y3))
reg("label_shift_weights.scaling.ScalingCalibrator.fit", dict(probs=PROBS3, y=Y3), dict(probs=ROWS, y=LAB3, classes=free("None or class values")),
    make=lambda: __import__("companion.label_shift_weights", fromlist=["x"]).ScalingCalibrator("bcts"))
for _m in ("predict", "transform"):
    reg("label_shift_weights.scaling.ScalingCalibrator." + _m, dict(probs=PROBS3), dict(probs=ROWS), make=_scaling)
reg("label_shift_weights.scaling.fit_scaling", dict(probs=PROBS3, y=Y3, kind="bcts"), dict(probs=ROWS, y=LAB3, kind=option(), classes=free("None or class values"),
                                                                     gtol=TOL))
reg("label_shift_weights.estimators.BBSEResult", dict(weights=WEIGHTS3, raw_weights=WEIGHTS3, target_prior=WEIGHTS3 / 3, source_prior=np.full(3, 1 / 3),
                             classes=np.arange(3), confusion=np.eye(3) / 3, target_mean=WEIGHTS3 / 3, condition_number=1.0),
    dict(weights=REC, raw_weights=REC, target_prior=REC, source_prior=REC, classes=REC, confusion=REC, target_mean=REC,
         condition_number=REC))
reg("label_shift_weights.estimators.MLLSResult", dict(weights=WEIGHTS3, target_prior=WEIGHTS3 / 3, source_prior=np.full(3, 1 / 3), classes=np.arange(3), n_iter=1,
                             log_likelihood=0.0, log_likelihood_trace=np.zeros(1), calibrator=None),
    dict(weights=REC, target_prior=REC, source_prior=REC, classes=REC, n_iter=REC, log_likelihood=REC, log_likelihood_trace=REC,
         calibrator=REC))
reg("label_shift_weights.estimators.RLLSResult", dict(weights=WEIGHTS3, target_prior=WEIGHTS3 / 3, source_prior=np.full(3, 1 / 3), classes=np.arange(3),
                             confusion=np.eye(3) / 3, theta=np.zeros(3), regularization=0.0, objective=0.0),
    dict(weights=REC, target_prior=REC, source_prior=REC, classes=REC, confusion=REC, theta=REC, regularization=REC, objective=REC))
PT = PROBS3[::-1].copy()
reg("label_shift_weights.estimators.bbse", dict(probs_source=PROBS3, y_source=Y3, probs_target=PT),
    dict(probs_source=ROWS, y_source=LAB3, probs_target=array(ndim=2), soft=boolean(), classes=free("None or class values"),
         negative=option(), max_condition=real(out=(0.0, -1.0))))
reg("label_shift_weights.estimators.mlls", dict(probs_source=PROBS3, y_source=Y3, probs_target=PT),
    dict(probs_source=ROWS, y_source=LAB3, probs_target=array(ndim=2), calibration=option(none_ok=True),
         classes=free("None or class values"),
         source_prior=array(out=(("entry_0", [0.0, 0.5, 0.5]), ("not_sum_1", [0.5, 0.5, 0.5])), skip=("None",)),
         tol=TOL, max_iter=MAXIT))
CASES["label_shift_weights.estimators.mlls"].args["calibration"] = "bcts"
reg("label_shift_weights.estimators.mlls_log_likelihood", dict(target_prior=np.array([0.25, 0.25, 0.5]), probs_target=PT,  # dyadic priors: exact in float32
                                     source_prior=np.array([0.25, 0.375, 0.375])),
    dict(target_prior=array(out=(("not_sum_1", [0.5, 0.5, 0.5]),)), probs_target=array(ndim=2),
         source_prior=array(out=(("entry_0", [0.0, 0.5, 0.5]),))))
reg("label_shift_weights.estimators.rlls", dict(probs_source=PROBS3, y_source=Y3, probs_target=PT, regularization=0.01),
    dict(probs_source=ROWS, y_source=LAB3, probs_target=array(ndim=2), regularization=NONNEG, soft=boolean(),
         classes=free("None or class values"), max_weight=real(out=(0.0, -1.0), skip=("None",)), tol=TOL))
reg("scenarios.label_shift.GaussianLabelShift", dict(means=((-2.0, 0.0), (2.0, 0.0)), covariance=((1.0, 0.0), (0.0, 1.0)),
                                     source_prior=(0.5, 0.5), target_prior=(0.25, 0.75)),
    dict(means=array(ndim=2), covariance=array(ndim=2, out=(("not_pd", [[1.0, 2.0], [2.0, 1.0]]),)),
         source_prior=array(out=(("not_sum_1", [0.5, 0.6]),)), target_prior=array(out=(("not_sum_1", [0.5, 0.6]),))))
for _k in ("means", "covariance", "source_prior", "target_prior"):
    CASES["scenarios.label_shift.GaussianLabelShift"].args[_k] = np.asarray(CASES["scenarios.label_shift.GaussianLabelShift"].args[_k])
GLS = dict(make=_gls)
reg("scenarios.label_shift.GaussianLabelShift.prior", dict(domain="target"), dict(domain=option()), **GLS)
reg("scenarios.label_shift.GaussianLabelShift.sample", dict(n=20, rng=0), dict(n=integer(), rng=rng(none_ok=False), domain=option(),
                                                               size=free("leading axes, () by default")), **GLS)
reg("scenarios.label_shift.GaussianLabelShift.log_class_densities", dict(x=np.zeros((4, 2))), dict(x=array(ndim=2, skip=("wrong_ndim",))), **GLS)
reg("scenarios.label_shift.GaussianLabelShift.posterior", dict(x=np.zeros((4, 2))), dict(x=array(ndim=2, skip=("wrong_ndim",)), domain=option()), **GLS)
_CON = np.array([[-1.0, 1.0, 0.0], [-0.5, -0.5, 1.0]])
reg("scenarios.label_shift.GaussianLabelShift.log_ratio_map", dict(contrasts=_CON), dict(contrasts=array(ndim=2)), **GLS)
reg("scenarios.label_shift.GaussianLabelShift.projection_probabilities", dict(direction=np.array([1.0, 0.0]), offset=0.0, edges=np.array([-1.0, 0.0, 1.0])),
    dict(direction=array(length=True), offset=real(), edges=array(out=(("unsorted", [1.0, 0.0]),))), **GLS)
reg("scenarios.label_shift.GaussianLabelShift.grid_cell_probabilities", dict(contrasts=_CON, edges=[np.array([-np.inf, 2.0, np.inf]), np.array([-np.inf, 0.0, np.inf])]),
    dict(contrasts=array(ndim=2), edges=obj()), **GLS)
reg("scenarios.label_shift.GaussianLabelShift.confusion_matrix", dict(kind="soft", order=8), dict(kind=option(), order=integer()), **GLS)
reg("scenarios.label_shift.two_class_gaussian", {}, {})
reg("scenarios.label_shift.three_class_gaussian", {}, {})

# --- symbolic ----------------------------------------------------------------
reg("uniform_mass_binning.derivations.BinwiseIdentity", dict(groups=[], binwise=0, pooled=0, calibration_shift=0, sharpness_shift=0, shift=0),
    {k: REC for k in ("groups", "binwise", "pooled", "calibration_shift", "sharpness_shift", "shift")})
reg("uniform_mass_binning.derivations.binwise_pooling_identity", dict(n_bins=2), dict(n_bins=integer()))
reg("uniform_mass_binning.derivations.ZetaOptimum", {k: 0 for k in ("zeta", "b_star", "zeta_at_b_star", "rate_residual", "curvature_at_b_star",
                                                    "sample_size", "sample_size_residual", "rounded_bound", "rounded_residual")},
    {k: REC for k in ("zeta", "b_star", "zeta_at_b_star", "rate_residual", "curvature_at_b_star", "sample_size",
                      "sample_size_residual", "rounded_bound", "rounded_residual")})
for _f in ("umb_zeta_optimum", "uniform_bins_sharpness"):
    reg(f"uniform_mass_binning.derivations.{_f}", {}, {}, finite=False)
reg("binning_label_shift.derivations.theorem3_epsilon_residual", {}, {}, finite=False)
reg("binning_label_shift.derivations.proposition1_residuals", dict(k=2), dict(k=integer(minimum=2)), finite=False)
reg("binning_label_shift.derivations.theorem4_algebra", dict(k=2), dict(k=integer(minimum=2)), finite=False)
reg("binning_label_shift.derivations.theorem4_zero_weight_example", {}, {}, finite=False)
reg("conformal_label_shift.derivations.permutation_weight_residuals", dict(n=2, n_classes=2), dict(n=integer(), n_classes=integer(minimum=2)), finite=False)
reg("conformal_label_shift.derivations.label_shift_factorization_residual", dict(n=2), dict(n=integer()), finite=False)
reg("conformal_label_shift.derivations.uniform_weight_masses", dict(n=3), dict(n=integer()), finite=False)
reg("conformal_label_shift.derivations.split_coverage_interval", dict(n_max=5, alphas=(0.1,)), dict(n_max=integer(),
    alphas=array(out=(("entry_0", [0.0]), ("entry_1", [1.0])))), finite=False)
CASES["conformal_label_shift.derivations.split_coverage_interval"].args["alphas"] = (__import__("sympy").Rational(1, 10),)  # exact levels
reg("conformal_label_shift.derivations.split_coverage_by_integration", dict(n_max=3), dict(n_max=integer()), finite=False)
reg("conformal_label_shift.derivations.bernoulli_normal_limits", {}, {}, finite=False)
reg("calibration_sharpness.derivations.FiniteJointDistribution", dict(masses=(), cond=(), values=()), dict(masses=REC, cond=REC, values=REC))
reg("calibration_sharpness.derivations.finite_joint_distribution", dict(m=2), dict(m=integer()), finite=False)
reg("calibration_sharpness.derivations.set_partitions", dict(items=[1, 2, 3]), dict(items=obj()), valid_variants=False)
reg("calibration_sharpness.derivations.proposition1_residual", dict(groups=[[0, 1], [2]]), dict(groups=obj()), finite=False, valid_variants=False)
reg("calibration_sharpness.derivations.mse_decomposition_residual", dict(m=2), dict(m=integer()), finite=False)
reg("calibration_sharpness.derivations.gaussian_posterior_log_odds", {}, {}, finite=False)
reg("calibration_sharpness.derivations.mirror_symmetry_mse", dict(offset=0), dict(offset=real()), finite=False)
reg("label_shift_recalibration.derivations.label_shift_composition_residuals", {}, {}, finite=False)
reg("label_shift_recalibration.derivations.lemma10_derivatives", {}, {}, finite=False)
reg("label_shift_recalibration.derivations.theorem2_step2_residuals", {}, {}, finite=False)
reg("label_shift_weights.derivations.bayes_correction_residuals", dict(k=2), dict(k=integer(minimum=2)), finite=False)
reg("label_shift_weights.derivations.moment_identity_residuals", dict(k=2, m=2), dict(k=integer(minimum=2), m=integer(minimum=2)), finite=False)
reg("label_shift_weights.derivations.bbse_perturbation_residuals", dict(k=2), dict(k=integer(minimum=2)), finite=False)
reg("label_shift_weights.derivations.em_stationarity", dict(k=2, n=2), dict(k=integer(minimum=2), n=integer()), finite=False)
reg("label_shift_weights.derivations.remark5_chain", {}, {}, finite=False)
reg("multiclass_lp.derivations.LevelSetCount", dict(by_slack={}, residuals={}, ratio_factor=0, ratio_factor_simplified=0),
    dict(by_slack=REC, residuals=REC, ratio_factor=REC, ratio_factor_simplified=REC))
reg("multiclass_lp.derivations.level_set_count_identity", dict(k_values=(2, 3)), dict(k_values=array(out=(("entry_1", [1]), ("entry_2.5", [2.5])))),
    finite=False)
CASES["multiclass_lp.derivations.level_set_count_identity"].args["k_values"] = np.array([2, 3])
reg("multiclass_lp.derivations.patch_step_identity", dict(k=3, i=0), dict(k=integer(minimum=2), i=integer(minimum=0, out=(3,))), finite=False)
reg("multiclass_lp.derivations.group_squared_error_identity", dict(k=3), dict(k=integer(minimum=2)), finite=False)
reg("multiclass_lp.derivations.same_level_set_change", dict(k=3, y=0), dict(k=integer(minimum=2), y=integer(minimum=0, out=(3,))), finite=False)
for _f in ("lemma11_constants", "termination_constants", "lemma8_constants", "two_worlds_errors", "lemma7_bucket_constants",
           "grid_gain_factor", "recalibration_lower_bound_constants"):
    reg(f"multiclass_lp.derivations.{_f}", {}, {}, finite=False)
reg("target_prior.derivations.implied_auc_residual", dict(n=2), dict(n=integer()), finite=False)
reg("target_prior.derivations.jensen_bounds_derivation", dict(m=2), dict(m=integer()), finite=False)
reg("target_prior.derivations.binormal_auc_derivation", {}, {}, finite=False)
reg("target_prior.derivations.binormal_posterior_residual", {}, {}, finite=False)

# --- experiments -------------------------------------------------------------
NS = lambda *o: array(out=tuple(o) + (("entry_0", [0, 100]), ("entry_2.5", [2.5, 100.0])))  # noqa: E731 -- sample sizes
REPS = integer()
SEED = rng(none_ok=False)
SCEN = option()
EX = obj(skip=("None",))
reg("uniform_mass_binning.experiments.umb_risk_grid", dict(n_values=np.array([100, 200]), n_bins_values=np.array([2, 4]), n_reps=2, rng=0),
    dict(n_values=NS(), n_bins_values=NS(), n_reps=REPS, prior=PRIOR, mu=POS, rng=SEED))
reg("uniform_mass_binning.experiments.umb_binwise_risks", dict(edges_list=[EDGES], values_list=[VALUES]), dict(edges_list=obj(), values_list=obj(),
    prior=PRIOR, mu=POS))
reg("uniform_mass_binning.experiments.umb_figure_summary", dict(grid=_grid()), dict(grid=obj(), delta=DELTA, tail_mass=real(out=(0.0, 0.5, -1.0))),
    finite_ignore=("cal_bound", "risk_bound", "sha_bound", "sha_bound_a3", "exponents", "cal_fits",
                   "coverage_where_theorem_applies"))  # NaN by design, each listed with its reason in result["undefined"]:
                   # no cell of the tiny grid has n >= c B log(2B/delta) or n/B >= 100 points per bin
reg("uniform_mass_binning.experiments.umb_a3_regime_start", dict(delta=0.1, smoothness=2.0, n_max=10**6),
    dict(delta=DELTA, smoothness=POS, n_max=integer()))
reg("uniform_mass_binning.experiments.umb_bin_statistics", dict(z=Z, y=Y, n_bins=4), dict(z=PROBS_ARR, y=labels(), n_bins=integer(), prior=PRIOR, mu=POS))
reg("uniform_mass_binning.experiments.umb_balance_probability_bounds", dict(n=100, n_bins=4), dict(n=integer(), n_bins=integer(),
    gamma=real(out=(1.0, 0.5))))
reg("uniform_mass_binning.experiments.umb_lemma_frequencies", dict(n_values=np.array([100, 200]), n_bins=4, n_reps=3, rng=0),
    dict(n_values=NS(), n_bins=integer(), n_reps=REPS, delta=DELTA, gamma=real(out=(1.0, 0.5)), prior=PRIOR, mu=POS, rng=SEED))
reg("uniform_mass_binning.exact_sampling.umb_logit_quantile", dict(u=Z),
    dict(u=array(skip=("wrong_ndim",), out=(("entry_0", np.r_[0.0, Z[1:]]), ("entry_1.5", np.r_[1.5, Z[1:]]))), prior=PRIOR, mu=POS,
         upper=boolean()))
reg("uniform_mass_binning.exact_sampling.umb_exact_fits", dict(n=100, n_bins_values=np.array([2, 4]), n_reps=2, rng=0),
    dict(n=integer(minimum=2), n_bins_values=NS(("entry_above_n/2", [2, 51])), n_reps=REPS, prior=PRIOR, mu=POS, rng=SEED))
reg("uniform_mass_binning.exact_sampling.umb_expected_bin_ones", dict(n=100, n_bins=4),
    dict(n=integer(minimum=2), n_bins=integer(out=(51,)), prior=PRIOR, mu=POS))
reg("uniform_mass_binning.exact_sampling.umb_risk_grid_exact", dict(n_values=np.array([100, 200]), n_bins_values=np.array([2, 4]), n_reps=2, rng=0),
    dict(n_values=NS(("entry_huge_n", [100, 10**13])), n_bins_values=NS(), n_reps=REPS, prior=PRIOR, mu=POS, rng=SEED))

reg("binning_label_shift.experiments.scenario_partition", dict(scenario="three_class", n_cuts=2),
    dict(scenario=SCEN, n_cuts=integer()), finite=False)  # edges run from -inf to +inf by design
reg("binning_label_shift.experiments.theorem3_coverage", dict(scenario="two_class", n_values=np.array([100, 200]), deltas=np.array([0.1, 0.5]),
                                                             n_reps=3, n_cuts=2, rng=0),
    dict(scenario=SCEN, n_values=NS(), deltas=array(out=(("entry_0", [0.0, 0.5]), ("entry_1.5", [1.5]))), n_reps=REPS, n_cuts=integer(),
         rng=SEED))
reg("binning_label_shift.experiments.theorem4_check", dict(scenario="two_class", n_source=200, n_weights=200, n_reps=3, n_cuts=2, rng=0),
    dict(scenario=SCEN, n_source=integer(), n_weights=integer(), n_reps=REPS, n_cuts=integer(), rng=SEED))
reg("binning_label_shift.experiments.target_guarantee_coverage",
    dict(scenario="two_class", sizes=np.array([[200, 20000]]), deltas=np.array([0.1, 0.5]), n_reps=3, n_cuts=2, rng=0),
    dict(scenario=SCEN, sizes=array(ndim=2), deltas=array(out=(("entry_0", [0.0, 0.5]), ("entry_1.5", [1.5]))), n_reps=REPS,
         n_cuts=integer(), rng=SEED))
reg("binning_label_shift.experiments.podkopaev_figure2", dict(n_scatter=50, n_train=200, n_calibration=200, n_weights=200, n_test=200,
                                                             n_bins=4, rng=0),
    dict(n_scatter=integer(), n_train=integer(), n_calibration=integer(), n_weights=integer(), n_test=integer(), n_bins=integer(),
         band=array(out=(("reversed", [0.6, 0.4]), ("entry_1.5", [0.4, 1.5]))), rng=SEED),
    finite_ignore=("share_class1_sample",))  # NaN when no scatter point falls in the band, as documented
CASES["binning_label_shift.experiments.podkopaev_figure2"].args["band"] = np.array([0.4, 0.6])
reg("binning_label_shift.experiments.podkopaev_figure7", dict(n_splits=1, n_bins=4, rng=0),
    dict(n_splits=integer(), n_bins=integer(), source_prior=array(out=(("not_sum_1", [0.5, 0.6]),)),
         target_prior=array(out=(("not_sum_1", [0.5, 0.6]),)), rng=SEED))
CASES["binning_label_shift.experiments.podkopaev_figure7"].args.update(source_prior=np.array([0.75, 0.25]), target_prior=np.array([0.5, 0.5]))

_XTR = _g.normal(size=(30, 2))
reg("conformal_label_shift.experiments.lda_posteriors", dict(x_train=_XTR, y_train=Y3, x_eval=_XTR[:5], n_classes=3),
    dict(x_train=array(ndim=2, length=True), y_train=labels(), x_eval=array(ndim=2), n_classes=integer(minimum=2),
         shrinkage=real(out=(-0.1, 1.5))))
reg("conformal_label_shift.experiments.conformal_figure1", dict(n_sims=2, n_cal=50, n_weights=50, n_test=50, rng=0, chunk=2),
    dict(n_sims=REPS, n_cal=integer(), n_weights=integer(), n_test=integer(), alpha=P01, rng=SEED, chunk=integer()))
reg("conformal_label_shift.experiments.conformal_figure1_digits", dict(n_splits=1, rng=0),
    dict(n_splits=integer(), source_prior=array(out=(("not_sum_1", [0.5, 0.5, 0.5]),)), target_prior=array(out=(("not_sum_1", [0.5, 0.5, 0.5]),)),
         source_size=integer(), target_size=integer(), split_source=array(out=(("entry_0", [0, 100]),)), n_weights_target=integer(),
         alpha=P01, shrinkage=real(out=(-0.1, 1.5)), rng=SEED))
CASES["conformal_label_shift.experiments.conformal_figure1_digits"].args.update(
    source_prior=np.array([0.125, 0.375, 0.5]), target_prior=np.array([0.375, 0.5, 0.125]), split_source=np.array([300, 100]))
reg("conformal_label_shift.experiments.randomization_draw", dict(n_cal=50, n_test=50, rng=0), dict(n_cal=integer(), n_test=integer(), alpha=P01, rng=SEED))
reg("conformal_label_shift.experiments.randomization_study", dict(n_sims=2, n_cal=50, n_test=50, rng=0, chunk=2),
    dict(n_sims=REPS, n_cal=integer(), n_test=integer(), alpha=P01, rng=SEED, chunk=integer()))
reg("conformal_label_shift.experiments.thresholds_by_calibration_size", dict(n_values=np.array([50, 100]), n_sims=2, rng=0),
    dict(n_values=NS(), n_sims=REPS, alpha=P01, rng=SEED))
reg("conformal_label_shift.experiments.label_conditional_draw", dict(n_train=100, n_cal=60, n_test=50, rng=0),
    dict(n_train=integer(), n_cal=integer(), n_test=integer(), alpha=P01, rng=SEED))
reg("conformal_label_shift.experiments.label_conditional_study", dict(n_sims=2, n_train=100, n_test=50, settings=(("source", 60),), rng=0, chunk=2),
    dict(n_sims=REPS, n_train=integer(), n_test=integer(), alpha=P01, settings=obj(), rng=SEED, chunk=integer()))
reg("conformal_label_shift.guarantee_checks.coverage_guarantee_check", dict(n_sims=4, n_cal=24, n_test=20, n_cal_lc=60, rng=0, chunk=4),
    dict(n_sims=REPS, n_cal=integer(), n_test=integer(), alpha=P01, n_cal_lc=integer(), rng=SEED, chunk=integer()))
reg("conformal_label_shift.guarantee_checks.coverage_given_values", dict(scores=SC[:, 0], labels=Y3, weights=np.array([9, 1, 5]), alpha=0.1),
    dict(scores=array(length=True), labels=labels(), weights=array(out=(("entry_neg", [-1, 1, 1]), ("floats", [0.5, 1.0, 1.5]))), alpha=P01))
reg("conformal_label_shift.guarantee_checks.bernoulli_quantile_jump", dict(n_values=np.array([10, 100]), offsets=np.array([-0.02, 0.0]), n_reps=20, rng=0),
    dict(n_values=NS(), offsets=array(out=(("entry_2", [2.0]),)), alpha=P01, n_reps=REPS, rng=SEED))

reg("calibration_sharpness.experiments.decomposition_convergence", dict(n_values=np.array([100, 200]), n_reps=2, rng=0),
    dict(n_values=NS(), n_reps=REPS, prior=PRIOR, mu=POS, rng=SEED))
reg("calibration_sharpness.experiments.decomposition_across_priors", dict(priors=np.array([0.1, 0.5]), n=200, rng=0),
    dict(priors=array(out=(("entry_0", [0.0, 0.5]), ("entry_1.5", [1.5]))), mu=POS, n=integer(), offset=real(), rng=SEED))

LS = dict(n_source=200, n_target=100, n_reps=2, rng=0)
reg("label_shift_recalibration.experiments.label_shift_risks", dict(LS, n_bins_source=4, n_bins_target=3),
    dict(n_source=integer(), n_target=integer(), source_prior=PRIOR, target_prior=PRIOR, n_reps=REPS, mu=POS, rng=SEED,
         n_bins_source=integer(skip=("None",)), n_bins_target=integer(skip=("None",))))
reg("label_shift_recalibration.experiments.sun_table1", dict(n_reps_values=np.array([2]), n_bins_source_values=np.array([4]), rng=0),
    dict(n_reps_values=NS(), n_bins_source_values=array(length=True, out=(("entry_0", [0]), ("entry_2.5", [2.5]))), rng=SEED))
reg("label_shift_recalibration.experiments.label_shift_curves", dict(n_source=200, n_target=100, n_grid=11, rng=0),
    dict(n_source=integer(), n_target=integer(), source_prior=PRIOR, target_prior=PRIOR, mu=POS, n_grid=integer(minimum=2), rng=SEED))
reg("label_shift_recalibration.experiments.target_sample_complexity", dict(n_target_values=np.array([100, 200]), n_source=200, n_reps=2, rng=0, n_boot=10),
    dict(n_target_values=NS(), source_prior=PRIOR, target_prior=PRIOR, n_source=integer(), n_reps=REPS, mu=POS, rng=SEED,
         n_boot=integer(), level=P01))
reg("label_shift_recalibration.experiments.label_shift_grid", dict(target_priors=np.array([0.1, 0.3]), n_source_values=np.array([200]),
                                                    n_target_values=np.array([100]), n_reps=2, rng=0),
    dict(target_priors=array(out=(("entry_0", [0.0]), ("entry_1.5", [1.5]))), n_source_values=NS(), n_target_values=NS(), n_reps=REPS,
         source_prior=PRIOR, mu=POS, rng=SEED))
reg("label_shift_recalibration.experiments.theorem2_check", dict(n_source=500, n_target=500, n_reps=2, rng=0),
    dict(n_source=integer(), n_target=integer(), source_prior=PRIOR, target_prior=PRIOR, delta=DELTA, n_reps=REPS, mu=POS, rng=SEED))
reg("label_shift_recalibration.experiments.ratio_event_frequency", dict(n_reps=20, rng=0),
    dict(beta=real(out=(1.0, 0.5)), delta=DELTA, source_prior=PRIOR, target_prior=PRIOR, n_reps=REPS, rng=SEED))

reg("label_shift_weights.experiments.label_shift_scenario", dict(scenario="two_class"), dict(scenario=SCEN))
reg("label_shift_weights.experiments.weight_estimation_rates", dict(scenario="two_class", n_values=np.array([200, 400]), n_reps=2,
                                                                   n_eval=100, rng=0),
    dict(scenario=SCEN, n_values=NS(), n_reps=REPS, rlls_scale=POS, n_eval=integer(), rng=SEED))
reg("label_shift_weights.experiments.miscalibration_study", dict(scenario="two_class", n_values=np.array([200, 400]), n_reps=2,
                                                                n_limit=1000, rng=0),
    dict(scenario=SCEN, n_values=NS(), n_reps=REPS, slope=POS, bias=array(skip=("None",)), n_limit=integer(), rng=SEED))
reg("label_shift_weights.experiments.remark5_rates", dict(n_target_values=np.array([100, 200]), n_reps=2, n_bins=4, n_source=400, rng=0),
    dict(n_target_values=NS(), n_reps=REPS, source_prior=PRIOR, target_prior=PRIOR, mu=POS, n_bins=integer(),
         n_source=integer(skip=("None",)), rng=SEED))

MC = dict(k=3, lam=0.25)
reg("multiclass_lp.experiments.book_multiclass_scenario", dict(k=3), dict(k=integer(minimum=2), seed=integer(minimum=0), temperature=POS))
reg("multiclass_lp.experiments.lp_error_grid", dict(k_values=np.array([3]), n_values=np.array([200, 400]), p_values=np.array([2.0]),
                                                 configs=("plain",), n_reps=1, lam=0.25, rng=0),
    dict(k_values=array(out=(("entry_1", [1]), ("entry_2.5", [2.5]))), n_values=NS(), p_values=array(out=(("entry_0.5", [0.5]),)),
         configs=obj(), n_reps=REPS, lam=LAM, rng=SEED),
    finite_ignore=("lemma8_ratio",))  # NaN without pools, by design
reg("multiclass_lp.experiments.lp_rate_summary", dict(grid=_mc_grid(), n_min=100), dict(grid=obj(), n_min=integer(), level=P01),
    finite_ignore=("theorem", "slopes", "low", "high", "se"))
reg("multiclass_lp.experiments.level_sets_visited", dict(grid=_mc_grid()), dict(grid=obj()))
reg("multiclass_lp.experiments.exact_trajectory", dict(k=3, lam=0.25, threshold=0.01, p_values=np.array([2.0])),
    dict(k=integer(minimum=2), lam=LAM, threshold=POS, p_values=array(out=(("entry_0.5", [0.5]),))))
reg("multiclass_lp.experiments.squared_error_vs_lam", dict(k=3, lam_values=np.array([0.5, 0.25]), n=200, n_reps=1, configs=("plain",), rng=0),
    dict(k=integer(minimum=2), lam_values=array(out=(("entry_0.3", [0.3]),)), n=integer(), n_reps=REPS, configs=obj(), rng=SEED))
reg("multiclass_lp.experiments.method_comparison", dict(k=3, n=300, n_reps=1, lam=0.25, n_bins=4, p_values=np.array([2.0]), rng=0),
    dict(k=integer(minimum=2), n=integer(), n_reps=REPS, lam=LAM, n_bins=integer(), p_values=array(out=(("entry_0.5", [0.5]),)), rng=SEED))
reg("multiclass_lp.guarantee_checks.two_worlds_demo", dict(n_bins_values=np.array([100]), n_values=np.array([50, 100]), n_reps=2, rng=0),
    dict(n_bins_values=NS(), n_values=NS(), bias=real(out=(-0.1, 1.5)), n_reps=REPS, rng=SEED))
reg("multiclass_lp.guarantee_checks.light_level_sets_check", dict(k=3, lam=0.25, threshold_values=np.array([0.01]), p_values=np.array([2.0])),
    dict(k=integer(minimum=2), lam=LAM, threshold_values=array(out=(("entry_0", [0.0]),)), p_values=array(out=(("entry_0.5", [0.5]),))))
reg("multiclass_lp.guarantee_checks.level_set_mass_check", dict(k=3, lam=0.25, threshold=0.05, n_reps=2, rng=0),
    dict(k=integer(minimum=2), lam=LAM, threshold=POS, delta=DELTA, n_reps=REPS, rng=SEED))
reg("multiclass_lp.experiments.full_version_demo", dict(k=3, lam=0.5, n=300, n_reps=1, p_values=np.array([2.0]), rng=0),
    dict(k=integer(minimum=2), lam=LAM, temperature=POS, n=integer(), n_reps=REPS, p_values=array(out=(("entry_0.5", [0.5]),)), rng=SEED),
    finite_ignore=("lemma8_ratio",))  # NaN when no level set is heavy (no answers), as documented
reg("multiclass_lp.guarantee_checks.bernoulli_test_size", dict(eps_values=np.array([0.2]), error=0.25),
    dict(eps_values=array(out=(("entry_0", [0.0]), ("entry_0.7", [0.7]))), error=real(out=(0.0, 0.5, 0.7))))

TP = "target_prior.experiments."
reg(TP + "Table1Row", dict(method="x", mean=0.1, auc=0.8, mean_sqrt=0.3), dict(method=REC, mean=REC, auc=REC, mean_sqrt=REC))
reg(TP + "AucSums", dict(method="x", complete=0.8, printed=0.8, paper=0.8), dict(method=REC, complete=REC, printed=REC, paper=REC))
reg(TP + "RocConvergence", dict(auc=0.8, prior=0.1, c=0.1, mean=0.1, implied_auc=0.8, spectral_radius=0.5, observed_rate=0.5),
    {k: REC for k in ("auc", "prior", "c", "mean", "implied_auc", "spectral_radius", "observed_rate")})
reg(TP + "LiteralOutcome", dict(converged=True, distance=0.0, class0_total=1.0, iterations=1, message=""),
    {k: REC for k in ("converged", "distance", "class0_total", "iterations", "message")})
for _f in ("tasche_recalibrations", "tasche_table1", "tasche_figure1", "tasche_figure2", "table1_auc_sums"):
    reg(TP + _f, dict(example=_rating()), dict(example=EX))
reg(TP + "eq13_as_printed", dict(posteriors=POST, masses=MASSES), dict(posteriors=POSTK_CLOSED, masses=MASSK))
reg(TP + "roc_qmm_convergence", dict(cases=np.array([[0.8, 0.1]]), n_iter=20, example=_rating()),
    dict(cases=array(ndim=2, out=(("auc_0.3", [[0.3, 0.1]]), ("prior_1.5", [[0.8, 1.5]]))), n_iter=integer(), tol=TOL,
         window=array(out=(("reversed", [1e-9, 1e-4]),)), example=EX))
CASES[TP + "roc_qmm_convergence"].args["window"] = np.array([1e-4, 1e-9])
reg(TP + "literal_iteration_study", dict(priors=np.array([0.1, 0.3]), max_iter=50, example=_rating()),
    dict(priors=array(out=(("entry_0", [0.0]), ("entry_1.5", [1.5]))), auc=real(out=(0.3, 1.0), skip=("None",)), tol=TOL, max_iter=MAXIT,
         example=EX), finite_ignore=("literal", "literal-raw"))  # a failed literal iteration is recorded with NaN, by design
reg(TP + "auc_sensitivity", dict(aucs=np.array([0.75, 0.8]), example=_rating()),
    dict(aucs=array(out=(("entry_0.3", [0.3]), ("entry_1", [1.0])), skip=("None",)),  # None: the default grid
         step=real(out=(0.0, -0.1, 0.6)), example=EX))
reg(TP + "remark1_quantification", dict(true_priors=np.array([0.05, 0.1]), example=_rating()),
    dict(true_priors=array(out=(("entry_0", [0.0]), ("entry_1.5", [1.5]))), example=EX))
reg(TP + "sampled_table1", dict(n_values=np.array([100, 200]), n_reps=2, rng=0, example=_rating()),
    dict(n_values=NS(), n_reps=REPS, rng=SEED, example=EX))

# --- the practitioner's estimators (companion.estimators, issue 38) -------------------------------------------
# scikit-learn's convention: __init__ only stores its parameters and fit validates them.  A constructor's case
# therefore builds the estimator with the values under test and fits it (``_fitted_by``): a bad value must be
# refused by fit with a ValueError naming the parameter.  estimator=None: X are probability rows (PROBS3, PROBS2).


def _fitted_by(cls, *fit_args):
    """A ``make`` for a constructor's case: an object whose attribute ``cls.__name__`` builds ``cls(**params)`` and fits it."""
    import types

    return lambda: types.SimpleNamespace(**{cls.__name__: lambda **params: cls(**params).fit(*fit_args)})


def _est(name):
    import companion.estimators as E

    return getattr(E, name)


ES = "estimators."
LABELS_ANY = labels(skip=("str_entries", "wrong_ndim"))  # string labels are labels; a column vector is raveled (scikit-learn)
EST = obj(skip=("None",))  # a fitted classifier, or None for probability rows
W_ARG = dataclasses.replace(option(), out=(("negative", [-1.0, 1.0, 1.0]), ("wrong_k", [1.0, 1.0]), ("all_zero", [0.0, 0.0, 0.0])))
_PT = PROBS3[::-1].copy()  # the "target" rows of the valid calls
reg(ES + "TargetPriorEstimator", dict(estimator=None, method="mlls", calibration="bcts", regularization=None, negative="clip"),
    dict(estimator=EST, method=option(), calibration=option(none_ok=True), regularization=real(out=(0.0, -1.0), skip=("None",)),
         negative=option()),
    make=_fitted_by(_est("TargetPriorEstimator"), PROBS3, Y3, _PT))
reg(ES + "TargetPriorEstimator.fit", dict(X_source_cal=PROBS3, y_source_cal=Y3, X_target=_PT),
    dict(X_source_cal=ROWS, y_source_cal=LABELS_ANY, X_target=ROWS), make=lambda: _est("TargetPriorEstimator")())
reg(ES + "LabelShiftCalibratedClassifier",
    dict(estimator=None, method="bcts", prior="mlls", target_prior=np.array([0.2, 0.3, 0.5]), n_bins=3, ties="raise"),
    dict(estimator=EST, method=option(), prior=option(), ties=option(),
         target_prior=array(skip=("None",), out=(("not_summing_to_1", [0.5, 0.5, 0.5]), ("negative", [-0.5, 0.5, 1.0]),
                                                 ("wrong_k", [0.5, 0.5]))),
         n_bins=integer(skip=("None",))),
    make=_fitted_by(_est("LabelShiftCalibratedClassifier"), PROBS3, Y3))
reg(ES + "LabelShiftCalibratedClassifier.fit", dict(X_source_cal=PROBS3, y_source_cal=Y3, X_target=_PT),
    dict(X_source_cal=ROWS, y_source_cal=LABELS_ANY, X_target=ROWS),
    make=lambda: _est("LabelShiftCalibratedClassifier")(method="bcts"))
for _m in ("predict_proba", "predict"):
    reg(ES + "LabelShiftCalibratedClassifier." + _m, dict(X=PROBS3), dict(X=ROWS),
        make=lambda: _est("LabelShiftCalibratedClassifier")(method="bcts").fit(PROBS3, Y3, _PT))
reg(ES + "WeightedConformalClassifier", dict(estimator=None, alpha=0.1, weights="mlls", label_conditional=False,
                                            conformity_score="lac"),
    dict(estimator=EST, alpha=P01, weights=W_ARG, label_conditional=boolean(), conformity_score=option()),
    make=_fitted_by(_est("WeightedConformalClassifier"), PROBS3, Y3, _PT))
reg(ES + "WeightedConformalClassifier.fit", dict(X_cal=PROBS3, y_cal=Y3, X_target=_PT),
    dict(X_cal=ROWS, y_cal=LABELS_ANY, X_target=ROWS), make=lambda: _est("WeightedConformalClassifier")())
reg(ES + "WeightedConformalClassifier.predict_set", dict(X=PROBS3), dict(X=ROWS),
    make=lambda: _est("WeightedConformalClassifier")().fit(PROBS3, Y3, _PT))
