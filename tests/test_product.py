"""Chapter 4 (Moakhar et al. 2026): product-space lemmas, the robust selector, Algorithm 2."""

from __future__ import annotations

import math

import numpy as np

from dtcore.tree import tree_disagreement
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtcore import analysis, bounds, functions
from dtcore.cube import ProductDistribution, all_points, truth_table
from dtcore.buildtopdown import build_top_down_dt
from dtcore.grow import select_best
from dtcore.grow import select_quarter_adversarial
from dtcore.product import estimate_scores, m_error, m_label, m_score, practical_build_top_down_dt, tree_oracle
from dtcore.audit.oracles import CountingOracle, leaf_label_masses
from dtcore.audit.replay import audit_practical_run, exact_run_record, replay



def _random_setting(seed: int, n: int, size: int):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, size=n)
    dist = ProductDistribution(p)
    tree = functions.random_tree(n, size, rng=rng)
    return tree, tree.truth_table(), dist, rng


# --- schedules and bounds: known values --------------------------------------------------------

def test_schedules_match_formulas():
    j, d, e, n = 3, 0.1, 0.2, 5
    assert m_score(j, d, e, n) == pytest.approx(12 * 4 * 5 / 0.2 * math.log(4 * 9 * 4 * 5 / 0.1))
    assert m_label(j, e, d) == pytest.approx(128 * (4 * math.log(2) + math.log(16 * 9 / 0.1)) / 0.04)
    assert m_error(j, e, d) == pytest.approx(32 / 0.04 * math.log(16 * 9 / 0.1))
    assert m_score(j + 1, d, e, n) > m_score(j, d, e, n)


def test_bounds_known_values():
    # balanced: D = Delta = k gives (e/eps)^(k^2) (Appendix E.1)
    assert bounds.mgbh26_theorem11_size_bound(3, 3, 0.5) == pytest.approx((math.e / 0.5) ** 9)
    assert bounds.mgbh26_log_size_bound(3, 3, 0.5, 4.0) == pytest.approx(36 * math.log(2 * math.e))
    # small eps-independent regime: e^(Delta D) wins when e Delta/(eps D) < e
    assert bounds.mgbh26_theorem11_size_bound(10, 1, 0.5) == pytest.approx(math.exp(10))
    assert bounds.mgbh26_lemma_c1_max_influence_lower(1.0, 1.0) == 0.5
    assert bounds.mgbh26_lemma_c1_max_influence_lower(1.0, 1.0, paper_form=True) == 1.0
    assert bounds.mgbh26_lemma44_score_lower(0.1, 2, 2.0) == pytest.approx(0.025)
    assert bounds.mgbh26_lemma44_score_lower(0.1, 2, 2.0, paper_form=True) == pytest.approx(0.05)
    assert bounds.mgbh26_path_average_depth(30, 0.5) == pytest.approx(2.0, abs=1e-6)


@pytest.mark.parametrize("q", [0.5, 0.3, 0.9])
def test_path_tree_average_depth_closed_form(q):
    k = 6
    tree = functions.path_tree(8, k + 1, rng=np.random.default_rng(0), exit_sides=[1] * k)
    dist = ProductDistribution(np.full(8, q))  # exit on x = 1: probability q per level
    assert tree.depth == k and tree.size == k + 1
    assert tree.average_depth(dist) == pytest.approx(bounds.mgbh26_path_average_depth(k, q))


def test_balanced_tree_shape():
    tree = functions.balanced_tree(7, 3, rng=np.random.default_rng(1))
    assert tree.size == 8 and tree.depth == 3
    assert tree.average_depth(ProductDistribution(np.full(7, 0.1))) == pytest.approx(3.0)


def test_path_tree_every_query_matters():
    rng = np.random.default_rng(3)
    tree = functions.path_tree(6, 5, rng=rng)
    inf = analysis.influences(tree.truth_table(), ProductDistribution(np.full(6, 0.3)), "rerandomised")
    assert (inf > 0).sum() == 4


