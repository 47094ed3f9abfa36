"""[BGLT20] Theorem 5's t' at the hardest member found.

TopDownSizeEstimate's splits depend on S°, its labels and the minibatches (the shared order), never on
the strands; only the stop does. With the order fixed, the trees T_1, T_2, ... are fixed, the strand
estimate e_j of T_j is nondecreasing in j (a split only doubles 2^|l(x)| for the strands it divides),
and the run stops at the first j with e_j >= t. So t' < t - eta t exactly when e_a >= t, a the largest
size below t - eta t, and t' > t + eta t exactly when e_c < t, c the largest size at most t + eta t: the
failure probability over the strands depends only on the leaf depths of T_a and T_c, which this module
computes exactly (and by a normal approximation for the search).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats
from scipy.stats import binom

from dtcore import bounds
from dtcore.cube import ProductDistribution
from dtcore.exact_size import monotone_decision_list
from dtcore.functions import majority
from dtcore.local import LabelOracle, SharedDraws, top_down_size_estimate
from dtcore.topdown import depth_cap, minibatch_top_down, random_order
from dtcore.tree import DecisionTree
from ...report import VerificationTable
from .common import paper_depth_cap, probability_text, _tribes3
from .lemma_c1 import random_depth_profile, tree_from_depth_profile
from .theorem5 import _outside


def tprime_window(t: int, eta: float) -> tuple[int, int]:
    """(a, c): the largest tree size below t − ηt and the largest at most t + ηt ([BGLT20] Theorem 5's
    window t' in [t − ηt, t + ηt]); t' falls outside exactly when e_a >= t or e_c < t."""
    if int(t) != t or t < 2 or not 0 < eta < 0.5:
        raise ValueError(f"t must be an integer >= 2 and eta in (0, 1/2), got t = {t!r}, eta = {eta!r}")
    return int(math.ceil(t * (1 - eta) - 1e-9)) - 1, int(math.floor(t * (1 + eta) + 1e-9))


def split_depths(X: np.ndarray, y: np.ndarray, *, t: int, eta: float, batch_size: int, order: np.ndarray) -> np.ndarray:
    """The depths of the successive splits MiniBatchTopDown_G makes with TopDownSizeEstimate's depth cap D(t),
    minibatch size ``batch_size`` and shared ``order``, up to the size c of :func:`tprime_window`: split k
    turns a leaf of depth d_k into two of depth d_k + 1, so T_j is the tree after the first j − 1 splits.
    ``ValueError`` if the growth stops before c leaves."""
    _, c = tprime_window(t, eta)
    res = minibatch_top_down(X, y, size=c, batch_size=batch_size, order=order, depth=depth_cap(t))
    depths = res.trace["depth"].dropna().to_numpy(dtype=np.int64)
    if depths.size < c - 1:
        raise ValueError(f"the growth stopped at {depths.size + 1} leaves, below c = {c} (t = {t}, eta = {eta})")
    return depths[: c - 1]


def leaf_depth_profiles(depths: np.ndarray, sizes: Sequence[int]) -> np.ndarray:
    """Row k: the number of leaves at each depth of T_{sizes[k]}, the tree after the first sizes[k] − 1
    splits of depths ``depths`` (a cumulative sum of one-hot moves: −1 at d_k, +2 at d_k + 1)."""
    depths = np.asarray(depths, dtype=np.int64)
    sizes = np.asarray(sizes, dtype=np.int64)
    if depths.ndim != 1 or (depths < 0).any():
        raise ValueError(f"depths must be a 1-d array of non-negative split depths, got {depths!r}")
    if sizes.size == 0 or sizes.min() < 1 or sizes.max() > depths.size + 1:
        raise ValueError(f"sizes must lie in [1, {depths.size + 1}] (one more than the splits), got {sizes.tolist()}")
    height = int(depths.max(initial=-1)) + 2
    moves = np.zeros((depths.size + 1, height), dtype=np.int64)
    moves[0, 0] = 1
    steps = np.arange(1, depths.size + 1)
    moves[steps, depths] -= 1
    moves[steps, depths + 1] += 2
    return np.cumsum(moves, axis=0)[sizes - 1]


def _window_profiles(profiles: np.ndarray, m: int) -> np.ndarray:
    """The leaf-depth profiles of (T_a, T_c) as floats, checked: two rows and m >= 1."""
    profiles = np.asarray(profiles, dtype=np.float64)
    if profiles.shape[0] != 2 or int(m) < 1:
        raise ValueError(f"profiles must have two rows (T_a, T_c) and m >= 1, got shape {profiles.shape}, m = {m!r}")
    return profiles


def tprime_failure_normal(profiles: np.ndarray, *, t: int, eta: float, m: int) -> float:
    """log10 of the normal approximation to Pr[t' outside t(1 ± η)] with m uniform strands, from the leaf-depth
    profiles of (T_a, T_c) (:func:`tprime_window`): Pr[N(a, Var_a/m) >= t] + Pr[N(c, Var_c/m) < t], where
    Var_j(2^|ℓ(x)|) = Σ_leaves 2^|ℓ| − j² exactly for a uniform x. −inf when both variances are 0."""
    a, c = tprime_window(t, eta)
    profiles = _window_profiles(profiles, m)
    powers = 2.0 ** np.arange(profiles.shape[1])
    size = profiles @ np.ones(profiles.shape[1])
    if not np.array_equal(size, [a, c]):
        raise ValueError(f"the profiles have {size.tolist()} leaves, not (a, c) = ({a}, {c})")
    sd = np.sqrt(np.maximum(profiles @ powers - size**2, 0.0) / int(m))
    gap = np.array([t - a, c - t], dtype=float)  # how far each mean is from the stop threshold t
    with np.errstate(divide="ignore"):
        log_tails = np.where(sd > 0, stats.norm.logsf(gap / np.where(sd > 0, sd, 1.0)), -np.inf)
    return float(np.logaddexp.reduce(log_tails) / math.log(10))


def _strand_sum_pmf(profile: np.ndarray, m: int) -> np.ndarray:
    """The exact law of Σ over m uniform strands of 2^|ℓ(x)| (an integer), by the FFT of the one-strand law."""
    profile = np.asarray(profile, dtype=np.float64)
    values = 2 ** np.arange(profile.size)
    one = np.zeros(int(values[-1]) + 1)
    one[values] = profile * 2.0 ** -np.arange(profile.size)
    length = 1 << int(math.ceil(math.log2(m * (one.size - 1) + 1)))
    pmf = np.fft.irfft(np.fft.rfft(one, length) ** m, length)[: m * (one.size - 1) + 1]
    return np.clip(pmf, 0.0, None)


def tprime_failure_exact(profiles: np.ndarray, *, t: int, eta: float, m: int) -> float:
    """Pr[t' outside t(1 ± η)] with m uniform strands, exactly (up to the FFT's rounding, about 10⁻¹²):
    Pr[Σ 2^|ℓ_a(x_i)| >= m t] + Pr[Σ 2^|ℓ_c(x_i)| < m t], from the leaf-depth profiles of (T_a, T_c)."""
    a, c = tprime_window(t, eta)
    profiles = _window_profiles(profiles, m)
    early, late = (_strand_sum_pmf(p[: int(np.flatnonzero(p).max()) + 1], int(m)) for p in profiles)
    threshold = int(m) * int(t)
    return float(min(1.0, early[threshold:].sum() + late[:threshold].sum()))


def labelled_profile_tree(counts: np.ndarray, labels: np.ndarray, n: int) -> DecisionTree:
    """The tree of :func:`tree_from_depth_profile` with leaf values ``labels`` (0/1, in :meth:`DecisionTree.leaves`
    order): a target of Theorem 5's class with a chosen shape (a caterpillar, a complete subtree under a
    conjunction, ...)."""
    tree = tree_from_depth_profile(counts, n)
    labels = np.asarray(labels)
    if labels.shape != (tree.size,) or not np.isin(labels, (0, 1)).all():
        raise ValueError(f"labels must be {tree.size} values in {{0, 1}} (one per leaf), got {labels.tolist()}")
    for node, value in zip(tree.leaves(), labels):
        tree.set_value(node, float(value))
    return tree


#: Strand counts per factor in the demonstration of power: the paper's m divided by each.
STRAND_FACTORS = (1, 2, 4, 8, 16, 32)


@dataclass
class WorstTprime:
    """Theorem 5's t' at the hardest member found: the target (``target``, ``member``), its S° (``X``, ``y``)
    and shared order, the size t and the paper's m there, the score (log10 of the normal-approximation failure
    probability at m), the search budget and, per t, the best score of each kind of member (``per_t``)."""

    t: int
    m: int
    target: DecisionTree
    member: str
    X: np.ndarray
    y: np.ndarray
    order: np.ndarray
    score: float
    evaluated: int
    restarts: int
    per_t: pd.DataFrame
    references: dict[str, np.ndarray]


def _profile_moves(counts: np.ndarray, labels: np.ndarray, leaf_depth: np.ndarray, height: int, *,
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One random move of the search: split one leaf (or every leaf) of a depth, merge two leaves (or every
    pair) of a depth, flip one leaf's label, or flip every label of a depth; labels are kept by leaf
    position and padded with random bits when a move adds leaves."""
    kind = int(rng.integers(0, 6))
    c, lab = counts.copy(), labels.copy()
    splittable, mergeable = np.flatnonzero(c[:height] > 0), np.flatnonzero(c[1:] >= 2) + 1
    if kind in (0, 1) and splittable.size:
        d = int(rng.choice(splittable))
        moved = 1 if kind == 0 else int(c[d])
        c[d] -= moved
        c[d + 1] += 2 * moved
    elif kind in (2, 3) and mergeable.size:
        d = int(rng.choice(mergeable))
        pairs = 1 if kind == 2 else int(c[d] // 2)
        c[d] -= 2 * pairs
        c[d - 1] += pairs
    elif kind == 4:
        lab[int(rng.integers(0, lab.size))] ^= 1
    else:
        d = int(rng.choice(np.unique(leaf_depth)))
        lab = np.where(leaf_depth == d, 1 - lab, lab)
    size = int(c.sum())
    if size != lab.size:
        lab = np.concatenate([lab[:size], rng.integers(0, 2, size=max(0, size - lab.size))])
    return c, lab.astype(np.int64)


def profile_member_text(counts: np.ndarray, labels: np.ndarray) -> str:
    """A target of :func:`labelled_profile_tree` in words: its leaves per depth and its leaf labels."""
    counts, labels = np.asarray(counts, dtype=np.int64), np.asarray(labels, dtype=np.int64)
    deepest = int(np.flatnonzero(counts).max())
    if np.unique(labels).size == 1:  # every minibatch is pure: the splits are ties, broken by the leaves' restrictions
        return f"the constant target {int(labels[0])} (every minibatch pure, every split a tie)"
    return (f"the target tree of {int(counts.sum())} leaves with {', '.join(map(str, counts[: deepest + 1]))} leaves at "
            f"depths 0 to {deepest} and leaf labels {''.join(str(int(v)) for v in labels)}")


def worst_tprime_member(n: int, n_train: int, *, sizes: Sequence[int], eta: float, delta: float, s_mono: int,
                        restarts: int, steps: int, neighbours: int, rng: np.random.Generator) -> WorstTprime:
    """Random restarts plus hill climbing over Theorem 5's targets for the largest failure probability of
    t' in t(1 ± η) at the paper's m (:func:`bounds.bglt20_theorem5_strands`, b = m), for every t of ``sizes``.

    One S° of ``n_train`` uniform points and one shared order serve every candidate (the theorem holds for
    every S° and every order; only the strands are random). A candidate is scored exactly from its trees
    (:func:`split_depths`, :func:`leaf_depth_profiles`) by :func:`tprime_failure_normal`. Reference members:
    the constant 0, tribes (width 3), majority and a random monotone list of size ``s_mono``; searched members: trees of a
    leaf-depth profile (depth at most D(t) + 1 and n) with 0/1 leaves, ``restarts`` random starts per t, then
    ``steps`` steps of ``neighbours`` random moves (:func:`_profile_moves`), keeping the best."""
    if min(restarts, steps, neighbours) < 1 or not sizes:
        raise ValueError(f"restarts, steps and neighbours must be at least 1 and sizes non-empty, got "
                         f"{restarts}, {steps}, {neighbours}, {list(sizes)}")
    X = ProductDistribution.uniform(n).sample(n_train, rng=rng)
    order = random_order(n_train, rng=rng)
    # the constant target makes every minibatch pure, so every split is a tie broken by the leaves' restrictions
    references = {"constant 0": np.zeros(n_train, dtype=np.uint8),
                  "tribes (width 3)": _tribes3(X), "majority": majority(X, range(n - 1 + n % 2)),
                  f"random monotone list, s = {s_mono}": monotone_decision_list(n, s_mono, rng=rng).predict(X)}
    best: dict[str, object] = {"score": None}
    rows, evaluated = [], 0
    for t in sizes:
        m = int(math.ceil(bounds.bglt20_theorem5_strands(t, eta, delta)))
        a, c = tprime_window(t, eta)
        height = min(paper_depth_cap(t) + 1, n)

        def score(y: np.ndarray) -> float:
            try:
                depths = split_depths(X, y, t=t, eta=eta, batch_size=m, order=order)
            except ValueError:  # the growth stopped before c leaves: not a candidate
                return -math.inf
            return tprime_failure_normal(leaf_depth_profiles(depths, [a, c]), t=t, eta=eta, m=m)

        for name, y in references.items():
            s = score(y)
            evaluated += 1
            rows.append({"t": t, "m": m, "member": name, "kind": "reference", "score": s})
            if best["score"] is None or s > best["score"]:
                best = {"score": s, "t": t, "m": m, "target": None, "y": y,
                        "member": ("the constant target 0 (every minibatch pure, every split a tie)"
                                   if name == "constant 0" else f"the reference member {name}")}
        searched = -math.inf
        for _ in range(restarts):
            counts = random_depth_profile(height, rng=rng)
            labels = rng.integers(0, 2, size=int(counts.sum()))
            tree = labelled_profile_tree(counts, labels, n)
            current = score(tree.predict(X))
            evaluated += 1
            for _ in range(steps):
                leaf_depth = tree.leaf_depths()
                moves = [_profile_moves(counts, labels, leaf_depth, height, rng=rng) for _ in range(neighbours)]
                trees = [labelled_profile_tree(cm, lm, n) for cm, lm in moves]
                scores = [score(tr.predict(X)) for tr in trees]
                evaluated += len(moves)
                k = int(np.argmax(scores))
                if scores[k] > current:
                    (counts, labels), tree, current = moves[k], trees[k], scores[k]
            searched = max(searched, current)
            if current > best["score"]:
                best = {"score": current, "t": t, "m": m, "target": tree, "y": tree.predict(X),
                        "member": profile_member_text(counts, labels)}
        rows.append({"t": t, "m": m, "member": "searched trees (best)", "kind": "search", "score": searched})
    return WorstTprime(int(best["t"]), int(best["m"]), best["target"], str(best["member"]), X,
                       np.asarray(best["y"]), order, float(best["score"]), evaluated, restarts, pd.DataFrame(rows),
                       references)


def worst_tprime_failure(w: WorstTprime, m: int, *, eta: float) -> float:
    """The exact Pr[t' outside t(1 ± η)] at the worst member with m strands and b = m (its trees grown anew)."""
    a, c = tprime_window(w.t, eta)
    depths = split_depths(w.X, w.y, t=w.t, eta=eta, batch_size=int(m), order=w.order)
    return tprime_failure_exact(leaf_depth_profiles(depths, [a, c]), t=w.t, eta=eta, m=int(m))


def tprime_runs_at_worst(w: WorstTprime, *, eta: float, delta: float, runs: int, rng: np.random.Generator,
                         factors: Sequence[int] = STRAND_FACTORS) -> pd.DataFrame:
    """[BGLT20] Theorem 5 at the worst member: per strand count (the paper's m divided by each of ``factors``,
    and the depth form's m), ``runs`` runs of TopDownSizeEstimate with b = m, the member's S° and order, and
    fresh strands each run: the fraction with t' outside t(1 ± η), beside the exact probability."""
    counts = [(f"paper m / {k}" if k > 1 else "paper m", k,
               max(1, int(math.ceil(bounds.bglt20_theorem5_strands(w.t, eta, delta) / k)))) for k in factors]
    counts.append(("m with R = 2ᴰ⁺¹", 1, int(math.ceil(bounds.bglt20_theorem5_strands(w.t, eta, delta, "depth")))))
    n_train, n = w.X.shape
    oracle_labels = w.y
    rows = []
    for label, k, m in counts:
        sizes = []
        for _ in range(runs):
            draws = SharedDraws(w.order, ProductDistribution.uniform(n).sample(m, rng=rng))
            res = top_down_size_estimate(w.X, LabelOracle.from_labels(oracle_labels), size=w.t, batch_size=m, draws=draws)
            sizes.append(res.tree.size)
        ratio = np.asarray(sizes) / w.t
        rows.append({"strands": label, "factor": k, "m": m, "runs": runs,
                     "outside": float(_outside(pd.Series(ratio), eta).mean()),
                     "exact": worst_tprime_failure(w, m, eta=eta)})
    return pd.DataFrame(rows)


def strands_needed(w: WorstTprime, *, eta: float, delta: float) -> int:
    """The least m (b = m) at which the worst member's exact failure probability is at most ``delta``, by
    bisection between 1 and the paper's m (the probability is not exactly monotone in m, as the trees change
    with b; the bisection returns a crossing point)."""
    high = int(math.ceil(bounds.bglt20_theorem5_strands(w.t, eta, delta)))
    if worst_tprime_failure(w, high, eta=eta) > delta:
        return high  # the paper's m itself does not suffice
    low = 1
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if worst_tprime_failure(w, mid, eta=eta) > delta else (low, mid)
    return high


#: The factor by which the fault ``ch2-theorem5-strands-over-16`` divides the paper's strand count: the
#: smallest factor of :data:`STRAND_FACTORS` at which the worst member's exact failure probability exceeds
#: delta with room for the sampling error of the quick scale's runs (at every seed tried).
TPRIME_FAULT_FACTOR = 16


#: The violation rate the counted t' rows guard against, as a multiple of δ: a failure probability twice the
#: theorem's (issue 35: a statistical row states the rate it guards against and its power there).
VIOLATION_FACTOR = 2.0
#: The power a counted statistical row must reach at its stated violation rate.
POWER_TARGET = 0.8


def tprime_row_power(runs: int, delta: float, rate: float) -> float:
    """The probability that a t' row (the fraction of ``runs`` runs with t' outside t(1 ± η) against δ: it fails
    when more than ⌊δ · runs⌋ runs fall outside) fails when each run falls outside independently at ``rate``."""
    if int(runs) < 1 or not 0 < delta < 1 or not 0 <= rate <= 1:
        raise ValueError(f"runs must be >= 1, delta in (0, 1) and rate in [0, 1], got {runs!r}, {delta!r}, {rate!r}")
    allowed = int(math.floor(delta * int(runs) + 1e-9))
    return float(binom.sf(allowed, int(runs), rate))


def tprime_rate_for_power(runs: int, delta: float, power: float = POWER_TARGET) -> float:
    """The least failure rate at which a t' row of ``runs`` runs fails with probability ``power``
    (:func:`tprime_row_power` is increasing in the rate; bisection to 10⁻⁶)."""
    if not 0 < power < 1:
        raise ValueError(f"power must be in (0, 1), got {power!r}")
    low, high = float(delta), 1.0
    if tprime_row_power(runs, delta, high) < power:
        return math.nan
    while high - low > 1e-6:
        mid = (low + high) / 2
        low, high = (mid, high) if tprime_row_power(runs, delta, mid) < power else (low, mid)
    return high


def tprime_power(at_worst: pd.DataFrame, *, delta: float) -> dict[str, float]:
    """The power of the counted t' rows at the worst member: against the violation rate VIOLATION_FACTOR · δ, the
    least rate at which it reaches POWER_TARGET, and under the worse output (the paper's m divided by the largest
    factor of the power table: the fewest strands run) its factor, exact failure probability, the fraction of runs
    outside there and the power against that probability."""
    runs = int(at_worst["runs"].iloc[0])
    if not (at_worst["factor"] > 1).any():
        raise ValueError(f"at_worst must hold runs with the paper's m divided by a factor above 1 (the worse output), "
                         f"got factors {sorted(at_worst['factor'].unique().tolist())}")
    worse = at_worst.loc[at_worst["factor"].idxmax()]
    rate = VIOLATION_FACTOR * delta
    return {"runs": runs, "rate": rate, "power": tprime_row_power(runs, delta, min(rate, 1.0)),
            "rate_for_power": tprime_rate_for_power(runs, delta), "worse_m": int(worse["m"]),
            "worse_factor": int(worse["factor"]),
            "worse_exact": float(worse["exact"]), "worse_outside": float(worse["outside"]),
            "worse_power": tprime_row_power(runs, delta, float(worse["exact"]))}


def _worst_tprime_where(w: WorstTprime, runs: int) -> str:
    return (f"{w.member}, t = {w.t}, on {w.X.shape[0]:,} uniform points (one shared order): the largest failure "
            f"probability (normal approximation) of {w.evaluated:,} targets over t in {sorted(w.per_t['t'].unique().tolist())} "
            f"({w.restarts} random restarts per t + hill climbing; the constant 0, tribes, majority and a monotone list as "
            f"references); "
            f"{runs} runs with fresh strands")


def check_worst_tprime(table: VerificationTable, w: WorstTprime, at_worst: pd.DataFrame, *, needed: int, eta: float,
                       delta: float) -> None:
    """Rows of [BGLT20] Theorem 5 at the worst member found: the fraction of runs with t' outside t(1 ± η)
    against δ at the paper's m and at the depth form's m (counted), and how loose the paper's m is there
    (observations: the least m whose exact failure probability is at most δ, and that probability at m)."""
    power = tprime_power(at_worst, delta=delta)
    power_note = (f"power {power['power']:.3f} against a failure rate {VIOLATION_FACTOR:g}δ = {power['rate']:g} "
                  f"({power['runs']} runs); {POWER_TARGET:g} from a rate of {power['rate_for_power']:.3f}; under the "
                  f"worse output (exact failure probability {power['worse_exact']:.3f}) {power['worse_power']:.3f}")
    for row in at_worst[at_worst["factor"] == 1].itertuples():
        table.theorem("Theorem 5 (t' in t(1 ± eta))",
                      f"fraction of runs with t' outside t(1 ± {eta}), worst target found, t = {w.t}, {row.strands}, m = {row.m}",
                      row.outside, delta, reach=(0.0, 1.0), box="thm-bglt-2",
                      measured_by=top_down_size_estimate, bound_by="δ (the theorem's confidence, a chapter parameter)",
                      worst_case=_worst_tprime_where(w, int(row.runs)), note=power_note,
                      fails_under=(f"the paper's m / {power['worse_factor']} = {power['worse_m']} strands (b = m, a sample "
                                   f"too small), the same runs", power["worse_outside"]))
    paper = at_worst[at_worst["strands"] == "paper m"].iloc[0]
    table.observation("Theorem 5 (t' in t(1 ± eta))",
                      f"least m (b = m) with exact Pr[t' outside t(1 ± {eta})] ≤ δ at the worst target, against the paper's m",
                      needed, int(paper["m"]), box="thm-bglt-2", worst_case=w.member,
                      why="how loose the paper's strand count is at the worst member found (bisection on the exact "
                          "probability); the counted rows above are the check")
    table.observation("Theorem 5 (t' in t(1 ± eta))",
                      f"exact Pr[t' outside t(1 ± {eta})] at the worst target, paper's m = {int(paper['m'])}",
                      float(paper["exact"]), delta, box="thm-bglt-2", worst_case=w.member,
                      why="the probability the counted row estimates, computed from the leaf depths of the two trees "
                          "that decide the stop; shown for its room, not counted")


def worst_tprime_search_table(w: WorstTprime) -> pd.DataFrame:
    """Per t: the paper's m and the failure probability (normal approximation) of each reference member and of
    the best searched tree, for the page."""
    wide = w.per_t.assign(p=lambda df: [probability_text(10.0**s) if s > -300 else "below 10⁻³⁰⁰"
                                         for s in df["score"]])
    out = wide.pivot(index=["t", "m"], columns="member", values="p").reset_index()
    order = ["t", "m"] + [c for c in wide["member"].unique()]
    out = out[order].rename(columns={"m": "paper's m"})
    out.columns.name = None
    return out


def tprime_power_table(at_worst: pd.DataFrame, *, delta: float) -> pd.DataFrame:
    """Per strand count at the worst member: m, the exact failure probability, the fraction of runs outside
    t(1 ± η) and whether the row would hold (fraction ≤ δ)."""
    return pd.DataFrame({"strand count": at_worst["strands"], "m = b": at_worst["m"],
                         "exact Pr[t′ outside]": [probability_text(p) for p in at_worst["exact"]],
                         "fraction of runs outside": at_worst["outside"],
                         "row": np.where(at_worst["outside"] > delta, "fails", "holds")})


def worst_tprime_glue(w: WorstTprime, at_worst: pd.DataFrame, *, needed: int, delta: float, steps: int,
                      neighbours: int) -> dict[str, object]:
    """The numbers the text of Theorem 5 at its worst member quotes, by glue name."""
    paper = at_worst[at_worst["strands"] == "paper m"].iloc[0]
    depth = at_worst[at_worst["factor"] == 1].iloc[-1]
    by_factor = at_worst[at_worst["strands"] != depth["strands"]].set_index("factor")
    failing = by_factor[by_factor["outside"] > delta]
    fault = by_factor.loc[TPRIME_FAULT_FACTOR] if TPRIME_FAULT_FACTOR in by_factor.index else None
    return {"ch2_t5w_member": w.member, "ch2_t5w_t": w.t, "ch2_t5w_m": int(paper["m"]),
            "ch2_t5w_score": probability_text(10.0**w.score), "ch2_t5w_exact": probability_text(float(paper["exact"])),
            "ch2_t5w_depth_m": int(depth["m"]), "ch2_t5w_depth_exact": probability_text(float(depth["exact"])),
            "ch2_t5w_outside": float(paper["outside"]), "ch2_t5w_runs": int(paper["runs"]),
            "ch2_t5w_outside_sentence": (f"not one of {int(paper['runs'])} runs with fresh strands fell outside t(1 ± η): "
                                         "at the paper's m the failure rate is 0 even there"
                                         if paper["outside"] == 0 else
                                         f"a fraction {paper['outside']:.2f} of {int(paper['runs'])} runs with fresh "
                                         f"strands fell outside t(1 ± η)"),
            "ch2_t5w_n_train": f"{w.X.shape[0]:,}",
            "ch2_t5w_loose_sentence": (f"the paper's m is loose even at the worst target found: the least m at which its exact "
                                       f"probability is at most δ is {needed}, {float(paper['m']) / needed:.1f} times fewer "
                                       f"strands than the paper's {int(paper['m'])}" if needed < paper["m"] else
                                       f"the paper's m = {int(paper['m'])} is not enough at the worst target found: its exact "
                                       f"probability there exceeds δ"),
            "ch2_t5w_budget": f"{w.evaluated:,}", "ch2_t5w_restarts": w.restarts, "ch2_t5w_steps": steps,
            "ch2_t5w_neighbours": neighbours, "ch2_t5w_needed": needed,
            "ch2_t5w_loose": float(paper["m"]) / needed,
            "ch2_t5w_fail_factor": int(failing.index.min()) if len(failing) else "none of the table's",
            "ch2_t5w_fault_factor": TPRIME_FAULT_FACTOR,
            "ch2_t5w_fault_outside": float(fault["outside"]) if fault is not None else float("nan"),
            "ch2_t5w_fault_exact": probability_text(float(fault["exact"])) if fault is not None else "—",
            "ch2_t5w_power_target": POWER_TARGET,
            **{f"ch2_t5w_power_{k}": v for k, v in tprime_power(at_worst, delta=delta).items()}}


def reference_scores(w: WorstTprime, *, sizes: Sequence[int], eta: float, delta: float) -> pd.DataFrame:
    """Per t, the score (log10 of the normal-approximation failure probability at the paper's m) of each
    reference member, recomputed here from its labels on the search's S° and order, outside the
    search's loop, beside the best tree the search's moves reached (``per_t``)."""
    rows = []
    for t in sizes:
        m = int(math.ceil(bounds.bglt20_theorem5_strands(t, eta, delta)))
        a, c = tprime_window(t, eta)
        searched = w.per_t.loc[(w.per_t["t"] == t) & (w.per_t["kind"] == "search"), "score"]
        for name, y in w.references.items():
            depths = split_depths(w.X, y, t=t, eta=eta, batch_size=m, order=w.order)
            rows.append({"t": t, "member": name,
                         "reference": tprime_failure_normal(leaf_depth_profiles(depths, [a, c]), t=t, eta=eta, m=m),
                         "searched": float(searched.iloc[0])})
    return pd.DataFrame(rows)


#: How close (log10 of the failure probability) the searched trees must come to the constant target, which their
#: class contains (a tree with one label everywhere): a factor 10^0.05 = 1.12. The search at this page's budget
#: came within 0.02 at seeds 0 and 3; with its comparison flipped it stops 0.17 short at t = 64.
CONSTANT_SLACK = 0.05


def check_tprime_search(table: VerificationTable, w: WorstTprime, refs: pd.DataFrame) -> None:
    """Identities per t on Theorem 5's search over labelled leaf-depth profiles: the best tree its moves reached is
    at least as hard (log10 failure probability) as every non-constant reference member, and within
    :data:`CONSTANT_SLACK` of the constant target, a member of its own class."""
    for t, grp in refs.groupby("t"):
        constant = grp[grp["member"].str.startswith("constant")].iloc[0]
        table.identity("Theorem 5 (worst member search)",
                       f"shortfall of the searched trees below the constant target (in their class: one label), "
                       f"log10 Pr[t' outside], t = {t}",
                       max(float(constant["reference"]) - float(constant["searched"]), 0.0), CONSTANT_SLACK,
                       box="thm-bglt-2", computed_by=(worst_tprime_member, tprime_failure_normal),
                       worst_case=f"{w.restarts} random restarts per t + hill climbing; {w.evaluated:,} targets in all",
                       note="tolerance: a factor 10^0.05 = 1.12 in probability")
        grp = grp[~grp["member"].str.startswith("constant")]
        top = grp.loc[grp["reference"].idxmax()]
        table.identity("Theorem 5 (worst member search)",
                       f"shortfall of the searched trees below the hardest non-constant reference ({top['member']}), "
                       f"log10 Pr[t' outside], t = {t}",
                       max(float(top["reference"]) - float(top["searched"]), 0.0), 1e-9, box="thm-bglt-2",
                       computed_by=(worst_tprime_member, tprime_failure_normal),
                       worst_case=f"{w.restarts} random restarts per t + hill climbing; {w.evaluated:,} targets in all")
