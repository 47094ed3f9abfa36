"""Top-down learning under product distributions (Moakhar–Ghahremani–Banihashem–Hajiaghayi 2026).

Two learners, both on the shared growth loop :func:`dtcore.grow.grow`:

* the *robust* BuildTopDownDT of Theorem 5.1 — exact scores, but the split leaf may be any leaf
  whose score is at least a quarter of the best one; :func:`dtcore.grow.select_quarter_adversarial` makes
  the choice adversarially (the eligible leaf with the *smallest* score, which lowers the cost
  potential the least and so grows the largest trees). Plug it into
  ``build_top_down_dt(..., kind="rerandomised", select=select_quarter_adversarial)``;
* Algorithm 2, PracticalBuildTopDownDT (:func:`practical_build_top_down_dt`): scores estimated
  by the unbiased estimator of Equation (1) from sample pairs (x, x^(i)), leaf labels by majority
  on a second sample, termination by the estimated error on a third, with the three sample
  schedules M_S, M_LL, M_EE of Section 5 / Appendix B grown as the tree grows.

Runs are measured from the outside in :mod:`dtcore.audit` (replays, exact errors, label counts).

Everything is vectorised over samples: a top-up draws one block of points, evaluates the label
oracle on it once, and routes it through the tree with :meth:`DecisionTree.apply`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .cube import ProductDistribution, point_index
from .grow import Frontier, Split, grow
from .tree import DecisionTree
from .validate import check_binary_matrix, check_int, check_real, check_rng

Oracle = Callable[[np.ndarray], np.ndarray]
"""A label oracle: ``f(X)`` for an ``(m, n)`` 0/1 array returns the m labels in {0,1}."""

MAX_PRACTICAL_VARIABLES = 62
"""Algorithm 2 stores each kept sample as one int64 bit code, so n <= 62."""

_CHUNK_ROWS = 1 << 19  # rows drawn per block (fixed, so the random stream does not depend on sizes)


# --- the sample schedules of Section 5 / Appendix B ------------------------------------------

def _check_schedule(j: int, eps: float, delta: float) -> tuple[int, float, float]:
    return (check_int("j", j, 1), check_real("eps", eps, 0.0, 1.0),
            check_real("delta", delta, 0.0, 1.0))


def m_score(j: int, delta: float, eps: float, n: int) -> float:
    """M_S(j, delta, eps, n) = 12 (j+1) n / eps * ln(4 j^2 (j+1) n / delta): sample pairs per variable.

    Moakhar et al. 2026, Sec. 5.2 (score estimation, multiplicative Chernoff + union bound).
    """
    j, eps, delta = _check_schedule(j, eps, delta)
    n = check_int("n", n, 1)
    return 12.0 * (j + 1) * n / eps * math.log(4.0 * j * j * (j + 1) * n / delta)


def m_label(j: int, eps: float, delta: float) -> float:
    """M_LL(j, eps, delta) = 128 ((j+1) ln 2 + ln(16 j^2 / delta)) / eps^2: leaf-labelling samples.

    Moakhar et al. 2026, Sec. 5.3 (Lemma 5.3 with excess error eps/8).
    """
    j, eps, delta = _check_schedule(j, eps, delta)
    return 128.0 * ((j + 1) * math.log(2.0) + math.log(16.0 * j * j / delta)) / eps**2


def m_error(j: int, eps: float, delta: float) -> float:
    """M_EE(j, eps, delta) = 32 / eps^2 * ln(16 j^2 / delta): error-estimation samples (Lemma 5.4)."""
    j, eps, delta = _check_schedule(j, eps, delta)
    return 32.0 / eps**2 * math.log(16.0 * j * j / delta)


# --- drawing and routing ---------------------------------------------------------------------

def _draw_sensitive_pairs(dist: ProductDistribution, oracle: Oracle, pairs_per_variable: int,
                          *, rng: np.random.Generator, rows_out: list[np.ndarray] | None = None,
                          ) -> tuple[np.ndarray, np.ndarray, int]:
    """Draw ``pairs_per_variable`` pairs (x, x^(i)) for every variable i (Equation (1)).

    x ~ mu and x^(i) is x with x_i redrawn from mu_i. Returns the points x and variables i of the
    *sensitive* pairs (f(x) != f(x^(i))) — the only pairs with a non-zero term in Equation (1) —
    and the number of label queries made. A pair whose redrawn bit equals the old one has
    x^(i) = x and cannot be sensitive, so f is not queried on it. Pair k (k = 0, 1, ...) is row
    k of the draw, for variable k mod n; with ``rows_out`` (a list) the rows of the kept pairs are
    appended to it as one array (the draw itself does not change).
    """
    n = dist.n
    total = pairs_per_variable * n
    kept_x, kept_var, kept_rows, queries = [], [], [], 0
    for start in range(0, total, _CHUNK_ROWS):  # fixed-size blocks of rows, vectorised inside
        rows = min(_CHUNK_ROWS, total - start)
        var = (np.arange(start, start + rows) % n).astype(np.int64)
        X = dist.sample(rows, rng=rng)
        fresh = (rng.random(rows) < dist.p[var]).astype(np.uint8)
        moved = np.flatnonzero(fresh != X[np.arange(rows), var])
        Xa = X[moved]
        Xb = Xa.copy()
        Xb[np.arange(moved.size), var[moved]] = fresh[moved]
        ya, yb = np.asarray(oracle(Xa)), np.asarray(oracle(Xb))
        queries += 2 * moved.size
        sens = ya != yb
        kept_x.append(Xa[sens])
        kept_var.append(var[moved][sens])
        kept_rows.append(start + moved[sens])
    X_out = np.concatenate(kept_x) if kept_x else np.zeros((0, n), np.uint8)
    v_out = np.concatenate(kept_var) if kept_var else np.zeros(0, np.int64)
    if rows_out is not None:
        rows_out.append(np.concatenate(kept_rows).astype(np.int64) if kept_rows else np.zeros(0, np.int64))
    return X_out, v_out, queries


def _draw_sensitive_pairs_shared(dist: ProductDistribution, oracle: Oracle, pairs_per_variable: int,
                                 *, rng: np.random.Generator, skip_unchanged: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """The paper's Sec. 5.2 drawing: one x ~ mu shared by its n pairs (x, x^(i)), i = 1..n.

    As :func:`_draw_sensitive_pairs` (same return values), but every drawn x serves all n variables:
    f(x) is queried once per x and f(x^(i)) once per variable. With ``skip_unchanged`` the pairs whose
    redrawn bit equals the old one are not queried (x^(i) = x), and f(x) only when some bit moved;
    without it every f(x^(i)) is queried, as the paper's estimator is written: n + 1 labels per x.
    """
    n = dist.n
    kept_x, kept_var, queries = [], [], 0
    block = max(1, _CHUNK_ROWS // n)
    for start in range(0, pairs_per_variable, block):  # fixed-size blocks of points, vectorised inside
        rows = min(block, pairs_per_variable - start)
        X = dist.sample(rows, rng=rng)
        fresh = (rng.random((rows, n)) < dist.p[None, :]).astype(np.uint8)
        moved = fresh != X
        point, var = np.nonzero(moved)
        Xb = X[point]
        Xb[np.arange(point.size), var] = fresh[point, var]
        base = np.asarray(oracle(X))
        yb = np.asarray(oracle(Xb))
        if skip_unchanged:
            queries += int(moved.any(axis=1).sum()) + point.size
        else:
            queries += rows * (n + 1)
        sens = base[point] != yb
        kept_x.append(X[point[sens]])
        kept_var.append(var[sens].astype(np.int64))
    X_out = np.concatenate(kept_x) if kept_x else np.zeros((0, n), np.uint8)
    v_out = np.concatenate(kept_var) if kept_var else np.zeros(0, np.int64)
    return X_out, v_out, queries


def estimate_scores(tree: DecisionTree, oracle: Oracle, dist: ProductDistribution, m: int,
                    *, rng: np.random.Generator) -> np.ndarray:
    """The estimator of Equation (1) for every leaf and variable, from m pairs per variable.

    Returns an ``(L, n)`` array (leaves in ``tree.leaves()`` order) of
    (1/m) * #{pairs (x, x^(i)) with x and x^(i) both reaching l and f(x) != f(x^(i))}, an
    unbiased estimate of Score(l, i) = Pr[x reaches l] * Inf_i^mu(f_l) (Moakhar et al. 2026,
    Lemma 5.2). Both points reach l exactly when x does and i is not queried on l's path.
    """
    if not isinstance(tree, DecisionTree) or tree.has_stochastic_nodes:
        raise ValueError("tree must be a DecisionTree without stochastic nodes")
    if not isinstance(dist, ProductDistribution) or dist.n != tree.n:
        raise ValueError(f"dist must be a ProductDistribution on n = {tree.n} coordinates")
    m = check_int("m", m, 1)
    rng = check_rng(rng)
    X, var, _ = _draw_sensitive_pairs(dist, oracle, m, rng=rng)
    leaves = tree.leaves()
    pos = np.full(tree.node_count, -1, dtype=np.int64)
    pos[leaves] = np.arange(len(leaves))
    at = pos[tree.apply(X)] if X.shape[0] else np.zeros(0, np.int64)
    counts = np.bincount(at * tree.n + var, minlength=len(leaves) * tree.n).reshape(len(leaves), tree.n)
    counts = counts.astype(np.float64) / m
    counts[tree.leaf_restrictions() >= 0] = 0.0
    return counts


# --- Algorithm 2: PracticalBuildTopDownDT ----------------------------------------------------

class _Pool:
    """A growing set of kept samples: bit codes, the scorer's leaf id, and one small int column."""

    def __init__(self) -> None:
        self.code = np.zeros(0, np.int64)
        self.leaf = np.zeros(0, np.int64)
        self.col = np.zeros(0, np.int64)

    def add(self, code: np.ndarray, leaf: np.ndarray, col: np.ndarray) -> None:
        self.code = np.concatenate([self.code, code])
        self.leaf = np.concatenate([self.leaf, leaf])
        self.col = np.concatenate([self.col, col.astype(np.int64)])

    def partition(self, leaf: int, feature: int, c0: int, c1: int) -> None:
        """Algorithm 2 line 24: the samples at ``leaf`` go to the child their x_feature picks."""
        at = np.flatnonzero(self.leaf == leaf)
        bit = (self.code[at] >> np.int64(feature)) & 1
        self.leaf[at] = np.where(bit == 1, c1, c0)