@pytest.mark.parametrize("bad", [
    lambda: functions.path_tree(4, 6, rng=np.random.default_rng(0)),
    lambda: functions.path_tree(4, 3, rng=np.random.default_rng(0), exit_sides=[0, 2]),
    lambda: bounds.mgbh26_theorem11_size_bound(2, 3, 0.1),
    lambda: bounds.mgbh26_theorem11_size_bound(3, 3, 1.5),
    lambda: m_score(1, 0.1, 0.0, 3),
    lambda: m_label(0, 0.1, 0.1),
    lambda: m_error(1, 0.1, 1.0),
])
def test_bad_arguments(bad):
    with pytest.raises(ValueError):
        bad()


# --- exact lemmas under random product measures (hypothesis) -----------------------------------

@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 7), size=st.integers(2, 12))
def test_exact_lemmas_random_mu(seed, n, size):
    size = min(size, 2**n)
    target, table, dist, _ = _random_setting(seed, n, size)
    inf = analysis.influences(table, dist, "rerandomised")
    var = analysis.variance(table, dist)
    err = analysis.constant_error(table, dist)
    delta = target.average_depth(dist)
    # Lemma C.2: Inf_i <= 2 error <= Var
    assert inf.max() <= 2 * err + 1e-12 and 2 * err <= var + 1e-12
    # Lemma 4.2: Inf <= D Var and Inf <= Delta (in fact <= Delta / 2)
    assert inf.sum() <= target.depth * var + 1e-12
    assert inf.sum() <= delta / 2 + 1e-12
    # Lemma C.1, corrected form (OSSS): max_i Inf_i >= Var / (2 Delta)
    assert inf.max() >= bounds.mgbh26_lemma_c1_max_influence_lower(var, delta) - 1e-12
    # Lemma 4.1 (error <= cost) and Lemma 4.3 (cost drops by the score) along a run
    res = build_top_down_dt(table, eps=0.01, dist=dist, kind="rerandomised")
    tr = res.trace
    assert (tr["error"] <= tr["cost"] + 1e-12).all()
    drops = tr["cost"].to_numpy()[:-1] - tr["cost"].to_numpy()[1:]
    np.testing.assert_allclose(drops, tr["score"].to_numpy()[:-1], atol=1e-12)


def test_lemma_c1_paper_form_fails_on_dictator():
    table = truth_table(lambda X: X[:, 0], 3)
    dist = ProductDistribution.uniform(3)
    inf = analysis.influences(table, dist, "rerandomised")
    var = analysis.variance(table, dist)
    assert inf.max() == pytest.approx(0.5) and var == pytest.approx(1.0)
    assert inf.max() < bounds.mgbh26_lemma_c1_max_influence_lower(var, 1.0, paper_form=True)
    assert inf.max() == pytest.approx(bounds.mgbh26_lemma_c1_max_influence_lower(var, 1.0))  # tight


# --- Theorem 5.1 selector --------------------------------------------------------------------

def test_quarter_selector_choice():
    from dtcore.grow import Frontier, Split
    from dtcore.tree import DecisionTree

    fr = Frontier(DecisionTree(3), [0, 1, 2, 3], [None] * 4,
                  [Split(0.8, 0), Split(0.1, 1), Split(0.25, 2), None])
    assert select_best(fr) == 0
    assert select_quarter_adversarial(fr) == 2  # smallest score >= 0.2
    assert select_quarter_adversarial(Frontier(DecisionTree(3), [0], [None], [None])) is None


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(3, 7))
def test_quarter_adversarial_within_theorem51(seed, n):
    target, table, dist, _ = _random_setting(seed, n, min(8, 2**n))
    eps = 0.05
    res = build_top_down_dt(table, eps=eps, dist=dist, kind="rerandomised", select=select_quarter_adversarial)
    tr = res.trace
    assert tr["error"].iloc[-1] <= eps
    splits = tr[tr["feature"] >= 0]
    assert (tr["error"] <= tr["cost"] + 1e-12).all()
    assert len(splits) + 1 == res.tree.size
    bound = bounds.mgbh26_theorem51_size_bound(target.depth, target.average_depth(dist), eps)
    assert res.tree.size <= bound


