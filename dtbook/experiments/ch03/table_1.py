"""[BLT21] Table 1 and Theorems 1, 3, 4 (Secs. 4-5): FIND, L2 and L1 regression under nasty noise
(Definition 2), with Lemma 4.2's, 5.2's and 5.4's uniform convergence and the Fact 4.3 chains.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from dtcore import bounds
from dtcore.audit.oracles import count_trees
from dtcore.cube import all_points
from dtcore.find import FindResult, find, population_find, training_errors
from dtcore.noise import ADVERSARIES, corrupt
from dtcore.polyreg import l1_regression, low_degree_regression, n_monomials, trunc
from dtcore.stochastic import error, mean_table, opt, sample, truncate_deterministic_depth
from dtcore.tree import DecisionTree
from ... import figures
from ...report import VerificationTable, worst
from ...seeds import experiment_streams
from ...sweep import sweep
from ...chapter import styled_table
from .common import ADVERSARY_COLOURS, LEARNERS, THEOREM_BOX, adversary_label, positive_int, random_bits, rows_changed, time_best, theorem_or_observation


#: What the Fact 4.3 chain compares, per learner.
CHAIN_RATIO = {"FIND": "err_S°(h) / (err_S°(FIND(S°)) + 2η)", "L2 (low-degree)": "L2_S°(trunc p*) / (L2_S°(q) + 2η)",
               "L1 regression": "L1_S°(trunc p*) / (L1_S°(q) + 2η)"}


#: Why the Fact 4.3 chain of each learner is shown, not counted: it holds by algebra on every sample.
CHAIN_WHY = {
    "FIND": "holds by algebra on every sample once FIND is optimal on S (checked against brute force and pystreed) "
            "and the two samples differ in at most ⌊ηm⌋ rows (the budget identity)",
    "L2 (low-degree)": "holds by algebra on every sample once the fit beats q on S (the optimality identity) and the two "
                       "samples differ in at most ⌊ηm⌋ rows: truncation only lowers a loss against labels in {0, 1}",
    "L1 regression": "holds by algebra on every sample once the fit beats q on S (the optimality identity) and the two "
                     "samples differ in at most ⌊ηm⌋ rows: truncation only lowers a loss against labels in {0, 1}"}


#: Why each learner's final error bound is shown, not counted: it follows from the rows that are.
FINAL_WHY = {
    "FIND": "follows by algebra from the two Lemma 4.2 rows: error(h) ≤ error(T*) + 2η + gap(h) + gap(T*) by "
            "FIND's optimality on S° and S and the budget, so it holds whenever they do",
    "L2 (low-degree)": "follows by algebra from the Lemma 5.2 and Hoeffding rows: with the fit's optimality on S they "
                       "bound E(trunc p* − μ_T)², and Fact 1.2 with Cauchy–Schwarz turns that into the error bound",
    "L1 regression": "follows by algebra from the Lemma 5.4 and Hoeffding rows: with the fit's optimality on S they "
                     "bound E|trunc p* − T| by q's loss + 2η + ε₅.₄, and q's loss is at most 2·opt + ε₁"}


_GUARANTEE_LABEL = {"FIND": "opt + 2η + ε", "L2 (low-degree)": "opt + 2√(2η + ε₂ + ε₅.₂ + γ₁)",
                    "L1 regression": "2·opt + 2η + ε₁ + ε₅.₄ + γ₁"}


@dataclass(frozen=True)
class NoisySetting:
    """What every Table 1 run shares: the target, the sizes, and each lemma's ε for this m ([BLT21] Sec. 4-5).

    ``approx`` is the best depth-``depth`` tree under the true distribution, ``q_tree`` the paper's
    comparator polynomial mu_T' (the target cut at deterministic depth ``degree``), ``a2``/``a1`` its
    exact squared/absolute distances to mu_T, ``var_term`` E mu_T(1 - mu_T).
    """

    target: DecisionTree
    m: int
    depth: int
    degree: int
    delta: float
    opt: float
    approx: FindResult
    gamma: float
    gamma_1: float
    eps_52: float
    eps_54: float
    q_tree: DecisionTree
    a2: float
    a1: float
    var_term: float

    @property
    def approx_excess(self) -> float:
        """Error of the best depth-d tree minus opt_T."""
        return self.approx.error - self.opt

    @property
    def eps_find(self) -> float:
        """FIND's ε: the approximation excess plus Lemma 4.2's 2γ."""
        return self.approx_excess + 2 * self.gamma

    def final_bounds(self, eta: float) -> dict[str, float]:
        """[BLT21] Theorems 1/3/4 at corruption ``eta`` with every ε from the lemmas (no measured gap inside)."""
        return {"FIND": bounds.blt21_find_error_bound(self.opt, eta, self.eps_find),
                "L2 (low-degree)": bounds.blt21_low_degree_error_bound(self.opt, eta,
                                                                       self.a2 + self.eps_52 + self.gamma_1),
                "L1 regression": bounds.blt21_l1_error_bound(self.opt, eta, self.a1 + self.eps_54 + self.gamma_1)}


def noisy_setting(target: DecisionTree, *, m: int, depth: int, degree: int, delta: float) -> NoisySetting:
    """The shared quantities of Table 1: [BLT21] Lemma 4.2's γ, Lemmas 5.2/5.4's ε, the comparator q."""
    mu = mean_table(target)
    n = target.n
    q_tree = truncate_deterministic_depth(target, degree)
    q_cube = mean_table(q_tree)
    n_coef = n_monomials(n, degree)
    return NoisySetting(
        target=target, m=m, depth=depth, degree=degree, delta=delta, opt=opt(mu),
        approx=population_find(mu, depth),
        gamma=bounds.blt21_lemma42_uniform_deviation(count_trees(n, depth), m, delta),  # all depth-d trees
        gamma_1=bounds.blt21_lemma42_uniform_deviation(1, m, delta),                    # one fixed function (q)
        eps_52=bounds.blt21_lemma52_eps(m, n_coef, delta), eps_54=bounds.blt21_lemma54_eps(m, n_coef, delta),
        q_tree=q_tree, a2=float(np.mean((q_cube - mu) ** 2)), a1=float(np.mean(np.abs(q_cube - mu))),
        var_term=float(np.mean(mu * (1 - mu))))


def sample_gaps(setting: NoisySetting, X0: np.ndarray, y0: np.ndarray, *, find_tree: DecisionTree,
                fitted: dict[str, Any]) -> dict[str, dict[str, float]]:
    """The uniform-convergence gaps of [BLT21] Lemmas 4.2, 5.2 and 5.4 on one clean sample ``(X0, y0)``.

    Per learner: ``gap_fit`` = |clean-sample loss − true loss| of its hypothesis (``find_tree``, or the truncated
    polynomial of ``fitted[name]``) and ``gap_q`` the same for its fixed comparator (the best depth-d tree, or q),
    with the regressions' clean-sample losses ``loss_fit`` and ``loss_q`` (the two sides of the Fact 4.3 chain).
    The true losses are exact on the cube: FIND's error, E(f − μ_T)² + E μ_T(1 − μ_T) and E|f − T|.
    """
    m = len(y0)
    points = all_points(setting.target.n)
    mu = mean_table(setting.target)
    q_cube = mean_table(setting.q_tree)
    err_find = error(mu, find_tree.predict(points).astype(float))
    out = {"FIND": {"gap_fit": abs(training_errors(find_tree, X0, y0) / m - err_find),
                    "gap_q": abs(training_errors(setting.approx.tree, X0, y0) / m - setting.approx.error)}}
    q_clean = setting.q_tree.predict_proba(X0)
    population_loss = {"L2 (low-degree)": lambda f: float(np.mean((f - mu) ** 2)) + setting.var_term,
                       "L1 regression": lambda f: float(np.mean(mu * (1 - f) + (1 - mu) * f))}
    for name, loss in (("L2 (low-degree)", lambda v: (v - y0) ** 2), ("L1 regression", lambda v: np.abs(v - y0))):
        p = fitted[name]
        tp_sample, tp_cube = trunc(p.value(X0)), trunc(p.value(points))
        lhs, q_loss = float(loss(tp_sample).mean()), float(loss(q_clean).mean())
        out[name] = {"gap_fit": abs(lhs - population_loss[name](tp_cube)),
                     "gap_q": abs(q_loss - population_loss[name](q_cube)), "loss_fit": lhs, "loss_q": q_loss}
    return out


#: The worse sample of the uniform-convergence rows: samples of this many clean rows, the worst of SMALL_SAMPLES.
SMALL_M, SMALL_SAMPLES = 8, 20


def small_sample_gaps(setting: NoisySetting, *, rng: np.random.Generator, m_small: int = SMALL_M,
                      samples: int = SMALL_SAMPLES) -> pd.DataFrame:
    """The power of the uniform-convergence rows ([BLT21] Lemmas 4.2, 5.4, Hoeffding at q): the same gaps
    (:func:`sample_gaps`) on ``samples`` clean samples of only ``m_small`` rows (drawn from ``rng``, the page's
    stream "ch03/small_samples"), each learner fitted on its small sample. One row per learner, the largest
    ``gap_fit`` and ``gap_q`` over the samples: a deliberately too-small sample, against the bounds at the page's m."""
    m_small, samples = positive_int("m_small", m_small), positive_int("samples", samples)
    worst_gaps = {name: {"gap_fit": 0.0, "gap_q": 0.0} for name in LEARNERS}
    for _ in range(samples):   # a loop over small samples; each body fits the three learners
        X, y = sample(setting.target, m_small, rng=rng)
        fitted = {"L2 (low-degree)": low_degree_regression(X, y, degree=setting.degree),
                  "L1 regression": l1_regression(X, y, degree=setting.degree)}
        gaps = sample_gaps(setting, X, y, find_tree=find(X, y, depth=setting.depth).tree, fitted=fitted)
        for name in LEARNERS:
            for key in ("gap_fit", "gap_q"):
                worst_gaps[name][key] = max(worst_gaps[name][key], gaps[name][key])
    frame = pd.DataFrame.from_dict(worst_gaps, orient="index")
    frame["m_small"], frame["samples"] = m_small, samples
    return frame


