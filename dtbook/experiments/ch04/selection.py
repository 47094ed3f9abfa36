"""[MGBH26] Sec. 5.2: Algorithm 2's selection guarantee (the chosen pair scores at least 1/4 of the best),
at the hardest members of an exhaustive search over every function on four variables.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np
import pandas as pd
from scipy.stats import beta, binom

from dtcore import analysis, bounds, exhaustive
from dtcore.audit.replay import replay
from dtcore.cube import ProductDistribution, point_index
from dtcore.functions import gated_majority_tree
from dtcore.product import practical_build_top_down_dt, practical_first_splits
from ...report import VerificationTable, worst
from ...sweep import grid, sweep
from .common import count_row_power
from .figure2 import accept_failures_allowed
from .suprema import EXHAUSTIVE_MEASURES
from .theorem11 import theorem11_sizes


SELECTION_EPS_FLOOR = 0.1
"""The search's budget: members whose run needs eps below this are left out (M_LL, M_EE grow like 1/eps^2)."""
SELECTION_SCALES = (1.0, 1 / 8, 1 / 64, 1 / 512)
"""Schedule factors of the sweep that shows where failures start (1: the paper's schedules)."""


SELECTION_STEPS = 4
"""The search's budget in steps: Algorithm 1's exact run is followed for its first 4 splits."""