# --- Lemma 5.2: the estimator's mean converges to the exact score ------------------------------

def test_estimator_unbiased():
    rng = np.random.default_rng(5)
    n = 6
    target, table, dist, _ = _random_setting(11, n, 8)
    hyp = build_top_down_dt(table, eps=0.01, dist=dist, kind="rerandomised", size=3).tree
    exact = analysis.leaf_statistics(hyp, table, dist, "rerandomised")["weighted_influence"]
    oracle = tree_oracle(target)
    reps = [estimate_scores(hyp, oracle, dist, 4000, rng=rng) for _ in range(40)]
    mean = np.mean(reps, axis=0)
    se = np.std(reps, axis=0, ddof=1) / np.sqrt(len(reps))
    assert np.all(np.abs(mean - exact) <= 5 * se + 1e-4)
    # each entry is a mean of 4000 Bernoullis with success probability = exact score
    np.testing.assert_allclose(np.var(reps, axis=0, ddof=1), exact * (1 - exact) / 4000, rtol=0.6, atol=1e-7)


def test_estimator_zero_on_queried_variable():
    rng = np.random.default_rng(0)
    target = functions.balanced_tree(4, 2, rng=rng)
    dist = ProductDistribution(np.full(4, 0.3))
    est = estimate_scores(target, tree_oracle(target), dist, 2000, rng=rng)
    assert np.all(est[target.leaf_restrictions() >= 0] == 0)
    assert np.all(est == 0)  # on the target's own leaves f is constant


# --- Algorithm 2 ------------------------------------------------------------------------------

def test_algorithm2_deterministic_and_counts():
    target = functions.balanced_tree(6, 2, rng=np.random.default_rng(0))
    dist = ProductDistribution(np.full(6, 0.3))
    a = practical_build_top_down_dt(tree_oracle(target), dist, eps=0.2, delta=0.1, rng=np.random.default_rng(4))
    b = practical_build_top_down_dt(tree_oracle(target), dist, eps=0.2, delta=0.1, rng=np.random.default_rng(4))
    assert a.tree.to_text() == b.tree.to_text() and a.label_queries == b.label_queries
    j = a.tree.size
    assert a.trace["pairs_per_variable"].iloc[-1] == math.ceil(m_score(j, 0.1, 0.2, 6))
    assert a.ll_samples == math.ceil(m_label(j, 0.2, 0.1))
    assert a.ee_samples == math.ceil(m_error(j, 0.2, 0.1))
    assert a.terminated
    assert a.label_queries <= 2 * a.score_pairs + a.ll_samples + a.ee_samples
    assert list(a.trace["j"]) == list(range(1, j + 1))


def test_algorithm2_error_at_most_eps_most_runs():
    """Sec. 5.3: error <= eps with probability >= 1 - delta; we require >= 18 of 20 runs (delta = 0.1)."""
    eps, delta, n = 0.15, 0.1, 8
    good = 0
    for r in range(20):
        rng = np.random.default_rng(100 + r)
        p = [0.5, 0.3, 0.1][r % 3]
        target = functions.balanced_tree(n, 3, rng=rng) if r % 2 else functions.path_tree(n, 8, rng=rng)
        dist = ProductDistribution(np.full(n, p))
        res = practical_build_top_down_dt(tree_oracle(target), dist, eps=eps, delta=delta, rng=rng)
        good += tree_disagreement(res.tree, target, dist) <= eps
    assert good >= 18