def small_sample_glue(small: pd.DataFrame, setting: NoisySetting) -> dict[str, Any]:
    """The too-small samples of :func:`small_sample_gaps` for the text: their size and number, the largest gap of
    FIND's tree, of the best depth-d tree, of q and of L1 regression's fit, and whether Lemma 5.4's row is counted."""
    l1 = float(small.loc["L1 regression", "gap_fit"])
    return {"ch3_small_m": int(small["m_small"].iloc[0]), "ch3_small_samples": int(small["samples"].iloc[0]),
            "ch3_small_gap_find": float(small.loc["FIND", "gap_fit"]),
            "ch3_small_gap_best": float(small.loc["FIND", "gap_q"]),
            "ch3_small_gap_q": float(small.loc[["L2 (low-degree)", "L1 regression"], "gap_q"].min()),
            "ch3_small_gap_l1": l1,
            "ch3_lemma54_counted": ("so that row is counted too" if l1 > setting.eps_54 else
                                    "so no output we can name fails that row, and it is shown, not counted")}


def run_learners(*, rng: np.random.Generator, rep: int, adversary: str, eta: float, setting: NoisySetting,
                 clean: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[dict[str, Any]]:
    """One Table 1 run ([BLT21] Theorems 1, 3, 4): corrupt a clean sample, fit FIND, L2 and L1 on it.

    ``clean[rep]`` is the clean sample of repetition ``rep``, the same for every (adversary, eta)
    (:func:`table1_runs` draws it from stream ``rep`` of key "ch03/table1_clean"); the adversary draws from
    ``rng``. One row per learner: exact error, whether it is a tree, both sides of the
    Fact 4.3 chain on the clean sample, the final bound, the uniform-convergence gaps at the returned
    hypothesis and at the fixed comparator, and (regressions) the optimality ratio on the corrupted
    sample; with the rows changed and the budget.
    """
    target, m, depth, degree = setting.target, setting.m, setting.depth, setting.degree
    points = all_points(target.n)
    mu = mean_table(target)
    X0, y0 = clean[rep]
    c = corrupt(adversary, X0, y0, eta, rng=rng, depth=depth, degree=degree)
    changed, allowed = rows_changed(X0, y0, c.X, c.y), math.floor(eta * m + 1e-12)
    eta_k = changed / m
    final = setting.final_bounds(eta)
    clean_tree = find(X0, y0, depth=depth).tree
    h_tree = find(c.X, c.y, depth=depth).tree
    err_find = error(mu, h_tree.predict(points).astype(float))
    fitted = {"L2 (low-degree)": low_degree_regression(c.X, c.y, degree=degree),
              "L1 regression": l1_regression(c.X, c.y, degree=degree)}
    gaps = sample_gaps(setting, X0, y0, find_tree=h_tree, fitted=fitted)
    rows = [{"algorithm": "FIND", "error": err_find, "proper": isinstance(h_tree, DecisionTree),
             "sample_lhs": training_errors(h_tree, X0, y0) / m,
             "sample_rhs": training_errors(clean_tree, X0, y0) / m + 2 * eta_k, "bound": final["FIND"],
             # Lemma 4.2: clean-sample error vs true error of the returned tree and of the best depth-d tree
             "gap_fit": gaps["FIND"]["gap_fit"], "gap_q": gaps["FIND"]["gap_q"],
             "optimality_ratio": np.nan, "optimality_excess": np.nan}]   # FIND's: against brute force and pystreed
    q_seen = setting.q_tree.predict_proba(c.X)
    seen_loss = {"L2 (low-degree)": lambda v: float(np.mean((v - c.y) ** 2)),
                 "L1 regression": lambda v: float(np.mean(np.abs(v - c.y)))}
    # each regression must beat every other degree-k polynomial on the sample it saw: the other fit and q
    opt_ratio, opt_excess = {}, {}
    for k, own in fitted.items():
        rivals = [seen_loss[k](q_seen), *(seen_loss[k](f.value(c.X)) for other, f in fitted.items() if other != k)]
        opt_ratio[k] = seen_loss[k](own.value(c.X)) / min(rivals)
        opt_excess[k] = max(0.0, seen_loss[k](own.value(c.X)) - min(rivals))
    for name in ("L2 (low-degree)", "L1 regression"):
        p, g = fitted[name], gaps[name]
        rows.append({"algorithm": name, "error": error(mu, p.predict_proba(points)),
                     "proper": isinstance(p, DecisionTree), "sample_lhs": g["loss_fit"],
                     "sample_rhs": g["loss_q"] + 2 * eta_k, "bound": final[name],
                     # Lemma 5.2 / 5.4 at the fitted polynomial, and Hoeffding at the fixed q
                     "gap_fit": g["gap_fit"], "gap_q": g["gap_q"],
                     "optimality_ratio": opt_ratio[name], "optimality_excess": opt_excess[name]})
    for row in rows:
        row.update(changed=changed, budget=allowed)
    return rows


def table1_runs(setting: NoisySetting, *, eta_grid: Sequence[float], repetitions: int, seed: int,
                n_jobs: int | None = None) -> pd.DataFrame:
    """Every Table 1 run ([BLT21] Theorems 1, 3, 4): repetitions x adversaries x eta (eta = 0 once).

    Rows of :func:`run_learners` with the excess over opt_T added. The adversaries' streams are the sweep's,
    keyed "ch03/table1"; ``n_jobs`` as in :func:`dtbook.sweep.sweep` (the rows do not depend on it).
    """
    repetitions = positive_int("repetitions", repetitions)
    points = [dict(rep=r, adversary=a, eta=e) for r in range(repetitions) for a in ADVERSARIES for e in eta_grid
              if e > 0 or a == ADVERSARIES[0]]
    # clean sample r: the first draws of stream r of "ch03/table1_clean", shared by every (adversary, eta)
    clean = [sample(setting.target, setting.m, rng=rng)
             for rng in experiment_streams(seed, "ch03/table1_clean", repetitions)]
    runs = sweep(functools.partial(run_learners, setting=setting, clean=clean), points, repetitions=1, seed=seed,
                 key="ch03/table1", n_jobs=n_jobs)
    runs["excess"] = runs["error"] - setting.opt
    return runs


def noisy_setting_glue(setting: NoisySetting, runs: pd.DataFrame) -> dict[str, Any]:
    """FIND's depth, the degree, m, δ, the approximation excess, 2γ and Lemmas 5.2/5.4's ε, for the text."""
    n, size = setting.target.n, setting.target.size
    theory_degree = math.ceil(math.log2(size / 0.1))   # the theorem's degree log(s/ε) at ε = 0.1
    return {"ch3_n": n, "ch3_coefs": n_monomials(n, setting.degree), "ch3_theory_degree": theory_degree,
            "ch3_theory_coefs": f"{n_monomials(n, min(n, theory_degree)):,}",
            "ch3_depth": setting.depth, "ch3_degree": setting.degree, "ch3_m": setting.m, "ch3_delta": setting.delta,
            "ch3_approx_F": setting.approx_excess, "ch3_two_gamma": 2 * setting.gamma, "ch3_eps52": setting.eps_52,
            "ch3_eps54": setting.eps_54, "ch3_n_runs": len(runs)}


def table1_figure(runs: pd.DataFrame, setting: NoisySetting, *, eta_grid: Sequence[float]) -> Figure:
    """[BLT21] Table 1 on data: each learner's excess against η per adversary (one panel per learner, one
    above the other) under its guarantee − opt, drawn up to the largest excess there is (1 − opt)."""
    import seaborn as sns

    eta_axis = np.linspace(0, max(eta_grid), 100)
    fig, axes = figures.figure(1, 3, height=6.6)
    reach = 1.0 - setting.opt
    for ax, name in zip(axes, LEARNERS):
        mine = runs[runs["algorithm"] == name].assign(adversary=lambda f: f["adversary"].map(adversary_label))
        sns.lineplot(data=mine, x="eta", y="excess", hue="adversary", style="adversary", palette=ADVERSARY_COLOURS,
                     hue_order=list(ADVERSARY_COLOURS), style_order=list(ADVERSARY_COLOURS),
                     markers=True, errorbar=("pi", 100), ax=ax, legend=name == LEARNERS[-1])
        curve = np.array([setting.final_bounds(e)[name] for e in eta_axis]) - setting.opt
        ax.plot(eta_axis, np.minimum(curve, reach), "k--", label="guarantee − opt")
        top = min(reach, max(float(curve.max()), float(runs["excess"].max()))) * 1.08
        if curve.min() >= reach:
            ax.annotate(f"guarantee − opt ≥ 1 − opt = {reach:.2f} at every η:\nthe bound says nothing here",
                        xy=(0.03, 0.80), xycoords="axes fraction", ha="left", va="top")
        ax.set_ylim(0, top)
        ax.set_title(f"{name}: {_GUARANTEE_LABEL[name]}")
        ax.set_xlabel(r"corruption rate $\eta$")
        ax.set_ylabel(r"error$_T(h)$ − opt")
    axes[-1].legend(title="adversary", loc="upper center", bbox_to_anchor=(0.5, -0.42), ncol=3)   # below the x label
    return fig


def learner_worsts(runs: pd.DataFrame) -> pd.DataFrame:
    """Per learner, the worst of each Table 1 check ([BLT21] Fact 4.3 chain, Lemmas 4.2/5.2/5.4, 5.3/5.5).

    Columns: ``chain`` (largest sample_lhs / sample_rhs over eta > 0), ``optimality`` (largest
    optimality ratio; NaN for FIND, which has none), ``optimality_excess`` (largest amount by which a
    rival polynomial beat the fit on the sample it saw, 0 for an optimal solver), ``gap_fit`` and
    ``gap_q`` (largest uniform-convergence gaps). A NaN among a learner's values makes its worst NaN,
    so the row fails.
    """
    rows = {}
    for name in LEARNERS:
        grp = runs[runs.algorithm == name]
        positive = grp[grp.eta > 0]
        ratio = grp["optimality_ratio"].to_numpy(dtype=np.float64)
        rows[name] = {"chain": float(np.max((positive["sample_lhs"] / positive["sample_rhs"]).to_numpy())),
                      "optimality": float(ratio.max()),
                      "optimality_excess": float(grp["optimality_excess"].to_numpy(dtype=np.float64).max()),
                      "gap_fit": float(grp["gap_fit"].to_numpy().max()),
                      "gap_q": float(grp["gap_q"].to_numpy().max())}
    return pd.DataFrame.from_dict(rows, orient="index")


def uniform_convergence_bounds(setting: NoisySetting) -> pd.DataFrame:
    """Per learner, the lemma whose ε bounds its clean-sample gap ([BLT21] Lemmas 4.2, 5.2, 5.4) and the
    bound at its fixed comparator (the best depth-d tree for FIND, Hoeffding's γ₁ at q for the regressions),
    with the functions that computed each side (``fit_by``, ``comparator_by``, ``eps_by``)."""
    return pd.DataFrame({
        "lemma": ["Lemma 4.2", "Lemma 5.2", "Lemma 5.4"],
        "eps": [setting.gamma, setting.eps_52, setting.eps_54],
        "comparator": ["the best depth-d tree", "q", "q"],
        "comparator_result": ["Lemma 4.2", "Hoeffding (fixed q)", "Hoeffding (fixed q)"],
        "comparator_bound": [setting.gamma, setting.gamma_1, setting.gamma_1],
        "box": ["lem-blt21-4-1", "thm-blt21-4", "thm-blt21-4"],
        # the measured gaps come from the learner's fit, the clean sample's loss and the exact loss on the cube
        "fit_by": ["dtcore.find.find, dtcore.find.training_errors, dtcore.stochastic.error",
                   "dtcore.polyreg.low_degree_regression, dtcore.stochastic.mean_table",
                   "dtcore.polyreg.l1_regression, dtcore.stochastic.mean_table"],
        "comparator_by": ["dtcore.find.population_find, dtcore.find.training_errors",
                          "dtcore.stochastic.truncate_deterministic_depth, dtcore.stochastic.mean_table",
                          "dtcore.stochastic.truncate_deterministic_depth, dtcore.stochastic.mean_table"],
        "eps_by": ["dtcore.bounds.blt21_lemma42_uniform_deviation", "dtcore.bounds.blt21_lemma52_eps",
                   "dtcore.bounds.blt21_lemma54_eps"]}, index=list(LEARNERS))


def final_error_bounds(runs: pd.DataFrame, setting: NoisySetting) -> pd.DataFrame:
    """Per (learner, eta): the worst exact error and its final bound ([BLT21] Theorems 1, 3 and 4).

    The bound is :meth:`NoisySetting.final_bounds`; ``result`` names the theorem (Theorem 1 for FIND at
    eta = 0). Rows in the order of ``runs.groupby(["algorithm", "eta"])``.
    """
    rows = []
    for (name, eta), grp in runs.groupby(["algorithm", "eta"]):
        rows.append({"algorithm": name, "eta": eta,
                     "result": {"FIND": "Theorem 1" if eta == 0 else "Theorem 3"}.get(name, "Theorem 4"),
                     "box": THEOREM_BOX[name], "worst_error": grp["error"].max(),
                     "bound": setting.final_bounds(eta)[name]})
    return pd.DataFrame(rows)


def learner_seconds(target: DecisionTree, *, m: int, depth: int, degree: int,
                    rng: np.random.Generator) -> dict[tuple[str, str], float]:
    """Table 1's measured running times: each learner on one clean sample at n and at n + 4 variables.

    The sample has min(m, 2000) rows; the 4 extra columns are uniform. Best of three for FIND and L2,
    one run of L1's linear program. Keys: (learner, "n" or "n+4").
    """
    X, y = sample(target, min(m, 2000), rng=rng)
    X_wide = np.concatenate([X, random_bits(rng, (X.shape[0], 4))], axis=1)
    fits = {"FIND": lambda X, y: find(X, y, depth=depth), "L2 (low-degree)": lambda X, y: low_degree_regression(X, y, degree=degree),
            "L1 regression": lambda X, y: l1_regression(X, y, degree=degree)}
    seconds = {}
    for name, fit in fits.items():
        for label, X_t in (("n", X), ("n+4", X_wide)):
            seconds[name, label] = time_best(lambda: fit(X_t, y), 1 if name == "L1 regression" else 3)
    return seconds


def table1_frame(runs: pd.DataFrame, seconds: dict[tuple[str, str], float], *, n: int,
                 eta_grid: Sequence[float]) -> pd.DataFrame:
    """[BLT21] Table 1: the paper's four rows as stated, with what we measured beside them.

    Measured: whether each learner returns a tree, its time at n and n + 4 and the exponent in n,
    and its worst exact error at every eta. The [CM19] row is not run.
    """
    table1 = pd.DataFrame({
        "algorithm": ["L2 regression (low-degree) [LMN93]", "L1 polynomial regression [KKMS08]",
                      "Learning mixtures of subcubes [CM19]", "FIND on a stochastic-leaf approximation (this paper)"],
        "key": ["L2 (low-degree)", "L1 regression", "CM19", "FIND"],
        "running time (as stated in the paper)": ["n^O(log(s/ε))", "n^O(log(s/ε))", "O_s(1)·n^O(log s)·poly(1/ε)",
                                                  "n^O(log(s/ε)/ε²)"],
        "guarantee (as stated in the paper)": ["opt + O(√η) + ε", "2·opt + 2η + ε", "opt + ε (η = 0 only)",
                                               "opt + 2η + ε"],
    })
    proper = runs.groupby("algorithm")["proper"].all()
    worst_err = runs.groupby(["algorithm", "eta"])["error"].max().unstack()
    table1["returns a tree"] = [bool(proper[k]) if k in proper else False for k in table1["key"]]
    table1[f"seconds at n={n}"] = [seconds.get((k, "n"), np.nan) for k in table1["key"]]
    table1[f"seconds at n={n + 4}"] = [seconds.get((k, "n+4"), np.nan) for k in table1["key"]]
    table1["time exponent in n"] = (np.log(table1[f"seconds at n={n + 4}"] / table1[f"seconds at n={n}"])
                                    / math.log((n + 4) / n))
    for e in eta_grid:
        table1[f"worst error, η={e:g}"] = [worst_err.loc[k, e] if k in worst_err.index else np.nan
                                           for k in table1["key"]]
    return table1.drop(columns="key")


def _maths(tex: str) -> str:
    """Inline maths for a table cell: Sphinx's maths span, which the book's MathJax typesets in an output."""
    return f'<span class="math notranslate nohighlight">\\({tex}\\)</span>'


#: Table 1's stated running times and guarantees, typeset.
_TYPESET = {"n^O(log(s/ε))": _maths(r"n^{O(\log(s/\varepsilon))}"),
            "O_s(1)·n^O(log s)·poly(1/ε)": _maths(r"O_s(1)\cdot n^{O(\log s)}\cdot \mathrm{poly}(1/\varepsilon)"),
            "n^O(log(s/ε)/ε²)": _maths(r"n^{O(\log(s/\varepsilon)/\varepsilon^2)}"),
            "opt + O(√η) + ε": _maths(r"\mathrm{opt} + O(\sqrt{\eta}) + \varepsilon"),
            "2·opt + 2η + ε": _maths(r"2\,\mathrm{opt} + 2\eta + \varepsilon"),
            "opt + ε (η = 0 only)": _maths(r"\mathrm{opt} + \varepsilon") + " (" + _maths(r"\eta = 0") + " only)",
            "opt + 2η + ε": _maths(r"\mathrm{opt} + 2\eta + \varepsilon")}


def table1_style(table1: pd.DataFrame, *, caption: str = "") -> Any:
    """:func:`table1_frame` for the page, transposed so that it stays narrow at any η grid: one column per
    algorithm, one row per statement or measurement (the stated running times and guarantees typeset, errors to
    4 places, seconds to 3, "not run" for gaps, "yes"/"no" for whether the output is a tree), in the book's one
    table style (:func:`dtbook.chapter.styled_table`)."""
    short = {"L2 regression (low-degree) [LMN93]": "L2 [LMN93]", "L1 polynomial regression [KKMS08]": "L1 [KKMS08]",
             "Learning mixtures of subcubes [CM19]": "subcubes [CM19]",
             "FIND on a stochastic-leaf approximation (this paper)": "FIND (this paper)"}

    def cell(column: str, value: object) -> str:
        if isinstance(value, str):
            return _TYPESET.get(value, value)
        if column == "returns a tree":
            return "yes" if value else "no"
        if value is None or not np.isfinite(value):
            return "not run"
        return f"{value:.3f}" if column.startswith("seconds") else f"{value:.2f}" if column.startswith("time") \
            else f"{value:.4f}"

    def label(column: str) -> str:
        text = column.replace(" (as stated in the paper)", ", as stated").replace("worst error, ", "worst error ")
        text = re.sub(r"η=([0-9.e-]+)", lambda m: "at " + _maths(r"\eta = " + m.group(1)), text)
        text = re.sub(r"n=([0-9]+)", lambda m: _maths("n = " + m.group(1)), text)
        return text.replace("exponent in n", "exponent in " + _maths("n"))

    shown = pd.DataFrame({short[row["algorithm"]]: {c: cell(c, row[c]) for c in table1.columns if c != "algorithm"}
                          for _, row in table1.iterrows()})
    shown.insert(0, "", [label(c) for c in shown.index])
    return styled_table(shown.reset_index(drop=True), caption=caption)


def table1_glue(runs: pd.DataFrame, seconds: dict[tuple[str, str], float], setting: NoisySetting, *,
                eta_grid: Sequence[float]) -> dict[str, Any]:
    """[BLT21] Table 1 for the text: worst excesses at the largest eta, time exponents, the strongest
    adversaries and the largest uniform-convergence gaps."""
    n = setting.target.n
    e_max = max(eta_grid)
    worst_err = runs.groupby(["algorithm", "eta"])["error"].max().unstack()
    values: dict[str, Any] = {"ch3_etamax": e_max, "ch3_n_time": n, "ch3_n_time_wide": n + 4}
    for name, tag in zip(LEARNERS, ("F", "L2", "L1")):
        values[f"ch3_excess_{tag}"] = float(worst_err.loc[name, e_max] - setting.opt)
        values[f"ch3_time_exp_{tag}"] = float(math.log(seconds[name, "n+4"] / seconds[name, "n"]) / math.log((n + 4) / n))
    at_max = runs[runs.eta == e_max]
    find_max = at_max[at_max.algorithm == "FIND"].groupby("adversary")["excess"].max()
    values["ch3_strongest_adv"] = adversary_label(find_max.idxmax())
    values["ch3_strongest_ratio"] = float(find_max.max() / (2 * e_max)) if e_max > 0 else 0.0
    for name, tag in zip(LEARNERS[1:], ("L2", "L1")):
        values[f"ch3_strongest_adv_{tag}"] = adversary_label(at_max[at_max.algorithm == name].groupby("adversary")
                                                            ["excess"].max().idxmax())
        values[f"ch3_max_gap_{tag}"] = float(runs.loc[runs.algorithm == name, "gap_fit"].max())
    return values


#: The solver of each regression, as the optimality identities name it.
SOLVERS = {"L2 (low-degree)": "dtcore.polyreg.low_degree_regression", "L1 regression": "dtcore.polyreg.l1_regression"}


def check_chains(table: VerificationTable, worsts: pd.DataFrame) -> None:
    """The Fact 4.3 chains (shown: algebra on every sample) and each regression's optimality on the sample it
    saw (identities: the other fit and q never beat it on its own loss), from :func:`learner_worsts`."""
    for name, row in worsts.iterrows():
        table.observation("Theorem 3 / Lemmas 5.3, 5.5 (Fact 4.3 chain)", f"{name}: max {CHAIN_RATIO[name]}, η > 0",
                          row["chain"], 1.0, box=THEOREM_BOX[name], reads_rule="selection rule", why=CHAIN_WHY[name])
    for name, other in (("L2 (low-degree)", "L1 regression"), ("L1 regression", "L2 (low-degree)")):
        table.identity("Lemmas 5.3, 5.5 (optimality on S)",
                       f"{name}: max amount by which the {other.split()[0]} fit or q beats it on S (its own loss)",
                       worsts.loc[name, "optimality_excess"], 1e-7, box="alg-blt21-polyreg",
                       reads_rule="the fit's objective",
                       computed_by=(SOLVERS[name], f"{SOLVERS[other]}, dtcore.stochastic.truncate_deterministic_depth"))


def check_uniform_convergence(table: VerificationTable, setting: NoisySetting, worsts: pd.DataFrame,
                              small: pd.DataFrame) -> None:
    """Uniform convergence (Lemmas 4.2, 5.2, 5.4) at the returned hypotheses and Hoeffding at the fixed comparators:
    a theorem row where the lemma's ε is below 1, an observation otherwise (:func:`theorem_or_observation`).

    Each row's power is the same gap on a deliberately too-small sample (``small``, :func:`small_sample_gaps`): the
    learner fitted on, or the comparator scored on, a few clean rows, the worst of several such samples. A row whose
    too-small sample passes its bound too cannot fail for any output we can name: it is shown, not counted."""
    m = setting.m
    for name, u in uniform_convergence_bounds(setting).iterrows():
        few = f"{int(small.loc[name, 'm_small'])} clean rows (worst of {int(small.loc[name, 'samples'])} samples)"
        worse_fit = (f"{name} fitted on {few}", float(small.loc[name, "gap_fit"]))
        theorem_or_observation(table, u["lemma"],
                               f"{name}: max |clean-sample loss − true loss| of the returned hypothesis",
                               worsts.loc[name, "gap_fit"], u["eps"], reach=(0.0, 1.0), box=u["box"],
                               measured_by=u["fit_by"], bound_by=u["eps_by"],
                               worst_case="worst over every adversary, η and repetition",
                               why=f"the lemma's ε for m = {m} is at least 1, the largest gap there is",
                               fails_under=worse_fit,
                               why_no_power=f"the lemma's ε = {u['eps']:.3f} for m = {m} is above the gap of {name} "
                                            f"fitted on {few}, {worse_fit[1]:.3f}: even a sample that small passes, "
                                            f"so no output we can name fails the row")
        theorem_or_observation(table, u["comparator_result"],
                               f"{name}: max |clean-sample loss − true loss| of {u['comparator']}",
                               worsts.loc[name, "gap_q"], u["comparator_bound"], reach=(0.0, 1.0), box=u["box"],
                               measured_by=u["comparator_by"], bound_by="dtcore.bounds.blt21_lemma42_uniform_deviation",
                               worst_case="worst over every clean sample",
                               why=f"Hoeffding's deviation for m = {m} is at least 1, the largest gap there is",
                               fails_under=(f"{u['comparator']} scored on {few}", float(small.loc[name, "gap_q"])),
                               why_no_power=f"Hoeffding's deviation for m = {m} is above the gap of {u['comparator']} "
                                            f"on {few}, {float(small.loc[name, 'gap_q']):.3f}")


def check_final_bounds(table: VerificationTable, runs: pd.DataFrame, setting: NoisySetting) -> None:
    """The final error bounds of [BLT21] Theorems 1, 3 and 4 (every ε from the lemmas, none measured; shown: they
    follow from the rows of :func:`check_uniform_convergence`), and Definition 2's budget identity."""
    for _, f in final_error_bounds(runs, setting).iterrows():
        table.observation(f["result"], f"{f['algorithm']}: worst error at η={f['eta']:g}", f["worst_error"], f["bound"],
                          box=f["box"], why="the bound is at least 1, the largest error there is" if f["bound"] >= 1
                          else FINAL_WHY[f["algorithm"]])
    table.identity("Definition 2 (budget)", "max |rows changed, counted from S° and S − ⌊ηm⌋| over every adversary",
                   worst(np.abs(runs["changed"] - runs["budget"])), 0.0, box="def-blt21-nasty", reads_rule="budget rule",
                   computed_by=("dtbook.experiments.ch03.common.rows_changed", "math.floor (⌊ηm⌋ of Definition 2)"))