class PracticalScorer:
    """Algorithm 2 of Moakhar et al. 2026 as a scorer + stop rule for :func:`dtcore.grow.grow`.

    A leaf's state is an integer id; the kept samples carry the id of the leaf they reach. The
    stop rule is Algorithm 2's loop head: it first tops every sample set up to the schedule of
    the current step j (= number of leaves; lines 2–6 and 26–32), re-estimates every leaf's best
    split and label (lines 9–13), and then tests line 15,
    sum_v mc_v <= (3 eps / 4) * |S^EE|.
    """

    def __init__(self, oracle: Oracle, dist: ProductDistribution, eps: float, delta: float,
                 *, rng: np.random.Generator, shared_x: bool = False, skip_unchanged: bool = True,
                 schedule_scale: float = 1.0) -> None:
        self.oracle = oracle
        self.shared_x = shared_x
        self.skip_unchanged = skip_unchanged
        self.schedule_scale = schedule_scale
        self.dist = dist
        self.n = dist.n
        self.eps = eps
        self.delta = delta
        self.rng = rng
        self.pairs = _Pool()   # sensitive score pairs: col = variable i
        self.ll = _Pool()      # leaf-labelling sample: col = f(x)
        self.ee = _Pool()      # error-estimation sample: col = f(x)
        self.pairs_per_variable = 0
        self.label_queries = 0
        self.next_id = 1
        self.history: list[dict[str, float]] = []
        self._scores = np.zeros((1, self.n))
        self._ll_counts = np.zeros((1, 2))
        self.estimated_error = math.nan

    # Scorer protocol
    def root(self) -> int:
        return 0

    def best_split(self, state: int) -> Split | None:
        if state >= self._scores.shape[0]:
            return None
        row = self._scores[state]
        i = int(np.argmax(row))
        return Split(float(row[i]), i) if row[i] > 0 else None

    def children(self, state: int, feature: int) -> tuple[int, int]:
        c0, c1 = self.next_id, self.next_id + 1
        self.next_id += 2
        for pool in (self.pairs, self.ll, self.ee):
            pool.partition(state, feature, c0, c1)
        return c0, c1

    def label(self, state: int) -> float:
        if state >= self._ll_counts.shape[0]:
            return 0.0
        zeros, ones = self._ll_counts[state]
        return 1.0 if ones >= zeros else 0.0

    # sampling
    def _route(self, tree: DecisionTree, lookup: np.ndarray, X: np.ndarray) -> np.ndarray:
        return lookup[tree.apply(X)] if X.shape[0] else np.zeros(0, np.int64)

    def _top_up_labelled(self, pool: _Pool, target: int, tree: DecisionTree, lookup: np.ndarray) -> None:
        need = target - pool.code.size
        if need <= 0:
            return
        X = self.dist.sample(need, rng=self.rng)
        y = np.asarray(self.oracle(X))
        self.label_queries += need
        pool.add(point_index(X), self._route(tree, lookup, X), y)

    def top_up(self, frontier: Frontier) -> None:
        """Draw new samples so that every set meets the schedule of step j = #leaves."""
        j = len(frontier.nodes)
        tree = frontier.tree
        lookup = np.full(tree.node_count, -1, dtype=np.int64)
        lookup[frontier.nodes] = frontier.states
        scale = self.schedule_scale
        need = math.ceil(scale * m_score(j, self.delta, self.eps, self.n)) - self.pairs_per_variable
        if need > 0:
            if self.shared_x:
                X, var, q = _draw_sensitive_pairs_shared(self.dist, self.oracle, need, rng=self.rng, skip_unchanged=self.skip_unchanged)
            else:
                X, var, q = _draw_sensitive_pairs(self.dist, self.oracle, need, rng=self.rng)
                if not self.skip_unchanged:  # every pair queried twice, moved or not
                    q = 2 * need * self.n
            self.label_queries += q
            self.pairs_per_variable += need
            self.pairs.add(point_index(X), self._route(tree, lookup, X), var)
        self._top_up_labelled(self.ll, math.ceil(scale * m_label(j, self.eps, self.delta)), tree, lookup)
        self._top_up_labelled(self.ee, math.ceil(scale * m_error(j, self.eps, self.delta)), tree, lookup)

    def refresh(self, frontier: Frontier) -> None:
        """Lines 9–15 of Algorithm 2: top up the samples, re-estimate every score, relabel the leaves."""
        self.top_up(frontier)
        ids = self.next_id
        n = self.n
        counts = np.bincount(self.pairs.leaf * n + self.pairs.col, minlength=ids * n).reshape(ids, n)
        self._scores = counts / float(self.pairs_per_variable)
        restrictions = frontier.tree.leaf_restrictions()
        order = {node: k for k, node in enumerate(frontier.tree.leaves())}
        for k, (node, state) in enumerate(zip(frontier.nodes, frontier.states)):
            self._scores[state, restrictions[order[node]] >= 0] = 0.0  # x, x^(i) cannot both reach
        self._ll_counts = np.bincount(self.ll.leaf * 2 + self.ll.col, minlength=ids * 2).reshape(ids, 2)
        ee_counts = np.bincount(self.ee.leaf * 2 + self.ee.col, minlength=ids * 2).reshape(ids, 2)
        mistakes = 0
        for k, (node, state) in enumerate(zip(frontier.nodes, frontier.states)):
            frontier.splits[k] = self.best_split(state)
            lab = self.label(state)
            frontier.tree.set_value(node, lab)
            mistakes += int(ee_counts[state, 0 if lab == 1.0 else 1])
        self.mistakes = mistakes
        self.estimated_error = mistakes / self.ee.code.size
        self.history.append({
            "j": len(frontier.nodes), "pairs_per_variable": self.pairs_per_variable,
            "score_pairs": self.pairs_per_variable * n, "ll_samples": self.ll.code.size,
            "ee_samples": self.ee.code.size, "label_queries": self.label_queries,
            "estimated_error": self.estimated_error, "terminate": self.stop(frontier),
        })

    def stop(self, frontier: Frontier) -> bool:
        """Line 16 of Algorithm 2: stop once the estimated error is at most 3ε/4 (after :meth:`refresh`)."""
        return self.mistakes <= 0.75 * self.eps * self.ee.code.size