@pytest.mark.parametrize("kw, name", [
    ({"eps": 0.0}, "eps"), ({"eps": 1.0}, "eps"), ({"delta": 0.0}, "delta"),
    ({"delta": 1.5}, "delta"),
])
def test_algorithm2_bad_parameters(kw, name):
    target = functions.balanced_tree(3, 2, rng=np.random.default_rng(0))
    args = {"eps": 0.2, "delta": 0.1, **kw}
    with pytest.raises(ValueError, match=name):
        practical_build_top_down_dt(tree_oracle(target), ProductDistribution.uniform(3),
                                    rng=np.random.default_rng(0), **args)


@pytest.mark.parametrize("p", [0.0, 1.0, -0.2, 1.3])
def test_bad_bias(p):
    with pytest.raises(ValueError, match="p"):
        ProductDistribution(np.full(4, p))


def test_gated_majority_refutes_lemma44_delta_form():
    """f = x0 and Maj_9 under Pr[x0 = 1] = 0.02: Delta(f_leaf) > Delta_opt breaks Lemma 4.4's Delta form."""
    k, q = 9, 0.02
    tree = functions.gated_majority_tree(k)
    X = np.array([[1] + [1] * 5 + [0] * 4, [0] + [1] * 9, [1] + [0] * 5 + [1] * 4], dtype=np.uint8)
    np.testing.assert_array_equal(tree.predict(X), [1, 0, 0])
    dist = ProductDistribution([q] + [0.5] * k)
    f = tree.truth_table()
    eps = 0.9 * analysis.constant_error(f, dist)
    D, avg = tree.depth, tree.average_depth(dist)
    assert D == k + 1 and avg < 1.2
    steps = build_top_down_dt(f, eps=eps, dist=dist, kind="rerandomised").trace.query("feature >= 0")
    j = steps["leaves"].to_numpy()
    assert (steps["score"] / bounds.mgbh26_lemma44_score_lower(eps, j, avg)).min() < 0.75  # Delta-form fails
    assert (steps["score"] / bounds.mgbh26_lemma44_score_lower(eps, j, D)).min() >= 1      # D-form holds
    assert (steps["score"] / bounds.mgbh26_lemma45_score_lower(steps["cost"], j, D, D)).min() >= 1
    with pytest.raises(ValueError, match="k"):
        functions.gated_majority_tree(4)


# --- measuring runs from the outside -----------------------------------------------------------

def test_replay_under_a_product_measure_matches_scorer_trace():
    tree, f, dist, _ = _random_setting(5, 7, 12)
    run = build_top_down_dt(f, eps=0.05, dist=dist, kind="rerandomised")
    rep = replay(run.tree, run.trace, f, dist, kind="rerandomised")
    np.testing.assert_allclose(rep["cost"], run.trace["cost"], atol=1e-12)
    np.testing.assert_allclose(rep["error"], run.trace["error"], atol=1e-12)
    steps = rep.iloc[:-1]
    np.testing.assert_allclose(steps["selected_score"], steps["best_score"], atol=1e-12)  # greedy


def test_exact_run_record_adversarial_share_and_error():
    tree, f, dist, _ = _random_setting(6, 7, 10)
    row = exact_run_record(tree, dist, 0.1, adversarial=True)
    assert row["min_share"] >= 0.25 - 1e-12
    assert row["final_error"] <= 0.1 + 1e-12
    greedy = exact_run_record(tree, dist, 0.1)
    assert greedy["max_greedy_gap"] <= 1e-12 and greedy["l44_Dform"] >= 1


def test_leaf_label_masses_against_truth_table():
    rng = np.random.default_rng(2)
    dist = ProductDistribution(rng.uniform(0.1, 0.9, size=6))
    target = functions.random_tree(6, 9, rng=rng)
    hyp = functions.random_tree(6, 5, rng=rng)
    masses = leaf_label_masses(hyp, target, dist)
    w, f = dist.point_weights(), target.truth_table()
    leaves = hyp.leaves()
    pos = np.searchsorted(leaves, hyp.apply(np.array(all_points(6))))
    for b in (0, 1):
        expected = np.bincount(pos, weights=w * (f == b), minlength=len(leaves))
        np.testing.assert_allclose(masses[:, b], expected, atol=1e-12)


