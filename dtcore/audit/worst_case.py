"""Worst cases of the papers' deterministic lemmas over every function on n <= 4 variables.

Each search evaluates one lemma on every function of :func:`dtcore.exhaustive.all_tables` (and, where
the lemma speaks of a product measure, on every measure of a grid), as the ratio of the measured
side to the bound in the book's margin convention: measured/bound for an upper bound, bound/measured
for a lower bound, so 1 is the bound and above 1 is a violation. It returns the supremum with its
witness (the function, the measure, the step of a greedy run). Bounds come from :mod:`dtcore.bounds`
(the papers' constants); measurements from :mod:`dtcore.exhaustive`. A ratio above 1 is confirmed in
exact rational arithmetic (:func:`exact_lemma_ratio`) before it is called a violation.

Lemmas that concern "the chosen leaf of a bare tree" (BLT20 Lemmas 5.2/5.4, MGBH26 Lemmas 4.4/4.5)
are evaluated on every bare tree that BuildTopDownDT builds on its way to zero error, for every
function, i.e. on the trees the algorithm meets. Lemmas that are sums over leaves of a statement about
one subfunction (BLT20 Lemma 5.1(1), MGBH26 Lemma 4.1) reach their supremum on a one-leaf tree: a
ratio of sums is at most the largest ratio, and every subfunction of a function on n variables under a
product measure is itself a function on n variables under that measure.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace as dataclass_replace
from fractions import Fraction

import numpy as np

from .. import bounds, exhaustive as ex, smoothed, stochastic
from ..cube import ProductDistribution
from ..impurity import get_impurity, holder_constants, kappa, lipschitz_constant, strong_concavity
from ..validate import check_int, check_rng

TIGHT_TOLERANCE = 1e-6
"""A supremum within this of 1 is called tight: the float rounding of an exact equality, e.g. Gini's
gain (a difference of impurities, relative error up to ~1e-7 on the gains above GAIN_FLOOR)."""
GAIN_FLOOR = 1e-9
"""BDM20's gain lemmas skip cases whose gain is below this: float cannot resolve their ratio."""


@dataclass
class Supremum:
    """The worst case of one lemma: ``ratio`` (1 = the bound, > 1 = violated) and its witness.

    ``function`` is the witness's index in :func:`dtcore.exhaustive.all_tables` (its packed truth
    table), ``measure`` the p vector (None: uniform), ``step`` the number of leaves of the witness
    bare tree (None: the lemma is about the function alone), ``exact`` the ratio recomputed in
    rational arithmetic where the float ratio exceeds 1, ``witness`` a description that replaces the
    truth table when the witness is not a function on n variables (a mean function, a coin grid);
    ``worse``/``worse_ratio`` name a worse output and the same ratio for it at the witness
    (:func:`worse_outputs`; above 1: the check would fail for that output).
    """

    paper: str
    result: str
    form: str
    statement: str
    ratio: float
    function: int
    n: int
    measure: tuple[float, ...] | None = None
    step: int | None = None
    cases: int = 0
    exact: Fraction | None = None
    note: str = ""
    witness: str = ""
    worse: str = ""
    worse_ratio: float = math.nan

    @property
    def verdict(self) -> str:
        """'tight', 'slack by x' or 'violated' (the last only once confirmed exactly)."""
        if self.ratio > 1 + TIGHT_TOLERANCE:
            if self.exact is not None and self.exact <= 1:
                return "tight (float rounding)" if self.exact == 1 else f"slack by {float(1 / self.exact):.4g}"
            return "violated" if self.exact is not None else "violated (float only)"
        if self.ratio >= 1 - TIGHT_TOLERANCE:
            return "tight"
        if self.ratio <= 0:
            return "slack (never positive)"
        room = 1 / self.ratio
        return f"slack by {room:.4g}" if room >= 1.001 else f"approached (slack {room:.7g})"

    def row(self) -> dict[str, object]:
        """A tidy record for a DataFrame."""
        return {"paper": self.paper, "result": self.result, "form": self.form, "statement": self.statement,
                "sup_ratio": self.ratio, "verdict": self.verdict, "function": self.function,
                "table": self.witness or format(self.function, f"0{2 ** self.n // 4}x"), "n": self.n,
                "measure": "uniform" if self.measure is None else "(" + ", ".join(f"{p:g}" for p in self.measure) + ")",
                "leaves": self.step, "cases": self.cases,
                "exact_ratio": None if self.exact is None else str(self.exact), "note": self.note,
                "worse_output": self.worse, "worse_ratio": self.worse_ratio}


def _sup(ratio: np.ndarray) -> tuple[float, tuple[int, ...]]:
    """Largest finite entry of ``ratio`` (NaN ignored) and its index."""
    r = np.where(np.isnan(ratio), -np.inf, ratio)
    flat = int(np.argmax(r))
    return float(r.reshape(-1)[flat]), np.unravel_index(flat, r.shape)


class Tracker:
    """Keeps, for each (result, form), the largest ratio seen over successive measures."""

    def __init__(self) -> None:
        self.best: dict[tuple[str, str], Supremum] = {}
        self.deviations: dict[str, float] = {}

    def offer(self, paper: str, result: str, form: str, statement: str, ratio: np.ndarray, n: int,
              measure: tuple[float, ...] | None, step_axis: bool = False, note: str = "") -> None:
        """Offer a ``(B,)`` or ``(B, T)`` array of ratios (T: steps of a greedy run, T = leaves - 1)."""
        value, where = _sup(ratio)
        key = (result, form)
        cases = int(np.isfinite(ratio).sum())
        old = self.best.get(key)
        if old is None or value > old.ratio:
            self.best[key] = Supremum(paper, result, form, statement, value, int(where[0]), n, measure,
                                      int(where[1]) + 1 if step_axis else None,
                                      cases + (old.cases if old else 0), note=note)
        else:
            old.cases += cases

    def deviation(self, name: str, value: float) -> None:
        """Record the largest |difference| of an identity."""
        self.deviations[name] = max(self.deviations.get(name, 0.0), float(value))


# --- the searches ------------------------------------------------------------------------------

