"""[BLT21] Sec. 1.1 (after [BEK02]): the indistinguishable pair, the 2η minimum under nasty noise.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from dtcore.cube import all_points
from dtcore.find import find
from dtcore.noise import equalizing_adversary, indistinguishable_pair
from dtcore.polyreg import l1_regression, low_degree_regression
from dtcore.stochastic import bayes_optimal, error, mean_table, opt, sample
from ... import figures
from ...report import VerificationTable, worst
from ...seeds import experiment_streams
from ...sweep import sweep
from .common import LEARNERS, positive_int, rows_changed


#: Level of each learner's permutation test in the indistinguishable-pair experiment (three learners:
#: a family-wise level of 1.5%).
PAIR_ALPHA = 0.005


#: Permutations of each of those tests.
PAIR_PERMUTATIONS = 4999


@dataclass(frozen=True)
class PairSetting:
    """The indistinguishable-pair experiment ([BLT21] Sec. 1.1, after [BEK02]).

    ``eta`` is the adversary's rate, ``eta_pair`` = 0.75 eta the pair's η' (so the budget suffices
    despite sampling fluctuations), ``codim`` the codimension c of the region R (FIND's depth, so R
    can be a leaf of FIND's tree); ``m`` the sample size.
    """

    n: int
    m: int
    eta: float
    eta_pair: float
    codim: int
    depth: int
    degree: int


#: The pair's t (μ = 1/2 ± t on R): large, so that the disputed excess 2t·Pr[R] is a visible share of R's mass.
PAIR_T = 0.4


#: The largest sample of the pair (the two corrupted laws agree at every m; a small m keeps the many fits cheap).
PAIR_M_MAX = 600


#: The violation the 2η rows guard against: a learner whose outputs on R differ between the targets by this share
#: of a label on average, E[a_R(h₊)] − E[a_R(h₋)] = 1/2, so that the two excesses on R add up to 2η'(1 − 1/2) = η'
#: only (each target can then pay as little as η'/2, below the η' no learner can beat).
PAIR_VIOLATION = 0.5


#: The power a counted 2η row must have against :data:`PAIR_VIOLATION` at its confidence.
PAIR_POWER = 0.8


def pair_setting(*, n: int, m: int, eta_grid: Sequence[float], depth: int, degree: int) -> PairSetting:
    """The pair's sizes: R of codimension c = min(depth, n), FIND's own depth, so that R can be one of FIND's
    leaves and FIND's output on R is one label; t = :data:`PAIR_T`, η' = t 2^-c, η = η' / 0.75 (so the budget
    covers the flips a sample needs with high probability) and m = min(m, :data:`PAIR_M_MAX`) (the two laws agree
    exactly at every m; a smaller m keeps the fits cheap). With no positive η in ``eta_grid`` there is no attack
    (η = 0)."""
    codim = max(1, min(n, depth))
    eta_pair = PAIR_T * 2.0 ** -codim
    eta = eta_pair / 0.75 if max(eta_grid) > 0 else 0.0
    return PairSetting(n=n, m=min(m, PAIR_M_MAX), eta=eta, eta_pair=eta_pair, codim=codim, depth=depth, degree=degree)


def run_pair(*, rng: np.random.Generator, rep: int, sign: str, setting: PairSetting) -> list[dict[str, Any]]:
    """One sample of T_+ or T_- (``sign``), corrupted by the equalizing adversary, with every learner on it.

    [BLT21] Sec. 1.1: one row per learner with a_R(h) = E_{x in R} Pr[h(x) = 1], the excess the
    hypothesis pays on its own target, the part of it on R (``excess_R``, :func:`excess_on_region`) and that of
    the target's own Bayes classifier (``bayes_excess_R``: a learner that tells the targets apart, the rows'
    worse output), the labels in R minus half after the attack (``balanced``: at
    most a half), the rows changed (counted from the two samples) and the budget. From the clean
    sample alone: ``budget_covers`` (the budget covers the flips R needs whatever the fair coin of an
    odd count decides: the attack must balance R) and ``budget_short`` (it covers them under neither
    outcome: the attack cannot). The two corrupted laws agree on the samples the budget covers, an event
    of the same probability for both targets.
    """
    if sign not in ("+", "-"):
        raise ValueError(f"sign must be '+' or '-', got {sign!r}")
    t_plus, t_minus, region, _ = indistinguishable_pair(setting.n, setting.eta_pair, setting.codim)
    tree = t_plus if sign == "+" else t_minus
    points = all_points(setting.n)
    mu = mean_table(tree)
    in_R = (points[:, :setting.codim] == 1).all(axis=1)
    X0, y0 = sample(tree, setting.m, rng=rng)
    budget = math.floor(setting.eta * setting.m + 1e-12)
    clean_inside = (X0[:, :setting.codim] == 1).all(axis=1)
    imbalance = abs(float(y0[clean_inside].sum()) - clean_inside.sum() / 2)   # flips needed, up to the coin's half
    coin_half = 0.5 if clean_inside.sum() % 2 else 0.0
    c = equalizing_adversary(X0, y0, setting.eta, region, rng=rng)
    inside = (c.X[:, :setting.codim] == 1).all(axis=1)
    hyps = {"FIND": find(c.X, c.y, depth=setting.depth).tree.predict(points).astype(float),
            "L2 (low-degree)": low_degree_regression(c.X, c.y, degree=setting.degree).predict_proba(points),
            "L1 regression": l1_regression(c.X, c.y, degree=setting.degree).predict_proba(points)}
    ones_minus_half = float(c.y[inside].sum() - inside.sum() / 2)
    common = {"ones_in_R_minus_half": ones_minus_half, "balanced": abs(ones_minus_half) <= 0.5,
              "budget_covers": imbalance + coin_half <= budget, "budget_short": imbalance - coin_half > budget,
              "changed": rows_changed(X0, y0, c.X, c.y), "budget": budget}
    bayes_R = excess_on_region(mu, bayes_optimal(mu).astype(float), in_R)
    return [{"algorithm": name, "a_R": float(h[in_R].mean()), "excess_own": error(mu, h) - opt(mu),
             "excess_R": excess_on_region(mu, h, in_R), "bayes_excess_R": bayes_R,
             "constant_on_R": bool(np.ptp(h[in_R]) == 0 and h[in_R][0] in (0.0, 1.0)), **common}
            for name, h in hyps.items()]


def excess_on_region(mu: np.ndarray, h: np.ndarray, in_R: np.ndarray) -> float:
    """The part on the region R of a hypothesis's excess over opt: E_x 1[x ∈ R] (Pr[h(x) ≠ T(x)] − min(μ, 1 − μ)),
    exactly on the cube (``h`` gives Pr[h(x) = 1]). On R of the pair it is 2η'(1 − a_R) under T₊ and 2η' a_R under
    T₋ ([BLT21] Sec. 1.1), and outside R the targets agree, so the whole excess is at least this part."""
    mu, h = np.asarray(mu, dtype=np.float64), np.asarray(h, dtype=np.float64)
    pointwise = mu * (1.0 - h) + (1.0 - mu) * h - np.minimum(mu, 1.0 - mu)
    return float(np.mean(np.where(np.asarray(in_R, dtype=bool), pointwise, 0.0)))


def lower_bound_runs(setting: PairSetting, *, pair_repetitions: int, seed: int,
                     n_jobs: int | None = None) -> pd.DataFrame:
    """``pair_repetitions`` corrupted samples of each of T_+ and T_- ([BLT21] Sec. 1.1): rows of :func:`run_pair`.

    The streams are the sweep's, keyed "ch03/lower_bound"; ``n_jobs`` as in :func:`dtbook.sweep.sweep`
    (the rows do not depend on it).
    """
    pair_repetitions = positive_int("pair_repetitions", pair_repetitions)
    if setting.eta <= 0:
        raise ValueError(f"setting.eta must be positive (an adversary with no budget has nothing to equalize), "
                         f"got {setting.eta}")
    points = [dict(rep=r, sign=s) for r in range(pair_repetitions) for s in "+-"]
    return sweep(functools.partial(run_pair, setting=setting), points, repetitions=1, seed=seed, key="ch03/lower_bound",
                 n_jobs=n_jobs)


def pair_balance(pair: pd.DataFrame) -> dict[str, int]:
    """How the attack fared on the corrupted samples of :func:`lower_bound_runs` ([BLT21] Sec. 1.1).

    ``samples`` in all; ``covered`` those whose clean imbalance in R the budget covers, per target
    (``covered_plus``, ``covered_minus``); ``balanced`` those balanced after the attack; and
    ``contradictions``: samples the budget covers that the attack left unbalanced, plus samples it
    could not cover that came out balanced (0 for a correct attack: the balance after the attack,
    counted on the corrupted sample, must agree with the clean sample's count against the budget).
    """
    per_sample = pair[pair["algorithm"] == pair["algorithm"].iloc[0]]
    covers, short, balanced = (per_sample[c].to_numpy(dtype=bool) for c in ("budget_covers", "budget_short", "balanced"))
    sign = per_sample["sign"].to_numpy()
    return {"samples": len(per_sample), "covered": int(covers.sum()), "balanced": int(balanced.sum()),
            "covered_plus": int((covers & (sign == "+")).sum()), "covered_minus": int((covers & (sign == "-")).sum()),
            "contradictions": int((covers & ~balanced).sum() + (short & balanced).sum())}


def covered_samples(pair: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`lower_bound_runs` whose clean imbalance in R the budget covers (the experiment's premise)."""
    return pair[pair["budget_covers"].to_numpy(dtype=bool)]


def lower_bound_tests(pair: pd.DataFrame, setting: PairSetting, *, seed: int) -> pd.DataFrame:
    """Per learner: a permutation test of a_R on T_+ versus T_- samples, and the mean excess of each target.

    [BLT21] Sec. 1.1: on the samples whose imbalance in R the budget covers (:func:`covered_samples`)
    the corrupted samples have the same law, so the learners' outputs must too; only those enter.
    ``worse / η'`` is the larger mean excess in units of η'; ``sum on R`` the two targets' mean excesses on R
    added up (the counted quantity) and ``Bayes sum on R`` the same for each target's Bayes classifier;
    ``samples of T±`` the samples used (the p-value is NaN when a target has fewer than two). Learner
    i's permutations come from stream i of key "ch03/lower_bound_tests".
    """
    from scipy.stats import permutation_test

    pair = covered_samples(pair)
    rows = []
    for name, perm_rng in zip(LEARNERS, experiment_streams(seed, "ch03/lower_bound_tests", len(LEARNERS))):
        mine = pair[pair.algorithm == name]
        a_plus = mine.loc[mine.sign == "+", "a_R"].to_numpy()
        a_minus = mine.loc[mine.sign == "-", "a_R"].to_numpy()
        if min(a_plus.size, a_minus.size) < 2:
            p_value = math.nan  # a target with fewer than two covered samples: nothing to test
        else:
            p_value = float(permutation_test((a_plus, a_minus), _mean_difference, vectorized=True,
                                             n_resamples=PAIR_PERMUTATIONS, rng=perm_rng).pvalue)
        ex_plus = float(mine.loc[mine.sign == "+", "excess_own"].mean())
        ex_minus = float(mine.loc[mine.sign == "-", "excess_own"].mean())
        on_R, bayes_R = ({sign: float(mine.loc[mine.sign == sign, column].mean()) if column in mine else math.nan
                          for sign in "+-"} for column in ("excess_R", "bayes_excess_R"))
        constant = mine["constant_on_R"] if "constant_on_R" in mine else pd.Series(dtype=float)
        rows.append({"algorithm": name, "samples of T+": a_plus.size, "samples of T-": a_minus.size,
                     "mean a_R on T+ samples": a_plus.mean() if a_plus.size else math.nan,
                     "mean a_R on T- samples": a_minus.mean() if a_minus.size else math.nan,
                     "p-value": p_value, "mean excess of T+": ex_plus, "mean excess of T-": ex_minus,
                     "worse / η'": max(ex_plus, ex_minus) / setting.eta_pair,
                     "sum on R": on_R["+"] + on_R["-"], "Bayes sum on R": bayes_R["+"] + bayes_R["-"],
                     "constant on R": float(constant.mean()) if len(constant) else math.nan})
    return pd.DataFrame(rows)


def _mean_difference(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    """Difference of the means along ``axis`` (the permutation tests' statistic, vectorised over resamples)."""
    return np.mean(a, axis=axis) - np.mean(b, axis=axis)


def pair_slack(*, delta: float, pair_repetitions: int) -> float:
    """One-sided Hoeffding's slack on D = mean a_R on T₊ samples − mean a_R on T₋ samples, ``pair_repetitions``
    samples per target (a_R in [0, 1]): P(D − E D ≥ u) ≤ exp(−r u²) = δ at u = √(ln(1/δ)/r)."""
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    return math.sqrt(math.log(1.0 / delta) / positive_int("pair_repetitions", pair_repetitions))


def pair_sum_bound(eta_pair: float, *, delta: float, pair_repetitions: int) -> float:
    """The least sum of the two targets' mean excesses on R that [BLT21] Sec. 1.1 allows at confidence 1 − δ.

    On R the two excesses are 2η'(1 − a_R) and 2η' a_R, so their means add up to 2η'(1 − D), D the difference of
    the mean a_R of the two targets' samples, and E D = 0 when the two corrupted laws agree: the sum is at least
    2η'(1 − u) with probability 1 − δ, u = :func:`pair_slack` (clipped at 0)."""
    return 2.0 * eta_pair * max(0.0, 1.0 - pair_slack(delta=delta, pair_repetitions=pair_repetitions))


def pair_power(*, delta: float, pair_repetitions: int, violation: float = PAIR_VIOLATION) -> float:
    """A lower bound on the chance that the sum row fails for a learner with E D = ``violation`` (its excesses on R
    add up to 2η'(1 − violation)): the row fails when D > u, and by Hoeffding P(D ≤ u) ≤ exp(−r (violation − u)²).
    0 when u ≥ ``violation`` (no power at all)."""
    u = pair_slack(delta=delta, pair_repetitions=pair_repetitions)
    return 1.0 - math.exp(-pair_repetitions * (violation - u) ** 2) if violation > u else 0.0


def pair_repetitions_for_power(*, delta: float, power: float = PAIR_POWER, violation: float = PAIR_VIOLATION) -> int:
    """The least number of covered samples per target at which :func:`pair_power` reaches ``power``."""
    r = 2
    while pair_power(delta=delta, pair_repetitions=r, violation=violation) < power:
        r += 1
    return r


def lower_bound_figure(pair: pd.DataFrame, pair_tests: pd.DataFrame, *, eta_pair: float) -> Figure:
    """[BLT21] Sec. 1.1: a_R of every hypothesis per target's samples (left) and each target's mean
    excess in units of η' (right) against η' and 2η'."""
    import seaborn as sns

    fig, axes = figures.figure(2, height=4.1)
    sns.stripplot(data=pair, x="algorithm", y="a_R", hue="sign", dodge=True, jitter=0.15, ax=axes[0],
                  palette={"+": "C3", "-": "C0"}, size=5, alpha=0.7)
    axes[0].set_ylabel(r"$a_R(h) = \mathbb{E}_{x\in R}\,\Pr[h(x)=1]$")
    axes[0].set_title("Output on R")
    axes[0].legend(title="samples of", loc="best")
    long = pair_tests.melt(id_vars="algorithm", value_vars=["mean excess of T+", "mean excess of T-"],
                           var_name="target", value_name="excess")
    long["excess / η'"] = long["excess"] / eta_pair
    sns.barplot(data=long, x="algorithm", y="excess / η'", hue="target", ax=axes[1], palette=["C3", "C0"])
    axes[1].axhline(1, color="k", ls=":", label="η'")
    axes[1].axhline(2, color="k", ls="--", label="2η'")
    axes[1].set_ylim(0, 2.9)
    axes[1].set_ylabel("mean excess / η'")
    axes[1].set_title("Excess each target pays")
    axes[1].legend(loc="upper center", ncol=2, fontsize=9)
    for ax in axes:
        ax.set_xlabel("")
        ax.set_xticks(ax.get_xticks(), [lbl.get_text().split(" (")[0].replace(" regression", "")
                                        for lbl in ax.get_xticklabels()])
    return fig


def lower_bound_glue(pair_tests: pd.DataFrame | None, *, setting: PairSetting, pair_repetitions: int,
                     sum_bound: float, balance: dict[str, int] | None = None, covered_reps: int | None = None,
                     delta: float = 0.05) -> dict[str, Any]:
    """The pair experiment for the text; the measured values are NaN when there was no corruption to run.

    ``balance`` is :func:`pair_balance` of the runs: how many samples there were and how many the budget covered;
    ``covered_reps`` the fewer covered samples of the two targets (the power's r; ``pair_repetitions`` if None).
    """
    r = pair_repetitions if covered_reps is None else covered_reps
    values: dict[str, Any] = {"ch3_pair_eta": setting.eta, "ch3_pair_reps": pair_repetitions, "ch3_pair_m": setting.m,
                              "ch3_pair_perms": PAIR_PERMUTATIONS, "ch3_pair_alpha": PAIR_ALPHA,
                              # how much of the claimed 2η' Hoeffding's slack leaves, and 2η' in units of the budget η
                              "ch3_lb_slack_pct": 100.0 * (1.0 - sum_bound / (2.0 * setting.eta_pair)),
                              "ch3_lb_pays_over_eta": 2.0 * setting.eta_pair / setting.eta if setting.eta > 0 else math.nan,
                              "ch3_lb_eta_pair": setting.eta_pair, "ch3_lb_two_eta_pair": 2.0 * setting.eta_pair,
                              "ch3_lb_two_eta": 2.0 * setting.eta,
                              "ch3_lb_power": pair_power(delta=delta, pair_repetitions=max(r, 1)),
                              "ch3_lb_violation": PAIR_VIOLATION, "ch3_lb_power_target": PAIR_POWER,
                              "ch3_lb_reps_needed": pair_repetitions_for_power(delta=delta),
                              "ch3_lb_power_reps": r}
    if pair_tests is None:
        return values | {key: float("nan") for key in ("ch3_lb_find_ratio", "ch3_lb_min_ratio", "ch3_lb_min_p",
                                                      "ch3_lb_sum_bound", "ch3_lb_samples",
                                                      "ch3_lb_covered", "ch3_lb_find_constant", "ch3_lb_codim",
                                                      "ch3_lb_min_sum_R")}
    if balance is not None:
        values |= {"ch3_lb_samples": balance["samples"], "ch3_lb_covered": balance["covered"]}
    return values | {"ch3_lb_find_ratio": float(pair_tests.set_index("algorithm").loc["FIND", "worse / η'"]),
                     "ch3_lb_find_constant": float(pair_tests.set_index("algorithm").loc["FIND", "constant on R"]),
                     "ch3_lb_codim": setting.codim,
                     "ch3_lb_min_ratio": float(pair_tests["worse / η'"].min()),
                     "ch3_lb_min_p": float(pair_tests["p-value"].min()),
                     "ch3_lb_min_sum_R": float(pair_tests["sum on R"].min()) / setting.eta_pair,
                     "ch3_lb_sum_bound": sum_bound / setting.eta_pair}


def check_pair(table: VerificationTable, *, pair: pd.DataFrame, balance: dict[str, Any], pair_tests: pd.DataFrame,
               covered_reps: int, sum_bound: float, pair_setting: Any, delta: float) -> None:
    """The rows of the indistinguishable pair ([BLT21] Sec. 1.1, the 2η minimum; Definition 2's budget):
    the attack's balance identity, the samples the budget covers, and per learner the permutation test (shown)
    and the sum of the two targets' mean excesses on R (counted where it has power ≥ :data:`PAIR_POWER` against
    :data:`PAIR_VIOLATION` at confidence 1 − ``delta``; its worse output, each target's own Bayes classifier)."""
    table.identity("Sec. 1.1 (2η minimum)", "samples whose balance in R after the attack contradicts the clean sample's "
                   "imbalance against the budget", balance["contradictions"], 0.0, box="prop-blt21-lower",
                   reads_rule="the attack's stop rule (half of R's labels 1)",
                   computed_by=("dtcore.noise.equalizing_adversary", "clean sample: |ones in R − half| against ⌊ηm⌋"))
    table.observation("Sec. 1.1 (2η minimum)", "corrupted samples whose imbalance in R the budget covers "
                      "(the rows below use only these)", balance["covered"], balance["samples"], box="prop-blt21-lower",
                      why="the budget ⌊ηm⌋ covers a sample's imbalance in R only with high probability; on the covered "
                          "samples, an event as likely for either target, the two corrupted laws agree")
    power = pair_power(delta=delta, pair_repetitions=covered_reps) if covered_reps >= 1 else 0.0
    for _, row in pair_tests.iterrows():
        used = f"{row['samples of T+']} + {row['samples of T-']} covered samples"
        table.observation("Sec. 1.1 (2η minimum)", f"{row['algorithm']}: p-value, a_R(h) on T+ vs T− samples",
                          row["p-value"], PAIR_ALPHA, relation=">=", box="prop-blt21-lower", worst_case=used,
                          why="the permutation test of the premise (the two corrupted laws give the same law of a_R); "
                              "its statistic, the difference of the mean a_R, is the one the counted sum on R reads, "
                              "with a stated power")
        quantity = f"{row['algorithm']}: mean excess on R of T+ + mean excess on R of T−"
        # 2η'(1 − D) with D, a difference of two means of a_R in [0, 1], in [−1, 1]: the reach is [0, 4η']
        if sum_bound > 0 and power >= PAIR_POWER:
            table.theorem("Sec. 1.1 (2η minimum)", quantity, row["sum on R"], sum_bound, relation=">=",
                          reach=(0.0, 4.0 * pair_setting.eta_pair), measured_by=excess_on_region,
                          bound_by=(pair_sum_bound, pair_slack), box="prop-blt21-lower",
                          worst_case=f"{used}; power {power:.2f} against a learner whose excesses on R add up to "
                                     f"2η'(1 − {PAIR_VIOLATION:g})",
                          fails_under=("each target's own Bayes classifier round(μ±) (a learner that tells the "
                                       "targets apart)", float(row["Bayes sum on R"])))
        else:
            table.observation("Sec. 1.1 (2η minimum)", quantity, row["sum on R"], 2 * pair_setting.eta_pair,
                              relation=">=", box="prop-blt21-lower", worst_case=used,
                              why=f"{used}: Hoeffding's slack leaves the bound {sum_bound:.4f} and a power of "
                                  f"{power:.2f} against a learner whose excesses on R add up to 2η'(1 − "
                                  f"{PAIR_VIOLATION:g}); the row needs {pair_repetitions_for_power(delta=delta)} "
                                  f"covered samples per target for power {PAIR_POWER:g}")
    table.identity("Definition 2 (budget)", "equalizing adversary: max |rows changed − ⌊ηm⌋|",
                   worst(np.abs(pair["changed"] - pair["budget"])), 0.0, box="def-blt21-nasty", reads_rule="budget rule",
                   computed_by=("dtbook.experiments.ch03.common.rows_changed", "math.floor (⌊ηm⌋ of Definition 2)"))