def exhaustive_search(*, delta: float, measures: Sequence[Sequence[float]] = EXHAUSTIVE_MEASURES, n: int = 4,
                      eps_floor: float = SELECTION_EPS_FLOOR, steps: int = SELECTION_STEPS, per_measure: int = 1,
                      size_eps: Sequence[float] = (0.05, 0.1, 0.2)) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The hardest members for Sec. 5.2's selection guarantee: every function on ``n`` variables, every measure.

    Along Algorithm 1's exact run (the path Algorithm 2 follows while its estimates are right), at a
    step with j leaves and error e (eps just under e, the hardest eps for which the step is in the
    guarantee's premise), the chosen leaf's best variable (score t) competes with that leaf's other
    variables whose score s lies in (0, t/4): a zero score is never estimated above 0. With M_S(j)
    pairs each, the estimate of s beats that of t with probability about Phi(-z),
    z = (t - s) / sqrt((t(1 - t) + s(1 - s)) / M_S(j)). Returns, per measure, the ``per_measure``
    functions with the smallest z (truth table in hex, measure, step, eps, z; hardest first), searched over all
    2^(2^n) functions, the measures and the first ``steps`` steps with e > ``eps_floor``; and, from the
    same runs, Theorem 1.1's worst ratio size/bound per measure and eps of ``size_eps``
    (:func:`_theorem11_sizes`).
    """
    tables = exhaustive.all_tables(n)
    at_half = np.array([bounds.mgbh26_score_pairs_needed(k, delta, 0.5, n) for k in range(1, steps + 1)])
    frames, sizes = [], []
    optimal = exhaustive.optimal_trees(tables)  # the least depth does not depend on the measure
    for p in measures:
        dist = ProductDistribution(np.asarray(p, dtype=float))
        stats = exhaustive.subcube_statistics(tables, dist, "rerandomised")
        score, feature = exhaustive.build_top_down_scores(stats)
        runs = exhaustive.best_first_runs(score, feature, n, totals={"error": stats.error})
        sizes.append(theorem11_sizes(tables, dist, runs, size_eps, optimal))
        err, best, chosen = runs.totals["error"][:, :steps], runs.score[:, :steps], runs.chosen[:, :steps]
        b, t = np.nonzero(np.isfinite(best) & (err > eps_floor))
        eps_run = err[b, t] * (1 - 1e-6)
        pairs = at_half[t] * 0.5 / eps_run  # M_S is proportional to 1/eps
        top = best[b, t]
        rivals = stats.by_variable[:, b, chosen[b, t]]  # (n, steps found): the chosen leaf's variables
        low = (rivals > 0) & (rivals < top / 4)
        with np.errstate(invalid="ignore", divide="ignore"):
            z = (top - rivals) / np.sqrt((top * (1 - top) + rivals * (1 - rivals)) / pairs)
        z = np.where(low, z, np.inf).min(axis=0)
        keep = np.isfinite(z)
        frames.append(pd.DataFrame({"function": b[keep], "measure": [tuple(p)] * int(keep.sum()), "step": t[keep] + 1,
                                    "eps": eps_run[keep], "best_score": top[keep], "z": z[keep]}))
    frame = pd.concat(frames, ignore_index=True).sort_values("z", kind="stable")
    frame = frame.drop_duplicates(subset=["function", "measure"]).groupby("measure", sort=False).head(per_measure)
    frame["table"] = [_hex(tables, b, n) for b in frame["function"]]
    size_frame = pd.concat(sizes, ignore_index=True)
    size_frame["table"] = [_hex(tables, b, n) for b in size_frame["function"]]
    return frame.reset_index(drop=True), size_frame


def _hex(tables: np.ndarray, function: int, n: int) -> str:
    return format(int(exhaustive.pack(tables[[function]])[0]), "0{}x".format(2 ** n // 4))


def _table_from_index(function: int, n: int) -> np.ndarray:
    return exhaustive.all_tables(n)[function]


def selection_members(candidates: pd.DataFrame, n: int = 4, gated_k: int = 5,
                      gated_q: float = 0.4) -> list[dict[str, object]]:
    """The members the selection audit runs: the searched candidates and one gated majority x0 ∧ Maj_k (Δ ≪ D)."""
    members = []
    for _, c in candidates.iterrows():
        members.append({"name": f"f = 0x{c['table']}, p = {tuple(float(v) for v in c['measure'])}",
                        "table": _table_from_index(int(c["function"]), n).astype(np.int8),
                        "dist": ProductDistribution(np.asarray(c["measure"], dtype=float)), "eps": float(c["eps"])})
    target = gated_majority_tree(gated_k)
    dist = ProductDistribution([gated_q] + [0.5] * gated_k)
    eps = max(0.9 * analysis.constant_error(target.truth_table(), dist), SELECTION_EPS_FLOOR)
    members.append({"name": f"x0 ∧ Maj_{gated_k}, q = {gated_q:g}", "table": target.truth_table().astype(np.int8),
                    "dist": dist, "eps": eps})
    return members


def _table_oracle(table: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """The label oracle x -> f(x) of a truth table (vectorised; bit i of the index is x_i)."""
    return lambda X: table[point_index(X)]


def selection_run_task(member: int, scale: float, members: list[dict[str, object]], delta: float, *,
                       rng: np.random.Generator) -> dict[str, float]:
    """One run of Algorithm 2 on a member, replayed on its truth table: the chosen pair's exact share of the best.

    ``premise_min_share`` is the smallest exact chosen/best score over the steps whose f-completion
    error exceeds eps (where Sec. 5.2 derives its threshold from Lemma 4.4); ``min_share`` over every step.
    """
    m = members[member]
    table, dist, eps = m["table"], m["dist"], m["eps"]
    res = practical_build_top_down_dt(_table_oracle(table), dist, eps=eps, delta=delta, rng=rng,
                                      schedule_scale=scale)
    rep = replay(res.tree, res.trace, table, dist, kind="rerandomised")
    steps = rep.iloc[:-1]
    share = (steps["selected_score"] / steps["best_score"]).to_numpy()
    premise = steps["error"].to_numpy() > eps
    weights = dist.point_weights()
    final_error = float(weights @ (res.tree.truth_table() != table))
    # the best labelling of the same bare tree, from the truth table: per leaf the lighter label mass
    leaf = res.tree.apply(np.array([(np.arange(table.size) >> i) & 1 for i in range(dist.n)], np.uint8).T)
    ones = np.bincount(leaf, weights=weights * table, minlength=res.tree.node_count)
    mass = np.bincount(leaf, weights=weights, minlength=res.tree.node_count)
    best_error = float(np.minimum(ones, mass - ones).sum())
    J = res.tree.size
    gap_bound = bounds.mgbh26_lemma53_label_gap(J, J, delta, res.ll_samples)
    accept_slack = bounds.mgbh26_error_estimate_deviation(res.ee_samples, J, delta)
    return {"steps": len(steps), "premise_steps": int(premise.sum()),
            "premise_min_share": float(share[premise].min()) if premise.any() else math.nan,
            "min_share": float(share.min()) if len(share) else math.nan,
            "error": final_error, "best_error": best_error, "eps": eps, "label_queries": res.label_queries,
            "lemma53_bound": gap_bound, "accepted": bool(res.terminated),
            "accept_slack": accept_slack}


def selection_runs(members: list[dict[str, object]], *, delta: float, reps: int, sweep_reps: int,
                   seed: int, scales: Sequence[float] = SELECTION_SCALES) -> pd.DataFrame:
    """Algorithm 2 ``reps`` times on every member at the paper's schedules, and ``sweep_reps`` times on the
    first (hardest) member at each smaller schedule factor. Stream ``"ch04/selection"`` under ``seed``."""
    points = grid(member=list(range(len(members))), scale=[1.0])
    task = partial(selection_run_task, members=members, delta=delta)
    runs = sweep(task, points, repetitions=reps, seed=seed, n_jobs=1, key="ch04/selection")
    lower = [s for s in scales if s != 1.0]
    if lower and sweep_reps:
        swept = sweep(task, grid(member=[0], scale=lower), repetitions=sweep_reps, seed=seed, n_jobs=1,
                      key="ch04/selection_sweep")
        runs = pd.concat([runs, swept], ignore_index=True)
    runs["name"] = [members[int(i)]["name"] for i in runs["member"]]
    runs["failed"] = runs["premise_min_share"] < 0.25
    return runs


# --- the counted audit: a hard member, enough runs for power, and the schedule's safety factor ----------------

HARD_RIVAL_SHARE = 0.24
"""The rival's exact score over the best one at the hard member's root: just under the ¼ of Sec. 5.2."""
HARD_BEST_BIAS = 0.4
"""Pr[x1 = 1] at the hard member; Pr[x0 = 1] = 1 − 0.24 · 0.4 puts the rival x0 at the share above."""
HARD_SCALES = tuple(2.0 ** (-k / 2) for k in range(2, 17))
"""Schedule factors of the hard member's sweep: 1/2 down to 1/256 in steps of √2."""


def hard_member(share: float = HARD_RIVAL_SHARE, best_bias: float = HARD_BEST_BIAS) -> dict[str, object]:
    """The hardest kind of member for Sec. 5.2's ¼ selection: f = x0 ∧ ¬x1 on two variables.

    At the root the scores are Inf^μ_1 = 2p1(1 − p1)p0 (the best pair, the only acceptable one) and
    Inf^μ_0 = 2p0(1 − p0)(1 − p1), whose share (1 − p0)/p1 is set to ``share`` (just under ¼) by
    p0 = 1 − share·p1: a bad pick needs the rival's estimate to beat one pair only, and ties go to the
    rival (x0 comes first). Two variables keep M_S (∝ n ln n) small and ε is just under the root's
    error, the largest ε for which the first split is in the guarantee's premise. The member is built
    to these specifications, not found by a search.
    """
    if not 0 < share < 0.25:
        raise ValueError(f"share must lie in (0, 1/4), got {share!r}")
    if not 0 < best_bias < 1:
        raise ValueError(f"best_bias must lie in (0, 1), got {best_bias!r}")
    x = (np.arange(4)[:, None] >> np.arange(2)) & 1
    table = (x[:, 0] & (1 - x[:, 1])).astype(np.int8)
    dist = ProductDistribution([1 - share * best_bias, best_bias])
    eps = analysis.constant_error(table, dist) * (1 - 1e-6)
    return {"name": f"x0 ∧ ¬x1, p = ({1 - share * best_bias:g}, {best_bias:g})", "table": table, "dist": dist,
            "eps": eps}


def hard_member_hypotheses(member: dict[str, object], delta: float) -> dict[str, float]:
    """The hard member's root, exactly: the scores' shares, the count of acceptable pairs, the premise and z.

    ``acceptable``: variables whose exact score is at least ¼ of the best (1: the rival must beat the best
    pair alone); ``rival_share``: the largest other share (below ¼); ``error_over_eps``: the root's error over
    ε (above 1: the first split is in the premise); ``split_error_over_eps``: the largest error after a first
    split over ε (below 1: no later step is in the premise); ``best_over_threshold``: the best score over
    ε/((j + 1)Δ_opt) at j = 1, the threshold Sec. 5.2 sizes M_S for; ``z``: the rival's distance from the best
    in standard errors of the estimates at M_S(1) pairs (normal approximation).
    """
    table, dist, eps = member["table"], member["dist"], float(member["eps"])
    scores = analysis.influences(table, dist, "rerandomised")  # at the root p_ℓ = 1
    best = float(scores.max())
    shares = scores / best
    avg = float(exhaustive.minimum_average_depth_by_cap(table[None, :].astype(np.uint8), dist)[-1][0])
    pairs = bounds.mgbh26_score_pairs_needed(1, delta, eps, dist.n)
    rival = float(np.sort(scores)[-2])
    z = (best - rival) / math.sqrt((best * (1 - best) + rival * (1 - rival)) / pairs)
    weights = dist.point_weights()
    bits = (np.arange(table.size)[:, None] >> np.arange(dist.n)) & 1
    after = []
    for i in range(dist.n):  # the error of the two-leaf tree that splits the root on x_i, from the truth table
        halves = [(weights[bits[:, i] == b], table[bits[:, i] == b]) for b in (0, 1)]
        after.append(sum(min(float(w @ t), float(w @ (1 - t))) for w, t in halves))
    return {"acceptable": int((shares >= 0.25).sum()), "rival_share": float(np.sort(shares)[-2]),
            "error_over_eps": analysis.constant_error(table, dist) / eps,
            "split_error_over_eps": max(after) / eps,
            "best_over_threshold": best / (eps / (2 * avg)), "pairs": float(pairs), "z": float(z)}


def hard_selection_runs(member: dict[str, object], *, delta: float, runs: int, rng: np.random.Generator,
                        scales: Sequence[float] = HARD_SCALES) -> pd.DataFrame:
    """Algorithm 2's first split in ``runs`` runs on the hard member at the paper's schedules and at each smaller
    factor of ``scales`` (:func:`dtcore.product.practical_first_splits`, the runs vectorised in batches of at most
    ``HARD_BLOCK_RUNS``), each choice
    measured on the truth table: the chosen variable's exact score over the best (``share``; NaN where the run
    stopped or split nothing) and whether it fell below ¼ (``failed``). One generator spawned from ``rng`` per
    factor. The first split is the only step in the premise (error > ε): after either split the error is below ε
    (:func:`hard_member_hypotheses`)."""
    table, dist, eps = member["table"], member["dist"], float(member["eps"])
    exact = analysis.influences(table, dist, "rerandomised")  # the root's exact scores (p_ℓ = 1)
    factors = [1.0] + [float(c) for c in scales if c < 1.0]
    frames = []
    for scale, child in zip(factors, rng.spawn(len(factors))):  # vectorised batches per schedule factor
        blocks = [min(HARD_BLOCK_RUNS, runs - start) for start in range(0, runs, HARD_BLOCK_RUNS)]
        batches = [practical_first_splits(_table_oracle(table), dist, eps=eps, delta=delta, runs=size, rng=block,
                                          schedule_scale=scale) for size, block in zip(blocks, child.spawn(len(blocks)))]
        first = {key: np.concatenate([b[key] for b in batches]) for key in ("feature", "stopped")}
        split = first["feature"] >= 0
        share = np.where(split, exact[np.maximum(first["feature"], 0)] / exact.max(), np.nan)
        frames.append(pd.DataFrame({"scale": scale, "run": np.arange(runs), "feature": first["feature"],
                                    "stopped": first["stopped"], "share": share, "failed": split & (share < 0.25)}))
    out = pd.concat(frames, ignore_index=True)
    out["name"] = member["name"]
    return out


HARD_RUNS_FACTOR = 4
"""The counted audit runs this many times the fewest runs for power 0.8 against a rate δ: its power is then close
to 1, and each schedule factor of the sweep has runs enough to place the rate δ/2 within a step of √2."""
HARD_BLOCK_RUNS = 1024
"""Runs drawn in one vectorised batch (bounds the memory of a batch at the paper's schedules)."""


def hard_runs_needed(delta: float, reps: int = 20) -> int:
    """Runs of the counted audit: ``HARD_RUNS_FACTOR`` times the fewest for power 0.8 against a bad-pick rate δ
    (twice the δ/2 it allows), times ``reps`` // 20 (the chapter's ``selection_reps``: 20 at quick scale, 100 at
    full)."""
    return HARD_RUNS_FACTOR * runs_for_power(delta, delta / 2) * max(1, int(reps) // 20)


def hard_selection_glue(runs: pd.DataFrame, member: dict[str, object], delta: float) -> dict[str, object]:
    """The hard member's audit in numbers, for the text: its rival, z and bad-pick probability at the paper's
    schedules, the count against its limit and power, the measured safety factor (and the normal approximation's),
    the first factor with a bad pick, and the too-small schedule that fails the row."""
    from scipy.stats import norm

    facts = hard_member_hypotheses(member, delta)
    numbers = schedule_safety(runs, delta)
    exponent = round(float(norm.logsf(facts["z"]) / math.log(10)))
    superscript = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    predicted = (facts["z"] / float(norm.isf(delta / 2))) ** 2  # z shrinks like the square root of the factor

    def factor(value: float) -> str:
        return f"1/{value:.3g}" if math.isfinite(value) else "none of the factors swept"

    return {"ch4_hard_name": member["name"], "ch4_hard_share": facts["rival_share"], "ch4_hard_z": facts["z"],
            "ch4_hard_badpick": f"about 10{str(exponent).translate(superscript)}",
            "ch4_hard_eps": float(member["eps"]), "ch4_hard_runs": f"{numbers['runs']:,}", "ch4_hard_fail": numbers["fails"],
            "ch4_hard_allowed": numbers["allowed"], "ch4_hard_power": numbers["power"],
            "ch4_hard_safety": f"{numbers['safety']:.3g}" if math.isfinite(numbers["safety"]) else "not measured",
            "ch4_hard_predicted": f"{predicted:.3g}", "ch4_hard_onset": factor(numbers["onset"]),
            "ch4_hard_worse": factor(1 / numbers["worse_scale"]), "ch4_hard_worse_fails": numbers["worse_fails"],
            "ch4_hard_split_error": facts["split_error_over_eps"]}


def schedule_safety(runs: pd.DataFrame, delta: float) -> dict[str, float]:
    """The hard member's sweep in numbers: bad picks per schedule factor, the schedule's measured safety factor
    (1 / the largest factor whose share of runs with a bad pick reaches δ/2), and the too-small schedule (the
    largest factor whose count exceeds the counted row's limit: its worse output)."""
    counts = runs.groupby("scale")["failed"].agg(["sum", "size"]).sort_index(ascending=False)
    paper = counts.loc[1.0]
    allowed = _selection_allowed(int(paper["size"]), delta)
    rate = counts["sum"] / counts["size"]
    reaching = rate.index[rate >= delta / 2]
    over = counts.index[(counts["sum"] > allowed) & (counts["size"] == paper["size"])]
    worse = float(over.max()) if len(over) else float(counts.index.min())
    return {"runs": int(paper["size"]), "fails": int(paper["sum"]), "allowed": allowed,
            "power": count_row_power(int(paper["size"]), allowed, delta),
            "safety": 1 / float(reaching.max()) if len(reaching) else math.nan,
            "onset": 1 / float(counts.index[counts["sum"] > 0].max()) if (counts["sum"] > 0).any() else math.nan,
            "worse_scale": worse, "worse_fails": int(counts.loc[worse, "sum"]),
            "worse_runs": int(counts.loc[worse, "size"])}


def check_hard_selection(table: VerificationTable, runs: pd.DataFrame, member: dict[str, object],
                         delta: float) -> None:
    """Sec. 5.2 at the hard member: a count of runs with a bad pick against the binomial 99% quantile at δ/2,
    counted when it has power 0.8 against a rate δ; its worse output the same count at a schedule too small."""
    numbers = schedule_safety(runs, delta)
    facts = hard_member_hypotheses(member, delta)
    quantity = (f"{member['name']}: runs with a split below ¼ of the best exact score while error > ε, of "
                f"{numbers['runs']} (limit: binomial 99% quantile at δ/2; power {numbers['power']:.2f} against a "
                f"bad-pick rate δ)")
    where = (f"{member['name']}, ε = {float(member['eps']):.4f}: one acceptable pair (x1) and a rival at "
             f"{facts['rival_share']:.2f} of it, {facts['z']:.1f} standard errors below at M_S(1)")
    if numbers["power"] >= 0.8:
        scale = numbers["worse_scale"]
        table.theorem("Algorithm 2 (Sec. 5.2, ¼ selection)", quantity, float(numbers["fails"]),
                      float(numbers["allowed"]), reach=(0.0, float(numbers["runs"])), box="alg-mgbh-2",
                      measured_by=(practical_first_splits, analysis.influences), bound_by=_selection_allowed,
                      worst_case=where,
                      fails_under=(f"the schedules × 1/{1 / scale:.3g}, too small (the largest factor swept whose "
                                   f"count exceeds the limit)", float(numbers["worse_fails"])))
    else:
        table.observation("Algorithm 2 (Sec. 5.2, ¼ selection)", quantity, float(numbers["fails"]),
                          float(numbers["allowed"]), box="alg-mgbh-2", worst_case=where,
                          why=f"power {numbers['power']:.3f} against a bad-pick rate δ (a row needs 0.8)")
    table.observation("Algorithm 2 (Sec. 5.2, ¼ selection)",
                      "measured safety factor of M_S at the hard member: 1 / the largest schedule factor at which "
                      "runs pick below ¼ at the rate δ/2", numbers["safety"], 1.0, relation=">=", box="alg-mgbh-2",
                      worst_case=where,
                      why="a number the paper does not give: how far the schedule could shrink before the guarantee "
                          "fails at this member (below the paper's schedules nothing is claimed)")


def _selection_allowed(runs: int, delta: float) -> int:
    """99% quantile of the count of runs in which some selection falls below 1/4 (each run: probability <= delta/2)."""
    return int(binom.ppf(0.99, runs, delta / 2))


def clopper_pearson_lower(successes: int, trials: int, confidence: float = 0.95) -> float:
    """One-sided Clopper–Pearson lower confidence bound on a success probability."""
    if trials <= 0:
        raise ValueError(f"trials must be positive, got {trials}")
    return 0.0 if successes == 0 else float(beta.ppf(1 - confidence, successes, trials - successes + 1))


def selection_display(runs: pd.DataFrame, delta: float) -> pd.DataFrame:
    """Per member and schedule factor: runs, runs with a premise step, failures of the 1/4 rule, smallest share."""
    rows = []
    for (name, scale), d in runs.groupby(["name", "scale"], sort=False):
        live = d[d["premise_steps"] > 0]
        rows.append({"member": name, "schedule × ": f"{scale:g}" if scale >= 1 else f"1/{round(1 / scale)}",
                     "ε": float(d["eps"].iloc[0]), "runs": len(d), "runs with error > ε before a split": len(live),
                     "runs choosing < ¼ of the best": int(live["failed"].sum()),
                     "smallest chosen/best": float(live["premise_min_share"].min()) if len(live) else math.nan,
                     "runs with error > ε at the end": int((d["error"] > d["eps"]).sum())})
    return pd.DataFrame(rows)


def selection_glue(runs: pd.DataFrame, delta: float) -> dict[str, object]:
    """Glue values: failures at the paper's schedule against what δ/2 allows, the Clopper–Pearson bound, onset."""
    full = runs[(runs["scale"] == 1.0) & (runs["premise_steps"] > 0)]
    fails = int(full["failed"].sum())
    lower = runs[runs["scale"] < 1.0].groupby("scale")["failed"].sum()
    onset = [s for s, c in sorted(lower.items(), reverse=True) if c > 0]
    return {"ch4_sel_runs": len(full), "ch4_sel_fail": fails, "ch4_sel_allowed": _selection_allowed(len(full), delta),
            "ch4_sel_cp": clopper_pearson_lower(len(full) - fails, len(full)) if len(full) else math.nan,
            "ch4_sel_target": 1 - delta / 2,
            "ch4_sel_min_share": worst(full["premise_min_share"], "min") if len(full) else math.nan,
            "ch4_sel_onset": (f"at a factor of 1/{round(1 / onset[0])}" if onset else
                              f"at none of the factors swept (down to 1/{round(1 / min(lower.index))})" if len(lower)
                              else "nowhere: no smaller schedule was run")}


def check_selection(table: VerificationTable, runs: pd.DataFrame, delta: float) -> None:
    """Sec. 5.2 on the searched members: runs in which Algorithm 2 chose a pair below 1/4 of the best exact score,
    against δ/2, and the schedule sweep (observations: the counted row is :func:`check_hard_selection`'s)."""
    full = runs[(runs["scale"] == 1.0) & (runs["premise_steps"] > 0)]
    where = (f"{', '.join(runs['name'].unique())}: the first members found by searching all "
             f"{2 ** 2 ** 4:,} functions on 4 variables under {len(EXHAUSTIVE_MEASURES)} measures, first "
             f"{SELECTION_STEPS} steps, ε ≥ {SELECTION_EPS_FLOOR:g}, for the smallest z of a rival below ¼ of the "
             "best, plus a gated majority")
    allowed = _selection_allowed(len(full), delta)
    power = count_row_power(len(full), allowed, delta)
    quantity = (f"runs with a split below ¼ of the best exact score while error > ε, of {len(full)} "
                "(limit: binomial 99% quantile at δ/2)")
    # shown, not counted: the counted row is the hard member's (check_hard_selection), whose worse output (a
    # schedule too small) fails it; here bad picks need schedules near 1/512
    table.observation("Algorithm 2 (Sec. 5.2, ¼ selection)", quantity, float(full["failed"].sum()), float(allowed),
                      box="alg-mgbh-2", worst_case=where,
                      why=f"power {power:.3f} against a bad-pick rate δ = {delta:g}, twice the δ/2 it allows: the "
                          "searched members, whose acceptable pairs are several, are too easy to show a bad pick at "
                          "the paper's schedules; the hard member's row is the counted one")
    swept = runs[runs["scale"] < 1.0]
    if len(swept):
        table.observation("Algorithm 2 (Sec. 5.2, ¼ selection)",
                          "largest share of runs choosing below ¼, schedules scaled below the paper's",
                          float(swept.groupby("scale")["failed"].mean().max()), delta / 2,
                          why="below the paper's schedules the guarantee is not claimed: shows where failures start",
                          box="alg-mgbh-2")


def check_schedule_sweep(table: VerificationTable, runs: pd.DataFrame, delta: float) -> None:
    """[MGBH26] Lemma 5.3 and Lemma 5.4's Hoeffding step at every schedule factor, where they still apply.

    Both hold for any sample size (Lemma 5.3 for any m̂, the Hoeffding step for any error set), so
    the runs below the paper's schedules test them where their bounds are small enough to bite:
    Lemma 5.3 in runs whose gap bound at the labelling points used is below 1/2, Lemma 5.4 on every
    accepted tree.
    """
    where = f"the selection audit's runs, schedules × {', '.join(sorted({f'{s:g}' for s in runs['scale']}))}"
    ratio = (runs["error"] - runs["best_error"]) / runs["lemma53_bound"]
    bites = runs["lemma53_bound"] < 0.5
    if bites.any() and not worst(ratio[bites]) > 1e-9:
        table.observation("Lemma 5.3", f"max (error(T) − error(T*)) / gap bound at the labelling points used, "
                          f"{int(bites.sum())} runs whose bound is below 1/2", worst(ratio[bites]), 1.0,
                          box="lem-mgbh-5-3", worst_case=where,
                          why="error(T) = error(T*) to rounding in every run where the bound bites: the majority "
                              "labels were optimal, so the bound was never exercised")
    elif bites.any():
        # reach: any labelling of the bare tree errs at most 1 − error(T*) (the inverted best labels); the worse
        # output is that labelling at the worst run (the fault ch4-alg2-leaf-label-swapped: the minority labels)
        biting = runs[bites]
        k = int(np.argmax(ratio[bites].to_numpy()))
        inverted = (1 - biting["error"].iloc[k] - biting["best_error"].iloc[k]) / biting["lemma53_bound"].iloc[k]
        table.theorem("Lemma 5.3", f"max (error(T) − error(T*)) / gap bound at the labelling points used, "
                      f"{int(bites.sum())} runs whose bound is below 1/2", worst(ratio[bites]), 1.0,
                      reach=(0.0, worst((1 - 2 * biting["best_error"]) / biting["lemma53_bound"])), box="lem-mgbh-5-3",
                      measured_by="dtcore.tree.DecisionTree.truth_table", bound_by=bounds.mgbh26_lemma53_label_gap,
                      worst_case=where,
                      fails_under=("the worst run's tree with every leaf label inverted (the minority labels: the "
                                   "fault ch4-alg2-leaf-label-swapped)", float(inverted)))
    accepted = runs[runs["accepted"]]
    bad = accepted["error"] > 0.75 * accepted["eps"] + accepted["accept_slack"]
    rate = delta * math.pi ** 2 / 96
    power = count_row_power(len(accepted), accept_failures_allowed(len(accepted), delta), rate)
    table.observation("Lemma 5.4 (case 2)", f"accepted trees with exact error > 3ε/4 + Hoeffding slack of the error "
                      f"set used, of {len(accepted)} (limit: binomial 99% quantile)", float(bad.sum()),
                      float(accept_failures_allowed(len(accepted), delta)), box="lem-mgbh-5-4", worst_case=where,
                      why=f"power {power:.3f} against the rate δπ²/96 = {rate:.4f} it guards (a row needs 0.8)")


def selection_search_glue(runs: pd.DataFrame, candidates: pd.DataFrame) -> dict[str, object]:
    """The search behind the selection audit and the end of its schedule sweep, for the text: the smallest z
    found, the search's budget, the smallest schedule factor and its runs whose error exceeds ε."""
    sweep_end = runs[runs["scale"] == runs["scale"].min()]
    return {"ch4_sel_z": float(candidates["z"].min()), "ch4_sel_steps": SELECTION_STEPS,
            "ch4_sel_floor": SELECTION_EPS_FLOOR, "ch4_sweep_min_scale": f"1/{round(1 / float(runs['scale'].min()))}",
            "ch4_sweep_err_fail": int((sweep_end["error"] > sweep_end["eps"]).sum()), "ch4_sweep_runs": len(sweep_end)}


def runs_for_power(rate: float, null_rate: float, *, power: float = 0.8, confidence: float = 0.99,
                   max_runs: int = 100_000) -> int:
    """The fewest runs for which a count allowed up to its ``confidence`` binomial quantile at ``null_rate`` fails
    with probability ≥ ``power`` when runs fail independently at ``rate`` (0 when ``max_runs`` do not reach it)."""
    if not 0 < null_rate < rate < 1:
        raise ValueError(f"rate must lie in (null_rate, 1) with null_rate in (0, 1), got {rate!r} and {null_rate!r}")
    runs = np.arange(10, max_runs + 1)
    allowed = binom.ppf(confidence, runs, null_rate)
    reached = np.flatnonzero(binom.sf(allowed, runs, rate) >= power)
    return int(runs[reached[0]]) if len(reached) else 0


def selection_power_glue(runs: pd.DataFrame, delta: float, candidates: pd.DataFrame) -> dict[str, object]:
    """The audit's power in numbers: the bad-pick probability at the smallest z found (normal approximation), the
    count row's power against δ/2 itself, the runs it would need against twice that rate, and the measured safety
    factor of the paper's schedules (1 / the largest schedule factor at which a bad pick occurred)."""
    from scipy.stats import norm

    full = runs[(runs["scale"] == 1.0) & (runs["premise_steps"] > 0)]
    lower = runs[runs["scale"] < 1.0].groupby("scale")["failed"].sum()
    onset = [s for s, c in sorted(lower.items(), reverse=True) if c > 0]
    exponent = round(float(norm.logsf(float(candidates["z"].min())) / math.log(10)))
    superscript = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return {"ch4_sel_badpick": f"about 10{str(exponent).translate(superscript)}",
            "ch4_sel_power": count_row_power(len(full), _selection_allowed(len(full), delta), delta / 2),
            "ch4_sel_runs_needed": runs_for_power(delta, delta / 2),
            "ch4_sel_safety": f"about {round(1 / onset[0])}" if onset else
                              f"above {round(1 / min(lower.index))}" if len(lower) else "not measured"}