def elementwise(fn: Callable[..., float], *args: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
    """``fn`` (a scalar bound of :mod:`dtcore.bounds`) on every case, called once per distinct argument tuple.

    The exhaustive arrays hold few distinct values (sizes, leaf counts, dyadic errors), so calling the
    paper's own formula on each distinct tuple keeps its constants in one place at little cost.
    Cases outside ``where`` get NaN.
    """
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    cols = np.stack([np.broadcast_to(np.asarray(a, dtype=np.float64), shape).reshape(-1) for a in args], axis=1)
    keep = np.ones(cols.shape[0], dtype=bool) if where is None else np.broadcast_to(where, shape).reshape(-1)
    out = np.full(cols.shape[0], np.nan)
    if keep.any():
        distinct, inverse = np.unique(cols[keep], axis=0, return_inverse=True)
        values = np.array([fn(*row) for row in distinct])  # one call per distinct tuple
        out[keep] = values[inverse.reshape(-1)]
    return out.reshape(shape)


def _blt54_eps(cost: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The largest eps in (0, 1/2] with eps log2(4 s / eps) <= cost (BLT20 Lemma 5.4's condition).

    eps log2(4s/eps) increases on (0, 4s/e), which contains (0, 1/2] for s >= 2: bisection.
    """
    lo, hi = np.zeros_like(cost), np.full_like(cost, 0.5)
    g_hi = hi * np.log2(4 * s / hi)
    for _ in range(80):  # bisection steps, vectorised over every case
        mid = (lo + hi) / 2
        ok = mid * np.log2(4 * s / mid) <= cost
        lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid)
    return np.where(cost >= g_hi, 0.5, lo)


#: The variable each split of a greedy run queries: BuildTopDownDT's most influential one, or the least
#: influential free one (a worse output of the same type: the same leaf order, the worst variable there).
VARIABLE_RULES = ("most", "least")


def _greedy_splits(stats: ex.SubcubeStatistics, variable: str) -> tuple[np.ndarray, np.ndarray]:
    """BuildTopDownDT's leaf scores and split variables; with ``variable="least"`` each leaf is still chosen
    by BuildTopDownDT's score but split on its least influential free variable (ties: lowest index)."""
    if variable not in VARIABLE_RULES:
        raise ValueError(f"variable must be one of {VARIABLE_RULES}, got {variable!r}")
    score, feature = ex.build_top_down_scores(stats)
    if variable == "least":
        free = ex.subcubes(stats.n).free.T[:, None, :]  # (n, 1, S)
        feature = np.argmin(np.where(free, stats.by_variable, np.inf), axis=0)
    return score, feature


def _split_scores(stats: ex.SubcubeStatistics, runs: ex.GreedyRuns) -> np.ndarray:
    """Pr[rho] Inf_i(f_rho) of the split each step made (its variable's score, not the leaf's best), NaN once stopped."""
    b = np.broadcast_to(np.arange(runs.chosen.shape[0])[:, None], runs.chosen.shape)
    made = runs.chosen >= 0
    out = np.full(runs.chosen.shape, np.nan)
    out[made] = stats.by_variable[runs.feature[made], b[made], runs.chosen[made]]
    return out


def uniform_suprema(n: int = 4, tracker: Tracker | None = None, *, variable: str = "most") -> Tracker:
    """OSSS and BLT20 Lemmas 5.1-5.4 over every function on n variables, uniform measure.

    ``variable="least"`` measures a worse output of the same type: OSSS with the least influential
    variable in place of the most influential one, and Lemmas 5.2/5.4 on the runs that split each
    selected leaf on its least influential free variable, the score being that split's own.

    OSSS in three forms (s of a minimum-size tree; D of a minimum-depth tree; the average depth of a
    tree of least average depth, which is O'Donnell et al.'s sum of query probabilities); Lemmas 5.2
    and 5.4 at every step of BuildTopDownDT's run to zero error, eps taken at its supremum (just
    under the error for 5.2, the largest eps the condition allows for 5.4).
    """
    n = check_int("n", n, 1, ex.MAX_ALL_FUNCTIONS_VARIABLES)
    tr = tracker or Tracker()
    tables = ex.all_tables(n)
    opt = ex.optimal_trees(tables)
    s, D = opt.root_size.astype(np.float64), opt.root_depth.astype(np.float64)
    stats = ex.subcube_statistics(tables)
    root = ex.subcubes(n).root
    var, err = stats.variance[:, root], stats.error[:, root]
    inf = stats.influences[:, root]
    max_inf, total = inf.max(axis=1), inf.sum(axis=1)
    if variable == "least":
        max_inf = inf.min(axis=1)
    avg = ex.minimum_average_depth(tables)
    live = var > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        osss = elementwise(bounds.osss05_max_influence_lower, var, s, where=live) / max_inf
        tr.offer("OSSS05", "OSSS inequality", "size form (BLT20)", "max_i Inf_i >= Var / log2 s",
                 osss, n, None)
        tr.offer("OSSS05", "OSSS inequality", "depth form", "max_i Inf_i >= Var / D",
                 np.where(live, var / D / max_inf, np.nan), n, None)
        tr.offer("OSSS05", "OSSS inequality", "average-depth form", "max_i Inf_i >= Var / Delta",
                 np.where(live, var / avg / max_inf, np.nan), n, None)
        l53 = total / elementwise(bounds.blt20_lemma53_total_influence_upper, var, s, where=live)
        tr.offer("BLT20", "Lemma 5.3", "as printed", "Inf <= Var log2(4 s / Var)", l53, n, None)
        tr.offer("BLT20", "Lemma 5.1(1)", "as printed", "error(T°, f) <= cost_f(T°)",
                 np.where(total > 0, err / total, np.nan), n, None)
    _cost_drop_identity(stats, tr, "BLT20 Lemma 5.1(2)")
    path = ex.minimum_path_average_depth(tables)
    tr.offer("MGBH26", "Lemma E.2", "path tree, uniform", "Delta(path tree) <= sum_k k 2^-k + n 2^-(n-1) <= 2",
             np.where(np.isfinite(path) & live, path / 2.0, np.nan), n, None,
             note="every decision list; Delta of its least-average-depth path tree")
    score, feature = _greedy_splits(stats, variable)
    runs = ex.best_first_runs(score, feature, n, totals={"error": stats.error, "cost": stats.cost})
    if variable == "least":
        runs = dataclass_replace(runs, score=_split_scores(stats, runs))
    leaves = runs.leaves[None, :].astype(np.float64)
    err_t, cost_t = runs.totals["error"], runs.totals["cost"]
    split = np.isfinite(runs.score) & (err_t > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        size = np.broadcast_to(s[:, None], err_t.shape)
        # eps just under the error: the bound's supremum over the eps the lemma allows
        r52 = elementwise(bounds.blt20_lemma52_score_lower, np.minimum(err_t, 0.5 - 1e-12), leaves, size,
                          where=split) / runs.score
        tr.offer("BLT20", "Lemma 5.2", "as printed", "score >= eps / (L log2 s) while error > eps", r52, n,
                 None, step_axis=True)
        eps54 = _blt54_eps(cost_t, np.maximum(size, 2))
        usable = split & (eps54 > 0)
        bound54 = elementwise(lambda c, e, L, sz: bounds.blt20_lemma54_score_lower(c, min(e, 0.5 - 1e-12), L, sz),
                              cost_t, eps54, leaves, size, where=usable)
        tr.offer("BLT20", "Lemma 5.4", "as printed",
                 "score >= cost / (L log2(4s/eps) log2 s) while cost >= eps log2(4s/eps)",
                 bound54 / runs.score, n, None, step_axis=True)
    return tr


def _cost_drop_identity(stats: ex.SubcubeStatistics, tr: Tracker, name: str) -> None:
    """Largest |cost(rho) - cost(children on x_i) - Pr[rho] Inf_i(f_rho)| over every f, rho, free i."""
    sub = ex.subcubes(stats.n)
    cost = stats.cost
    for i in range(stats.n):  # one vectorised comparison per variable
        has = sub.free[:, i]
        c0, c1 = sub.children[has, i, 0], sub.children[has, i, 1]
        drop = cost[:, has] - cost[:, c0] - cost[:, c1]
        tr.deviation(name, float(np.abs(drop - stats.by_variable[i][:, has]).max()))


def product_suprema(measures: Sequence[ProductDistribution], n: int = 4,
                    tracker: Tracker | None = None) -> Tracker:
    """MGBH26 Lemmas C.1, C.2, 4.1-4.5 and BDM20 Lemmas 5/6 over every function and every measure.

    Influences are re-randomised (MGBH26), Delta is the least mu-average depth of a tree computing f,
    D the least depth, and for Lemma 4.5 the product D Delta is minimised over trees (least Delta among
    trees of depth <= d, times d). Lemmas 4.4/4.5 are evaluated on Algorithm 1's run to zero error
    under each measure, eps just under the error. BDM20's covariance lemmas are evaluated on every
    subcube w and free coordinate i with the population in place of the sample (zero sampling error).
    """
    n = check_int("n", n, 1, ex.MAX_ALL_FUNCTIONS_VARIABLES)
    tr = tracker or Tracker()
    tables = ex.all_tables(n)
    opt = ex.optimal_trees(tables)
    D = opt.root_depth.astype(np.float64)
    sub = ex.subcubes(n)
    root = sub.root
    for dist in measures:  # loop over measures; each evaluates every function at once
        p = tuple(float(v) for v in dist.p)
        stats = ex.subcube_statistics(tables, dist, "rerandomised")
        caps = ex.minimum_average_depth_by_cap(tables, dist)
        avg = caps[-1]
        with np.errstate(invalid="ignore"):
            d_delta = np.where(np.isinf(caps), np.inf, np.arange(n + 1)[:, None] * caps).min(axis=0)
        var, err = stats.variance[:, root], stats.error[:, root]
        inf = stats.influences[:, root]
        max_inf, total = inf.max(axis=1), inf.sum(axis=1)
        live = opt.root_size >= 2  # non-constant (a float variance of a constant can be 1e-16, not 0)
        # a minimum-size tree is complete exactly when s = 2^D (a tree of depth D has <= 2^D leaves)
        complete = live & (opt.root_size.astype(np.int64) == 2 ** opt.root_depth.astype(np.int64))
        with np.errstate(divide="ignore", invalid="ignore"):
            tr.offer("MGBH26", "Lemma E.1", "least Delta", "Delta_opt = D_opt = log2 s",
                     np.where(complete, np.log2(opt.root_size) / avg, np.nan), n, p,
                     note="every f whose minimum-size tree is complete; Delta least over all trees")
        with np.errstate(divide="ignore", invalid="ignore"):
            tr.offer("MGBH26", "Lemma C.1", "as printed", "max_i Inf_i >= Var / Delta",
                     elementwise(lambda v, a: bounds.mgbh26_lemma_c1_max_influence_lower(v, a, paper_form=True),
                                 np.clip(var, 0, 1), avg, where=live) / max_inf, n, p)
            tr.offer("MGBH26", "Lemma C.1", "corrected (factor 2)", "max_i Inf_i >= Var / (2 Delta)",
                     elementwise(bounds.mgbh26_lemma_c1_max_influence_lower, np.clip(var, 0, 1), avg,
                                 where=live) / max_inf, n, p)
            tr.offer("MGBH26", "Lemma C.2", "first inequality", "Inf_i <= 2 error(f, ±1)",
                     np.where(live, max_inf / (2 * err), np.nan), n, p)
            tr.offer("MGBH26", "Lemma C.2", "second inequality", "2 error(f, ±1) <= Var",
                     np.where(live, 2 * err / var, np.nan), n, p)
            tr.offer("MGBH26", "Lemma 4.1", "as printed", "error(T°, f) <= cost(T°)",
                     np.where(total > 0, err / total, np.nan), n, p)
            tr.offer("MGBH26", "Lemma 4.2", "depth form", "Inf <= D Var",
                     np.where(live, total / (D * var), np.nan), n, p)
            tr.offer("MGBH26", "Lemma 4.2", "average-depth form", "Inf <= Delta",
                     np.where(live, total / avg, np.nan), n, p)
        _cost_drop_identity(stats, tr, "MGBH26 Lemma 4.3")
        score, feature = ex.build_top_down_scores(stats)
        runs = ex.best_first_runs(score, feature, n, totals={"error": stats.error, "cost": stats.cost})
        j = runs.leaves[None, :].astype(np.float64)
        e_t, c_t, sc = runs.totals["error"], runs.totals["cost"], runs.score
        ok = np.isfinite(sc) & (e_t > 1e-15)
        with np.errstate(divide="ignore", invalid="ignore"):
            # the bounds are linear in eps and in 1/Delta: the paper's formula at eps = 1/2 and
            # Delta = 1, scaled to eps = the error (its supremum) and to each function's Delta
            per_step = 2 * e_t * bounds.mgbh26_lemma44_score_lower(0.5, j, 1.0, paper_form=True)
            per_step_fixed = 2 * e_t * bounds.mgbh26_lemma44_score_lower(0.5, j, 1.0)
            forms44 = (("as printed", "score >= 2 eps / (j Delta) while error > eps", per_step / avg[:, None]),
                       ("Delta-form (factor 2 fixed)", "score >= eps / (j Delta) while error > eps",
                        per_step_fixed / avg[:, None]),
                       ("D-form (provable)", "score >= eps / (j D) while error > eps", per_step_fixed / D[:, None]))
            for form, statement, bound in forms44:
                tr.offer("MGBH26", "Lemma 4.4", form, statement, np.where(ok, bound / sc, np.nan), n, p,
                         step_axis=True)
            forms45 = (("as printed", "score >= cost / (j D Delta)",
                        bounds.mgbh26_lemma45_score_lower(c_t, j, 1.0, 1.0, paper_form=True) / d_delta[:, None]),
                       ("corrected (factor 2)", "score >= cost / (2 j D Delta)",
                        bounds.mgbh26_lemma45_score_lower(c_t, j, 1.0, 1.0) / d_delta[:, None]),
                       ("D-form (provable)", "score >= cost / (2 j D^2)",
                        bounds.mgbh26_lemma45_score_lower(c_t, j, 1.0, 1.0) / D[:, None] ** 2))
            for form, statement, bound in forms45:
                tr.offer("MGBH26", "Lemma 4.5", form, statement, np.where(ok, bound / sc, np.nan), n, p,
                         step_axis=True)
        _bdm_gain_lemmas(stats, tr, p)
    return tr


def _bdm_gain_lemmas(stats: ex.SubcubeStatistics, tr: Tracker, p: tuple[float, ...]) -> None:
    """BDM20 Lemmas 5 and 6 with the population D_w in place of S_w: every f, subcube w, free i."""
    sub = ex.subcubes(stats.n)
    q = stats.mean
    worst: dict[tuple[str, str], list[np.ndarray]] = {}
    for i in range(stats.n):  # one vectorised pass per coordinate
        has = sub.free[:, i]
        pi = stats.dist.p[i]
        q1, q0, qw = q[:, sub.children[has, i, 1]], q[:, sub.children[has, i, 0]], q[:, has]
        cov = pi * (1 - pi) * (q1 - q0)  # I(D_w, i) = E[y x_i] - E[y] E[x_i]
        for name in ("gini", "entropy"):
            G = get_impurity(name)
            gain = G(qw) - pi * G(q1) - (1 - pi) * G(q0)
            nonzero = (np.abs(cov) > 1e-15) & (gain > GAIN_FLOOR)
            beta = strong_concavity(name)
            with np.errstate(divide="ignore", invalid="ignore"):
                printed6 = np.where(nonzero, bounds.bdm20_lemma6_gain_lower(beta, np.abs(cov)) / gain, np.nan)
                proof6 = np.where(nonzero, beta / 2 * cov**2 / (pi * (1 - pi)) / gain, np.nan)
                worst.setdefault(("Lemma 6", f"{name}, printed (beta eps^2/8, eps = |I|)"), []).append(
                    np.nanmax(np.where(np.isnan(printed6), -np.inf, printed6), axis=1))
                worst.setdefault(("Lemma 6", f"{name}, proof's step (beta I^2 / (2 p(1-p)))"), []).append(
                    np.nanmax(np.where(np.isnan(proof6), -np.inf, proof6), axis=1))
                if name == "gini":
                    gamma = lipschitz_constant(name)
                    r5 = np.where(nonzero, gain / bounds.bdm20_lemma5_gain_upper(gamma, np.abs(cov)), np.nan)
                    worst.setdefault(("Lemma 5", "gini, the proof's bound (Gain <= 2 gamma |I|)"), []).append(
                        np.nanmax(np.where(np.isnan(r5), -np.inf, r5), axis=1))
    statements = {"Lemma 5": "Gain(D_w, i) <= 2 gamma |I(D_w, i)|", "Lemma 6": "Gain(D_w, i) >= beta I^2 / 8"}
    for (result, form), parts in worst.items():
        ratio = np.max(np.stack(parts, axis=1), axis=1)
        tr.offer("BDM20", result, form, statements[result], np.where(np.isfinite(ratio), ratio, np.nan),
                 stats.n, p, note="every subcube w and free coordinate i")


def parity_suprema(alpha_c: Sequence[tuple[float, float]], n: int = 4,
                   tracker: Tracker | None = None) -> Tracker:
    """BDM20 Lemma 9 over every parity chi_J (J within n variables), restriction w and free j in J.

    For each (alpha, c) the measures put every p_j in {alpha(1 + 1e-9), 1/2 - c, 1/2 + c,
    1 - alpha(1 + 1e-9)} (the corners of the allowed set; |p_j - 1/2| >= c and p_j in (alpha, 1 - alpha)),
    all 4^n combinations; k = |J|, the strongest form of the bound.
    """
    n = check_int("n", n, 1, ex.MAX_ALL_FUNCTIONS_VARIABLES)
    tr = tracker or Tracker()
    points = np.arange(2**n)
    subsets = np.arange(1, 2**n)
    parities = np.array([np.bitwise_count(points & J) & 1 for J in subsets], dtype=np.uint8)
    index = ex.pack(parities)
    sub = ex.subcubes(n)
    for alpha, c in alpha_c:
        if not (0 < alpha < 0.5 and 0 < c < 0.5 - alpha):
            raise ValueError(f"alpha_c must hold pairs with 0 < alpha < 1/2 and 0 < c < 1/2 - alpha, got {(alpha, c)}")
        corners = np.array([alpha * (1 + 1e-9), 0.5 - c, 0.5 + c, 1 - alpha * (1 + 1e-9)])
        grid = np.stack(np.meshgrid(*([corners] * n), indexing="ij"), axis=-1).reshape(-1, n)
        best, cases = None, 0
        for p in grid:  # loop over the 4^n corner measures; every parity at once
            dist = ProductDistribution(p)
            stats = ex.subcube_statistics(parities, dist)
            q = stats.mean
            for i in range(n):
                has = sub.free[:, i] & True
                in_j = ((subsets >> i) & 1).astype(bool)
                cov = np.abs(p[i] * (1 - p[i]) * (q[:, sub.children[has, i, 1]] - q[:, sub.children[has, i, 0]]))
                k = np.bitwise_count(subsets).astype(np.float64)
                bound = np.array([bounds.bdm20_lemma9_covariance_lower(alpha, c, int(kk)) for kk in k])
                # w ranges over restrictions of the variables in J only (those outside are irrelevant)
                with np.errstate(divide="ignore"):
                    ratio = np.where(in_j[:, None], bound[:, None] / cov, np.nan)
                cases += int(np.isfinite(ratio).sum())
                value, where = _sup(ratio)
                if best is None or value > best[0]:
                    best = (value, int(index[where[0]]), tuple(float(v) for v in p))
        tr.offer("BDM20", "Lemma 9", f"alpha = {alpha:g}, c = {c:g}", "|I(D_w, j)| > alpha^2 (2c)^(k-1)",
                 np.array([best[0]]), n, best[2], note="every parity, restriction w and free j in J")
        tr.best[("Lemma 9", f"alpha = {alpha:g}, c = {c:g}")].function = best[1]
        tr.best[("Lemma 9", f"alpha = {alpha:g}, c = {c:g}")].cases = cases
    return tr


def impurity_suprema(grid_points: int = 2001, tracker: Tracker | None = None) -> Tracker:
    """BGLT20 Definitions 3 and 4: the tabulated (C, alpha) and kappa of each impurity, on a grid of (a, b)."""
    tr = tracker or Tracker()
    grid_points = check_int("grid_points", grid_points, 3, 20001)
    x = np.linspace(0.0, 1.0, grid_points)
    a, b = np.meshgrid(x, x, indexing="ij")
    off = a != b
    for name in ("gini", "entropy", "kearns_mansour"):
        G = get_impurity(name)
        C, alpha = holder_constants(name)
        with np.errstate(divide="ignore", invalid="ignore"):
            holder = np.where(off, np.abs(G(a) - G(b)) / (C * np.abs(a - b) ** alpha), np.nan)
            gap = G((a + b) / 2) - (G(a) + G(b)) / 2
            concave = np.where(off, kappa(name) / 2 * (b - a) ** 2 / gap, np.nan)
        v, where = _sup(holder)
        tr.best[("Definition 3", name)] = Supremum("BGLT20", "Definition 3", name,
                                                   f"|G(a) - G(b)| <= {C:.4g} |a - b|^{alpha:g}", v, 0, 1,
                                                   (float(a[where]), float(b[where])), None, int(off.sum()),
                                                   note="witness: (a, b)")
        v, where = _sup(concave)
        tr.best[("Definition 4", name)] = Supremum("BGLT20", "Definition 4", name,
                                                   f"(G(a)+G(b))/2 <= G((a+b)/2) - ({kappa(name):.4g}/2)(b-a)^2",
                                                   v, 0, 1, (float(a[where]), float(b[where])), None,
                                                   int(off.sum()), note="witness: (a, b)")
    return tr


def stochastic_suprema(n: int = 2, depth: int = 3, coins: Sequence[float] = (0.1, 0.25, 0.5, 0.75, 0.9),
                       copies: Sequence[int] = (1, 2, 3, 4, 9, 16, 25, 100), h_grid: int = 21,
                       tracker: Tracker | None = None) -> Tracker:
    """BLT21 Facts 1.1, 1.2 and Lemma 2.1 over every mean function mu_T of a stochastic tree.

    The trees: depth <= ``depth`` on n variables, coins of probability in ``coins``
    (:func:`dtcore.exhaustive.stochastic_mean_tables`). Fact 1.1 against every deterministic h;
    Fact 1.2 against every constant h in {0, 1/(h_grid-1), ..., 1} (both sides are averages over x of
    a term in (mu(x), h(x)), so the pointwise supremum over the values of mu and h bounds every
    h-table on that grid; it is recorded as ``deviations`` if above the table supremum); Lemma 2.1's
    proof, E_r E_x |mean of c copies - mu_T| <= 1/(2 sqrt c), for each c in ``copies``, exactly
    (the mean of c copies at x is Binomial(c, mu_T(x)) / c).
    """
    n = check_int("n", n, 1, 3)
    tr = tracker or Tracker()
    mu = ex.stochastic_mean_tables(n, depth, tuple(coins))
    coin_text = ", ".join(f"{q:g}" for q in coins)
    where = f"every mu_T of depth <= {depth} on n = {n}, coins in {{{coin_text}}}"
    opt = np.abs(mu - stochastic.bayes_optimal(mu)).mean(axis=1)  # opt_T = error of round(mu_T)

    def describe(k: int) -> str:
        return "mu_T = (" + ", ".join(f"{v:.4g}" for v in mu[k]) + ")"

    hs = ex.all_tables(n).astype(np.float64) if n <= 4 else None
    error = mu @ (1.0 - hs).T / 2**n + (1.0 - mu) @ hs.T / 2**n  # (M, 2^(2^n)): error_T(h)
    with np.errstate(divide="ignore", invalid="ignore"):
        r11 = np.where(error > 0, opt[:, None] / error, np.nan)
    value, (k, h) = _sup(r11)
    tr.best[("Fact 1.1", "every deterministic h")] = Supremum(
        "BLT21", "Fact 1.1", "every deterministic h", "error_T(h) >= opt_T", value, 0, n, None, None,
        int(np.isfinite(r11).sum()), note=where, witness=f"{describe(k)}, h = {hs[h].astype(int).tolist()}")
    grid = np.linspace(0.0, 1.0, h_grid)
    rounded = (grid >= 0.5).astype(np.float64)
    err_h = (mu[:, :, None] * (1.0 - rounded) + (1.0 - mu[:, :, None]) * rounded).mean(axis=1)  # (M, H)
    bound_h = opt[:, None] + 2.0 * np.abs(mu[:, :, None] - grid).mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r12 = np.where(bound_h > 0, err_h / bound_h, np.nan)
    value, (k, h) = _sup(r12)
    values = np.unique(mu)
    v, g = values[:, None], grid[None, :]
    point_err = v * (1.0 - (g >= 0.5)) + (1.0 - v) * (g >= 0.5)
    point_bound = np.minimum(v, 1.0 - v) + 2.0 * np.abs(v - g)
    with np.errstate(divide="ignore", invalid="ignore"):
        pointwise = float(np.nanmax(np.where(point_bound > 0, point_err / point_bound, np.nan)))
    # the worse output at the witness mu_T: h = mu_T rounded the wrong way, 1 - round(h), against the bound for h
    inverted = 1.0 - stochastic.bayes_optimal(mu[k]).astype(np.float64)
    inverted_error = float((mu[k] * (1.0 - inverted) + (1.0 - mu[k]) * inverted).mean())
    tr.best[("Fact 1.2", "every h on the grid")] = Supremum(
        "BLT21", "Fact 1.2", "every h on the grid", "Pr[round(h) != T] <= opt_T + 2 E|mu_T - h|",
        max(value, pointwise), 0, n, None, None, int(np.isfinite(r12).sum()),
        note=where + f", h(x) in {h_grid} grid values (constant h: {value:.6g}; pointwise over every h-table: "
                     f"{pointwise:.6g})", witness=f"{describe(k)}, h = {grid[h]:g}",
        worse="1 − round(h) in place of round(h), with h = μ_T at the witness μ_T",
        worse_ratio=_ratio(inverted_error, opt[k] + 2.0 * float(np.abs(mu[k] - mu[k]).mean())))
    best = None
    for c in copies:  # a handful of copy counts; every mean function at once
        deviation = stochastic.copies_mean_deviation(values, int(c))
        measured = deviation[np.searchsorted(values, mu)].mean(axis=1)
        ratio = measured / bounds.blt21_lemma21_expected_l1(int(c))
        value, (k,) = _sup(ratio)
        if best is None or value > best[0]:
            best = (value, k, int(c))
    # the worse output at the witness mu_T: one copy where the bound is for four (a sample four times too small)
    one_copy = float(stochastic.copies_mean_deviation(mu[best[1]], 1).mean())
    tr.best[("Lemma 2.1", "the proof's expectation")] = Supremum(
        "BLT21", "Lemma 2.1", "the proof's expectation", "E_r E_x |mean of c copies - mu_T| <= 1 / (2 sqrt c)",
        best[0], 0, n, None, None, int(mu.shape[0] * len(copies)),
        note=where + ", c in {" + ", ".join(str(c) for c in copies) + "}",
        witness=f"{describe(best[1])}, c = {best[2]}",
        worse="the mean of 1 copy against the bound for c = 4 copies, at the witness μ_T",
        worse_ratio=one_copy / bounds.blt21_lemma21_expected_l1(4))
    return tr


def smoothed_suprema(alpha_c: Sequence[tuple[float, float]], *, rng: np.random.Generator, draws: int = 256,
                     deltas: Sequence[float] = (0.9, 0.5, 0.1), max_k: int = 4,
                     tracker: Tracker | None = None) -> Tracker:
    """BDM20 Lemma 11 over every junta on k <= ``max_k`` relevant variables, centres and (alpha, c).

    For a restriction w with k' free coordinates, I(D_w, i) depends only on f_w, a function on those k'
    coordinates; the threshold 2 alpha^2 delta^2 (c/2)^(2k) is largest for the fewest junta variables
    k = k', so every non-constant function on k' <= ``max_k`` variables at the root is the worst case
    of every junta and w. Centres p_hat: all 1/2, all at the lower edge alpha + c, and half of each
    (the class is closed under permuting and negating variables, which maps p_hat_i to 1 - p_hat_i).
    The failure probability min_i Pr[|I(D_w, i)| <= threshold] comes from
    :func:`dtcore.smoothed.smoothed_covariance_failure` (exact in one coordinate, ``draws`` Monte Carlo
    draws of the others); the ratio is (estimate + 3 standard errors) / delta, a one-sided upper bound.
    """
    tr = tracker or Tracker()
    rng = check_rng(rng)
    max_k = check_int("max_k", max_k, 1, ex.MAX_ALL_FUNCTIONS_VARIABLES)
    delta = np.asarray(deltas, dtype=np.float64)
    if delta.ndim != 1 or delta.size == 0 or not ((delta > 0) & (delta < 1)).all():
        raise ValueError(f"deltas must be values in (0, 1), got {deltas!r}")
    for alpha, c in alpha_c:
        if not (0 < alpha < 0.5 and 0 < c < 0.5 - alpha):
            raise ValueError(f"alpha_c must hold pairs with 0 < alpha < 1/2 and 0 < c < 1/2 - alpha, got {(alpha, c)}")
        edge = (alpha + c) * (1 + 1e-9)
        best, cases = None, 0
        for k in range(1, max_k + 1):  # junta sizes; every function on k variables at once
            tables = ex.all_tables(k)[1:-1]  # the two constants excluded: f_w is not constant
            thresholds = np.array([bounds.bdm20_lemma11_threshold(alpha, d, c, k) for d in delta])
            centres = {tuple(np.full(k, 0.5)), tuple(np.full(k, edge)),
                       tuple(np.where(np.arange(k) < k // 2, edge, 0.5))}
            for centre in sorted(centres):  # at most three centres
                estimate, error = smoothed.smoothed_covariance_failure(tables, np.array(centre), c, thresholds,
                                                                       rng=rng, draws=draws)
                upper = np.min(estimate + 3.0 * error, axis=2)  # the best coordinate i, (T, B)
                ratio = upper / delta[:, None]
                cases += ratio.size
                value, (ti, b) = _sup(ratio)
                if best is None or value > best[0]:
                    best = (value, k, b + 1, centre, float(delta[ti]), float(np.min(estimate[ti, b])))
        value, k, f, centre, d, point = best
        tr.best[("Lemma 11", f"alpha = {alpha:g}, c = {c:g}")] = Supremum(
            "BDM20", "Lemma 11", f"alpha = {alpha:g}, c = {c:g}",
            "Pr_Delta[|I(D_w, i)| <= 2 alpha^2 delta^2 (c/2)^(2k)] <= delta for some free i", value, f, k,
            tuple(float(v) for v in centre), None, cases,
            note=f"k = {k}, delta = {d:g}, estimate {point:.3g}; {draws} Monte Carlo draws, ratio (estimate + 3 se) / delta")
    return tr


# --- the power of each supremum: the same ratio at its witness for a named worse output -----------

#: BGLT20 Definition 4's impurities without their normalisation G(1/2) = 1: the textbook forms.
UNNORMALISED = {"gini": (0.5, "Gini as 2q(1 − q)"), "entropy": (math.log(2.0), "entropy in nats"),
                "kearns_mansour": (0.5, "Kearns–Mansour as √(q(1 − q))")}


def _witness_statistics(sup: Supremum) -> ex.SubcubeStatistics:
    """The subcube statistics of the witness function alone, under its measure, with the influence of its
    paper (re-randomised for MGBH26, flip otherwise), as the search computed them."""
    table = ex.all_tables(sup.n)[[sup.function]]
    dist = None if sup.measure is None else ProductDistribution(np.asarray(sup.measure, dtype=np.float64))
    return ex.subcube_statistics(table, dist, "rerandomised" if sup.paper == "MGBH26" else "flip")


def _ratio(measured: float, bound: float) -> float:
    """measured / bound, +inf when the bound is 0 and the measured side positive."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(measured) / np.float64(bound))


def _variable_or_one_split(sup: Supremum) -> tuple[str, float]:
    """OSSS and MGBH26 C.1 (max_i Inf_i >= Var / depth term): the least influential variable in place of the
    most influential one; where every variable is equally influential (a symmetric witness), a one-split
    tree (s = 2, D = Delta = 1) in place of the least tree computing f."""
    stats = _witness_statistics(sup)
    root = ex.subcubes(sup.n).root
    inf = stats.influences[0, root]
    j = int(np.argmin(inf))
    if inf[j] < inf.max():
        return (f"the least influential variable x{j} (Inf = {inf[j]:.4g}) in place of the most influential, at the witness",
                _ratio(sup.ratio * inf.max(), inf[j]))
    var = float(np.clip(stats.variance[0, root], 0.0, 1.0))
    if sup.result == "Lemma C.1":
        bound = bounds.mgbh26_lemma_c1_max_influence_lower(var, 1.0, paper_form=sup.form == "as printed")
    elif sup.form == "size form (BLT20)":
        bound = bounds.osss05_max_influence_lower(var, 2)
    else:
        bound = var / 1.0  # D = Delta = 1
    return ("a one-split tree (s = 2, D = Δ = 1) in place of the least tree computing f (every variable is "
            "equally influential at the witness)", _ratio(bound, inf.max()))


def _one_split_size(sup: Supremum) -> tuple[str, float]:
    """BLT20 Lemma 5.3 (Inf <= Var log2(4s/Var)): the size of a one-split tree, s = 2, in place of s(f)."""
    stats = _witness_statistics(sup)
    root = ex.subcubes(sup.n).root
    var = float(np.clip(stats.variance[0, root], 0.0, 1.0))
    total = float(stats.influences[0, root].sum())
    return ("a one-split tree (s = 2) in place of f's least tree, at the witness", _ratio(total, bounds.blt20_lemma53_total_influence_upper(var, 2)))


def _one_leaf_depth(sup: Supremum) -> tuple[str, float]:
    """MGBH26 Lemma 4.2 (Inf <= D Var, Inf <= Delta): the one-leaf tree's depth, D = Delta = 0."""
    stats = _witness_statistics(sup)
    root = ex.subcubes(sup.n).root
    total = float(stats.influences[0, root].sum())
    var = float(stats.variance[0, root])
    bound = 0.0 * var if sup.form == "depth form" else 0.0
    return "the one-leaf tree (D = Δ = 0) in place of a least tree computing f, at the witness", _ratio(total, bound)


def _inverted_tree(sup: Supremum) -> tuple[str, float]:
    """BLT20 Lemma 5.1(1), MGBH26 Lemma 4.1 (error(T°, f) <= cost(T°)): BuildTopDownDT's tree at zero error
    with every leaf label inverted (each leaf's error is its majority mass; its cost is 0)."""
    stats = _witness_statistics(sup)
    runs = ex.best_first_runs(*ex.build_top_down_scores(stats), sup.n)
    leaves = runs.frontier(0, int(runs.size[0]) - 1)
    ones, reach = stats.mass_one[0, leaves], stats.p_reach[leaves]
    error = float(np.maximum(ones, reach - ones).sum())
    cost = float(stats.cost[0, leaves].sum())
    return (f"BuildTopDownDT's tree at zero error with its leaf labels inverted (error {error:.4g}, cost {cost:.4g}), at the witness",
            _ratio(error, cost))


def _worst_split(sup: Supremum) -> tuple[str, float]:
    """The chosen-leaf lemmas (BLT20 5.2/5.4, MGBH26 4.4/4.5): at the witness's bare tree, the split of least
    score (over every leaf and free variable) in place of BuildTopDownDT's, the bound unchanged."""
    stats = _witness_statistics(sup)
    runs = ex.best_first_runs(*ex.build_top_down_scores(stats), sup.n)
    step = int(sup.step) - 1
    leaves = runs.frontier(0, step)
    sub = ex.subcubes(sup.n)
    free = sub.free[leaves]  # (L, n)
    scores = np.where(free, stats.by_variable[:, 0, leaves].T, np.inf)
    leaf, j = np.unravel_index(int(np.argmin(scores)), scores.shape)
    worst = float(scores[leaf, j])
    where = "at the root" if sup.step == 1 else f"in the {sup.step}-leaf bare tree"
    return (f"the worst split {where} (x{j}, score {worst:.4g}) in place of BuildTopDownDT's, at the witness",
            _ratio(sup.ratio * float(runs.score[0, step]), worst))


def _influence_fault(sup: Supremum) -> tuple[str, float]:
    """MGBH26 Lemma C.2 (Inf_i <= 2 error(f, ±1)): the influence with fault
    ch7-rerandomised-factor-uniform-only, weighted 1/2 (right at p = 1/2) instead of 2 p_i (1 - p_i)."""
    stats = ex.subcube_statistics(ex.all_tables(sup.n)[[sup.function]],
                                  ProductDistribution(np.asarray(sup.measure, dtype=np.float64)), "flip")
    root = ex.subcubes(sup.n).root
    faulty = 0.5 * stats.influences[0, root]
    return ("the influence weighted ½ instead of 2pᵢ(1 − pᵢ) (a fault right only at pᵢ = ½), at the witness",
            _ratio(float(faulty.max()), 2.0 * float(stats.error[0, root])))


def _holder_exponent(sup: Supremum) -> tuple[str, float]:
    """BGLT20 Definition 3 (|G(a) - G(b)| <= C |a - b|^alpha): the exponent alpha + 1/2 at the witness (a, b)."""
    a, b = sup.measure
    G = get_impurity(sup.form)
    C, alpha = holder_constants(sup.form)
    return (f"the Hölder exponent {alpha + 0.5:g} in place of {alpha:g}, at (a, b) = ({a:g}, {b:g})",
            _ratio(abs(float(G(a)) - float(G(b))), C * abs(a - b) ** (alpha + 0.5)))


def _unnormalised(sup: Supremum) -> tuple[str, float]:
    """BGLT20 Definition 4 (kappa-strong concavity): the impurity without its normalisation G(1/2) = 1."""
    a, b = sup.measure
    scale, name = UNNORMALISED[sup.form]
    G = get_impurity(sup.form)
    gap = scale * (float(G((a + b) / 2)) - (float(G(a)) + float(G(b))) / 2)
    return f"{name} in place of the normalised impurity, at (a, b) = ({a:g}, {b:g})", _ratio(kappa(sup.form) / 2 * (b - a) ** 2, gap)


def _wrong_impurity_gain(sup: Supremum) -> tuple[str, float]:
    """BDM20 Lemma 6 (Gain >= a multiple of I^2): at the witness's worst (w, i), the Kearns–Mansour gain in
    place of the form's impurity's gain, the bound (with that impurity's beta) unchanged."""
    name = sup.form.split(",")[0]
    stats = _witness_statistics(sup)
    sub = ex.subcubes(sup.n)
    q, p = stats.mean[0], stats.dist.p
    best = (-np.inf, 0.0)
    beta = strong_concavity(name)
    G, K = get_impurity(name), get_impurity("kearns_mansour")
    for i in range(sup.n):  # one vectorised pass per coordinate
        has = sub.free[:, i]
        q1, q0, qw = q[sub.children[has, i, 1]], q[sub.children[has, i, 0]], q[has]
        cov = p[i] * (1 - p[i]) * (q1 - q0)
        gain = G(qw) - p[i] * G(q1) - (1 - p[i]) * G(q0)
        km = K(qw) - p[i] * K(q1) - (1 - p[i]) * K(q0)
        bound = (bounds.bdm20_lemma6_gain_lower(beta, np.abs(cov)) if "printed" in sup.form
                 else beta / 2 * cov**2 / (p[i] * (1 - p[i])))
        keep = (np.abs(cov) > 1e-15) & (gain > GAIN_FLOOR)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(keep, bound / gain, -np.inf)
        k = int(np.argmax(ratio))
        if ratio[k] > best[0]:
            best = (float(ratio[k]), _ratio(float(bound[k]), float(km[k])))
    return f"the Kearns–Mansour gain in place of the {name} gain, at the witness's worst (w, i)", best[1]


WORSE_OUTPUTS: dict[str, Callable[[Supremum], tuple[str, float]]] = {
    "OSSS inequality": _variable_or_one_split, "Lemma C.1": _variable_or_one_split,
    "Lemma 5.3": _one_split_size, "Lemma 4.2": _one_leaf_depth,
    "Lemma 5.1(1)": _inverted_tree, "Lemma 4.1": _inverted_tree, "Lemma C.2": _influence_fault,
    "Lemma 5.2": _worst_split, "Lemma 5.4": _worst_split, "Lemma 4.4": _worst_split, "Lemma 4.5": _worst_split,
    "Definition 3": _holder_exponent, "Definition 4": _unnormalised, "Lemma 6": _wrong_impurity_gain,
}
"""The worse output of each result whose supremum is a theorem check: see :func:`worse_outputs`."""


def worse_outputs(tr: Tracker) -> Tracker:
    """Fill ``worse``/``worse_ratio`` of each supremum: the same ratio, at its witness only, for a named worse
    output the statement's setting admits (issue 35: a counted row must show that it can fail).

    Lower bounds on the most influential variable (OSSS, MGBH26 C.1): the least influential variable, or a
    one-split tree where every variable is equally influential; BLT20 Lemma 5.3: a one-split tree's size;
    MGBH26 Lemma 4.2: the one-leaf tree; error <= cost (BLT20 5.1(1), MGBH26 4.1): the zero-error tree with
    its labels inverted; the chosen-leaf lemmas: the worst split of the same bare tree; MGBH26 C.2's first
    inequality: the influence with a named fault; BGLT20 Definitions 3 and 4: a wrong exponent, the
    unnormalised impurity; BDM20 Lemma 6: the Kearns–Mansour gain. A ratio above 1 means the row would fail
    for that output. Forms without an entry (and MGBH26 C.2's second inequality) are left empty.
    """
    for (result, form), sup in tr.best.items():
        rule = WORSE_OUTPUTS.get(result)
        if rule is None or (result == "Lemma C.2" and form != "first inequality") or sup.worse:
            continue
        sup.worse, sup.worse_ratio = rule(sup)
    return tr


# --- exact confirmation of a violation -----------------------------------------------------------

def _exact_weights(n: int, p: Sequence[Fraction]) -> np.ndarray:
    x = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(bool)
    w = np.ones(2**n, dtype=object)
    for i in range(n):  # one object-array product per variable
        w = w * np.where(x[:, i], p[i], 1 - p[i])
    return w


def exact_subcube(table: np.ndarray, p: Sequence[Fraction], restriction: np.ndarray) -> tuple[Fraction, Fraction, list[Fraction]]:
    """(Pr[rho], Pr[rho, f = 1], [Pr[rho] Inf_i(f_rho) re-randomised]) in rational arithmetic."""
    table = np.asarray(table).astype(int)
    n = len(p)
    x = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
    inside = ((restriction < 0) | (x == restriction)).all(axis=1)
    w = _exact_weights(n, p)
    p_reach = sum(w[inside], Fraction(0))
    ones = sum(w[inside & (table == 1)], Fraction(0))
    infs = []
    for i in range(n):  # one exact sum per variable
        if restriction[i] >= 0:
            infs.append(Fraction(0))
            continue
        sens = table != table[np.arange(2**n) ^ (1 << i)]
        infs.append(2 * p[i] * (1 - p[i]) * sum(w[inside & sens], Fraction(0)))
    return p_reach, ones, infs


def exact_minimum_average_depth(table: np.ndarray, p: Sequence[Fraction]) -> Fraction:
    """The least mu-average depth of a tree computing f, by the same recursion in rational arithmetic."""
    n = len(p)
    sub = ex.subcubes(n)
    const = ex.constant_on_subcubes(ex.pack(np.asarray(table, dtype=np.uint8)[None, :]), n)[0]
    value: dict[int, Fraction] = {}
    for level in sub.levels:  # loop over subcubes (3^n of them) of one function
        for s in level:
            if const[s]:
                value[int(s)] = Fraction(0)
                continue
            value[int(s)] = min(1 + (1 - p[i]) * value[int(sub.children[s, i, 0])] + p[i] * value[int(sub.children[s, i, 1])]
                                for i in np.flatnonzero(sub.free[s]))
    return value[sub.root]


def exact_lemma_ratio(sup: Supremum) -> Fraction:
    """Recompute a MGBH26 supremum (Lemma C.1, 4.4 or E.1, any form) in rational arithmetic.

    The measure's p_i are read as the decimals they were written as. For Lemma 4.4 the bare tree is
    the witness run's frontier at ``sup.step`` leaves; the ratio is (bound at eps = error) / max score.
    """
    n = sup.n
    table = ex.all_tables(n)[sup.function]
    p = [Fraction(repr(v)) for v in (sup.measure or (0.5,) * n)]
    avg = exact_minimum_average_depth(table, p)
    sub = ex.subcubes(n)
    if sup.result == "Lemma C.1":
        reach, ones, infs = exact_subcube(table, p, sub.restrictions[sub.root])
        mu = ones / reach
        var = 4 * mu * (1 - mu)
        factor = 1 if sup.form == "as printed" else 2
        return var / (factor * avg) / max(infs)
    if sup.result == "Lemma E.1":
        depth = int(ex.optimal_trees(table[None, :]).root_depth[0])  # log2 s: s = 2^D on this class
        return Fraction(depth) / avg
    if sup.result == "Lemma 4.4":
        dist = ProductDistribution([float(v) for v in p])
        stats = ex.subcube_statistics(table[None, :], dist, "rerandomised")
        runs = ex.best_first_runs(*ex.build_top_down_scores(stats), n)
        leaves = runs.frontier(0, sup.step - 1)
        error, best = Fraction(0), Fraction(0)
        for s in leaves:  # one exact leaf at a time (at most 2^n leaves)
            reach, ones, infs = exact_subcube(table, p, sub.restrictions[s])
            error += min(ones, reach - ones)
            best = max(best, max(infs))
        depth = Fraction(int(ex.optimal_trees(table[None, :]).root_depth[0]))
        scale = {"as printed": 2 / avg, "Delta-form (factor 2 fixed)": 1 / avg}.get(sup.form, 1 / depth)
        return scale * error / (len(leaves) * best)
    raise ValueError(f"sup.result must be 'Lemma C.1', 'Lemma 4.4' or 'Lemma E.1' for an exact check, got {sup.result!r}")


# --- the heuristics against the optimum, and a local search past n = 4 --------------------------

HEURISTICS = ("BuildTopDownDT", "TopDown_G gini", "TopDown_G entropy", "ID3 gini", "ID3 entropy")


def heuristic_sizes(tables: np.ndarray, heuristic: str, eps: float = 0.0) -> np.ndarray:
    """Leaves of a heuristic's tree on each function of a batch (uniform measure, whole truth table).

    BuildTopDownDT stops at error <= eps (eps = 0: exact learning); TopDown_G (empirical weights, the
    cube as its sample) and ID3 grow until every leaf is pure.
    """
    if heuristic == "BuildTopDownDT":
        n = ex.table_batch_variables(tables)
        stats = ex.subcube_statistics(tables)
        runs = ex.best_first_runs(*ex.build_top_down_scores(stats), n, totals={"error": stats.error})
        return runs.size_at("error", eps)
    if heuristic.startswith("TopDown_G "):
        n = ex.table_batch_variables(tables)
        return ex.best_first_runs(*ex.top_down_scores(tables, heuristic.split()[1]), n).size
    if heuristic.startswith("ID3 "):
        return ex.id3_sizes(tables, heuristic.split()[1])[0]
    raise ValueError(f"heuristic must be one of {HEURISTICS}, got {heuristic!r}")


@dataclass
class SearchResult:
    """The worst function a local search found: its table, ratio heuristic size / optimal size."""

    heuristic: str
    n: int
    ratio: float
    table: np.ndarray
    size: int
    optimum: int
    evaluations: int
    history: list[float] = field(default_factory=list)


def local_search(n: int, heuristic: str, starts: np.ndarray, *, rng: np.random.Generator,
                 budget: int, restarts: int = 4) -> SearchResult:
    """Hill climbing over truth tables on n <= 6 variables, maximising heuristic size / optimal size.

    From each start (``starts``: tables on n variables, e.g. the n = 4 extremal functions lifted, and
    ``restarts`` random tables), evaluate all 2^n one-bit changes of the current table at once and move
    to the best while it does not lower the ratio (sideways moves at most 2^n times in a row); then climb
    again from fresh random tables until ``budget`` functions have been evaluated in all.
    """
    n = check_int("n", n, 2, ex.MAX_BATCH_VARIABLES)
    rng = check_rng(rng)
    budget = check_int("budget", budget, 1)
    starts = np.asarray(starts, dtype=np.uint8).reshape(-1, 2**n)
    pool = np.concatenate([starts, rng.integers(0, 2, size=(restarts, 2**n), dtype=np.uint8)])
    flips = np.eye(2**n, dtype=np.uint8)

    def ratio(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        size = heuristic_sizes(tables, heuristic)
        opt = ex.optimal_trees(tables).root_size.astype(np.int64)
        return size / opt, size, opt

    best = SearchResult(heuristic, n, 0.0, pool[0], 1, 1, 0)
    used, k = 0, 0
    while used + 1 + 2**n <= budget:  # loop over climbs; each step evaluates 2^n neighbours at once
        # the given starts first, then fresh random tables until the budget is spent
        current = pool[k].copy() if k < len(pool) else rng.integers(0, 2, size=2**n, dtype=np.uint8)
        k += 1
        r, size, opt = ratio(current[None, :])
        used += 1
        value, sideways = float(r[0]), 0
        if value > best.ratio:
            best = SearchResult(heuristic, n, value, current.copy(), int(size[0]), int(opt[0]), used)
        while used + 2**n <= budget:
            neighbours = current[None, :] ^ flips
            r, size, opt = ratio(neighbours)
            used += 2**n
            j = int(np.argmax(r))
            if r[j] < value or (r[j] == value and sideways >= 2**n):
                break
            sideways = sideways + 1 if r[j] == value else 0
            current, value = neighbours[j], float(r[j])
            if value > best.ratio:
                best = SearchResult(heuristic, n, value, current.copy(), int(size[j]), int(opt[j]), used)
            best.history.append(value)
    best.evaluations = used
    return best


def lift(tables: np.ndarray, n: int, onto: str = "last") -> np.ndarray:
    """Tables on m variables as tables on n >= m variables that ignore the n - m others.

    ``onto="last"`` puts the function on x_{n-m}, ..., x_{n-1}: the heuristics break ties towards the
    lowest index, so the ignored variables are the ones a tie sends them to first (the harder lift);
    ``"first"`` puts it on x_0, ..., x_{m-1}.
    """
    tables = np.asarray(tables, dtype=np.uint8)
    m = ex.table_batch_variables(tables)
    n = check_int("n", n, m, ex.MAX_BATCH_VARIABLES)
    if onto not in ("first", "last"):
        raise ValueError(f"onto must be 'first' or 'last', got {onto!r}")
    points = np.arange(2**n)
    return tables[:, points >> (n - m) if onto == "last" else points & (2**m - 1)]


def first_violations(tr: Tracker, confirm: Callable[[Supremum], Fraction] = exact_lemma_ratio) -> list[Supremum]:
    """Confirm in exact arithmetic every supremum above 1 that :func:`exact_lemma_ratio` can recompute."""
    out = []
    for sup in tr.best.values():
        if sup.ratio > 1 + TIGHT_TOLERANCE and sup.result in ("Lemma C.1", "Lemma 4.4", "Lemma E.1"):
            sup.exact = confirm(sup)
            out.append(sup)
    return out


# --- Chapter 1: BLT20 Theorem 3's two phases over every function on n <= 4 ------------------------

def _first_leaves(values: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Leaves of the first frontier whose ``values[b, t]`` is <= ``thresholds[b, c]``, ``(B, C)`` (T + 1 if none)."""
    below = values[:, None, :] <= thresholds[:, :, None]
    return np.where(below.any(axis=2), np.argmax(below, axis=2) + 1, values.shape[1] + 1)


def _distinct_rows(*args: np.ndarray, where: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, ...]]:
    """The distinct argument tuples among the cases in ``where``: ``(distinct, inverse, keep, shape)``.

    As in :func:`elementwise`, but each column is coded by a 1-D ``np.unique`` and the codes are
    combined into one integer key (mixed radix), which sorts far faster than ``np.unique(axis=0)``.
    """
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    cols = [np.broadcast_to(np.asarray(a, dtype=np.float64), shape).reshape(-1) for a in args]
    keep = np.ones(cols[0].size, dtype=bool) if where is None else np.broadcast_to(where, shape).reshape(-1)
    key = np.zeros(int(keep.sum()), dtype=np.int64)
    values = []
    for col in cols:  # one 1-D unique per argument
        distinct, code = np.unique(col[keep], return_inverse=True)
        if distinct.size and key.size and (int(key.max()) + 1) * distinct.size >= 2**62:
            raise ValueError("too many distinct argument tuples for a combined key")
        key = key * distinct.size + code.reshape(-1)
        values.append(distinct)
    keys, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    rows = np.stack([col[keep][first] for col in cols], axis=1) if keys.size else np.zeros((0, len(cols)))
    return rows, inverse.reshape(-1), keep, shape


def _elementwise_coded(fn: Callable[..., float], *args: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
    """:func:`elementwise` (one call of ``fn`` per distinct argument tuple, NaN outside ``where``), faster."""
    rows, inverse, keep, shape = _distinct_rows(*args, where=where)
    out = np.full(keep.size, np.nan)
    if rows.shape[0]:
        out[keep] = np.array([fn(*row) for row in rows])[inverse]
    return out.reshape(shape)


def _blt54_eps_coded(cost: np.ndarray, s: np.ndarray) -> np.ndarray:
    """:func:`_blt54_eps` computed once per distinct (cost, s)."""
    rows, inverse, keep, shape = _distinct_rows(cost, s)
    return _blt54_eps(rows[:, 0], rows[:, 1])[inverse].reshape(shape)


def _distinct_profiles(profile: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first row of each distinct row of ``profile`` and how many rows share it: ``(first, weight)``.

    Rows are hashed to one integer each (a 1-D unique sorts far faster than ``np.unique(axis=0)``);
    a hash collision is detected by comparing every row with its representative, and then the exact
    row-wise unique is used instead.
    """
    weights = np.random.default_rng(0).integers(1, 2**62, size=profile.shape[1], dtype=np.int64)  # fixed hash
    codes = np.round(profile * 2**20).astype(np.int64)  # the statistics are dyadic: exact integers here
    keys = (codes * weights[None, :]).sum(axis=1)  # wraps modulo 2^64, as a hash may
    _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    if not np.array_equal(profile, profile[first[inverse.reshape(-1)]]):
        _, first, counts = np.unique(profile, axis=0, return_index=True, return_counts=True)
    return first, counts


def blt20_theorem3_phases(n: int = 4, *, variable: str = "most") -> dict[str, Supremum]:
    """BLT20 Theorem 3's proof, step by step, at its worst over every function on n variables and every eps.

    BuildTopDownDT runs to zero error on every function (lock-step, :func:`dtcore.exhaustive.best_first_runs`);
    s is the function's minimum tree size (s >= 2), A = log2(4s/eps), B = log2 s, and the run at eps is
    the prefix of that run that stops at the first frontier with error <= eps. Returned suprema (ratio
    in the book's convention: 1 = the bound, above 1 = violated), keyed by:

    * ``"phase 1 drop"``: bound / measured drop of the cost at every split with cost >= eps A (phase 1),
      the bound cost / (L A B) (Lemmas 5.1(2) and 5.4), eps the largest the phase allows;
    * ``"phase 2 drop"``: eps / (L B) over the measured drop at every split with error > eps and
      cost <= eps A (Lemmas 5.1(2) and 5.2), eps just under the error;
    * ``"phase 1 leaves"``: leaves at the end of phase 1 (first cost <= eps A, or the stop) over the
      proof's count ceil((C0/(eps A))^(A B)), over phases of at least two splits;
      ``"phase 1 leaves (one split)"`` the same over every non-empty phase (a one-split phase meets
      the count exactly whenever it is ceil of a number in (1, 2], i.e. 2);
    * ``"phase 2 harmonic"``: sum of 1/L over phase 2's splits but the last, over B (C_{L1}/eps - 1);
    * ``"initial cost"``: C0 = Inf(f) over log2 s;
    * ``"error over variance"``: error(f_rho, +-1) / Var(f_rho) over every subcube rho (Var > 0).

    The eps searched per function are the points just under each of its run's errors and of each
    eps where eps A equals one of its run's costs: between them both sides of each count are monotone
    in eps (the measured side constant, the bound falling), so the supremum over eps in (0, 1/2) is
    approached there. Witness notes give eps and the phase boundaries. ``variable="least"``: the same on
    the runs that split each selected leaf on its least influential free variable (a worse output).
    """
    n = check_int("n", n, 2, ex.MAX_ALL_FUNCTIONS_VARIABLES)
    tables = ex.all_tables(n)
    s = ex.optimal_trees(tables).root_size.astype(np.float64)
    stats = ex.subcube_statistics(tables)
    runs = ex.best_first_runs(*_greedy_splits(stats, variable), n, totals={"error": stats.error, "cost": stats.cost})
    # Every quantity below depends on a function only through s, its run's errors and costs and where
    # the run splits: search one representative of each such profile (a few hundred on n = 4) and count
    # its functions as cases.
    profile = np.concatenate([s[:, None], runs.totals["error"], runs.totals["cost"],
                              np.isfinite(runs.score).astype(np.float64)], axis=1)
    representative, weight = _distinct_profiles(profile)
    s = s[representative]
    err, cost = runs.totals["error"][representative], runs.totals["cost"][representative]  # before step t: min(t + 1, size) leaves
    scores = runs.score[representative]
    n_funcs, steps = err.shape
    live = s >= 2
    size = np.broadcast_to(np.maximum(s, 2)[:, None], err.shape)
    leaves = np.broadcast_to(runs.leaves[None, :].astype(np.float64), err.shape)
    drop = cost - np.concatenate([cost[:, 1:], np.zeros((n_funcs, 1))], axis=1)  # measured on the frontier totals
    split = np.isfinite(scores) & (err > 0) & live[:, None]
    out: dict[str, Supremum] = {}

    def keep(key: str, result: str, statement: str, ratio: np.ndarray, note: Callable[[int, int], str],
             step_axis: bool = False) -> None:
        value, where = _sup(ratio)
        b, c = (int(where[0]), int(where[1])) if ratio.ndim == 2 else (int(where[0]), -1)
        finite = np.isfinite(ratio).reshape(ratio.shape[0], -1).sum(axis=1)
        function = int(representative[b]) if ratio.shape[0] == representative.size else b
        cases = int((finite * weight).sum()) if ratio.shape[0] == representative.size else int(finite.sum())
        out[key] = Supremum("BLT20", result, key, statement, value, function, n, None,
                            c + 1 if step_axis else None, cases, note=note(b, c))

    half = 0.5 - 1e-12
    with np.errstate(divide="ignore", invalid="ignore"):
        eps1 = np.minimum(_blt54_eps_coded(cost, size), half)  # the largest eps with cost >= eps A
        phase1 = split & (eps1 > 0)
        bound1 = _elementwise_coded(bounds.blt20_lemma54_score_lower, cost, eps1, leaves, size, where=phase1)
        keep("phase 1 drop", "Theorem 3 (phase 1)", "cost drop >= cost / (L A B) while cost >= eps A",
             bound1 / drop, lambda b, t: f"eps = {eps1[b, t]:.4g}, split at L = {t + 1}", step_axis=True)
        eps2 = np.minimum(err, half)  # the bound's supremum: eps just under the error
        phase2 = split & (cost <= eps2 * np.log2(4 * size / eps2))
        bound2 = _elementwise_coded(bounds.blt20_lemma52_score_lower, eps2, leaves, size, where=phase2)
        keep("phase 2 drop", "Theorem 3 (phase 2)", "cost drop >= eps / (L B) while error > eps >= cost / A",
             bound2 / drop, lambda b, t: f"eps just under {eps2[b, t]:.4g}, split at L = {t + 1}", step_axis=True)

        # the eps to search: just under each error and each phase-1 boundary of the function's run
        shrink = 1.0 - 1e-9
        eps = np.concatenate([err, _blt54_eps_coded(cost, size)], axis=1) * shrink
        usable = live[:, None] & (eps > 0) & (eps < 0.5)
        eps = np.where(usable, eps, 0.25)  # a placeholder where unusable: masked out below
        s_c = np.broadcast_to(np.maximum(s, 2)[:, None], eps.shape)
        end1 = _first_leaves(cost, eps * np.log2(4 * s_c / eps))
        stop = _first_leaves(err, eps)
        phase1_end = np.minimum(end1, stop)
        c0 = np.broadcast_to(cost[:, :1], eps.shape)
        count1 = _elementwise_coded(bounds.blt20_theorem3_phase1_leaves, s_c, eps, c0, where=usable)
        ratio1 = np.where(usable, phase1_end / count1, np.nan)

        def eps_text(value: float) -> str:
            return "eps just under 0.5" if value > 0.5 - 1e-6 else f"eps = {value:.6g}"

        def note1(b: int, c: int) -> str:
            return (f"{eps_text(eps[b, c])}: phase 1 ends at {int(phase1_end[b, c])} leaves, "
                    f"the proof allows {count1[b, c]:.0f}")
        keep("phase 1 leaves (one split)", "Theorem 3 (phase 1)", "phase 1 ends within ceil((C0/(eps A))^(A B)) leaves",
             np.where(phase1_end >= 2, ratio1, np.nan), note1)
        keep("phase 1 leaves", "Theorem 3 (phase 1)",
             "phase 1 ends within ceil((C0/(eps A))^(A B)) leaves (phases of two or more splits)",
             np.where(phase1_end >= 3, ratio1, np.nan), note1)

        harmonic_prefix = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, steps + 2))])  # H_0, H_1, ...
        has_phase2 = usable & (stop - 2 >= end1)
        last = np.clip(stop - 2, 0, steps)
        first = np.clip(end1 - 1, 0, steps)
        harmonic = harmonic_prefix[last] - harmonic_prefix[first]  # sum of 1/L for L = L1 .. Lend - 2
        start_cost = np.take_along_axis(cost, np.clip(end1 - 1, 0, steps - 1), axis=1)
        count2 = _elementwise_coded(bounds.blt20_theorem3_phase2_harmonic, s_c, eps, start_cost, where=has_phase2)
        keep("phase 2 harmonic", "Theorem 3 (phase 2)", "sum of 1/L over phase 2's splits but the last < B (C_L1/eps - 1)",
             np.where(has_phase2, harmonic / count2, np.nan),
             lambda b, c: (f"{eps_text(eps[b, c])}: phase 2 from {int(end1[b, c])} to {int(stop[b, c])} leaves, "
                           f"C_L1 = {start_cost[b, c]:.4g}"))
        self_bound = np.maximum(s, 2)
        initial = np.where(live, cost[:, 0] / _elementwise_coded(bounds.blt20_initial_cost_upper, self_bound, where=live), np.nan)
        keep("initial cost", "Theorem 3 (C0 <= log s)", "C0 = Inf(f) <= log2 s", initial,
             lambda b, c: f"Inf(f) = {cost[b, 0]:.4g}, s = {int(s[b])}")
        conditional_error = stats.error / stats.p_reach[None, :]
        var = stats.variance
        ratio_var = np.where(var > 0, conditional_error / var, np.nan)
        keep("error over variance", "Lemma 5.2 (Var >= error)", "error(f_rho, +-1) <= Var(f_rho)", ratio_var,
             lambda b, c: f"on a subcube where Var = {var[b, c]:.4g}")
    return out