def test_audit_and_counting_oracle():
    rng = np.random.default_rng(4)
    target = functions.balanced_tree(6, 2, rng=rng)
    dist = ProductDistribution(np.full(6, 0.3))
    oracle = CountingOracle(tree_oracle(target))
    res = practical_build_top_down_dt(oracle, dist, eps=0.2, delta=0.1, rng=rng)
    assert oracle.queries == res.label_queries
    audit = audit_practical_run(res, target, dist)
    assert audit["error"] == pytest.approx(tree_disagreement(res.tree, target, dist), abs=1e-12)
    assert audit["best_error"] == pytest.approx(analysis.completion_error(res.tree, target.truth_table(), dist), abs=1e-12)
    assert audit["best_error"] <= audit["error"] + 1e-12


def test_schedules_agree_with_the_lemmas_they_come_from():
    j, d, e, n = 4, 0.1, 0.15, 7
    assert bounds.mgbh26_score_pairs_needed(j, d, e, n) == pytest.approx(m_score(j, d, e, n))
    assert bounds.mgbh26_label_points_needed(j, e, d) == pytest.approx(m_label(j, e, d))
    assert bounds.mgbh26_error_points_needed(j, e, d) == pytest.approx(m_error(j, e, d))
    assert bounds.mgbh26_error_estimate_deviation(m_error(j, e, d), j, d) == pytest.approx(e / 8)
    assert bounds.mgbh26_lemma53_label_gap(j + 1, j, d, m_label(j, e, d)) == pytest.approx(e / 8)
    assert bounds.mgbh26_lemma46_phase1_steps(2, 1.0, 0.6) == 1.0
    assert bounds.mgbh26_lemma46_phase1_steps(2, 2.0, 0.25) == pytest.approx(4.0 ** 4)
    assert bounds.mgbh26_lemma47_total_steps(2, 2, 1.0) == pytest.approx(2 * math.e ** 2)
    with pytest.raises(ValueError, match="phase1_steps"):
        bounds.mgbh26_lemma47_total_steps(0, 2, 1.0)


# --- the paper's drawing of score pairs (shared x, every pair queried), as keyword options ----------

def test_practical_variants_label_counts_and_default_unchanged():
    target = functions.balanced_tree(6, 2, rng=np.random.default_rng(0))
    dist = ProductDistribution(np.full(6, 0.3))
    kw = dict(eps=0.3, delta=0.2)
    default = practical_build_top_down_dt(tree_oracle(target), dist, rng=np.random.default_rng(1), **kw)
    explicit = practical_build_top_down_dt(tree_oracle(target), dist, rng=np.random.default_rng(1), shared_x=False,
                                           skip_unchanged=True, schedule_scale=1.0, **kw)
    assert default.label_queries == explicit.label_queries and default.tree.size == explicit.tree.size
    no_skip = practical_build_top_down_dt(tree_oracle(target), dist, rng=np.random.default_rng(1),
                                          skip_unchanged=False, **kw)
    # same draws, same estimates and tree; every pair now costs two labels
    assert no_skip.tree.size == default.tree.size
    assert no_skip.label_queries - no_skip.ll_samples - no_skip.ee_samples == 2 * no_skip.score_pairs
    shared = practical_build_top_down_dt(tree_oracle(target), dist, rng=np.random.default_rng(1), shared_x=True,
                                         skip_unchanged=False, **kw)
    # one f(x) per drawn x plus one f(x^(i)) per variable: 7 labels per 6 pairs
    assert 6 * (shared.label_queries - shared.ll_samples - shared.ee_samples) == 7 * shared.score_pairs
    smaller = practical_build_top_down_dt(tree_oracle(target), dist, rng=np.random.default_rng(1),
                                          schedule_scale=0.25, **kw)
    assert smaller.ee_samples < default.ee_samples
    with pytest.raises(ValueError, match="schedule_scale"):
        practical_build_top_down_dt(tree_oracle(target), dist, rng=np.random.default_rng(1), schedule_scale=0.0, **kw)