def practical_first_splits(oracle: Oracle, dist: ProductDistribution, *, eps: float, delta: float, runs: int,
                           rng: np.random.Generator, schedule_scale: float = 1.0) -> dict[str, np.ndarray]:
    """The first step (j = 1) of ``runs`` independent runs of Algorithm 2 at once (Moakhar et al. 2026, Sec. 5.2).

    Every run does what :class:`PracticalScorer` does at j = 1, vectorised over the runs: it draws
    ceil(scale M_S(1)) pairs per variable with Algorithm 2's own drawing (:func:`_draw_sensitive_pairs`;
    run r owns rows [r P n, (r + 1) P n) of one draw, P the pairs per variable), ceil(scale M_LL(1))
    labelling and ceil(scale M_EE(1)) error points; it estimates every score by Equation (1) (the
    sensitive pairs of variable i over P), labels the root by the labelling set's majority (ties: 1),
    stops when at most 3 eps/4 of its error points disagree with that label (line 16), and otherwise
    splits the root on the variable of largest estimate (the first on ties) if that estimate is
    positive. The runs draw from one stream in a different order than ``runs`` sequential calls of
    :func:`practical_build_top_down_dt` would, so they are equal in distribution, not bit for bit.

    Returns ``feature`` (``(runs,)``, the variable split, -1 when the run stopped or no estimate was
    positive), ``scores`` (``(runs, n)`` estimates) and ``stopped`` (``(runs,)`` bool).
    """
    if not isinstance(dist, ProductDistribution):
        raise ValueError(f"dist must be a ProductDistribution, got {type(dist).__name__}")
    n = check_int("n", dist.n, 1, MAX_PRACTICAL_VARIABLES)
    eps = check_real("eps", eps, 0.0, 1.0)
    delta = check_real("delta", delta, 0.0, 1.0)
    runs = check_int("runs", runs, 1)
    rng = check_rng(rng)
    if not callable(oracle):
        raise ValueError(f"oracle must be a callable f(X) -> labels, got {type(oracle).__name__}")
    scale = check_real("schedule_scale", schedule_scale, 0.0, math.inf)
    pairs = math.ceil(scale * m_score(1, delta, eps, n))
    rows: list[np.ndarray] = []
    _, var, _ = _draw_sensitive_pairs(dist, oracle, pairs * runs, rng=rng, rows_out=rows)
    run_of = rows[0] // (pairs * n)
    scores = np.bincount(run_of * n + var, minlength=runs * n).reshape(runs, n) / float(pairs)
    labelled = np.asarray(oracle(dist.sample(runs * math.ceil(scale * m_label(1, eps, delta)), rng=rng)))
    ones = labelled.reshape(runs, -1).sum(axis=1)
    label = (2 * ones >= labelled.size // runs).astype(np.int64)  # ones >= zeros
    checked = np.asarray(oracle(dist.sample(runs * math.ceil(scale * m_error(1, eps, delta)), rng=rng)))
    checked = checked.reshape(runs, -1)
    mistakes = (checked != label[:, None]).sum(axis=1)
    stopped = mistakes <= 0.75 * eps * checked.shape[1]
    best = scores.argmax(axis=1)
    feature = np.where(~stopped & (scores[np.arange(runs), best] > 0), best, -1)
    return {"feature": feature, "scores": scores, "stopped": stopped}


@dataclass(frozen=True)
class PracticalResult:
    """Output of :func:`practical_build_top_down_dt`: the labelled tree and what it cost.

    ``trace`` has one row per step j: the split made and the sample sizes at that step.
    ``samples`` = n * |E_i| score pairs + |S^LL| + |S^EE| (a pair counts once);
    ``label_queries`` = evaluations of the oracle f. ``terminated`` is False when the run
    stopped because no estimated score was positive or ``size`` leaves were reached.
    """

    tree: DecisionTree
    trace: pd.DataFrame
    score_pairs: int
    ll_samples: int
    ee_samples: int
    label_queries: int
    estimated_error: float
    terminated: bool

    @property
    def samples(self) -> int:
        """All sample points drawn (each score pair counted once)."""
        return self.score_pairs + self.ll_samples + self.ee_samples


def practical_build_top_down_dt(
    oracle: Oracle,
    dist: ProductDistribution,
    *,
    eps: float,
    delta: float,
    rng: np.random.Generator,
    size: int | None = None,
    shared_x: bool = False,
    skip_unchanged: bool = True,
    schedule_scale: float = 1.0,
) -> PracticalResult:
    """PracticalBuildTopDownDT (Moakhar et al. 2026, Algorithm 2, Appendix B), parameter-free.

    Needs only a label oracle ``f`` and samples from the product distribution ``dist``; no
    knowledge of the target's size or depth. At step j (j leaves) the score sets hold
    ceil(M_S(j, delta, eps, n)) pairs per variable, the labelling set ceil(M_LL(j, eps, delta))
    points and the error set ceil(M_EE(j, eps, delta)) points; the best (leaf, variable) pair by
    the estimate of Equation (1) is split until the estimated error of the majority-labelled tree
    is at most 3 eps / 4. With probability >= 1 - delta the returned tree has error <= eps
    (Sec. 5.3). ``size`` is a safety cap on the number of leaves (None: none).

    Parameters
    ----------
    oracle : callable
        The label oracle ``X -> f(X)`` of the target (e.g. :func:`tree_oracle`).
    dist : ProductDistribution
        The product distribution the samples come from.
    eps : float
        The target error, in (0, 1).
    delta : float
        The failure probability, in (0, 1).
    rng : numpy.random.Generator
        The source of every sample.
    size : int, optional
        A safety cap on the number of leaves.
    shared_x : bool, default=False
        False: every score pair (x, x^(i)) has its own x ~ mu. True: one x serves all n variables,
        as the paper's Sec. 5.2 draws them (the estimates of different variables are then
        dependent; each one keeps its distribution, so Lemma 5.2 and the per-pair Chernoff bounds
        are unchanged).
    skip_unchanged : bool, default=True
        True: a pair whose redrawn bit equals the old one (x^(i) = x) is not sent to the oracle.
        False: every f(x) and f(x^(i)) the estimator names is queried, as the paper counts them.
    schedule_scale : float, default=1.0
        Multiplies the three schedules M_S, M_LL, M_EE (1: the paper's). Below 1 the guarantee is
        no longer proved: used to find the sample sizes at which failures start.

    Returns
    -------
    PracticalResult
        ``tree``, the per-step ``trace`` (a DataFrame), the sample counts and ``label_queries``, and
        ``terminated`` (False when the run stopped for lack of a positive score or at ``size``).

    Examples
    --------
    >>> import numpy as np
    >>> from dtcore.cube import ProductDistribution
    >>> from dtcore.tree import DecisionTree
    >>> target = DecisionTree(3)
    >>> left, right = target.split(0, 0)  # the dictator x0
    >>> target.set_value(left, 0.0); target.set_value(right, 1.0)
    >>> result = practical_build_top_down_dt(tree_oracle(target), ProductDistribution(np.full(3, 0.5)),
    ...                                      eps=0.1, delta=0.1, rng=np.random.default_rng(0))
    >>> result.tree.size, result.terminated
    (2, True)
    """
    if not isinstance(dist, ProductDistribution):
        raise ValueError(f"dist must be a ProductDistribution, got {type(dist).__name__}")
    check_int("n", dist.n, 1, MAX_PRACTICAL_VARIABLES)
    eps = check_real("eps", eps, 0.0, 1.0)
    delta = check_real("delta", delta, 0.0, 1.0)
    rng = check_rng(rng)
    if not callable(oracle):
        raise ValueError(f"oracle must be a callable f(X) -> labels, got {type(oracle).__name__}")
    schedule_scale = check_real("schedule_scale", schedule_scale, 0.0, math.inf)
    scorer = PracticalScorer(oracle, dist, eps, delta, rng=rng, shared_x=bool(shared_x),
                             skip_unchanged=bool(skip_unchanged), schedule_scale=schedule_scale)
    result = grow(scorer, stop=scorer.stop, n=dist.n, size=size)
    hist = pd.DataFrame(scorer.history)
    trace = pd.concat([result.trace.reset_index(drop=True), hist], axis=1)
    last = scorer.history[-1]
    return PracticalResult(
        tree=result.tree, trace=trace, score_pairs=int(last["score_pairs"]),
        ll_samples=int(last["ll_samples"]), ee_samples=int(last["ee_samples"]),
        label_queries=int(scorer.label_queries), estimated_error=float(scorer.estimated_error),
        terminated=bool(last["terminate"]),
    )


def tree_oracle(tree: DecisionTree) -> Oracle:
    """The label oracle x -> T(x) of a deterministic target tree (vectorised)."""
    if not isinstance(tree, DecisionTree) or not tree.is_deterministic:
        raise ValueError("tree must be a deterministic DecisionTree to serve as a label oracle")
    return lambda X: tree.predict(check_binary_matrix("X", X, tree.n))
