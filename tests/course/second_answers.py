"""A second correct answer to every autograded part, written independently of the book's solution.

Each answer takes another valid route than the book's (another import style, another algorithm, its
own example where the student chooses one); the hidden test must give it full marks too
(tests/course/test_parts.py). Each runs after the chapter's set-up cell and the part's ``given`` code.
"""

SECOND = {
    # --- Calibration, sharpness and the MSE decomposition
    "ex-cs-calibrated-mse": """
import companion.scenarios as sc
z2, y2 = sc.GaussianMixture(0.5, 2.0).sample(10_000, SEED)
idx = np.clip(np.searchsorted(np.linspace(0, 1, 11), z2, side="right") - 1, 0, 9)
means = np.array([y2[idx == k].mean() if np.any(idx == k) else 0.0 for k in range(10)])
f_calibrated = means[idx]
""",
    "ex-cs-symbolic-sharpness": """
import companion.calibration_sharpness as cs
law = cs.finite_joint_distribution(3)
m, q = law.masses, law.cond
theta = (m[0] * q[0] + m[1] * q[1]) / (m[0] + m[1])
sharpness_risk_h = sum(m[i] * (q[i] - theta) ** 2 for i in range(2))
""",
    "ex-cs-sigmoid-calibrated": """
from scipy.integrate import quad
from scipy.special import expit
from scipy.stats import norm


def calibration(prior, mu):  # h*(x) = expit(2 mu x + logit prior), integrated against the mixture density
    dens = lambda x: prior * norm.pdf(x, mu) + (1 - prior) * norm.pdf(x, -mu)
    c = np.log(prior / (1 - prior))
    return quad(lambda x: dens(x) * (expit(2 * mu * x + c) - expit(x)) ** 2, -np.inf, np.inf, epsabs=1e-14, epsrel=1e-12)[0]


cs_sigmoid_nearby = [calibration(a, b) for a, b in ((0.5, 0.6), (0.5, 0.4), (0.45, 0.5))]
""",
    "ex-cs-within-bin": """
from scipy.optimize import brentq
from scipy.special import expit, logit


def excess(t):  # slope of h*(t) = expit(4 logit t), minus 1/2
    h = expit(4 * logit(t))
    return 4 * h * (1 - h) / (t * (1 - t)) - 0.5


low = brentq(excess, 0.01, 0.45, xtol=1e-15)
cs_steep_band = (low, 1 - low)
""",
    "ex-cs-prior-free-forecasters": """
from scipy.special import expit
from scipy.stats import norm

gen = np.random.default_rng(1)
cs_prior_free_rows = []
for c in (-1.0, 0.0, 1.0):
    e0 = norm(-2, 1).expect(lambda t: expit(t + c) ** 2, epsabs=1e-13, epsrel=1e-12)
    e1 = norm(2, 1).expect(lambda t: expit(-t - c) ** 2, epsabs=1e-13, epsrel=1e-12)
    for prior in (0.1, 0.5, 0.9):
        y = gen.random(200_000) < prior
        sq = (expit(gen.normal(np.where(y, 2.0, -2.0)) + c) - y) ** 2
        cs_prior_free_rows.append((c, prior, prior * e1 + (1 - prior) * e0, sq.mean(), 2 * sq.std() / np.sqrt(sq.size)))
""",
    # --- Uniform-mass binning
    "ex-umb-smoothness-peak": """
from math import exp, pi, sqrt
umb_ratio_at_zero = 2.0 / (2 * exp(-2.0) / sqrt(2 * pi))
""",
    "ex-umb-ties": """
from scipy.special import ndtr
umb_ties_gap = (ndtr(2.0) - 0.5) ** 2
""",
    "ex-umb-odd-even": """
from scipy.integrate import simpson
from scipy.special import expit, logit

x = np.linspace(-12, 12, 240_001)
dens = 0.5 * (norm.pdf(x - 2) + norm.pdf(x + 2))
h = expit(4 * x)
umb_odd_even_sharpness = []
for n_bins in range(2, 9):
    cuts = logit(MIXTURE.quantile(np.arange(1, n_bins) / n_bins))
    risk = 0.0
    for a, b in zip(np.concatenate(([-12.0], cuts)), np.concatenate((cuts, [12.0]))):
        xs = np.linspace(a, b, 40_001)
        d, hs = 0.5 * (norm.pdf(xs - 2) + norm.pdf(xs + 2)), expit(4 * xs)
        theta = simpson(hs * d, x=xs) / simpson(d, x=xs)
        risk += simpson((hs - theta) ** 2 * d, x=xs)
    umb_odd_even_sharpness.append(risk)
""",
    "ex-umb-delta": """
umb_delta_factor = np.cbrt(np.log(10.0) / np.log(1000.0))
""",
    # --- Multiclass calibration under l_p error
    "ex-multiclass-lp-count": """
import companion.multiclass_lp as mlp


def mclp_smallest_m(k, big):
    m = 2
    while mlp.level_set_count(k, 1 / m) <= big:
        m += 1
    return m
""",
    "ex-multiclass-lp-projection": """
v = np.array([0.1, 0.5, 0.0])
srt = np.sort(v)[::-1]
css = np.cumsum(srt) - 1
rho = np.nonzero(srt - css / np.arange(1, 4) > 0)[0][-1]
mclp_projected = np.maximum(v - css[rho] / (rho + 1), 0)
""",
    "ex-multiclass-lp-test-size": """
from math import comb, sqrt
n_cells = comb(110, 10) - 100  # |V_lambda| - k at k = 100, m = 10
mclp_ece_min_n_k100 = (1 + sqrt(1 + 8 * n_cells / 3)) / 2
""",
    "ex-multiclass-lp-overhead": """
from math import ceil, log
t = 1
while ceil(32 * log(4 * 6 * t / (0.1 * 0.01)) / 0.01**2) >= t * log(120) / (2e-4):
    t += 1
mclp_cheaper_from = t
""",
    # --- Estimating the label-shift weights
    "ex-lsw-negative-weights": """
y_src = np.array([0] * 6 + [1] * 4)
pred_src = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 0])
probs_src = np.eye(2)[pred_src]
probs_tgt = np.eye(2)[[0] * 9 + [1]]
c = np.array([[np.mean((pred_src == i) & (y_src == j)) for j in (0, 1)] for i in (0, 1)])
nu = probs_tgt.mean(axis=0)
det = c[0, 0] * c[1, 1] - c[0, 1] * c[1, 0]  # Cramer's rule
lsw_negative_weights = np.array([nu[0] * c[1, 1] - c[0, 1] * nu[1], c[0, 0] * nu[1] - c[1, 0] * nu[0]]) / det
""",
    "ex-lsw-source-noise": """
gen = np.random.default_rng(SEED + 6)
xt, _ = THREE.sample(10_000, gen, "target", size=(60,))
post_t, p_src = THREE.posterior(xt), THREE.prior("source")
q = np.tile(p_src, (60, 1))
for _ in range(20_000):  # EM on all 60 repetitions at once
    adj = post_t * (q / p_src)[:, None, :]
    q_next = (adj / adj.sum(axis=2, keepdims=True)).mean(axis=1)
    done = np.max(np.abs(q_next - q)) < 1e-14
    q = q_next
    if done:
        break
lsw_known_prior_error = np.linalg.norm(q / p_src - THREE.weights, axis=1).mean()
""",
    # --- Recalibration under label shift
    "ex-ls-logit-shift": """
z = np.linspace(0.0, 1.0, 1001)
factor = (0.1 / 0.9) / (0.3 / 0.7) * (0.3 / 0.7) / (0.5 / 0.5)  # odds factors of the two steps
ls_two_steps = factor * z / (factor * z + (1 - z))
""",
    "ex-ls-sharper-ratio": """
from math import ceil, log
xi = (1.5 - 1) / 3
ls_sharper_sizes = tuple(ceil(3 * log(2 / (0.1 / 2)) / (xi**2 * m)) for m in (0.5, 0.1))
""",
    "ex-ls-loose-bound": """
from scipy.optimize import minimize_scalar
from scipy.special import expit

run = theorem2_check(n_source=10**4, n_target=10**4, source_prior=0.5, target_prior=0.3, n_reps=50, rng=SEED)
p1, q1 = run["priors_hat"][0]
a, b = np.log(q1 / (1 - q1) * (1 - p1) / p1), np.log(0.3 / 0.7)  # the logit shifts of g_hat and g*
best = minimize_scalar(lambda x: -abs(expit(x + a) - expit(x + b)), bounds=(-40, 40), method="bounded",
                       options={"xatol": 1e-12})
ls_sup_first = -best.fun
""",
    "ex-ls-link": """
from scipy.special import log_expit

x = np.array([-12.0, -3.0, 0.0, 0.5, 4.0, 12.0])
log_eta_prime = np.log(4.0) + log_expit(4 * x) + log_expit(-4 * x)
log_density = np.logaddexp(-(x - 2) ** 2 / 2, -(x + 2) ** 2 / 2) - np.log(2 * np.sqrt(2 * np.pi))
ls_link_ratio = np.exp(log_eta_prime - log_density)
""",
    # --- Calibration by binning under label shift
    "ex-binls-classwise": """
f_values = np.array([[0.5, 0.4, 0.1], [0.5, 0.2, 0.3], [0.3, 0.4, 0.3], [0.3, 0.2, 0.5]])
label_law = np.array([[0.55, 0.35, 0.1], [0.45, 0.25, 0.3], [0.25, 0.45, 0.3], [0.35, 0.15, 0.5]])
gaps = []
for y in range(3):
    groups = {}
    for row, law in zip(f_values, label_law):
        groups.setdefault(round(row[y], 12), []).append(law[y])
    gaps += [abs(sum(v) / len(v) - key) for key, v in groups.items()]
binls_gaps = (max(gaps), max(sum(abs(a - b) for a, b in zip(law, row)) for row, law in zip(f_values, label_law)))
""",
    "ex-binls-bhc-constant": """
from math import comb, log, sqrt
binls_shrink = [sqrt(log(10 * sum(comb(k, j) for j in range(1, k)) / 0.1) / log(10 * 2**k / 0.1)) for k in (2, 3, 5, 10)]
""",
    "ex-binls-theorem4-tight": """
w = np.array([1.0, 4.0])
t, u = np.array([0.999, 0.001]), np.array([0.998, 0.002])
g = lambda v: w * v / np.sum(w * v)
binls_finite_ratio = np.sum(np.abs(g(u) - g(t))) / (2 * (w.max() / w.min()) * np.sum(np.abs(u - t)))
""",
    "ex-binls-kappa-terms": """
def binls_terms(w, e_w, e_s):
    w = [float(v) for v in w]
    kappa = max(w) / min(w)
    return kappa, 2 * e_w / min(w), 2 * kappa * e_s
""",
    # --- Conformal prediction under label shift
    "ex-conf-rank": """
def conf_rank_threshold(scores, alpha):
    ordered = np.sort(np.append(scores, 1.0))
    return float(ordered[math.ceil((1 - Fraction(str(alpha))) * len(ordered)) - 1])
""",
    "ex-conf-zero-weight": """
scores_z = np.array([0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85])
labels_z = np.array([2, 0, 1, 2, 1, 0, 2, 1])
conf_zero_weight_thresholds = []
for cand in range(3):
    mass = np.array([1.0, 1.0, 0.0])[np.append(labels_z, cand)]
    atoms = np.append(scores_z, 1.0)
    order = np.argsort(atoms, kind="stable")
    cum = np.cumsum(mass[order]) / mass.sum()
    conf_zero_weight_thresholds.append(atoms[order][np.argmax(cum >= 0.8 - 1e-12)])
""",
    "ex-conf-bernoulli": """
conf_bernoulli = {n: binom.pmf(np.arange(n + 1), n, 0.9)[10 * np.arange(n + 1) > 9 * n].sum() for n in (10, 11, 100, 101, 1000, 1001)}
""",
    # --- Recalibration to a target prior
    "ex-tp-uninformative": """
def tp_both_sums(s, w):
    s, w = np.asarray(s, dtype=float), np.asarray(w, dtype=float)
    mean = np.dot(w, s)
    terms = [w[i] * s[i] * (0.5 * w[i] * (1 - s[i]) + sum(w[k] * (1 - s[k]) for k in range(i))) for i in range(len(s))]
    return sum(terms) / (mean * (1 - mean)), sum(terms[1:]) / (mean * (1 - mean))
""",
    "ex-tp-scaling-auc": """
def auc_sorted(scores, masses):  # eq-tp-implied-auc on merged grades, by cumulative sums
    values, inverse = np.unique(scores, return_inverse=True)
    f = np.bincount(inverse, weights=masses)
    mean = f @ values
    neg = f * (1 - values)
    below = np.concatenate(([0.0], np.cumsum(neg)[:-1]))
    return np.sum(f * values * (0.5 * neg + below)) / (mean * (1 - mean))


tp_scaled_aucs = [auc_sorted(t * EXAMPLE.source_posteriors, EXAMPLE.target_masses) for t in (0.1, 0.5, 1.0)]
""",
    "ex-tp-fjs-mixture": """
from scipy.optimize import brentq

masses = EXAMPLE.label_shift_target_masses(0.05)
masses = masses / masses.sum()
odds = eta / (1 - eta)
log_rho = brentq(lambda lr: masses @ (np.exp(lr) * odds / (1 + np.exp(lr) * odds)) - 0.05, -30, 30, xtol=1e-15)
tp_fjs_posteriors = np.exp(log_rho) * odds / (1 + np.exp(log_rho) * odds)
""",
}