# --- Algorithm 2's first split, many runs at once ---------------------------------------------

def _and_not_member():
    """x0 ∧ ¬x1 with p = (0.904, 0.4): the best pair x1, one rival x0 at 0.24 of it, eps just under the error."""
    table = truth_table(lambda X: X[:, 0] & (1 - X[:, 1]), 2).astype(np.int8)
    dist = ProductDistribution([0.904, 0.4])
    return table, dist, analysis.constant_error(table, dist) * (1 - 1e-6)


def test_first_splits_dictator_always_splits_its_variable():
    from dtcore.product import practical_first_splits
    table = truth_table(lambda X: X[:, 0], 3)
    oracle = lambda X: table[X @ (1 << np.arange(3))]
    first = practical_first_splits(oracle, ProductDistribution.uniform(3), eps=0.1, delta=0.1, runs=50,
                                   rng=np.random.default_rng(0))
    assert first["scores"].shape == (50, 3) and (first["scores"][:, 1:] == 0).all()
    assert (first["feature"] == 0).all() and not first["stopped"].any()


def test_first_splits_estimates_are_unbiased_and_sized_by_the_schedule():
    from dtcore.product import practical_first_splits
    table, dist, eps = _and_not_member()
    oracle = lambda X: table[X @ (1 << np.arange(2))]
    first = practical_first_splits(oracle, dist, eps=eps, delta=0.1, runs=400, rng=np.random.default_rng(1))
    pairs = math.ceil(m_score(1, 0.1, eps, 2))
    exact = analysis.influences(table, dist, "rerandomised")
    # each estimate is a count over the pairs of one run: a multiple of 1/pairs, mean the exact score (Lemma 5.2)
    np.testing.assert_allclose(first["scores"] * pairs, np.round(first["scores"] * pairs), atol=1e-9)
    se = np.sqrt(exact * (1 - exact) / pairs / 400)
    assert (np.abs(first["scores"].mean(axis=0) - exact) <= 5 * se).all()
    with pytest.raises(ValueError, match="runs"):
        practical_first_splits(oracle, dist, eps=eps, delta=0.1, runs=0, rng=np.random.default_rng(1))


def test_first_splits_agree_with_algorithm2_run_by_run_in_distribution():
    """At 1/200 of the schedules the rival x0 wins often: the share of first splits on x0, and of runs that stop
    at once, agree between the batch and separate runs of Algorithm 2 (two binomial counts, 4.5 s.d.)."""
    from dtcore.product import practical_first_splits
    table, dist, eps = _and_not_member()
    oracle = lambda X: table[X @ (1 << np.arange(2))]
    runs, scale = 300, 1 / 200
    first = practical_first_splits(oracle, dist, eps=eps, delta=0.1, runs=runs, rng=np.random.default_rng(2),
                                   schedule_scale=scale)
    rng = np.random.default_rng(3)
    chosen = []
    for _ in range(runs):  # separate runs, capped at their first split
        res = practical_build_top_down_dt(oracle, dist, eps=eps, delta=0.1, rng=rng, size=2,
                                          schedule_scale=scale)
        chosen.append(int(res.tree.feature[0]) if res.tree.size > 1 else -1)
    chosen = np.array(chosen)
    for batch, single in (((first["feature"] == 0).mean(), (chosen == 0).mean()),
                          ((first["feature"] == -1).mean(), (chosen == -1).mean())):
        pooled = (batch + single) / 2
        assert abs(batch - single) <= 4.5 * math.sqrt(max(pooled * (1 - pooled), 1e-4) * 2 / runs)
    assert (first["feature"] == 0).sum() > 10  # the regime tested is one with bad picks
